package ordering

import (
	"cmp"
	"go/token"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// closedBefore orders a before b when b runs only past a receive from a
// channel that found it closed (the end of a range over the channel, or
// the !ok branch of v, ok := <-ch) and every close of the channel runs
// after a, as in pion/transport's stress test:
//
//	go func() { write(bufs); errCh <- err; close(bufs) }()
//	go func() { for buf := range bufs { ... }; close(errCh) }()
//
// Unlike channelBefore it asks nothing of the sends: the Go memory model
// synchronizes the closing of a channel before a receive that returns
// because the channel is closed, and such a receive returns only after
// the close, whatever was sent before it. A channel is closed at most once
// (a second close panics), so when several goroutines of ca may close one
// shared channel the close b saw may be another goroutine's: that is
// refused, as channelBefore refuses a shared send outside a receive loop.
// The closes are those the package makes on the channel's location; a
// channel without one in the package is left alone (its closer is
// elsewhere).
func (r *Result) closedBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	recvs := r.closedReceives(b, cb)
	for _, ch := range inOrder(recvs) {
		recv := recvs[ch]
		ok := all(r.ops.closes[ch], func(x ssa.Instruction) bool {
			if f, ok := r.ops.fieldClose[x]; ok && f != ch {
				return r.fieldCloseAfter(a, ca, x, recv)
			}
			if r.relayed(a, ca, x) {
				return true
			}
			for _, c := range r.gr.Of(x.Parent()) {
				if c != ca || !r.before(a, x, ca, MaxCallDepth) {
					return false
				}
			}
			return !ca.Multi || !r.sharedSend(x, ch, ca)
		})
		if ok {
			return Edge{Rule: Channel, Pos: recv.Pos()}, true
		}
	}
	return Edge{}, false
}

// closedReceives returns, for each channel that the package closes, a
// receive from it whose closed branch b runs only past, on cb. It is
// computed once per (b, cb), as receivesBefore is.
func (r *Result) closedReceives(b ssa.Instruction, cb *goroutines.Context) map[sharedloc.Loc]ssa.Instruction {
	return r.receivesMemo(&r.closed, b, cb, r.ops.closes, func(j ssa.Instruction) bool {
		at := closedBranch(j)
		return at != nil && (at == b || r.after(at, b, cb, MaxCallDepth))
	})
}

// closedBranch returns the first instruction of the branch that the
// comma-ok receive j takes when it finds its channel closed, or nil when
// there is no such branch that only that edge enters. go/ssa builds a
// range over a channel as such a receive and an If on its ok; a break out
// of the loop enters the same block by another edge, so such a loop has
// no closed branch of its own.
func closedBranch(j ssa.Instruction) ssa.Instruction {
	recv, ok := j.(*ssa.UnOp)
	if !ok || recv.Op != token.ARROW || !recv.CommaOk {
		return nil
	}
	for _, ref := range *recv.Referrers() {
		ex, ok := ref.(*ssa.Extract)
		if !ok || ex.Index != 1 {
			continue
		}
		for _, u := range *ex.Referrers() {
			switch u := u.(type) {
			case *ssa.If:
				if at := branchStart(u, 1); at != nil {
					return at
				}
			case *ssa.UnOp: // if !ok
				if u.Op != token.NOT {
					continue
				}
				for _, uu := range *u.Referrers() {
					if ifi, ok := uu.(*ssa.If); ok {
						if at := branchStart(ifi, 0); at != nil {
							return at
						}
					}
				}
			}
		}
	}
	return nil
}

// branchStart returns the first instruction of ifi's successor succ when
// ifi's block is its only predecessor (so the instruction runs only past
// that edge), or nil.
func branchStart(ifi *ssa.If, succ int) ssa.Instruction {
	blk := ifi.Block().Succs[succ]
	if len(blk.Preds) != 1 || len(blk.Instrs) == 0 || ifi.Block().Succs[0] == ifi.Block().Succs[1] {
		return nil
	}
	return blk.Instrs[0]
}

// inOrder returns the channels of recvs in the order of their receives'
// positions, then of their names: the first channel that orders a pair
// names its edge, and map order let two runs name different ones.
func inOrder(recvs map[sharedloc.Loc]ssa.Instruction) []sharedloc.Loc {
	chs := make([]sharedloc.Loc, 0, len(recvs))
	for ch := range recvs {
		chs = append(chs, ch)
	}
	slices.SortFunc(chs, func(x, y sharedloc.Loc) int {
		if c := cmp.Compare(recvs[x].Pos(), recvs[y].Pos()); c != 0 {
			return c
		}
		return cmp.Compare(x.String(), y.String())
	})
	return chs
}

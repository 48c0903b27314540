package ordering

import (
	"go/token"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
)

// joinerOrdered reports whether a, on a goroutine that a function F
// starts and counts on a WaitGroup local to F, never overlaps b, which
// follows a receive from the channel a call of F returns, which F made
// and which only a joiner closes: another goroutine F starts, that closes
// it after a Wait on that WaitGroup (etcd's waitCancelSubstreams):
//
//	func (w *W) waitCancel() <-chan struct{} {
//		var wg sync.WaitGroup
//		wg.Add(len(w.resuming))
//		donec := make(chan struct{})
//		for _, ws := range w.resuming {
//			go func(ws *stream) { defer wg.Done(); a(ws) }(ws)
//		}
//		go func() { defer close(donec); wg.Wait() }()
//		return donec
//	}
//	donec := w.waitCancel(); ...; <-donec; b()
//
// One run of F makes one WaitGroup and one channel (the closures capture
// them), so the joiner of a run waits for the goroutines of that run
// (counted by Adds that F makes before the joiner starts) and closes that
// run's channel, which the receive, taking the call's own result, waits
// for. Every run of F is such a call on b's goroutine: F runs only on cb,
// one goroutine, at that one call site, whose receive follows the call on
// every path out of it, on every path from it to b (in the receive's
// function) and before the call runs again. So the goroutines of every
// run that started before b were joined before b, and those of a later
// run start after b: the direction depends on the run, so only Ordered
// asks (a send of a later run after b's close is not before it).
func (r *Result) joinerOrdered(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	site, ok := ca.Site.(*ssa.Go)
	if !ok || ca.Kind == goroutines.Caller || cb.Multi || ca == cb {
		return Edge{}, false
	}
	fn := site.Parent()
	if parents := r.gr.Of(fn); len(parents) != 1 || parents[0] != cb {
		return Edge{}, false
	}
	var wg *ssa.Alloc // F's WaitGroup that a's goroutine is joined on
	for _, obj := range r.doneObjects(ca) {
		dones := r.ops.dones[obj]
		if !r.doneAfter(a, ca, dones) || r.addsItself(ca, obj) {
			continue
		}
		if cell := r.onlyCell(dones, fn); cell != nil {
			wg = cell
			break
		}
	}
	if wg == nil {
		return Edge{}, false
	}
	for ch, recvs := range r.recvsOn(b.Parent(), cb) {
		for _, j := range recvs {
			u, ok := j.(*ssa.UnOp)
			if !ok || u.Op != token.ARROW {
				continue
			}
			call, made := returnedChannel(u)
			if call == nil || call.Call.StaticCallee() != fn || call.Parent() != u.Parent() {
				continue
			}
			if sites := r.callSites(fn, cb); len(sites) != 1 || sites[0] != ssa.Instruction(call) {
				continue
			}
			flow := r.gr.Flow
			if b.Parent() != u.Parent() || !flow.PostDominates(u, call) || flow.MayFollowAvoiding(call, call, u) ||
				flow.MayFollowAvoiding(call, b, u) || !r.received(j, b, cb) {
				continue
			}
			sends := r.ops.sends[ch]
			if len(sends) > 0 && all(sends, func(x ssa.Instruction) bool { return r.joinerClose(x, made, wg, site) }) {
				return Edge{Rule: Join, Pos: u.Pos()}, true
			}
		}
	}
	return Edge{}, false
}

// onlyCell returns the local variable of fn (a WaitGroup) that every one of
// the calls reaches through its receiver, or nil.
func (r *Result) onlyCell(calls []ssa.Instruction, fn *ssa.Function) *ssa.Alloc {
	var cell *ssa.Alloc
	for _, c := range calls {
		args := c.(ssa.CallInstruction).Common().Args
		if len(args) == 0 {
			return nil
		}
		x := ssavalue.Cell(args[0])
		if x == nil || x.Parent() != fn || cell != nil && x != cell {
			return nil
		}
		cell = x
	}
	return cell
}

// joinerClose reports whether x, a send or close on the channel that F
// made (made), is a close by a joiner: a goroutine that F starts, whose
// entry closes F's own channel only after a Wait on wg, F's WaitGroup,
// every Add on which F makes before it starts the joiner (so before the
// Wait: the goroutines of site, wherever F starts them, are counted).
func (r *Result) joinerClose(x ssa.Instruction, made ssa.Value, wg *ssa.Alloc, site *ssa.Go) bool {
	call, ok := x.(ssa.CallInstruction)
	if !ok || len(call.Common().Args) != 1 {
		return false // a send: a receive may take it before the Wait
	}
	fn := site.Parent()
	if ownChannel(ssavalue.Unconverted(call.Common().Args[0]), fn) != made {
		return false
	}
	flow := r.gr.Flow
	ctxs := r.gr.Of(x.Parent())
	if len(ctxs) == 0 {
		return false
	}
	for _, cx := range ctxs {
		start, ok := cx.Site.(*ssa.Go)
		if !ok || start.Parent() != fn || cx.Entry != x.Parent() {
			return false
		}
		waited := false
		for obj, waits := range r.ops.waits {
			for _, w := range waits {
				if w.Parent() != x.Parent() || !r.isWait(w) || r.onlyCell([]ssa.Instruction{w}, fn) != wg || !r.after(w, x, cx, MaxCallDepth) {
					continue
				}
				adds := r.ops.adds[obj]
				if r.onlyCell(adds, fn) == wg && all(adds, func(add ssa.Instruction) bool {
					return add.Parent() == fn && !flow.MayFollow(start, add)
				}) {
					waited = true
				}
			}
		}
		if !waited {
			return false
		}
	}
	return true
}

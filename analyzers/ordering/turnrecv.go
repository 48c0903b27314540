package ordering

import (
	"go/token"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// turnOrdered orders two sends or closes of one channel made by two
// goroutines of one Multi context, when the function that starts them
// starts one per turn of a loop and waits, before the next start, for
// that goroutine's one send or close (golang-queue's worker loop):
//
//	tasks := make(chan Task, 1)
//	for {
//		run(func() { // the context's start, once per turn
//			if t := request(); t != nil {
//				tasks <- t
//				return
//			}
//			close(tasks)
//		})
//		task, ok := <-tasks // on every path back to the start
//		if !ok {
//			return // a close lets receives through: the loop ends
//		}
//		...
//	}
//
// The channel is made by the starting function, so each of its runs has
// its own; every send and close on it is made by the goroutines of the
// context, each at most once (no send or close of its function may follow
// another, or itself); every path from the start back to it passes a
// receive from the channel, a plain one, and when some goroutine closes
// the channel, the branch where that receive found it closed never
// reaches the start again. By induction on the turns, the k-th receive
// takes the k-th goroutine's send (the earlier ones were taken by the
// earlier receives), so the k-th goroutine's send or close happens before
// the next start, and before all the next goroutine does. Which of the
// two goroutines comes first depends on the run.
func (r *Result) turnOrdered(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	if ca != cb || !ca.Multi || ca.Site == nil || a.Parent() != ca.Entry || b.Parent() != ca.Entry {
		return Edge{}, false
	}
	start := ca.Site
	fn := start.Parent()
	if !r.gr.Flow.InLoop(start) {
		return Edge{}, false
	}
	ch, mk, ok := r.turnChan(a, fn)
	if !ok {
		return Edge{}, false
	}
	if ch2, mk2, ok := r.turnChan(b, fn); !ok || ch2 != ch || mk2 != mk {
		return Edge{}, false
	}
	for _, x := range r.ops.sends[ch] {
		if x.Parent() != ca.Entry {
			return Edge{}, false
		}
		for _, y := range r.ops.sends[ch] {
			if r.gr.Flow.MayFollow(x, y) {
				return Edge{}, false // two sends (or closes) in one run
			}
		}
	}
	closes := len(r.ops.closes[ch]) > 0
	for _, j := range r.ops.recvs[ch] {
		recv, ok := j.(*ssa.UnOp)
		if !ok || recv.Op != token.ARROW || j.Parent() != fn || r.ops.caseStart[j] {
			continue
		}
		if r.gr.Flow.MayFollowAvoiding(start, start, j) {
			continue // a turn that skips this receive
		}
		if closes {
			// A close lets receives through without sends: the branch
			// that found the channel closed must leave the loop.
			at := closedBranch(recv)
			if at == nil || at == start || r.gr.Flow.MayFollow(at, start) {
				continue
			}
		}
		return Edge{Rule: Channel, Pos: j.Pos()}, true
	}
	return Edge{}, false
}

// turnBefore is turnOrdered with a direction: when b closes the channel,
// its goroutine is the last to start (the loop ends at the receive that
// finds the channel closed), so a, on an earlier one, happens before it.
func (r *Result) turnBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	closes := false
	for _, acc := range r.shared.ByInstr[b] {
		closes = closes || acc.Op == sharedloc.ChanClose
	}
	if !closes {
		return Edge{}, false
	}
	return r.turnOrdered(a, ca, b, cb)
}

// turnChan returns the channel location that x sends on or closes, and
// the make in fn that every value of its channel operand comes from.
func (r *Result) turnChan(x ssa.Instruction, fn *ssa.Function) (sharedloc.Loc, ssa.Value, bool) {
	for _, acc := range r.shared.ByInstr[x] {
		if acc.Op != sharedloc.ChanSend && acc.Op != sharedloc.ChanClose {
			continue
		}
		srcs := ssavalue.Sources(acc.Ptr)
		if len(srcs) != 1 {
			return sharedloc.Loc{}, nil, false
		}
		mk, ok := srcs[0].(*ssa.MakeChan)
		if !ok || mk.Parent() != fn {
			return sharedloc.Loc{}, nil, false
		}
		return acc.Loc, mk, true
	}
	return sharedloc.Loc{}, nil, false
}

package ordering

import (
	"go/token"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// drainBefore orders a, on ca, before b, on cb, through a buffered channel
// used as a counting semaphore that cb fills to its capacity to wait for
// the goroutines it bounds (go-internal's lockedfile tests):
//
//	sem := make(chan bool, parallel)
//	for n := attempts; n > 0; n-- {
//		sem <- true
//		go func() {
//			defer func() { <-sem }()
//			work() // a
//		}()
//	}
//	for n := parallel; n > 0; n-- {
//		sem <- true
//	}
//	return // b
//
// The Go memory model: "the kth receive on a channel with capacity C is
// synchronized before the completion of the k+Cth send from that
// channel". Each goroutine of ca was started after one send of cb (the
// send just before its `go` statement, in its block), so when the drain's
// last send completes, with at least C sends of its own after all of
// those, at least as many receives as goroutines have run; every receive
// runs on ca, once per goroutine, after a: so every goroutine has run a.
// It holds when ca's `go` statement runs in b's function, after a plain
// send on ch in its own block, and cannot run again once the drain began;
// the channel is the package's own (localChan), made with a constant
// capacity C, never closed, never sent on or received from in a select;
// its one receive is a plain one that runs once per goroutine of ca (not
// in a loop, in a function that does not repeat), after a with no run of
// a after it; and b runs past a counted loop of b's function that sends
// on ch at least C times (ssaflow.Graph.CountedLoop: `for n := C; n > 0;
// n--`, `for range cap(sem)`). Sending more
// than C or more than one token a goroutine only asks for more receives
// before the drain ends.
func (r *Result) drainBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	start, ok := ca.Site.(*ssa.Go)
	if ca == cb || !ok || start.Parent() != b.Parent() {
		return Edge{}, false
	}
	for _, instr := range start.Block().Instrs {
		if instr == ssa.Instruction(start) {
			break
		}
		taken, ok := instr.(*ssa.Send)
		if !ok {
			continue
		}
		ch, ok := r.sentOn(taken)
		if !ok {
			continue
		}
		xs := r.ops.sends[ch]
		if !plainSends(xs) {
			continue
		}
		c, ok := capacity(taken.Chan, ssavalue.MaxDepth)
		if !ok || c <= 0 || !localChan(taken.Chan, ssavalue.MaxDepth) || !r.releasedOnceAfter(a, ca, ch) {
			continue
		}
		bound := func(v ssa.Value) (int64, bool) { return boundOf(v, c) }
		for _, x := range xs {
			if x.Block() == start.Block() || r.gr.Flow.MayFollow(x, start) {
				continue
			}
			n, exit, ok := r.gr.Flow.CountedLoop(x, bound)
			if ok && int64(n) >= c && (b.Block() == exit || r.after(exit.Instrs[0], b, cb, MaxCallDepth)) {
				return Edge{Rule: Channel, Pos: x.Pos()}, true
			}
		}
	}
	return Edge{}, false
}

// sentOn returns the channel location that send sends on.
func (r *Result) sentOn(send *ssa.Send) (sharedloc.Loc, bool) {
	for _, acc := range r.shared.ByInstr[send] {
		if acc.Op == sharedloc.ChanSend {
			return acc.Loc, true
		}
	}
	return sharedloc.Loc{}, false
}

// plainSends reports whether xs, the sends and closes of one channel, are
// all plain sends: the channel is never closed, nor sent on in a select.
func plainSends(xs []ssa.Instruction) bool {
	return all(xs, func(x ssa.Instruction) bool {
		_, ok := x.(*ssa.Send)
		return ok
	})
}

// releasedOnceAfter reports whether ch's receives are one plain receive
// that runs on ca, once per goroutine, after a, with no run of a after
// it.
func (r *Result) releasedOnceAfter(a ssa.Instruction, ca *goroutines.Context, ch sharedloc.Loc) bool {
	recvs := r.ops.recvs[ch]
	if len(recvs) != 1 {
		return false
	}
	j := recvs[0]
	u, ok := j.(*ssa.UnOp)
	if !ok || u.Op != token.ARROW || u.CommaOk {
		return false
	}
	fn := j.Parent()
	ctxs := r.gr.Of(fn)
	return len(ctxs) == 1 && ctxs[0] == ca && !r.gr.Repeats(fn) && !r.gr.Flow.InLoop(j) &&
		r.before(a, j, ca, MaxCallDepth) && !r.rerunAfter(a, j, ca, MaxCallDepth)
}

// boundOf returns a loop bound's value: an integer constant, or cap of a
// channel made with capacity c.
func boundOf(v ssa.Value, c int64) (int64, bool) {
	if k, ok := ssaflow.IntConst(v); ok {
		return k, true
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return 0, false
	}
	if fn, ok := call.Call.Value.(*ssa.Builtin); !ok || fn.Name() != "cap" || len(call.Call.Args) != 1 {
		return 0, false
	}
	n, ok := capacity(call.Call.Args[0], ssavalue.MaxDepth)
	return n, ok && n == c
}

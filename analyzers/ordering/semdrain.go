package ordering

import (
	"go/constant"
	"go/token"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
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
// a after it; and b runs after a send on ch that a counted loop of b's
// function, whose body has no way out but the loop's test, makes at least
// C times (`for n := C; n > 0; n--`, `for range cap(sem)`). Sending more
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
		for _, x := range xs {
			d, ok := x.(*ssa.Send)
			if !ok || d.Block() == start.Block() || reaches(d.Block(), start.Block()) {
				continue
			}
			if exit := drained(d, c); exit != nil && (b.Block() == exit || r.after(exit.Instrs[0], b, cb, MaxCallDepth)) {
				return Edge{Rule: Channel, Pos: d.Pos()}, true
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
	return len(ctxs) == 1 && ctxs[0] == ca && !r.gr.Repeats(fn) && !reaches(j.Block(), j.Block()) &&
		r.before(a, j, ca, MaxCallDepth) && !r.rerunAfter(a, j, ca, MaxCallDepth)
}

// drained returns the block that the loop of send d goes on to when it
// has ended, if d is in the first block of a counted loop's body, a loop
// that runs at least c times (c > 0) and whose body leaves it only
// through the loop's test (or a panic): a `for` loop whose test block
// comes before the body, or a range over an integer, which the body's one
// block tests at its end, entered only past a test that init < bound. It
// returns nil otherwise, or if another block leads to that block too.
func drained(d *ssa.Send, c int64) *ssa.BasicBlock {
	body := d.Block()
	if n, ok := rotatedTripCount(body, c); ok {
		exit := body.Succs[1]
		guard := body.Preds[0]
		if guard == body {
			guard = body.Preds[1]
		}
		if n < c || len(exit.Preds) != 2 || !slices.Contains(exit.Preds, guard) || !slices.Contains(exit.Preds, body) ||
			!guards(guard, body, exit) {
			return nil
		}
		return exit
	}
	if len(body.Preds) != 1 {
		return nil
	}
	head := body.Preds[0]
	n, ok := tripCount(head, body, c)
	if !ok || n < c {
		return nil
	}
	// The body's blocks, short of the head, lead nowhere but back to it.
	exit := head.Succs[1]
	seen := map[*ssa.BasicBlock]bool{body: true}
	work := []*ssa.BasicBlock{body}
	for len(work) > 0 {
		blk := work[len(work)-1]
		work = work[:len(work)-1]
		if _, ret := blk.Instrs[len(blk.Instrs)-1].(*ssa.Return); ret {
			return nil
		}
		for _, s := range blk.Succs {
			if s != head && !seen[s] {
				seen[s] = true
				work = append(work, s)
			}
		}
	}
	if seen[exit] || len(exit.Preds) != 1 {
		return nil
	}
	return exit
}

// tripCount returns the number of times the loop whose test ends block
// head runs its body (head's first successor): the test compares an
// induction variable, a Phi of head that starts at a constant and steps
// by one, with a constant or with cap of a channel of capacity c.
func tripCount(head, body *ssa.BasicBlock, c int64) (int64, bool) {
	test, ok := head.Instrs[len(head.Instrs)-1].(*ssa.If)
	if !ok || len(head.Succs) != 2 || head.Succs[0] != body {
		return 0, false
	}
	cmp, ok := test.Cond.(*ssa.BinOp)
	if !ok {
		return 0, false
	}
	phi, ok := cmp.X.(*ssa.Phi)
	if !ok || phi.Block() != head || len(phi.Edges) != 2 {
		return 0, false
	}
	bound, ok := boundOf(cmp.Y, c)
	if !ok {
		return 0, false
	}
	var init, step int64
	var haveInit, haveStep bool
	for _, e := range phi.Edges {
		if k, ok := intConst(e); ok {
			init, haveInit = k, true
			continue
		}
		inc, ok := e.(*ssa.BinOp)
		if !ok || inc.X != phi {
			return 0, false
		}
		k, ok := intConst(inc.Y)
		if !ok || k != 1 || inc.Op != token.ADD && inc.Op != token.SUB {
			return 0, false
		}
		step, haveStep = 1, true
		if inc.Op == token.SUB {
			step = -1
		}
	}
	if !haveInit || !haveStep {
		return 0, false
	}
	switch {
	case cmp.Op == token.LSS && step == 1:
		return bound - init, true
	case cmp.Op == token.LEQ && step == 1:
		return bound - init + 1, true
	case cmp.Op == token.GTR && step == -1:
		return init - bound, true
	case cmp.Op == token.GEQ && step == -1:
		return init - bound + 1, true
	}
	return 0, false
}

// rotatedTripCount returns the number of times the one-block loop body
// runs when it tests at its end whether to run again, as a range over an
// integer does (`for range cap(sem)`: i := phi [init, i+1]; if i+1 <
// bound goto body), entered only when init < bound.
func rotatedTripCount(body *ssa.BasicBlock, c int64) (int64, bool) {
	test, ok := body.Instrs[len(body.Instrs)-1].(*ssa.If)
	if !ok || len(body.Succs) != 2 || body.Succs[0] != body || len(body.Preds) != 2 {
		return 0, false
	}
	cmp, ok := test.Cond.(*ssa.BinOp)
	if !ok || cmp.Op != token.LSS {
		return 0, false
	}
	inc, ok := cmp.X.(*ssa.BinOp)
	if !ok || inc.Op != token.ADD {
		return 0, false
	}
	phi, ok := inc.X.(*ssa.Phi)
	if !ok || phi.Block() != body || len(phi.Edges) != 2 {
		return 0, false
	}
	if k, ok := intConst(inc.Y); !ok || k != 1 {
		return 0, false
	}
	bound, ok := boundOf(cmp.Y, c)
	if !ok {
		return 0, false
	}
	init, haveInit := int64(0), false
	for i, e := range phi.Edges {
		if body.Preds[i] == body {
			if e != ssa.Value(inc) {
				return 0, false
			}
			continue
		}
		if init, haveInit = intConst(e); !haveInit {
			return 0, false
		}
	}
	return max(bound-init, 0), haveInit
}

// guards reports whether block guard ends in the test that a range over
// an integer makes before its first turn, init < bound with the bound of
// body's own test at its end: to body if it holds, to exit if not.
func guards(guard, body, exit *ssa.BasicBlock) bool {
	test, ok := guard.Instrs[len(guard.Instrs)-1].(*ssa.If)
	if !ok || guard.Succs[0] != body || guard.Succs[1] != exit {
		return false
	}
	cmp, ok := test.Cond.(*ssa.BinOp)
	last := body.Instrs[len(body.Instrs)-1].(*ssa.If).Cond.(*ssa.BinOp)
	if !ok || cmp.Op != token.LSS {
		return false
	}
	x, okx := intConst(cmp.Y)
	y, oky := intConst(last.Y)
	return cmp.Y == last.Y || okx && oky && x == y
}

// boundOf returns a loop bound's value: an integer constant, or cap of a
// channel made with capacity c.
func boundOf(v ssa.Value, c int64) (int64, bool) {
	if k, ok := intConst(v); ok {
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

// intConst returns v's value if it is an integer constant.
func intConst(v ssa.Value) (int64, bool) {
	k, ok := ssavalue.Unconverted(v).(*ssa.Const)
	if !ok || k.Value == nil || k.Value.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(k.Value)
}

// reaches reports whether block to can run after block from in one call
// of their function: a path of one or more edges leads from one to the
// other.
func reaches(from, to *ssa.BasicBlock) bool {
	seen := map[*ssa.BasicBlock]bool{}
	work := slices.Clone(from.Succs)
	for len(work) > 0 {
		blk := work[len(work)-1]
		work = work[:len(work)-1]
		if blk == to {
			return true
		}
		if !seen[blk] {
			seen[blk] = true
			work = append(work, blk.Succs...)
		}
	}
	return false
}

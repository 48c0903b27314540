package ordering

import (
	"go/constant"
	"go/token"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// sliceSentAny tries sliceSent on each channel that the closure started
// for ca's goroutines sends on.
func (r *Result) sliceSentAny(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	site, closure := goOf(ca)
	if site == nil {
		return Edge{}, false
	}
	for _, blk := range closure.Blocks {
		for _, instr := range blk.Instrs {
			if _, ok := instr.(*ssa.Send); !ok {
				continue
			}
			for _, acc := range r.shared.ByInstr[instr] {
				if acc.Op == sharedloc.ChanSend && r.sliceSent(a, ca, site, closure, acc.Loc, b, cb) {
					return Edge{Rule: Channel, Pos: instr.Pos()}, true
				}
			}
		}
	}
	return Edge{}, false
}

// goOf returns the `go` statement that starts c's goroutines and the
// closure it starts, which makes c's goroutines' sends: c's own
// statement and entry, or, for a function handed to a spawner of this
// package, the spawner's statement and the Wrapper that calls it.
func goOf(c *goroutines.Context) (*ssa.Go, *ssa.Function) {
	if g, ok := c.Site.(*ssa.Go); ok {
		return g, c.Entry
	}
	if c.Wrapper == nil || c.Site == nil {
		return nil, nil
	}
	spawner := c.Site.Common().StaticCallee()
	if spawner == nil {
		return nil, nil
	}
	for _, blk := range spawner.Blocks {
		for _, instr := range blk.Instrs {
			if g, ok := instr.(*ssa.Go); ok {
				if mc, ok := g.Call.Value.(*ssa.MakeClosure); ok && mc.Fn == c.Wrapper {
					return g, c.Wrapper
				}
			}
		}
	}
	return nil, nil
}

// sliceSent orders a before b by counting, as allSent does, when the
// senders are many goroutines of one context: a `go` statement (site,
// starting closure) that a function F runs at most once per element of
// a slice s (in a range over s, or a loop counted up to len(s), and in no
// loop inside it), each goroutine sending once on a channel that this run
// of F made, and b runs after a loop of F that receives from it until a
// counter reaches len(s), the counter starting at the number of receives
// F made before (kad-dht's lookup: a first loop that receives one result
// per turn, counts it and may break, then `for i := completed; i <
// len(peers); i++ { <-doneCh }`). At most len(s) goroutines start, each
// sends at most once, and b follows len(s) receives of that run's
// channel: every goroutine F started has sent, after a. The counter may
// count fewer receives than were made (then the drain waits for sends
// that never come, and b does not run), never more: it starts at 0 and
// goes up by one only in a block that received before. F must run only
// on b's goroutine, which runs one at a time, and b must follow the
// drain (ordering's after: past every call of F that reaches it).
func (r *Result) sliceSent(a ssa.Instruction, ca *goroutines.Context, site *ssa.Go, closure *ssa.Function, ch sharedloc.Loc, b ssa.Instruction, cb *goroutines.Context) bool {
	if cb.Multi || cb == ca {
		return false
	}
	mc, ok := site.Call.Value.(*ssa.MakeClosure)
	if !ok || mc.Fn != closure || len(*mc.Referrers()) != 1 {
		return false // the closure runs only as the goroutine
	}
	fn := site.Parent()
	for _, c := range r.gr.Of(closure) {
		if c != ca && c.Site != site && c.Wrapper != closure {
			return false
		}
	}
	// The sends: the closure's alone, outside loops, after a.
	var made ssa.Value
	for _, x := range r.ops.sends[ch] {
		send, ok := x.(*ssa.Send)
		if !ok || x.Parent() != closure || r.gr.Flow.InLoop(x) {
			return false // a close, or another sender
		}
		if x != a && !r.before(a, x, ca, MaxCallDepth) && !r.wrapperCallsBefore(a, x, ca) {
			return false
		}
		m, ok := boundChan(send.Chan, mc)
		if !ok || made != nil && m != made {
			return false
		}
		made = m
	}
	if made == nil {
		return false
	}
	// F runs only on b's goroutine.
	if cs := r.gr.Of(fn); len(cs) != 1 || cs[0] != cb {
		return false
	}
	s, ok := perElement(site.Block())
	if !ok {
		return false
	}
	for _, blk := range fn.Blocks {
		exit, start, ok := drainLoop(blk, s, made)
		if !ok || !countsReceives(start, made, blk) {
			continue
		}
		if len(exit.Instrs) > 0 && r.after(exit.Instrs[0], b, cb, MaxCallDepth) {
			return true
		}
	}
	return false
}

// wrapperCallsBefore reports whether a, in a function other than ca's
// Wrapper, cannot run after x, an instruction of the Wrapper, on a
// goroutine of ca: the Wrapper is the goroutine's first function, so a
// runs only within a call it makes, and none may follow x (no call after
// x, and no deferred call), as in `go func() { fn(p); done <- struct{}{}
// }()`, where fn is the function handed to the spawner and a is in it.
func (r *Result) wrapperCallsBefore(a, x ssa.Instruction, ca *goroutines.Context) bool {
	w := ca.Wrapper
	if w == nil || x.Parent() != w || a.Parent() == w {
		return false
	}
	for _, blk := range w.Blocks {
		for _, instr := range blk.Instrs {
			switch instr.(type) {
			case *ssa.Defer, *ssa.RunDefers:
				return false
			case *ssa.Call:
				if instr != x && r.gr.Flow.MayFollow(x, instr) {
					return false
				}
			}
		}
	}
	return true
}

// boundChan returns the channel that ch, the operand of a send in the
// closure mc makes, holds: one that mc's function makes (a make chan of
// mc's function), captured as it is or through the variable that holds
// it, stored once.
func boundChan(ch ssa.Value, mc *ssa.MakeClosure) (ssa.Value, bool) {
	fn := mc.Fn.(*ssa.Function)
	captured := func(v ssa.Value) (ssa.Value, bool) {
		fv, ok := v.(*ssa.FreeVar)
		if !ok {
			return nil, false
		}
		for i, f := range fn.FreeVars {
			if f == fv {
				return mc.Bindings[i], true
			}
		}
		return nil, false
	}
	if load, ok := ch.(*ssa.UnOp); ok && load.Op == token.MUL {
		cell, ok := captured(load.X)
		if !ok {
			return nil, false
		}
		return madeIn(cell, mc.Parent())
	}
	v, ok := captured(ch)
	if !ok {
		return nil, false
	}
	mk, ok := v.(*ssa.MakeChan)
	return mk, ok && mk.Parent() == mc.Parent()
}

// madeIn returns the make chan of fn that cell, a variable of fn, is the
// only store of.
func madeIn(cell ssa.Value, fn *ssa.Function) (ssa.Value, bool) {
	alloc, ok := cell.(*ssa.Alloc)
	if !ok || alloc.Parent() != fn {
		return nil, false
	}
	stores := ssavalue.Stores(alloc)
	if len(stores) != 1 {
		return nil, false
	}
	mk, ok := stores[0].Val.(*ssa.MakeChan)
	return mk, ok && mk.Parent() == fn
}

// sameChan reports whether v is the channel made, or a load of the
// variable that holds only it.
func sameChan(v, made ssa.Value) bool {
	if v == made {
		return true
	}
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return false
	}
	m, ok := madeIn(load.X, made.Parent())
	return ok && m == made
}

// perElement returns the slice s when blk runs at most once per element
// of s: it lies in the body of a loop whose header counts up by one
// towards len(s) (a range over s, `for i := 0; i < len(s); i++`), and
// every way from blk back to blk passes that header.
func perElement(blk *ssa.BasicBlock) (ssa.Value, bool) {
	for h := blk.Idom(); h != nil; h = h.Idom() {
		s, body, ok := lenHeader(h)
		if !ok || !body.Dominates(blk) {
			continue
		}
		// No cycle through blk that avoids h.
		seen := map[*ssa.BasicBlock]bool{h: true}
		work := append([]*ssa.BasicBlock(nil), blk.Succs...)
		for len(work) > 0 {
			x := work[len(work)-1]
			work = work[:len(work)-1]
			if x == blk {
				return nil, false
			}
			if seen[x] {
				continue
			}
			seen[x] = true
			work = append(work, x.Succs...)
		}
		return s, true
	}
	return nil, false
}

// lenHeader reports whether h is the header of a loop counted up by one
// to len(s), from 0 (`i < len(s)`) or from -1 (a range, `i+1 < len(s)`),
// so that the loop runs at most len(s) turns; it returns s and the block
// the test enters.
func lenHeader(h *ssa.BasicBlock) (s ssa.Value, body *ssa.BasicBlock, ok bool) {
	s, body, _, _, ok = lenLoop(h)
	if !ok {
		return nil, nil, false
	}
	return s, body, true
}

// lenLoop is lenHeader, and returns the loop's exit and the counter's
// start, adjusted so that the loop runs len(s) - start turns when it
// leaves only by its test: for a range, whose phi starts at -1 and
// tests phi+1, the start is that of phi+1.
func lenLoop(h *ssa.BasicBlock) (s ssa.Value, body, exit *ssa.BasicBlock, start ssa.Value, ok bool) {
	if len(h.Instrs) == 0 || len(h.Succs) != 2 {
		return
	}
	iff, isIf := h.Instrs[len(h.Instrs)-1].(*ssa.If)
	if !isIf {
		return
	}
	cmp, isCmp := iff.Cond.(*ssa.BinOp)
	if !isCmp || cmp.Op != token.LSS {
		return
	}
	call, isCall := cmp.Y.(*ssa.Call)
	if !isCall {
		return
	}
	if bi, isLen := call.Call.Value.(*ssa.Builtin); !isLen || bi.Name() != "len" || len(call.Call.Args) != 1 {
		return
	}
	s = call.Call.Args[0]
	v := cmp.X
	shifted := false
	if inc, isInc := v.(*ssa.BinOp); isInc && isIncrement(inc) {
		v, shifted = inc.X, true
	}
	phi, isPhi := v.(*ssa.Phi)
	if !isPhi || phi.Block() != h {
		return
	}
	for i, pred := range h.Preds {
		e := phi.Edges[i]
		if h.Dominates(pred) {
			// A back edge: phi+1.
			if inc, isInc := e.(*ssa.BinOp); !isInc || !isIncrement(inc) || inc.X != phi {
				return
			}
			continue
		}
		if start != nil {
			return
		}
		start = e
	}
	if start == nil {
		return
	}
	if shifted {
		// A range: the phi starts at -1, and the first turn tests 0.
		if !isConst(start, -1) {
			return
		}
		start = nil // the range's own counter: from 0
	}
	return s, h.Succs[0], h.Succs[1], start, true
}

// drainLoop reports whether h heads a loop counted up by one to len(s)
// whose every turn receives from made (a receive of it dominates every
// edge back to h) and whose only way out is its test: past its exit it
// has received len(s) - start times. start is nil for a range.
func drainLoop(h *ssa.BasicBlock, s, made ssa.Value) (exit *ssa.BasicBlock, start ssa.Value, ok bool) {
	ls, body, exit, start, ok := lenLoop(h)
	if !ok || !sameSlice(ls, s) {
		return nil, nil, false
	}
	var recv *ssa.BasicBlock
	for _, x := range h.Parent().Blocks {
		if x == h || !body.Dominates(x) {
			continue
		}
		for _, instr := range x.Instrs {
			if u, isRecv := instr.(*ssa.UnOp); isRecv && u.Op == token.ARROW && sameChan(u.X, made) && recv == nil {
				recv = x
			}
		}
	}
	if recv == nil {
		return nil, nil, false
	}
	for _, p := range h.Preds {
		if h.Dominates(p) && !recv.Dominates(p) {
			return nil, nil, false
		}
	}
	// The loop's blocks (dominated by body) lead only to h or each other.
	for _, x := range h.Parent().Blocks {
		if x == h || !body.Dominates(x) {
			continue
		}
		for _, succ := range x.Succs {
			if succ != h && !body.Dominates(succ) {
				return nil, nil, false
			}
		}
		if len(x.Succs) == 0 {
			return nil, nil, false // a return or a panic inside
		}
	}
	return exit, start, true
}

// sameSlice reports whether a and b hold the same slice: one value, or
// loads of one variable of the function that is stored once.
func sameSlice(a, b ssa.Value) bool {
	if a == b {
		return true
	}
	la, ok := a.(*ssa.UnOp)
	lb, ok2 := b.(*ssa.UnOp)
	if !ok || !ok2 || la.Op != token.MUL || lb.Op != token.MUL || la.X != lb.X {
		return false
	}
	cell, ok := la.X.(*ssa.Alloc)
	return ok && len(ssavalue.Stores(cell)) == 1
}

// isIncrement reports whether v is x + 1.
func isIncrement(v *ssa.BinOp) bool {
	return v.Op == token.ADD && isConst(v.Y, 1)
}

// countsReceives reports whether start, the drain loop's counter at its
// entry, is at most the number of receives from made that ran before:
// nil (a range, from 0), the constant 0, or a value built from 0 by phis
// and increments by one, each increment in a block after a receive from
// made, and none in the drain loop (headed by h) itself.
func countsReceives(start, made ssa.Value, h *ssa.BasicBlock) bool {
	if start == nil {
		return true
	}
	seen := make(map[ssa.Value]bool)
	var ok func(v ssa.Value) bool
	ok = func(v ssa.Value) bool {
		if seen[v] {
			return true // a cycle through a loop's phi: judged where it started
		}
		seen[v] = true
		switch v := v.(type) {
		case *ssa.Const:
			return isConst(v, 0)
		case *ssa.Phi:
			if h.Dominates(v.Block()) {
				return false
			}
			for _, e := range v.Edges {
				if !ok(e) {
					return false
				}
			}
			return true
		case *ssa.BinOp:
			if !isIncrement(v) || h.Dominates(v.Block()) {
				return false
			}
			if x, ok := v.X.(ssa.Instruction); ok && x.Block() == v.Block() {
				if _, phi := x.(*ssa.Phi); !phi {
					return false // two increments after one receive
				}
			}
			received := false
			for _, instr := range v.Block().Instrs {
				if instr == v {
					break
				}
				if u, isRecv := instr.(*ssa.UnOp); isRecv && u.Op == token.ARROW && sameChan(u.X, made) {
					received = true
				}
			}
			return received && ok(v.X)
		}
		return false
	}
	return ok(start)
}

// isConst reports whether v is the integer constant n.
func isConst(v ssa.Value, n int64) bool {
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		return false
	}
	x, exact := constant.Int64Val(c.Value)
	return exact && x == n
}

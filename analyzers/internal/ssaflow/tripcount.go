package ssaflow

import (
	"go/constant"
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// TripCount returns how many times instr runs before the code after its
// loop, when it sits in a counted loop whose count is a constant:
//
//	for i := 0; i < 2; i++ { <-errc } // TripCount(<-errc) == 2
//	for range 2 { <-errc }            // the same
//
// The loop's header tests a phi that starts at a constant and goes up by
// one on each turn, against a constant bound; instr's block dominates
// every edge back to the header, so each finished turn ran it; and every
// other way out of the loop (a break, a return, a t.Fatal) leads nowhere
// the header's exit leads, so code past the loop's exit ran all the
// turns. ok is false for anything else (instr in no loop, or in a loop
// that is not so counted, or nested in another loop).
func (g *Graph) TripCount(instr ssa.Instruction) (n int, ok bool) {
	n, _, ok = g.CountedLoop(instr, IntConst)
	return n, ok
}

// CountedLoop is TripCount for a loop whose bound is a value bound knows
// (a constant, or cap of a channel whose capacity the caller knows), and
// whose counter may also go down by one to a bound below its start (`for
// n := k; n > 0; n--`). It also returns the block that the loop's test
// leaves to, past which every turn has run.
func (g *Graph) CountedLoop(instr ssa.Instruction, bound func(ssa.Value) (int64, bool)) (n int, exit *ssa.BasicBlock, ok bool) {
	b := instr.Block()
	if b == nil || !g.InLoop(instr) {
		return 0, nil, false
	}
	fn := b.Parent()
	f := g.of(fn)
	// The header: the block of the innermost counted loop around b is
	// the one whose phi is the counter; find it among b's dominators
	// that b reaches back to.
	for h := b; h != nil; h = h.Idom() {
		if !f.reach[b.Index].has(h.Index) || !f.reach[h.Index].has(b.Index) && h != b {
			continue
		}
		count, exit, body, ok := countedHeader(h, bound)
		if !ok || !body.Dominates(b) {
			continue
		}
		// Every back edge into h comes from a block that b dominates.
		for _, p := range h.Preds {
			if h.Dominates(p) && !b.Dominates(p) {
				return 0, nil, false
			}
		}
		// The loop's blocks: reached from body, reaching h back.
		for _, x := range fn.Blocks {
			if x == h || !body.Dominates(x) || !f.reach[x.Index].has(h.Index) {
				continue
			}
			for _, s := range x.Succs {
				if s == h || body.Dominates(s) && f.reach[s.Index].has(h.Index) {
					continue // stays in the loop
				}
				// A way out other than the header's exit: it must not
				// reach what the exit reaches.
				if s == exit || f.reach[s.Index].has(exit.Index) {
					return 0, nil, false
				}
				for _, y := range fn.Blocks {
					if (y == exit || f.reach[exit.Index].has(y.Index)) && (y == s || f.reach[s.Index].has(y.Index)) {
						return 0, nil, false
					}
				}
			}
		}
		// Not nested: the header itself is on no cycle but its own.
		for _, p := range h.Preds {
			if !h.Dominates(p) && f.reach[h.Index].has(p.Index) {
				return 0, nil, false
			}
		}
		return count, exit, true
	}
	return 0, nil, false
}

// countedHeader reports whether h is the header of a counted loop: its
// If tests phi < k (or k > phi, phi != k, or <=), with phi a phi of h that
// is a constant on its edge from outside the loop and phi+1 on every edge
// back, or phi > k (or >=, !=) with phi-1 on every edge back, k a value
// bound knows; count is the number of turns, exit the block the test
// leaves to, body the block it enters.
func countedHeader(h *ssa.BasicBlock, bound func(ssa.Value) (int64, bool)) (count int, exit, body *ssa.BasicBlock, ok bool) {
	if len(h.Instrs) == 0 || len(h.Succs) != 2 {
		return 0, nil, nil, false
	}
	iff, isIf := h.Instrs[len(h.Instrs)-1].(*ssa.If)
	if !isIf {
		return 0, nil, nil, false
	}
	cmp, isCmp := iff.Cond.(*ssa.BinOp)
	if !isCmp {
		return 0, nil, nil, false
	}
	v, k, op := counterOperands(cmp, bound)
	// A for loop tests the counter at its top; a range over an int
	// tests the counter's next value at the bottom of its one block,
	// after the body (entered once the first test, start < k, passed).
	phi, _ := v.(*ssa.Phi)
	next := false
	if inc, ok := v.(*ssa.BinOp); ok && step(inc) == 1 {
		phi, _ = inc.X.(*ssa.Phi)
		next = true
	}
	if phi == nil || phi.Block() != h || next && h.Succs[0] != h {
		return 0, nil, nil, false
	}
	start, d, ok := phiStart(h, phi)
	if !ok || next && d != 1 {
		return 0, nil, nil, false
	}
	if next {
		start++ // the test sees the turn's counter plus one
	}
	var turns int64
	switch {
	case d == 1 && (op == token.LSS || op == token.NEQ && k >= start):
		turns = k - start
	case d == 1 && op == token.LEQ:
		turns = k - start + 1
	case d == -1 && (op == token.GTR || op == token.NEQ && k <= start):
		turns = start - k
	case d == -1 && op == token.GEQ:
		turns = start - k + 1
	default:
		return 0, nil, nil, false
	}
	if next {
		turns++ // the turn that tested false ran too
	}
	if turns < 1 || turns > 1<<20 {
		return 0, nil, nil, false
	}
	return int(turns), h.Succs[1], h.Succs[0], true
}

// step returns d when inc is x + 1 (d 1) or x - 1 (d -1), else 0.
func step(inc *ssa.BinOp) int64 {
	one, ok := IntConst(inc.Y)
	switch {
	case !ok || one != 1:
		return 0
	case inc.Op == token.ADD:
		return 1
	case inc.Op == token.SUB:
		return -1
	}
	return 0
}

// counterOperands returns the counter operand, the bound (a value bound
// knows) and the comparison of cmp as counter OP bound, or a nil counter.
func counterOperands(cmp *ssa.BinOp, bound func(ssa.Value) (int64, bool)) (ssa.Value, int64, token.Token) {
	if k, ok := bound(cmp.Y); ok {
		return cmp.X, k, cmp.Op
	}
	if k, ok := bound(cmp.X); ok {
		switch cmp.Op { // k OP v is v OP' k
		case token.GTR:
			return cmp.Y, k, token.LSS
		case token.GEQ:
			return cmp.Y, k, token.LEQ
		case token.LSS:
			return cmp.Y, k, token.GTR
		case token.LEQ:
			return cmp.Y, k, token.GEQ
		case token.NEQ:
			return cmp.Y, k, token.NEQ
		}
	}
	return nil, 0, 0
}

// phiStart returns the constant phi takes on h's one edge from outside
// the loop, and d when every other edge (back from the loop) gives phi+d,
// d 1 or -1.
func phiStart(h *ssa.BasicBlock, phi *ssa.Phi) (start, d int64, ok bool) {
	starts := 0
	for k, p := range h.Preds {
		v := phi.Edges[k]
		if !h.Dominates(p) {
			c, ok := IntConst(v)
			if !ok {
				return 0, 0, false
			}
			start, starts = c, starts+1
			continue
		}
		inc, ok := v.(*ssa.BinOp)
		if !ok || inc.X != phi {
			return 0, 0, false
		}
		s := step(inc)
		if s == 0 || d != 0 && s != d {
			return 0, 0, false
		}
		d = s
	}
	return start, d, starts == 1 && d != 0
}

// IntConst returns v's value when it is an integer constant.
func IntConst(v ssa.Value) (int64, bool) {
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(c.Value)
}

package ssaflow

import (
	"go/constant"
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// RunsFirst reports whether every path from the entry of a's function to
// b runs a before b, counting only the branches that constants allow:
// an if on a comparison of constants, or of a phi whose value on the edge
// just taken is a constant (a counted loop's first test), goes one way.
// Dominance counts both ways of every branch, so it misses that a loop
// with a constant bound runs its body at least once:
//
//	for i := 0; i < threads; i++ {
//		<-done // a
//	}
//	close(done) // b: runs after a, which dominance cannot tell
//
// It answers only about one invocation, as Dominates does; a == b, and
// instructions of two functions, give false. Functions with no such
// branch are answered at once (false: Dominates already said no).
func (g *Graph) RunsFirst(a, b ssa.Instruction) bool {
	ba, bb := a.Block(), b.Block()
	if a == b || ba == nil || bb == nil || ba.Parent() != bb.Parent() {
		return false
	}
	f := g.of(ba.Parent())
	if g.Dominates(a, b) {
		return true
	}
	taken := f.constBranches()
	if len(taken) == 0 {
		return false
	}
	ia, ib := f.index[a], f.index[b]
	// A depth-first search for a path to b that avoids a, over (block,
	// the predecessor it was entered from) pairs: an if whose way
	// depends on a phi goes the way of the edge taken.
	type state struct{ blk, pred int }
	seen := map[state]bool{}
	var stack []state
	stack = append(stack, state{0, -1})
	if rec := ba.Parent().Recover; rec != nil {
		stack = append(stack, state{rec.Index, -1})
	}
	blocks := ba.Parent().Blocks
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[s] {
			continue
		}
		seen[s] = true
		blk := blocks[s.blk]
		if blk == bb && (blk != ba || ib < ia) {
			return false // b, with a not yet run
		}
		if blk == ba {
			continue // every path on from here has run a
		}
		succs := appendSuccs(nil, blk)
		if way, ok := taken[s.blk]; ok {
			if w := way(s.pred); w >= 0 {
				succs = blk.Succs[w : w+1]
			}
		}
		for _, next := range succs {
			stack = append(stack, state{next.Index, predIndex(next, blk)})
		}
	}
	return true
}

// predIndex returns the index of pred among b's predecessors, -1 for an
// edge go/ssa does not list (a range body's return to its entry).
func predIndex(b, pred *ssa.BasicBlock) int {
	for i, p := range b.Preds {
		if p == pred {
			return i
		}
	}
	return -1
}

// constBranches returns, for each block that ends in an if whose way
// constants may decide, a function from the predecessor the block was
// entered from (its index in Preds, -1 for none) to the successor taken
// (0 or 1), or -1 when the way is not decided. Memoized per function.
func (f *funcFlow) constBranches() map[int]func(pred int) int {
	f.constOnce.Do(func() {
		for _, blk := range f.fn.Blocks {
			if len(blk.Instrs) == 0 {
				continue
			}
			cond, ok := blk.Instrs[len(blk.Instrs)-1].(*ssa.If)
			if !ok {
				continue
			}
			if way := branchWay(blk, cond.Cond); way != nil {
				if f.taken == nil {
					f.taken = make(map[int]func(int) int)
				}
				f.taken[blk.Index] = way
			}
		}
	})
	return f.taken
}

// branchWay returns how constants decide the if on cond at the end of
// blk, or nil when they never do.
func branchWay(blk *ssa.BasicBlock, cond ssa.Value) func(pred int) int {
	if c, ok := cond.(*ssa.Const); ok {
		w := wayOf(c.Value)
		return func(int) int { return w }
	}
	bin, ok := cond.(*ssa.BinOp)
	if !ok || !isComparison(bin.Op) {
		return nil
	}
	x, xok := operand(blk, bin.X)
	y, yok := operand(blk, bin.Y)
	if !xok || !yok {
		return nil
	}
	return func(pred int) int {
		cx, cy := x(pred), y(pred)
		if cx == nil || cy == nil {
			return -1
		}
		return wayOf(compare(cx, bin.Op, cy))
	}
}

// operand returns the constant v stands for on entry to blk by each
// predecessor (nil where unknown): a constant everywhere, or a phi of
// blk, with the value of its edge from that predecessor when a constant.
// ok is false when v is neither.
func operand(blk *ssa.BasicBlock, v ssa.Value) (func(pred int) constant.Value, bool) {
	switch v := v.(type) {
	case *ssa.Const:
		if v.Value == nil {
			return nil, false
		}
		return func(int) constant.Value { return v.Value }, true
	case *ssa.Phi:
		if v.Block() != blk {
			return nil, false
		}
		return func(pred int) constant.Value {
			if pred < 0 || pred >= len(v.Edges) {
				return nil
			}
			if c, ok := v.Edges[pred].(*ssa.Const); ok {
				return c.Value
			}
			return nil
		}, true
	}
	return nil, false
}

func isComparison(op token.Token) bool {
	switch op {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		return true
	}
	return false
}

// compare evaluates x op y, or returns nil when constant.Compare does
// not take the two kinds together, or not with op.
func compare(x constant.Value, op token.Token, y constant.Value) constant.Value {
	kx, ky := x.Kind(), y.Kind()
	ordered := func(k constant.Kind) bool { return k == constant.Int || k == constant.Float }
	switch {
	case ordered(kx) && ordered(ky), kx == constant.String && ky == constant.String:
	case kx == ky && (kx == constant.Bool || kx == constant.Complex) && (op == token.EQL || op == token.NEQ):
	default:
		return nil
	}
	return constant.MakeBool(constant.Compare(x, op, y))
}

// wayOf returns the successor an if on the constant c takes: 0 for true,
// 1 for false, -1 when c is not a known boolean.
func wayOf(c constant.Value) int {
	if c == nil || c.Kind() != constant.Bool {
		return -1
	}
	if constant.BoolVal(c) {
		return 0
	}
	return 1
}

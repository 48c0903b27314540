package locksets

import (
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// HeldThrough reports whether the mutex m is held at every instruction
// on the paths from `from` to `to` (from dominates to, in one function)
// that run neither again before they reach `to`: from the last execution
// of `from` to the first of `to` after it, m was not released and taken
// again. A loop that takes `from` anew on each turn is judged turn by
// turn.
func (s *Solution) HeldThrough(m sharedloc.Loc, from, to ssa.Instruction) bool {
	if from.Parent() != to.Parent() || !ssaflow.Dominates(from, to) {
		return false
	}
	held := func(instrs []ssa.Instruction) bool {
		for _, in := range instrs {
			if _, ok := s.At(in).Lookup(m); !ok {
				return false
			}
		}
		return true
	}
	fb, tb := from.Block(), to.Block()
	fi, ti := slices.Index(fb.Instrs, from), slices.Index(tb.Instrs, to)
	if fb == tb && fi <= ti {
		// A path that leaves the block comes back through from.
		return held(fb.Instrs[fi : ti+1])
	}
	// Blocks in between: reached from fb without going through fb or tb,
	// and reaching tb the same way.
	stop := func(b *ssa.BasicBlock) bool { return b == fb || b == tb }
	fwd := reach(fb.Succs, func(b *ssa.BasicBlock) []*ssa.BasicBlock { return b.Succs }, stop)
	back := reach(tb.Preds, func(b *ssa.BasicBlock) []*ssa.BasicBlock { return b.Preds }, stop)
	for b := range fwd {
		if back[b] && !held(b.Instrs) {
			return false
		}
	}
	return held(fb.Instrs[fi:]) && held(tb.Instrs[:ti+1])
}

// reach returns the blocks reached from start by next, not going on
// from a block for which stop holds (nor including it).
func reach(start []*ssa.BasicBlock, next func(*ssa.BasicBlock) []*ssa.BasicBlock, stop func(*ssa.BasicBlock) bool) map[*ssa.BasicBlock]bool {
	seen := map[*ssa.BasicBlock]bool{}
	stack := slices.Clone(start)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b] || stop(b) {
			continue
		}
		seen[b] = true
		stack = append(stack, next(b)...)
	}
	return seen
}

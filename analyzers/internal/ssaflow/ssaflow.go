// Package ssaflow answers control-flow questions about the instructions of
// one SSA function: which may run after which, which dominate or
// post-dominate which, and which sit in loops. Answers are memoized per
// function, so a Graph should be shared by everything that analyzes the
// same package.
//
// Cost: the first question about a function of n blocks and e edges costs
// O(n·(n+e)) time and n²/8 bytes (reachability between every pair of
// blocks, as bit sets), plus the post-dominator fixed point, which takes
// a number of passes bounded by the depth of the post-dominator tree.
// Depth-first searches use explicit stacks, whatever the shape of the
// function.
//
// All questions are about a single invocation of a function. Whether a
// function may run again (because a caller loops, or because several
// goroutines call it) is for the caller of this package to decide, with
// one exception: the body of a range over a function (RangeBody) is taken
// as the loop it is written as, each of its returns going back to its
// entry, since the iterator, whose code is often in another package and
// out of the call graph, calls it once per element. So its instructions
// are InLoop, and each may follow each, as those of a for loop's body.
package ssaflow

import (
	"go/constant"
	"go/token"
	"slices"
	"sync"

	"golang.org/x/tools/go/ssa"
)

// Graph memoizes flow facts about the functions it is asked about. It is
// safe for concurrent use, since several analyzers share one per package.
type Graph struct {
	mu    sync.Mutex
	funcs map[*ssa.Function]*funcFlow
}

// New returns an empty Graph.
func New() *Graph {
	return &Graph{funcs: make(map[*ssa.Function]*funcFlow)}
}

type funcFlow struct {
	fn      *ssa.Function
	index   map[ssa.Instruction]int // position of each instruction in its block
	reach   []bitset                // reach[i] has j: block j reachable from block i in one or more steps
	inCycle []bool
	ipdom   []int // immediate post-dominator of each block, -1 for exits and unknown
	// taken holds the ifs that constants may decide (see
	// constBranches), computed once.
	constOnce sync.Once
	taken     map[int]func(pred int) int
}

func (g *Graph) of(fn *ssa.Function) *funcFlow {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f, ok := g.funcs[fn]; ok {
		return f
	}
	f := &funcFlow{fn: fn, index: make(map[ssa.Instruction]int)}
	n := len(fn.Blocks)
	for _, b := range fn.Blocks {
		for i, instr := range b.Instrs {
			f.index[instr] = i
		}
	}
	f.reach = make([]bitset, n)
	f.inCycle = make([]bool, n)
	var stack []*ssa.BasicBlock
	for _, b := range fn.Blocks {
		seen := newBitset(n)
		stack = appendSuccs(stack[:0], b)
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen.has(s.Index) {
				continue
			}
			seen.add(s.Index)
			stack = appendSuccs(stack, s)
		}
		f.reach[b.Index] = seen
		f.inCycle[b.Index] = seen.has(b.Index)
	}
	f.postdom()
	g.funcs[fn] = f
	return f
}

// OnCycle reports whether b lies on a cycle of its function's graph, as
// InLoop does, without a Graph: one search from b, for a caller that asks
// of a few blocks and has no Graph to share (a Graph's first question
// about a function computes the reachability of every pair of blocks).
func OnCycle(b *ssa.BasicBlock) bool {
	seen := map[*ssa.BasicBlock]bool{}
	work := appendSuccs(nil, b)
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if x == b {
			return true
		}
		if seen[x] {
			continue
		}
		seen[x] = true
		work = appendSuccs(work, x)
	}
	return false
}

// appendSuccs appends the blocks that may run right after b in one
// invocation of the function that holds b's loop: b's successors and,
// for a return of a range body, the body's entry (its next element).
func appendSuccs(to []*ssa.BasicBlock, b *ssa.BasicBlock) []*ssa.BasicBlock {
	to = append(to, b.Succs...)
	if fn := b.Parent(); len(b.Succs) == 0 && RangeBody(fn) {
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && !stops(ret) {
			to = append(to, fn.Blocks[0])
		}
	}
	return to
}

// stops reports whether a return of a range body returns false: a
// break, a return or a goto out of the loop, after which the iterator
// does not call the body again.
func stops(r *ssa.Return) bool {
	if len(r.Results) != 1 {
		return false
	}
	c, ok := r.Results[0].(*ssa.Const)
	return ok && c.Value != nil && c.Value.Kind() == constant.Bool && !constant.BoolVal(c.Value)
}

// RangeBody reports whether fn is the body of a range over a function
// (go/ssa's "range-over-func yield"): the iterator calls it once per
// element, so one invocation of the function that holds the loop may run
// it many times, whether or not the iterator's code, often in another
// package, is in the call graph.
func RangeBody(fn *ssa.Function) bool {
	return fn.Synthetic == "range-over-func yield"
}

// InLoop reports whether instr's block lies on a cycle of its function's
// control-flow graph, so that one invocation may execute it several times.
func (g *Graph) InLoop(instr ssa.Instruction) bool {
	b := instr.Block()
	if b == nil {
		return false
	}
	return g.of(b.Parent()).inCycle[b.Index]
}

// MayFollow reports whether, within one invocation of their common function,
// b may execute after a has executed. Instructions of different functions
// never follow each other in this sense.
func (g *Graph) MayFollow(a, b ssa.Instruction) bool {
	ba, bb := a.Block(), b.Block()
	if ba == nil || bb == nil || ba.Parent() != bb.Parent() {
		return false
	}
	f := g.of(ba.Parent())
	if ba == bb && f.index[a] < f.index[b] {
		return true
	}
	return f.reach[ba.Index].has(bb.Index)
}

// MayFollowAvoiding reports whether b may execute after a, within one
// invocation, on a path that does not execute avoid in between. With avoid
// an allocation, it asks whether the object a saw may still be the one b
// sees.
func (g *Graph) MayFollowAvoiding(a, b, avoid ssa.Instruction) bool {
	if avoid == nil {
		return g.MayFollow(a, b)
	}
	return g.MayFollowAvoidingAny(a, b, []ssa.Instruction{avoid})
}

// MayFollowAvoidingAny reports whether b may execute after a, within one
// invocation, on a path that executes none of avoid in between: with
// avoid the receives that may end a wait (a plain receive, a select's
// case), whether b may run while the wait has not ended. Instructions of
// avoid in other functions than a's are left out.
func (g *Graph) MayFollowAvoidingAny(a, b ssa.Instruction, avoid []ssa.Instruction) bool {
	ba, bb := a.Block(), b.Block()
	if ba == nil || bb == nil || ba.Parent() != bb.Parent() {
		return false
	}
	f := g.of(ba.Parent())
	if !slices.ContainsFunc(avoid, func(v ssa.Instruction) bool { return v.Block() != nil && v.Parent() == ba.Parent() }) {
		return g.MayFollow(a, b)
	}
	ia, ib := f.index[a], f.index[b]
	// avoidedIn reports whether blk executes an instruction of avoid at
	// an index in (from, to).
	avoidedIn := func(blk *ssa.BasicBlock, from, to int) bool {
		for _, v := range avoid {
			if v.Block() == blk && f.index[v] > from && f.index[v] < to {
				return true
			}
		}
		return false
	}
	// The rest of a's block.
	if ba == bb && ia < ib && !avoidedIn(ba, ia, ib) {
		return true
	}
	if avoidedIn(ba, ia, len(ba.Instrs)) {
		return false // every path out of a's block executes avoid
	}
	seen := make([]bool, len(f.fn.Blocks))
	stack := appendSuccs(nil, ba)
	for len(stack) > 0 {
		blk := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[blk.Index] {
			continue
		}
		seen[blk.Index] = true
		if blk == bb && !avoidedIn(bb, -1, ib) {
			return true
		}
		if avoidedIn(blk, -1, len(blk.Instrs)) {
			continue // the path executes avoid
		}
		stack = appendSuccs(stack, blk)
	}
	return false
}

// Precedes reports whether a precedes b in every invocation in which both
// execute: they are in the same function and b can never be followed by a.
func (g *Graph) Precedes(a, b ssa.Instruction) bool {
	ba, bb := a.Block(), b.Block()
	if ba == nil || bb == nil || ba.Parent() != bb.Parent() || a == b {
		return false
	}
	return !g.MayFollow(b, a)
}

// Dominates reports whether every path from the function's entry to b
// passes through a (a == b counts).
func (g *Graph) Dominates(a, b ssa.Instruction) bool {
	ba, bb := a.Block(), b.Block()
	if ba == nil || bb == nil || ba.Parent() != bb.Parent() {
		return false
	}
	if ba == bb {
		f := g.of(ba.Parent())
		return f.index[a] <= f.index[b]
	}
	return ba.Dominates(bb)
}

// PostDominates reports whether every path from a to a normal return of the
// function passes through b (a == b counts). Paths that end in a panic are
// not considered, so an instruction after a call that may panic still
// post-dominates the call.
func (g *Graph) PostDominates(b, a ssa.Instruction) bool {
	ba, bb := a.Block(), b.Block()
	if ba == nil || bb == nil || ba.Parent() != bb.Parent() {
		return false
	}
	f := g.of(ba.Parent())
	if ba == bb {
		return f.index[a] <= f.index[b]
	}
	for x := f.ipdom[ba.Index]; x >= 0; x = f.ipdom[x] {
		if x == bb.Index {
			return true
		}
	}
	return false
}

// Index returns instr's position within its block.
func (g *Graph) Index(instr ssa.Instruction) int {
	return g.of(instr.Block().Parent()).index[instr]
}

// postdom computes immediate post-dominators with the iterative algorithm
// of Cooper, Harvey and Kennedy on the reversed CFG, from a virtual exit
// that every returning block flows to. Blocks that cannot reach a return
// (infinite loops, panics) have no post-dominator.
func (f *funcFlow) postdom() {
	blocks := f.fn.Blocks
	n := len(blocks)
	exit := n // virtual exit node
	// Postorder of the reversed graph, from the virtual exit, by a
	// depth-first search with an explicit stack of (node, next
	// predecessor to try).
	preds := func(i int) []int {
		var out []int
		if i == exit {
			for _, b := range blocks {
				if isExit(b) {
					out = append(out, b.Index)
				}
			}
			return out
		}
		for _, p := range blocks[i].Preds {
			out = append(out, p.Index)
		}
		return out
	}
	var order []int
	seen := make([]bool, n+1)
	type visit struct {
		node  int
		preds []int
	}
	seen[exit] = true
	stack := []visit{{exit, preds(exit)}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if len(top.preds) == 0 {
			order = append(order, top.node)
			stack = stack[:len(stack)-1]
			continue
		}
		p := top.preds[0]
		top.preds = top.preds[1:]
		if !seen[p] {
			seen[p] = true
			stack = append(stack, visit{p, preds(p)})
		}
	}
	postnum := make([]int, n+1) // postorder number; the exit has the highest
	for i := range postnum {
		postnum[i] = -1
	}
	for i, b := range order {
		postnum[b] = i
	}
	idom := make([]int, n+1)
	for i := range idom {
		idom[i] = -1
	}
	idom[exit] = exit
	intersect := func(a, b int) int {
		for a != b {
			for postnum[a] < postnum[b] {
				a = idom[a]
			}
			for postnum[b] < postnum[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for k := len(order) - 1; k >= 0; k-- {
			i := order[k]
			if i == exit {
				continue
			}
			// Successors in the original graph are predecessors here.
			var succs []int
			for _, s := range blocks[i].Succs {
				succs = append(succs, s.Index)
			}
			if isExit(blocks[i]) {
				succs = append(succs, exit)
			}
			newIdom := -1
			for _, s := range succs {
				if postnum[s] < 0 || idom[s] < 0 {
					continue
				}
				if newIdom < 0 {
					newIdom = s
				} else {
					newIdom = intersect(s, newIdom)
				}
			}
			if newIdom >= 0 && idom[i] != newIdom {
				idom[i] = newIdom
				changed = true
			}
		}
	}
	f.ipdom = make([]int, n)
	for i := range n {
		d := idom[i]
		if d == exit || d < 0 {
			d = -1
		}
		f.ipdom[i] = d
	}
}

func isExit(b *ssa.BasicBlock) bool {
	if len(b.Instrs) == 0 {
		return false
	}
	_, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
	return ok
}

// Returns returns fn's return instructions, except the one of the block
// that resumes after a recovered panic (fn.Recover), which runs only when
// a deferred call recovers.
func Returns(fn *ssa.Function) []*ssa.Return {
	var out []*ssa.Return
	for _, b := range fn.Blocks {
		if b == fn.Recover || len(b.Instrs) == 0 {
			continue
		}
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok {
			out = append(out, ret)
		}
	}
	return out
}

// A bitset is a set of small non-negative integers.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (s bitset) add(i int)      { s[i/64] |= 1 << (i % 64) }
func (s bitset) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// Dominates reports whether every path from the entry of x's function to
// y passes through x: x's block dominates y's, and within one block x
// comes first (or is y). Instructions of two functions dominate neither.
// It needs no Graph: go/ssa keeps the dominator tree of every function.
func Dominates(x, y ssa.Instruction) bool {
	bx, by := x.Block(), y.Block()
	if bx == nil || by == nil || bx.Parent() != by.Parent() {
		return false
	}
	if bx != by {
		return bx.Dominates(by)
	}
	for _, in := range bx.Instrs {
		if in == x {
			return true
		}
		if in == y {
			return false
		}
	}
	return false
}

// A Guard is a branch that every path to an instruction passes the same
// way.
type Guard struct {
	// Cond is the if's condition, with negations (!x) taken off.
	Cond ssa.Value
	// Taken is the value Cond has on the way to the instruction.
	Taken bool
}

// Guards returns the branches that decide, on every path, that instr
// runs: for each block on the dominator chain of instr's block whose one
// predecessor ends in an if with two distinct successors, that if's
// condition and the way it went, innermost first.
func Guards(instr ssa.Instruction) []Guard {
	var out []Guard
	for d := instr.Block(); d != nil; d = d.Idom() {
		if len(d.Preds) != 1 {
			continue
		}
		p := d.Preds[0]
		ifi, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If)
		if !ok || p.Succs[0] == p.Succs[1] {
			continue
		}
		g := Guard{Cond: ifi.Cond, Taken: p.Succs[0] == d}
		for {
			u, ok := g.Cond.(*ssa.UnOp)
			if !ok || u.Op != token.NOT {
				break
			}
			g.Cond, g.Taken = u.X, !g.Taken
		}
		out = append(out, g)
	}
	return out
}

package postdom

import (
	"slices"

	"golang.org/x/tools/go/ssa"
)

// Options changes the graph a tree is built over.
type Options struct {
	// LoopsIterate assumes that every natural loop runs its body at least
	// once (CFP's heuristic; see the package doc).
	LoopsIterate bool
}

// A Tree is the post-dominator tree of one function. Its nodes are the
// function's blocks, a virtual exit (the root) and, with
// Options.LoopsIterate, a copy of each loop header.
type Tree struct {
	fn    *ssa.Function
	n     int     // blocks; node n is the virtual exit, nodes above it header copies
	orig  []int   // per node: the block it stands for (-1 for the exit)
	copy  []int   // per block: its header copy, or -1
	ipdom []int32 // per node: immediate post-dominator; -1 for the root and nodes no path leads from to the exit
	depth []int32 // per node: depth in the tree (root 0)
	entry int     // the entry node: block 0 or its header copy
	cuts  []int   // per block: index of its first call that never returns, or -1
}

// graph is a function's control-flow graph as the tree sees it.
type graph struct {
	succ, pred [][]int
}

func (g *graph) edge(u, v int) {
	g.succ[u] = append(g.succ[u], v)
	g.pred[v] = append(g.pred[v], u)
}

// Build builds fn's post-dominator tree. noReturn reports the functions
// (besides the known library ones) whose calls never return; it may be
// nil. It returns nil for a function without a body or with more than
// MaxBlocks blocks.
func Build(fn *ssa.Function, opts Options, noReturn func(*ssa.Function) bool) *Tree {
	n := len(fn.Blocks)
	if n == 0 || n > MaxBlocks {
		return nil
	}
	t := &Tree{fn: fn, n: n, cuts: make([]int, n), copy: make([]int, n)}
	exit := n
	g := &graph{succ: make([][]int, n+1), pred: make([][]int, n+1)}
	for _, b := range fn.Blocks {
		i := b.Index
		t.copy[i] = -1
		t.cuts[i] = cut(b, noReturn)
		if t.cuts[i] >= 0 {
			g.edge(i, exit)
			continue
		}
		switch b.Instrs[len(b.Instrs)-1].(type) {
		case *ssa.Return, *ssa.Panic:
			g.edge(i, exit)
			continue
		}
		for _, s := range b.Succs {
			g.edge(i, s.Index)
		}
	}
	t.orig = make([]int, n+1)
	for i := range n {
		t.orig[i] = i
	}
	t.orig[exit] = -1
	t.entry = 0
	if opts.LoopsIterate {
		t.splitHeaders(g)
	}
	t.connectEndless(g)
	t.solve(g)
	return t
}

// splitHeaders gives each natural loop's header a copy that takes the
// edges entering the loop and leads only into the loop's body.
func (t *Tree) splitHeaders(g *graph) {
	blocks := t.fn.Blocks
	for _, h := range blocks {
		var back []int
		for _, p := range h.Preds {
			if h.Dominates(p) {
				back = append(back, p.Index)
			}
		}
		if len(back) == 0 {
			continue
		}
		body := t.loopBody(h.Index, back)
		in := func(node int) bool { return node < len(t.orig) && t.orig[node] >= 0 && body[t.orig[node]] }
		c := len(g.succ)
		g.succ = append(g.succ, nil)
		g.pred = append(g.pred, nil)
		t.orig = append(t.orig, h.Index)
		t.copy[h.Index] = c
		for _, s := range g.succ[h.Index] {
			if in(s) {
				g.edge(c, s)
			}
		}
		if len(g.succ[c]) == 0 { // cut by a call that never returns
			for _, s := range g.succ[h.Index] {
				g.edge(c, s)
			}
		}
		// Redirect the entering edges.
		var keep []int
		for _, p := range g.pred[h.Index] {
			if in(p) {
				keep = append(keep, p)
				continue
			}
			for k, s := range g.succ[p] {
				if s == h.Index {
					g.succ[p][k] = c
				}
			}
			g.pred[c] = append(g.pred[c], p)
		}
		g.pred[h.Index] = keep
		if h.Index == 0 {
			t.entry = c
		}
	}
}

// loopBody returns the blocks of the natural loop of header h with back
// edges from back: h and the blocks that reach a back edge's source
// without passing through h.
func (t *Tree) loopBody(h int, back []int) []bool {
	body := make([]bool, t.n)
	body[h] = true
	stack := append([]int(nil), back...)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if body[b] {
			continue
		}
		body[b] = true
		for _, p := range t.fn.Blocks[b].Preds {
			stack = append(stack, p.Index)
		}
	}
	return body
}

// connectEndless gives each region that no path leads out of (an endless
// loop) an edge to the exit, from its last node in reverse postorder: the
// first that the depth-first walk finished, whose successors were all on
// the walk's stack, so a node of a cycle.
func (t *Tree) connectEndless(g *graph) {
	exit := t.n
	reached := make([]bool, len(g.succ))
	mark := func(from int) {
		stack := []int{from}
		reached[from] = true
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range g.pred[u] {
				if !reached[p] {
					reached[p] = true
					stack = append(stack, p)
				}
			}
		}
	}
	mark(exit)
	order := rpo(g.succ, t.entry)
	for _, u := range slices.Backward(order) {
		if !reached[u] {
			g.edge(u, exit)
			mark(u)
		}
	}
}

// rpo returns the nodes reachable from root along succ in reverse
// postorder.
func rpo(succ [][]int, root int) []int {
	seen := make([]bool, len(succ))
	var post []int
	type frame struct{ u, next int }
	stack := []frame{{root, 0}}
	seen[root] = true
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < len(succ[f.u]) {
			v := succ[f.u][f.next]
			f.next++
			if !seen[v] {
				seen[v] = true
				stack = append(stack, frame{v, 0})
			}
			continue
		}
		post = append(post, f.u)
		stack = stack[:len(stack)-1]
	}
	for i, j := 0, len(post)-1; i < j; i, j = i+1, j-1 {
		post[i], post[j] = post[j], post[i]
	}
	return post
}

// solve runs Cooper–Harvey–Kennedy on the reversed graph rooted at the
// virtual exit.
func (t *Tree) solve(g *graph) {
	exit := t.n
	order := rpo(g.pred, exit) // reverse postorder of the reversed graph
	num := make([]int, len(g.succ))
	for i := range num {
		num[i] = -1
	}
	for i, u := range order {
		num[u] = i
	}
	ipdom := make([]int32, len(g.succ))
	for i := range ipdom {
		ipdom[i] = -1
	}
	ipdom[exit] = int32(exit)
	intersect := func(a, b int) int {
		for a != b {
			for num[a] > num[b] {
				a = int(ipdom[a])
			}
			for num[b] > num[a] {
				b = int(ipdom[b])
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, u := range order[1:] {
			nd := -1
			for _, s := range g.succ[u] { // predecessors in the reversed graph
				if ipdom[s] < 0 {
					continue
				}
				if nd < 0 {
					nd = s
				} else {
					nd = intersect(s, nd)
				}
			}
			if nd >= 0 && ipdom[u] != int32(nd) {
				ipdom[u] = int32(nd)
				changed = true
			}
		}
	}
	ipdom[exit] = -1
	t.ipdom = ipdom
	t.depth = make([]int32, len(ipdom))
	for _, u := range order[1:] { // a node's post-dominator comes before it
		t.depth[u] = t.depth[ipdom[u]] + 1
	}
}

// dominates reports whether node a post-dominates node b (every node
// post-dominates itself).
func (t *Tree) dominates(a, b int) bool {
	if t.ipdom[b] < 0 && b != t.n {
		return false // no path from b to the exit: not in the tree
	}
	for t.depth[b] > t.depth[a] {
		b = int(t.ipdom[b])
	}
	return a == b
}

// IPostDom returns b's immediate post-dominator, or nil when it is the
// virtual exit (or b leads nowhere).
func (t *Tree) IPostDom(b *ssa.BasicBlock) *ssa.BasicBlock {
	p := t.ipdom[b.Index]
	if p < 0 || int(p) == t.n {
		return nil
	}
	return t.fn.Blocks[t.orig[p]]
}

// PostDominates reports whether every path from block b to the exit
// passes through block a.
func (t *Tree) PostDominates(a, b *ssa.BasicBlock) bool {
	return t.dominates(a.Index, b.Index)
}

// AlwaysReached reports whether instr, an instruction of the tree's
// function, runs on every path from the function's entry to its exit:
// its block post-dominates the entry (one of the header's nodes, for a
// loop header split by Options.LoopsIterate) and no call that never
// returns comes before it in its block.
func (t *Tree) AlwaysReached(instr ssa.Instruction) bool {
	b := instr.Block()
	if b == nil || b.Parent() != t.fn {
		return false
	}
	if c := t.cuts[b.Index]; c >= 0 && !slices.Contains(b.Instrs[:c+1], instr) {
		return false
	}
	if t.dominates(b.Index, t.entry) {
		return true
	}
	c := t.copy[b.Index]
	return c >= 0 && t.dominates(c, t.entry)
}

package hb

// The clocks of the walk are persistent: a vclock is a radix tree of
// components, fan to a node, whose nodes are shared between the clocks
// that hold the same values. Copying a clock (a release, a snapshot for an
// event, a go statement) copies its root and costs O(1); changing a clock
// copies the nodes on the path to the changed component, unless this clock
// made them since its last copy (they are its own, in place); a join
// walks only the subtrees in which the two clocks differ, skipping the
// shared ones by pointer, and takes a whole subtree of the other clock
// when its own is empty. A component no event ever set to non-zero costs
// nothing: a goroutine that communicated with k others holds about k
// leaves whatever the number of goroutines of the trace, and the snapshot
// an event keeps is a pointer. (The flat vector clocks this replaced cost
// O(goroutines) per release and per snapshot, which made a test with
// 100,000 goroutines need tens of gigabytes; measured in bench/RESULTS.md,
// "Analysis memory and time at scale".)
//
// A vclock also carries one component apart from the tree, g's, whose
// value is own: a goroutine's clock keeps its own component there, so that
// the increment after a release touches no node. The tree's component g is
// then stale (at most own) and never read.
//
// # Knowledge
//
// A join that compared the two trees would cost the leaves in which they
// differ even where nothing rises: a WaitGroup's clock that heard of every
// worker from the workers' Dones and a worker's clock that heard of the
// same workers, earlier, through its parent differ in every leaf. So a
// clock also keeps what it learned from whom, as tree clocks do (Mathur,
// Pavlogiannis, Tunç, Viswanathan, "A Tree Clock Data Structure for Causal
// Orderings in Concurrent Executions", ASPLOS 2022), persistently: its
// kids, newest first, each a copy it joined (a node: that copy's goroutine
// g, g's own component x, how many of g's kids the copy held, and g's
// kids then, shared), with the clock's own component and the kid's
// position when it joined it. A join of w into c visits w's node: if c
// knows g at x with at least as many kids, c knows everything the node
// knows and the visit stops; otherwise c takes x and visits g's kids,
// newest first, up to the first that g learned at or before the point at
// which c knew g (c knows it and all older ones: it learned g's clock at
// that point). The walk so costs what c did not know, plus one step per
// kid that it did; it is the tree clocks' join without their move of the
// nodes, which a persistent clock cannot do (a node stays where it was
// learned and may be reached twice; the second visit stops at once).
//
// What makes the stop sound is that c learns g's component only from a
// copy of g's clock, which holds everything g had learned by then. A
// release copies the clock and then increments the own component, so g
// learns nothing more at x after a release at x: c knows all of g at x
// (full). A copy taken without a release (channels.go's current, for an
// operation the walk has not reached) holds g's kids so far; g may learn
// more at the same x, so c knows g at x only up to those kids, and keeps
// that level in part. The level sits beside the component in the tree's
// leaf (node.parts), so that it is copied, shared and joined with the
// component: a copy costs nothing, a change copies one path, and a level
// goes stale by itself when its component rises. (It was a map per clock,
// cloned after every copy that changed it: on gocron's
// TestScheduler_ManyJobs, 6,000 goroutines each knowing thousands of
// others in part, the maps took 90% of a 5.9 GB peak, bench/RESULTS.md.)
//
// An accumulator's clock (a WaitGroup's, the unlocks of a mutex with
// LockOrder) belongs to no goroutine: its kids are the releases it joined,
// and a join of it visits each; a release that knew all of the newest
// kids replaces them (trim), so an accumulator whose releases each knew
// the ones before keeps one kid.
//
// Where a join raises many components (a goroutine that hears of
// thousands of others at once), one at a time costs a path copy each; after
// visitBudget of them it joins the rest by the trees, which takes w's
// subtrees whole where they hold all of c's, and then fixes the levels of
// the goroutines either clock knew in part. Both ways give the flat
// vectors' components (flat_test.go, TestClockTree).

const (
	fanBits = 4
	fan     = 1 << fanBits
	fanMask = fan - 1
)

// node is a node of a clock's tree: a leaf holds fan components, an inner
// node fan subtrees (nil for a subtree of zeros).
type node struct {
	owner uint64 // the token of the clock that may change it in place; 0 for none
	kids  *[fan]*node
	vals  [fan]uint32
	// parts, in a leaf, are the levels of its components (see
	// "Knowledge"): how many of the goroutine's kids at vals[k] the clock
	// knows, full for all; nil when all are full.
	parts *[fan]uint32
}

// part returns the level of component k of leaf n.
func (n *node) part(k int) uint32 {
	if n == nil || n.parts == nil {
		return full
	}
	return n.parts[k]
}

// vclock is a vector clock over dense goroutine indices. The zero value is
// the zero clock, with no own component.
type vclock struct {
	root  *node
	depth uint8  // the root covers fan^(depth+1) components
	tok   uint64 // the token of the nodes this clock may change in place; 0 for none
	g     int32  // the component kept apart, if hasG
	own   uint32 // its value
	hasG  bool

	// The clock's knowledge (see "Knowledge" above).
	kids  *kid   // what it learned, newest first
	kseq  uint32 // how many kids it has had
	final bool   // a copy taken at a release: its goroutine learns nothing more at this own component
	// taint marks a clock that lacks an order a match past Stream's
	// window would have given (see "Streaming" in the package doc): it
	// spreads to every clock that joins it.
	taint bool
}

// full is a level of knowledge of a goroutine at an own component: all it
// learned at it.
const full = ^uint32(0)

// A kid is a node of a clock's knowledge, together with the edge to it
// from the clock that learned it: goroutine g's clock (a copy of it) at
// own component x, knowing its first s kids at x (full for all); or, for g
// -1, the clock of an accumulator, the join of its kids.
type kid struct {
	g    int32
	x, s uint32
	kids *kid
	// The edge: the learning clock's own component and the kid's
	// position among its kids (from 1) when it learned this, and the
	// kid it learned before.
	aown, aseq uint32
	next       *kid
}

// A snapshot is the clock of an event, its own component stale (the
// event's segment holds it): a tree, and the n components from diffs[off:]
// (Graph.diffs), sorted by goroutine, whose values are not the tree's.
// (See analyzer.snapshot: an event's tree is its goroutine's base, and a
// handful of components set it apart.)
type snapshot struct {
	root  *node
	depth uint8
	n     uint8
	off   uint32
}

// A comp is a component of a snapshot kept apart from its tree: goroutine
// g's, v.
type comp struct{ g, v uint32 }

// get returns component x of s, whose components apart are in diffs.
func (s snapshot) get(x int, diffs []comp) uint32 {
	for _, d := range diffs[s.off : s.off+uint32(s.n)] {
		if int(d.g) >= x {
			if int(d.g) == x {
				return d.v
			}
			break
		}
	}
	c := vclock{root: s.root, depth: s.depth}
	return c.tree(x)
}

// diffTree appends to out, in order, the components of subtree b, of depth
// d and first component base, whose values differ from subtree a's, but
// component own; it reports false, having appended part of them, when
// out would grow past limit.
func diffTree(a, b *node, d, base, own int, out *[]comp, limit int) bool {
	if a == b {
		return true
	}
	if d == 0 {
		for k := range fan {
			var av, bv uint32
			if a != nil {
				av = a.vals[k]
			}
			if b != nil {
				bv = b.vals[k]
			}
			if av != bv && base+k != own {
				if len(*out) >= limit {
					return false
				}
				*out = append(*out, comp{g: uint32(base + k), v: bv})
			}
		}
		return true
	}
	step := 1 << (fanBits * d)
	for k := range fan {
		var ak, bk *node
		if a != nil && a.kids != nil {
			ak = a.kids[k]
		}
		if b != nil && b.kids != nil {
			bk = b.kids[k]
		}
		if !diffTree(ak, bk, d-1, base+k*step, own, out, limit) {
			return false
		}
	}
	return true
}

// tokens hands out the tokens that mark the nodes a clock may change, and
// holds the joins' visitBudget.
type tokens struct {
	next   uint64
	budget int
}

func (t *tokens) get() uint64 {
	t.next++
	return t.next
}

// newClock returns a goroutine's clock: c (a copy the goroutine now owns)
// with component g set to own and kept apart.
func (t *tokens) newClock(c vclock, g int, own uint32) vclock {
	var n *kid
	if c.root != nil || c.hasG || c.kids != nil {
		n = c.node()
	}
	c.tok = t.get()
	if c.hasG && int(c.g) != g {
		c.setTree(int(c.g), c.own)
		c.setPart(int(c.g), c.own, n.s)
	}
	c.g, c.own, c.hasG = int32(g), own, true
	c.kids, c.kseq, c.final = nil, 0, false
	if n != nil {
		c.attach(n)
	}
	return c
}

// get returns component x.
func (c *vclock) get(x int) uint32 {
	if c.hasG && int(c.g) == x {
		return c.own
	}
	return c.tree(x)
}

// tree returns component x of the tree.
func (c *vclock) tree(x int) uint32 {
	n := c.root
	if n == nil || x>>(fanBits*(int(c.depth)+1)) != 0 {
		return 0
	}
	for d := int(c.depth); d > 0; d-- {
		n = n.kids[(x>>(fanBits*d))&fanMask]
		if n == nil {
			return 0
		}
	}
	return n.vals[x&fanMask]
}

// treeLevel returns component x of the tree and its level.
func (c *vclock) treeLevel(x int) (v, s uint32) {
	n := c.root
	if n == nil || x>>(fanBits*(int(c.depth)+1)) != 0 {
		return 0, full
	}
	for d := int(c.depth); d > 0; d-- {
		n = n.kids[(x>>(fanBits*d))&fanMask]
		if n == nil {
			return 0, full
		}
	}
	return n.vals[x&fanMask], n.part(x & fanMask)
}

// copy returns a copy of c that no one changes; c's later changes copy the
// nodes they touch.
func (c *vclock) copy(t *tokens) vclock {
	d := *c
	d.tok, d.final = 0, false
	if c.tok != 0 {
		c.tok = t.get()
	}
	return d
}

// inc increments the component kept apart.
func (c *vclock) inc() { c.own++ }

// mutable returns the node at *at, made one c may change.
func (c *vclock) mutable(at **node) *node {
	*at = c.owned(*at)
	return *at
}

// grow deepens c's tree until it covers component x.
func (c *vclock) grow(x int) {
	for x>>(fanBits*(int(c.depth)+1)) != 0 {
		if c.root != nil {
			r := &node{owner: c.tok, kids: new([fan]*node)}
			r.kids[0] = c.root
			c.root = r
		}
		c.depth++
	}
}

// setTree sets component x of the tree to v if that raises it, and reports
// whether it did. A raised component's level is full until setPart says
// otherwise.
func (c *vclock) setTree(x int, v uint32) bool {
	if v <= c.tree(x) {
		return false
	}
	l := c.leaf(x)
	l.vals[x&fanMask] = v
	if l.parts != nil {
		l.parts[x&fanMask] = full
	}
	return true
}

// leaf returns the leaf that holds component x, made one c may change.
func (c *vclock) leaf(x int) *node {
	if c.tok == 0 {
		panic("hb: change of a clock copy")
	}
	c.grow(x)
	at := &c.root
	for d := int(c.depth); d > 0; d-- {
		n := c.mutable(at)
		if n.kids == nil {
			n.kids = new([fan]*node)
		}
		at = &n.kids[(x>>(fanBits*d))&fanMask]
	}
	return c.mutable(at)
}

// owned returns n if c may change it, else a copy of it (a new node for
// nil) that c may.
func (c *vclock) owned(n *node) *node {
	if n != nil && n.owner == c.tok {
		return n
	}
	m := &node{owner: c.tok}
	if n != nil {
		m.vals = n.vals
		if n.kids != nil {
			k := *n.kids
			m.kids = &k
		}
		if n.parts != nil {
			p := *n.parts
			m.parts = &p
		}
	}
	return m
}

// join sets c to the component-wise maximum of c and w, a copy, and
// reports whether a component of c other than its own rose. c's own
// component does not change: a goroutine's own time is its own (no other
// clock knows a later one, since they learn it from its releases).
//
// The join walks w's knowledge (see "Knowledge" above), not its
// components: it visits what w learned, newest first, and stops where c
// already knew the goroutine that w learned it from at the time it did, so
// its cost grows with what c did not know, not with the goroutines w heard
// of.
func (c *vclock) join(w vclock, t *tokens) bool {
	if w.tok != 0 {
		panic("hb: join of a clock that is not a copy")
	}
	if w.root == nil && !w.hasG && w.kids == nil {
		return false
	}
	if c.tok == 0 {
		// A copy, or the zero clock: the nodes it holds are not its
		// own, and changes copy them.
		c.tok = t.get()
	}
	n := w.node()
	if c.root == nil && !c.hasG && c.kids == nil {
		// The zero clock (an accumulator's first join) becomes w.
		c.root, c.depth = w.root, w.depth
		if w.hasG {
			c.setTree(int(w.g), w.own)
			c.setPart(int(w.g), w.own, n.s)
		}
		c.attach(n)
		return c.root != nil
	}
	j := joining{budget: t.budget}
	if !c.visit(n, &j) {
		// Much is new to c: joining the trees takes whole subtrees
		// where w's hold all of c's.
		j.learned = true
		if c.joinTree(w, n) {
			j.changed = true
		}
	}
	if j.learned {
		if !c.hasG && n.g >= 0 {
			c.trim(w, n)
		}
		c.attach(n)
	}
	return j.changed
}

// trim drops the newest kids of c, an accumulator's clock, that w, whose
// node is n, knows all of: they say nothing w does not. An accumulator
// whose every release knew the ones before (a mutex's unlocks with
// LockOrder, a word's atomic stores) so keeps one kid, and a join of it
// visits one.
func (c *vclock) trim(w vclock, n *kid) {
	for c.kids != nil {
		k := c.kids
		if k.g < 0 {
			return
		}
		wx, ws := w.level(int(k.g))
		if w.hasG && k.g == w.g {
			ws = n.s
		}
		if wx < k.x || wx == k.x && ws < k.s {
			return
		}
		c.kids = k.next
	}
}

// visitBudget is how many components a join raises one at a time, by its
// walk of w's knowledge, before it joins the rest tree by tree.
const visitBudget = 32

// joinTree joins w's components into c by walking the two trees, and
// reports whether a component of c other than its own rose. n is w's node.
func (c *vclock) joinTree(w vclock, n *kid) bool {
	own := -1
	if c.hasG {
		own = int(c.g)
	}
	// w's own component, kept apart, joins with the level n.s; c's level
	// of that goroutine after the join depends on its level before.
	wg := w.hasG && int(w.g) != own
	var cx, cs uint32
	if wg {
		cx, cs = c.level(int(w.g))
	}
	changed := false
	if w.root != nil && w.root != c.root {
		for w.depth > c.depth {
			c.grow(fan << (fanBits * int(c.depth)))
		}
		c.root, changed = c.joinAt(c.root, int(c.depth), w.root, int(w.depth), own)
	}
	if wg && w.own > 0 {
		if c.setTree(int(w.g), w.own) {
			changed = true
		}
		// The tree's joined component w.g was w's stale one: set the
		// level from c's before the join.
		switch {
		case cx < w.own:
			c.setPart(int(w.g), w.own, n.s)
		case cx == w.own:
			c.setPart(int(w.g), w.own, max(cs, n.s))
		}
	}
	return changed
}

// joining is the state of one join.
type joining struct {
	learned bool // c's knowledge grew
	changed bool // a component of c other than its own rose
	budget  int  // raises left before the join goes tree by tree
}

// visit joins into c what node n says: its goroutine's component and, of
// what that goroutine had learned by then, what c does not know yet. It
// reports false if it ran out of budget, with part of n joined.
func (c *vclock) visit(n *kid, j *joining) bool {
	if n.g < 0 {
		// An accumulator's clock: the join of its kids, which say
		// nothing of each other's order.
		for k := n.kids; k != nil; k = k.next {
			if !c.visit(k, j) {
				return false
			}
		}
		return true
	}
	u := int(n.g)
	cx, cs := c.level(u)
	if cx > n.x || cx == n.x && cs >= n.s {
		return true // c knows all n knows
	}
	if n.x > cx {
		if j.budget--; j.budget < 0 {
			return false
		}
		c.setTree(u, n.x)
		j.changed = true
	}
	j.learned = true
	c.setPart(u, n.x, n.s)
	for k := n.kids; k != nil; k = k.next {
		if k.aown < cx || k.aown == cx && k.aseq <= cs {
			// u learned it, and all after it in the list, before
			// the point at which c knew u.
			break
		}
		if !c.visit(k, j) {
			return false
		}
	}
	return true
}

// level returns how much of goroutine u c knows: u's own component x and,
// of what u learned while its own component was x, the first s entries of
// its kids (full for all of it: c learned x from a release, after which u
// learned nothing more at x).
func (c *vclock) level(u int) (x, s uint32) {
	if c.hasG && int(c.g) == u {
		return c.own, full
	}
	return c.treeLevel(u)
}

// setPart records that c knows u at own component x, its component in the
// tree, up to kid s (full for all). It changes the leaf in place if c made
// it since its last copy, and copies the leaf's path otherwise; a level of
// a component that is not x says nothing and is not set.
func (c *vclock) setPart(u int, x, s uint32) {
	v, p := c.treeLevel(u)
	if v != x || p == s {
		return
	}
	l := c.leaf(u)
	if l.parts == nil {
		l.parts = &[fan]uint32{full, full, full, full, full, full, full, full, full, full, full, full, full, full, full, full}
	}
	l.parts[u&fanMask] = s
}

// node returns w, a copy, as a node of a clock's knowledge.
func (w *vclock) node() *kid {
	if !w.hasG {
		return &kid{g: -1, kids: w.kids}
	}
	s := w.kseq
	if w.final {
		s = full
	}
	return &kid{g: w.g, x: w.own, s: s, kids: w.kids}
}

// attach adds n to c's kids, newest first.
func (c *vclock) attach(n *kid) {
	c.kseq++
	k := *n
	k.aown, k.aseq, k.next = c.own, c.kseq, c.kids
	c.kids = &k
}

// joinAt joins subtree m, of depth dm, into subtree n, of depth dn >= dm,
// both holding component 0, and returns the new n.
func (c *vclock) joinAt(n *node, dn int, m *node, dm int, own int) (*node, bool) {
	if dn == dm {
		return c.joinNode(n, m, dn, 0, own)
	}
	var k0 *node
	if n != nil && n.kids != nil {
		k0 = n.kids[0]
	}
	r, changed := c.joinAt(k0, dn-1, m, dm, own)
	if r != k0 {
		n = c.owned(n)
		if n.kids == nil {
			n.kids = new([fan]*node)
		}
		n.kids[0] = r
	}
	return n, changed
}

// joinNode returns the join of subtrees n and m, of depth d and first
// component base, reusing n or m where it can, and reports whether a
// component other than own rose.
func (c *vclock) joinNode(n, m *node, d, base, own int) (*node, bool) {
	if m == nil || n == m {
		return n, false
	}
	if n == nil {
		return m, raises(nil, m, d, base, own)
	}
	if d == 0 {
		// raise: m has a larger component; take: m has a larger
		// component or, at an equal one, a larger level; keep: n has.
		// (c's own component is stale in the tree: only its value is
		// joined, as any other, and not counted as a raise.)
		raise, take, keep := false, false, false
		for k := range fan {
			switch mv, nv := m.vals[k], n.vals[k]; {
			case mv > nv:
				if base+k != own {
					raise, take = true, true
				}
			case mv < nv:
				keep = true
			case base+k != own && (m.parts != nil || n.parts != nil):
				if ms, ns := m.part(k), n.part(k); ms > ns {
					take = true
				} else if ms < ns {
					keep = true
				}
			}
		}
		switch {
		case !keep:
			return m, raise // m holds every component of n, and what n knows of them
		case !take:
			return n, false
		}
		n = c.owned(n)
		for k := range fan {
			switch mv, nv := m.vals[k], n.vals[k]; {
			case mv > nv:
				n.vals[k] = mv
				if p := m.part(k); p != full || n.parts != nil {
					n.setLevel(k, p)
				}
			case mv == nv && base+k != own:
				if p := m.part(k); p > n.part(k) {
					n.setLevel(k, p)
				}
			}
		}
		return n, raise
	}
	if m.kids == nil {
		return n, false
	}
	out, changed, allM := n, false, true
	step := 1 << (fanBits * d)
	for k, mk := range m.kids {
		var nk *node
		if n.kids != nil {
			nk = n.kids[k]
		}
		r, ch := c.joinNode(nk, mk, d-1, base+k*step, own)
		changed = changed || ch
		if r != mk {
			allM = false
		}
		if r != nk {
			if out == n {
				out = c.owned(n)
				if out.kids == nil {
					out.kids = new([fan]*node)
				}
			}
			out.kids[k] = r
		}
	}
	if allM {
		return m, changed
	}
	return out, changed
}

// setLevel sets the level of component k of leaf n, which its clock may
// change.
func (n *node) setLevel(k int, s uint32) {
	if n.parts == nil {
		if s == full {
			return
		}
		n.parts = &[fan]uint32{full, full, full, full, full, full, full, full, full, full, full, full, full, full, full, full}
	}
	n.parts[k] = s
}

// raises reports whether subtree m, of depth d and first component base,
// has a component other than own above n's.
func raises(n, m *node, d, base, own int) bool {
	if m == nil || n == m {
		return false
	}
	if d == 0 {
		for k := range fan {
			var v uint32
			if n != nil {
				v = n.vals[k]
			}
			if m.vals[k] > v && base+k != own {
				return true
			}
		}
		return false
	}
	if m.kids == nil {
		return false
	}
	step := 1 << (fanBits * d)
	for k, mk := range m.kids {
		var nk *node
		if n != nil && n.kids != nil {
			nk = n.kids[k]
		}
		if raises(nk, mk, d-1, base+k*step, own) {
			return true
		}
	}
	return false
}

// vc returns c as a flat VC of length at least n.
func (c *vclock) vc(n int) VC {
	v := make(VC, n)
	c.each(func(x int, t uint32) {
		if x >= len(v) {
			v = append(v, make(VC, x+1-len(v))...)
		}
		v[x] = t
	})
	return v
}

// each calls f for each non-zero component of c, in no particular order.
func (c *vclock) each(f func(x int, t uint32)) {
	var walk func(n *node, d, base int)
	walk = func(n *node, d, base int) {
		if n == nil {
			return
		}
		if d == 0 {
			for k, t := range n.vals {
				if x := base + k; t != 0 && !(c.hasG && x == int(c.g)) {
					f(x, t)
				}
			}
			return
		}
		if n.kids == nil {
			return
		}
		for k, m := range n.kids {
			walk(m, d-1, base+k<<(fanBits*d))
		}
	}
	walk(c.root, int(c.depth), 0)
	if c.hasG && c.own != 0 {
		f(int(c.g), c.own)
	}
}

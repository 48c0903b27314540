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
}

// A snapshot is the clock of an event, its own component stale (Graph.own
// holds it).
type snapshot struct {
	root  *node
	depth uint8
}

func (s snapshot) get(x int) uint32 {
	c := vclock{root: s.root, depth: s.depth}
	return c.tree(x)
}

// tokens hands out the tokens that mark the nodes a clock may change.
type tokens struct{ next uint64 }

func (t *tokens) get() uint64 {
	t.next++
	return t.next
}

// newClock returns a goroutine's clock: c (a copy the goroutine now owns)
// with component g set to own and kept apart.
func (t *tokens) newClock(c vclock, g int, own uint32) vclock {
	c.tok = t.get()
	if c.hasG && int(c.g) != g {
		c.setTree(int(c.g), c.own)
	}
	c.g, c.own, c.hasG = int32(g), own, true
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

// copy returns a copy of c that no one changes; c's later changes copy the
// nodes they touch.
func (c *vclock) copy(t *tokens) vclock {
	d := *c
	d.tok = 0
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
// whether it did.
func (c *vclock) setTree(x int, v uint32) bool {
	if v <= c.tree(x) {
		return false
	}
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
	c.mutable(at).vals[x&fanMask] = v
	return true
}

// join sets c to the component-wise maximum of c and w, a copy, and
// reports whether a component of c other than its own rose. c's own
// component does not change: a goroutine's own time is its own (no other
// clock knows a later one, since they learn it from its releases).
//
// Where a subtree of w holds every component of c's, c takes w's subtree
// itself, even if no component rises: clocks that learn from each other
// come to share their nodes, and their next join skips them by pointer.
func (c *vclock) join(w vclock, t *tokens) bool {
	if w.tok != 0 {
		panic("hb: join of a clock that is not a copy")
	}
	if w.root == nil && !w.hasG {
		return false
	}
	if c.tok == 0 {
		// A copy, or the zero clock: the nodes it holds are not its
		// own, and changes copy them.
		c.tok = t.get()
	}
	own := -1
	if c.hasG {
		own = int(c.g)
	}
	changed := false
	if w.root != nil && w.root != c.root {
		for w.depth > c.depth {
			c.grow(fan << (fanBits * int(c.depth)))
		}
		c.root, changed = c.joinAt(c.root, int(c.depth), w.root, int(w.depth), own)
	}
	if w.hasG && w.own > 0 && int(w.g) != own && c.setTree(int(w.g), w.own) {
		changed = true
	}
	return changed
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
	}
	return m
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
		raise, keep := false, false
		for k := range fan {
			if m.vals[k] > n.vals[k] {
				if base+k != own {
					raise = true
				}
			} else if m.vals[k] < n.vals[k] {
				keep = true
			}
		}
		switch {
		case !keep:
			return m, raise // m holds every component of n
		case !raise:
			return n, false
		}
		n = c.owned(n)
		for k := range fan {
			n.vals[k] = max(n.vals[k], m.vals[k])
		}
		return n, true
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

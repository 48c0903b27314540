// Package constructors: objects made in a function that returns them are
// told apart by the call site they are returned to, so two New() calls
// give two objects; one call site gives one object, also in a loop.
package constructors

func alias(p, q any) {}

type conn struct {
	peer *conn
	n    int
}

func New() *conn { return &conn{} }

func newMap() map[string]int { return make(map[string]int) }

func Two() {
	a, b := New(), New()
	alias(a, b) // want `^disjoint$`
	alias(a, a) // want `^may alias$`
	c := a
	alias(a, c) // want `^may alias$`
	a.peer = b
	alias(a.peer, b) // want `^may alias$`
	alias(a.peer, a) // want `^disjoint$`
	m1, m2 := newMap(), newMap()
	alias(m1, m2) // want `^disjoint$`
}

func Loop(n int) {
	var prev *conn
	for i := 0; i < n; i++ {
		c := New()
		alias(c, prev) // want `^may alias$`
		prev = c
	}
}

func Allocations() {
	x, y := &conn{}, &conn{}
	alias(x, y) // want `^disjoint$`
}

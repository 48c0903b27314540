// Package flows: a pointer keeps its objects through parameters, results,
// fields, channels, maps, slices, interfaces, closures and package
// variables.
package flows

func alias(p, q any) {}

type conn struct{ peer *conn }

func pass(c *conn) *conn { return c }

type holder struct{ c *conn }

var global *conn

func store(c *conn) { global = c }

func Flows() {
	x, other := &conn{}, &conn{}
	alias(x, other)   // want `^disjoint$`
	alias(x, pass(x)) // want `^may alias$`

	h := &holder{}
	h.c = x
	alias(x, h.c) // want `^may alias$`

	ch := make(chan *conn, 1)
	ch <- x
	alias(x, <-ch) // want `^may alias$`

	m := map[string]*conn{"k": x}
	alias(x, m["k"]) // want `^may alias$`
	for _, v := range m {
		alias(x, v) // want `^may alias$`
	}

	s := append([]*conn(nil), x)
	alias(x, s[0]) // want `^may alias$`

	var i any = x
	alias(x, i.(*conn)) // want `^may alias$`

	f := func() *conn { return x }
	alias(x, f()) // want `^may alias$`

	store(x)
	alias(x, global) // want `^may alias$`

	done := make(chan *conn)
	go func() { done <- x }()
	alias(x, <-done) // want `^may alias$`
}

// Package wrappers: a call through an interface value reaches the method
// of every type the value may hold, and each method receives only the
// objects of its own type: B.Read's receiver is never theA, so its field
// buf does not alias theA's, while A.Read's does. Readers of three types
// that wrap one another behind io.Reader (gobwas/ws's wsutil.Reader
// wrapping a LimitedReader and a UTF8Reader) keep what they hold.
package wrappers

import "io"

func alias(p, q any) {}

type limited struct {
	src io.Reader
	n   int
}

func (l *limited) Read(p []byte) (int, error) {
	return l.src.Read(p)
}

type checker struct {
	src   io.Reader
	state int
}

func (c *checker) Read(p []byte) (int, error) { return c.src.Read(p) }

type Reader struct {
	Source io.Reader
	frame  io.Reader
	raw    limited
	utf8   checker
}

func (r *Reader) Read(p []byte) (int, error) {
	r.raw = limited{src: r.Source}
	r.utf8 = checker{src: &r.raw}
	r.frame = &r.utf8
	alias(r, &r.raw)       // want `^disjoint$`
	alias(&r.raw, r.frame) // want `^disjoint$`
	return r.frame.Read(p)
}

func Chain(src io.Reader) io.Reader {
	inner := &Reader{Source: src}
	outer := &Reader{Source: inner}
	var rd io.Reader = outer
	rd.Read(nil)
	alias(inner, outer.Source)    // want `^may alias$`
	alias(&inner.raw, &outer.raw) // want `^disjoint$`
	return rd
}

type inner struct{ p *int }

type A struct{ buf inner }

func (a *A) Read(p []byte) (int, error) {
	alias(&a.buf, &theA.buf) // want `^may alias$`
	return 0, nil
}

type B struct {
	buf  inner
	size int
}

func (b *B) Read(p []byte) (int, error) {
	alias(&b.buf, &theA.buf) // want `^disjoint$`
	return 0, nil
}

var theA = &A{}

func read(r io.Reader) { r.Read(nil) }

func Dispatch() {
	read(theA)
	read(&B{})
}

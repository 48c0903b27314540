// Package nested: a reader that keeps readers of two other types inside
// it and reads through them behind io.Reader, as gobwas/ws's wsutil.Reader
// does, handed a source from outside the package. The source's object is
// of a type the analysis cannot see, and it reaches every Read; Reader's
// fields selected in it are a limited and a checker, in which Reader's
// fields are not selected again: without that, each selection was
// selected in again, field after field, until the paths reached their
// bound, and the package's budget ran out (TestNestedBudget).
package nested

import "io"

func alias(p, q any) {}

type limited struct {
	src io.Reader
	n   int
}

func (l *limited) Read(p []byte) (int, error) { return l.src.Read(p) }

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
	cipher limited
}

// sink holds every reader of the package, and what comes from outside.
var sink io.Reader

func (r *Reader) Read(p []byte) (int, error) {
	r.raw = limited{src: r.Source}
	r.cipher = limited{src: &r.raw}
	r.utf8 = checker{src: &r.cipher}
	r.frame = &r.utf8
	sink = &r.raw
	sink = &r.cipher
	sink = &r.utf8
	sink.Read(p)
	alias(&r.raw, &r.utf8) // want `^disjoint$`
	alias(&r.raw, &r.raw)  // want `^may alias$`
	return r.frame.Read(p)
}

// Use reads through src, which may be a Reader.
func Use(src io.Reader) {
	sink = src
	sink.Read(nil)
}

// Next reads the next frame of src.
func Next(src io.Reader) io.Reader {
	rd := &Reader{Source: src}
	sink = rd
	sink.Read(nil)
	return rd
}

package p

import "io"

type node struct {
	next *node
	val  int
	arr  [4]int
	r    io.Reader
	tags []string
}

var head *node
var counts = map[string]int{}
var hits [8]int

func list(p *node, s []int, w io.Writer) int {
	p.next.val = 3
	p.val += p.next.val
	p.arr[1]++
	s[0] = p.arr[2]
	*p = node{val: 1}
	q := &p.val
	*q = 4
	head = p
	p.r = w.(io.Reader)
	p.r = nil
	p.tags = append(p.tags, "x")
	counts["a"]++
	counts["b"] = len(counts)
	delete(counts, "a")
	for k, v := range counts {
		_, _ = k, v
	}
	if c, ok := counts["c"]; ok {
		return c
	}
	hits[2] = 1
	p.val, p.next = p.next.val, p
	x := 0
	func() { x++ }()
	var n int
	n, p.val = 1, 2
	for i := range s {
		s[i] = i
	}
	return x + n
}

func next(s []int) int { return len(s) - 1 }

func impure(s []int, p *node) {
	s[next(s)]++
	s[next(s)] += 2
	for i := 0; i < 2; p.val++ {
		i++
	}
}

// pairs assigns shared targets two at a time in init and post statements,
// each statement a call of a function literal that records its writes.
func pairs(p, q *node, s []int) {
	for head, p.next = p, q; p.val < 3; p.val, q.val = p.val+1, q.val+1 {
		s[0]++
	}
	if hits[0], hits[1] = 1, 2; p.val > 0 {
		s[1]++
	}
	switch head, p.r = q, nil; {
	default:
	}
}

type batch struct{ calls []int }

func shorten(b *batch, i int) {
	b.calls[i], b.calls = b.calls[len(b.calls)-1], b.calls[:len(b.calls)-1]
}

func grow(p *node) int { p.next = p; return 1 }

func updateCall(p *node) {
	p.val += grow(p)
}

// hint is a map type whose literals have their address taken (sentry-go's
// &BreadcrumbHint{}): the literal stays addressable; the elided literals
// inside []*hint stay literals, and a literal not addressed is wrapped as
// any other.
type hint map[string]int

func hints(n int) (*hint, *hint, *map[string]int, []*hint, hint) {
	return &hint{"n": n}, &(hint{}), &map[string]int{}, []*hint{{"a": 1}}, hint{}
}

type label struct{ a string }

// shadowed declares s in an if's init and again, as a string, in the
// else-if's init: the first s's declaration is recorded in the if's block
// only, where it is still that s.
func shadowed(c, d bool) string {
	if s := (label{a: "x"}); c {
		go func() { _ = s.a }()
		s.a = "y"
	} else if s := "str"; d {
		return s
	}
	return ""
}

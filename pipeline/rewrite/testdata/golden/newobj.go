package p

import (
	"bytes"
	"sync"
	"sync/atomic"
)

// Allocations of structs: each &T{...} and new(T) of a struct of the
// package (or a WaitGroup, Once or atomic) is wrapped in New.

type node struct {
	val  int
	next *node
}

func (n *node) get() int { return n.val }

type empty struct{}

type alias = node

var root = &node{val: 1}

func allocs[T any, S ~struct{ a int }]() (*node, *node, int, []*node, *sync.WaitGroup, *sync.Once, *atomic.Int64) {
	a := &node{val: 1, next: &node{}}
	b := new(node)
	c := (&node{val: 2}).get()
	d := []*node{{val: 3}, &node{val: 4}}
	_ = &empty{}
	_ = &struct{ x int }{x: 1}
	_ = &struct{}{}
	_ = new(int)
	_ = &bytes.Buffer{}
	_ = &sync.Mutex{}
	_ = new(T)
	_ = new(S)
	_ = &alias{}
	_ = &[]int{1}
	_ = &(node{val: 5})
	return a, b, c, d, &sync.WaitGroup{}, new(sync.Once), new(atomic.Int64)
}

func use(*node) {}

func spawn() {
	go use(&node{val: 6})
	defer use(new(node))
	func() { use(&node{}) }()
}

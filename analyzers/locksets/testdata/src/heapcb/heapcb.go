// Package heapcb: container/heap and sort call the methods of the
// interface value they are given before they return, on the caller's
// goroutine, so a heap's methods run with the locks held at heap.Push,
// heap.Pop and sort.Sort, when the value goes nowhere else (kcp-go's
// shardHeap, pushed and popped under its session's lock). A heap whose
// value is also stored in an interface, where any code may call it, and
// one pushed once without the lock hold nothing.
package heapcb

import (
	"container/heap"
	"sort"
	"sync"
)

func mark() {}

type items struct{ xs []int }

func (h *items) Len() int           { return len(h.xs) }
func (h *items) Less(i, j int) bool { return h.xs[i] < h.xs[j] }
func (h *items) Swap(i, j int)      { mark(); h.xs[i], h.xs[j] = h.xs[j], h.xs[i] } // want `held: Q.mu\(w\)`
func (h *items) Push(x any) {
	mark() // want `held: Q.mu\(w\)`
	h.xs = append(h.xs, x.(int))
}
func (h *items) Pop() any {
	mark() // want `held: Q.mu\(w\)`
	x := h.xs[len(h.xs)-1]
	h.xs = h.xs[:len(h.xs)-1]
	return x
}

type Q struct {
	mu sync.Mutex
	h  *items
	k  *kept
	l  *loose
}

func (q *Q) Put(x int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	heap.Push(q.h, x)
	heap.Push(q.k, x)
	heap.Push(q.l, x)
}

func (q *Q) Take() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	sort.Sort(q.h)
	return heap.Pop(q.h).(int)
}

// kept is also stored in an interface variable: code anywhere may call
// its methods through it.
type kept struct{ xs []int }

var Kept heap.Interface = &kept{}

func (h *kept) Len() int           { return len(h.xs) }
func (h *kept) Less(i, j int) bool { return h.xs[i] < h.xs[j] }
func (h *kept) Swap(i, j int)      { h.xs[i], h.xs[j] = h.xs[j], h.xs[i] }
func (h *kept) Push(x any) {
	mark() // want `held: none`
	h.xs = append(h.xs, x.(int))
}
func (h *kept) Pop() any { return nil }

// loose is pushed once without the lock.
type loose struct{ xs []int }

func (h *loose) Len() int           { return len(h.xs) }
func (h *loose) Less(i, j int) bool { return h.xs[i] < h.xs[j] }
func (h *loose) Swap(i, j int)      { h.xs[i], h.xs[j] = h.xs[j], h.xs[i] }
func (h *loose) Push(x any) {
	mark() // want `held: none`
	h.xs = append(h.xs, x.(int))
}
func (h *loose) Pop() any { return nil }

func (q *Q) Reset() { heap.Push(q.l, 0) }

// Package ring is a generic ring buffer without a lock of its own, the
// shape of pond's internal/linkedbuffer: its users in other packages share
// one under their own lock. Its test uses it on one goroutine, and the
// test variant of the package is the one analyzed: only the filter's rule
// for exported API keeps the slots' accesses, which every caller of the
// API reaches even though the package's own test calls it too.
package ring

// Ring is a bounded FIFO of values.
type Ring[T any] struct {
	data       []T
	head, tail int
	zero       T
}

// New returns an empty ring of n slots.
func New[T any](n int) *Ring[T] {
	r := &Ring[T]{data: make([]T, n)}
	r.data[0] = r.zero // local: r has not escaped yet
	return r
}

// Push appends v, or reports false when the ring is full.
func (r *Ring[T]) Push(v T) bool {
	if r.tail-r.head == len(r.data) {
		return false
	}
	r.data[r.tail%len(r.data)] = v // shared
	r.tail++
	return true
}

// Pop takes the oldest value out of its slot.
func (r *Ring[T]) Pop() (T, bool) {
	if r.head == r.tail {
		return r.zero, false
	}
	i := r.head % len(r.data)
	v := r.data[i]     // shared
	r.data[i] = r.zero // shared
	r.head++
	return v, true
}

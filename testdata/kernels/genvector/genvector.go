// Package genvector is Unicorn's Vector (unicorn.txt Table I, P14) on a
// generic container with a lock per method: CopyOut reads the length with
// Len, then each element with At, and a Pop on another goroutine between
// the two shrinks the vector. Every access holds v.mu: no data race, an
// atomicity violation over two calls (OSCS's multi-variable shape through
// a caller's two steps).
//
// Crashing interleaving:
//
//	CopyOut's goroutine                   Pop's goroutine
//	n := v.Len()              (4)
//	v.At(0), v.At(1), v.At(2)
//	                                      v.Pop()   (3 left)
//	v.At(3)
//	panic: runtime error: index out of range [3] with length 3
//
// The test's normal schedule hides it: Pop comes 20 ms after the copy
// started, long after it ended. The last At's section has another At's as
// its neighbor; detect/oscs looks past those calls of one operation to the
// Len the loop relies on.
package genvector

import "sync"

// Vec is a vector safe for concurrent use, one method at a time.
type Vec[T any] struct {
	mu    sync.Mutex
	items []T
}

// Push appends x.
func (v *Vec[T]) Push(x T) {
	v.mu.Lock()
	v.items = append(v.items, x)
	v.mu.Unlock()
}

// Pop removes the last element.
func (v *Vec[T]) Pop() (T, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	var zero T
	if len(v.items) == 0 {
		return zero, false
	}
	x := v.items[len(v.items)-1]
	v.items = v.items[:len(v.items)-1]
	return x, true
}

// Len returns the number of elements.
func (v *Vec[T]) Len() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.items)
}

// At returns element i.
func (v *Vec[T]) At(i int) T {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.items[i]
}

// CopyOut copies the elements of v: the length and the elements in
// different critical sections.
func CopyOut[T any](v *Vec[T]) []T {
	n := v.Len()
	out := make([]T, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, v.At(i))
	}
	return out
}

// Package vector is the Unicorn Vector kernel (unicorn.txt Table III, the
// Java 1.4 library's Vector rewritten as a Go type with per-method
// locking): a multi-variable atomicity violation, pattern P14 of Table I,
// R1(x) W2(x) W2(y) R1(y).
//
// v.AddAll(src) reads src's size (S1) in one locked call and then copies
// that many elements out of src (S4) in another. RemoveLast, on another
// goroutine, decrements src's count (S2) and clears the slot it freed
// (S3) in between, so the copy takes a cleared slot.
//
// Failing interleaving (x is src.count, y is src.data[n-1]):
//
//	addAll goroutine                 remove goroutine
//	S1 n := src.Size()
//	                                 S2 src.count--
//	                                 S3 src.data[src.count] = nil
//	S4 ... = src.data[n-1]   (nil: a removed element is added)
//
// (Java's Vector copies the null and fails later, or throws
// ArrayIndexOutOfBoundsException once the array shrinks.) In the usual
// schedule the copy takes microseconds and the removal comes later (or
// earlier): the pairs R1(x) W2(x) and W2(y) R1(y) each occur in passing
// runs, only their combination fails.
package vector

import (
	"errors"
	"sync"
)

// Element is what a Vector holds.
type Element struct{ Name string }

// Vector is a growable array whose methods lock it.
type Vector struct {
	mu    sync.Mutex
	data  []*Element
	count int
}

// New returns a vector holding elems.
func New(elems ...*Element) *Vector {
	return &Vector{data: append([]*Element(nil), elems...), count: len(elems)}
}

// Size returns the number of elements.
func (v *Vector) Size() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.count // S1
}

// CopyInto copies the first len(dst) elements into dst.
func (v *Vector) CopyInto(dst []*Element) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for i := range dst {
		dst[i] = v.data[i] // S4
	}
}

// RemoveLast removes the last element.
func (v *Vector) RemoveLast() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.count--             // S2
	v.data[v.count] = nil // S3: let the element be collected
}

// AddAll appends src's elements to v.
func (v *Vector) AddAll(src *Vector) error {
	n := src.Size()
	elems := make([]*Element, n)
	src.CopyInto(elems)
	for _, e := range elems {
		if e == nil {
			return errors.New("addAll copied a removed element")
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.data = append(v.data[:v.count], elems...)
	v.count += n
	return nil
}

// Len is Size without the lock, for the test after the goroutines ended.
func (v *Vector) Len() int { return len(v.data[:v.count]) }

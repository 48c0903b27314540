// Package kb4 is the KB4-AM kernel (OSCS, oscs.txt Table 2, a Mozilla bug as
// a two-goroutine kernel): a non-race multi-variable atomicity violation.
//
// A buffer keeps its length in b.n, guarded by b.nmu, and its data in
// b.data, guarded by b.dmu. The two belong together (b.n is len(b.data)),
// but each is updated under its own lock: Grow stores the new length first,
// then the new data. Last, on another goroutine, reads the length and then
// the data and indexes the data with the length. Every access holds its
// lock, so there is no data race.
//
// Crashing interleaving:
//
//	grow goroutine                       reader goroutine
//	S1 b.n = len(data)
//	                                     S3 n := b.n           (the new length)
//	                                     S4 d := b.data        (the old data)
//	S2 b.data = data
//	                                     d[n-1]
//	panic: runtime error: index out of range [2] with length 1
//
// The test's normal schedule hides the bug: the reader runs 2 ms after Grow.
package kb4

import "sync"

// Buffer is a buffer whose length and data are locked separately.
type Buffer struct {
	nmu  sync.Mutex
	n    int
	dmu  sync.Mutex
	data []int
}

// NewBuffer returns a buffer holding v.
func NewBuffer(v ...int) *Buffer { return &Buffer{n: len(v), data: v} }

// Grow replaces the buffer's contents with data.
func (b *Buffer) Grow(data []int) {
	b.nmu.Lock()
	b.n = len(data) // S1
	b.nmu.Unlock()

	b.dmu.Lock()
	b.data = data // S2
	b.dmu.Unlock()
}

// Last returns the buffer's last element.
func (b *Buffer) Last() int {
	b.nmu.Lock()
	n := b.n // S3
	b.nmu.Unlock()

	b.dmu.Lock()
	d := b.data // S4
	b.dmu.Unlock()
	return d[n-1]
}

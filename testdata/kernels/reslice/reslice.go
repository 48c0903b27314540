// Package reslice is the kernel of a reslicing write racing with a range
// over the old slice (issue 10, item 3): a batcher's flush ranges over the
// pending entries while Add, on another goroutine, truncates the slice
// header to reuse its array (b.pending = b.pending[:0]) and appends.
//
// Bug: Flush reads b.pending (the header) and its elements without the
// lock that Add holds. go test -race reports the header race and the
// element race. RIGHT version: right.go, Flush swaps the slice out under
// the lock and ranges over its own copy.
package reslice

import "sync"

// Batcher collects entries and hands them to a sink in batches.
type Batcher struct {
	mu      sync.Mutex
	pending []string
	max     int
}

// Add appends e; a full batch is dropped (the sink is too slow).
func (b *Batcher) Add(e string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pending) >= b.max {
		b.pending = b.pending[:0] // reslice: the header written while Flush ranges
	}
	b.pending = append(b.pending, e) // element written
}

// Flush hands the pending entries to sink without taking the lock.
func (b *Batcher) Flush(sink func(string)) {
	for _, e := range b.pending { // header and elements read unlocked
		sink(e)
	}
}

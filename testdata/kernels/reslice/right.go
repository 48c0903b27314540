package reslice

import "sync"

// SafeBatcher is Batcher whose Flush takes the batch under the lock.
type SafeBatcher struct {
	mu      sync.Mutex
	pending []string
	max     int
}

// Add appends e; a full batch is dropped.
func (b *SafeBatcher) Add(e string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pending) >= b.max {
		b.pending = b.pending[:0]
	}
	b.pending = append(b.pending, e)
}

// Flush swaps the pending entries out under the lock and hands them to sink.
func (b *SafeBatcher) Flush(sink func(string)) {
	b.mu.Lock()
	batch := b.pending
	b.pending = nil
	b.mu.Unlock()
	for _, e := range batch {
		sink(e)
	}
}

package doneadd

import (
	"io"
	"sync"
)

// The RIGHT version of the same code, which precog vet must not report:
// Start calls workers.Add(1) before each go statement.

// pool ships queued batches with background workers.
type pool struct {
	sink    io.Writer
	mu      sync.Mutex // serializes writes to sink
	workers sync.WaitGroup
	queue   chan []byte
}

// NewPool returns a pool writing to sink.
func NewPool(sink io.Writer) *pool {
	return &pool{sink: sink, queue: make(chan []byte)}
}

// Start runs n background workers that ship queued batches.
func (s *pool) Start(n int) {
	for i := 0; i < n; i++ {
		s.workers.Add(1)
		go s.worker()
	}
}

func (s *pool) worker() {
	defer s.workers.Done()
	for b := range s.queue {
		s.mu.Lock()
		s.sink.Write(b)
		s.mu.Unlock()
	}
}

// Enqueue hands a batch to the background workers.
func (s *pool) Enqueue(batch []byte) { s.queue <- batch }

// Close stops the workers and waits for them.
func (s *pool) Close() {
	close(s.queue)
	s.workers.Wait()
}

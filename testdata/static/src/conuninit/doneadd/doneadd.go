// Package doneadd is a Done-before-Add kernel: the Go form of a Con-UnInit
// order violation (ConMem, conmem.txt Sec. 4.3; precog DESIGN.md, "Go's crash
// shapes", Con-UnInit: negative WaitGroup counter).
//
// A log shipper sends each batch on its own goroutine and counts the batches
// in flight with a WaitGroup so that Flush can wait for them. Ship starts the
// goroutine first and calls wg.Add(1) after the go statement: the goroutine
// can finish and call Done while the counter is still 0.
//
// Crashing interleaving:
//
//	Ship goroutine                 send goroutine
//	go s.send(batch)
//	                               s.inflight.Done()
//	                               panic: sync: negative WaitGroup counter
//	s.inflight.Add(1)
//
// The normal schedule hides the bug: sending a batch takes longer than the
// two statements between the go statement and Add.
//
// RIGHT version in this file: Start calls s.workers.Add(1) before each go
// statement.
package doneadd

import (
	"io"
	"sync"
)

// Shipper sends log batches to a sink.
type Shipper struct {
	sink     io.Writer
	mu       sync.Mutex // serializes writes to sink
	inflight sync.WaitGroup
	workers  sync.WaitGroup
	queue    chan []byte
}

// NewShipper returns a shipper writing to sink.
func NewShipper(sink io.Writer) *Shipper {
	return &Shipper{sink: sink, queue: make(chan []byte)}
}

// Start runs n background workers that ship queued batches.
func (s *Shipper) Start(n int) {
	for i := 0; i < n; i++ {
		s.workers.Add(1)
		go s.worker()
	}
}

func (s *Shipper) worker() {
	defer s.workers.Done()
	for b := range s.queue {
		s.write(b)
	}
}

// Ship sends one batch on its own goroutine.
func (s *Shipper) Ship(batch []byte) {
	go s.send(batch)
	s.inflight.Add(1)
}

func (s *Shipper) send(batch []byte) {
	defer s.inflight.Done() // want `may run before the matching`
	s.write(batch)
}

func (s *Shipper) write(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sink.Write(b)
}

// Enqueue hands a batch to the background workers.
func (s *Shipper) Enqueue(batch []byte) { s.queue <- batch }

// Close waits for all shipped batches, then stops the workers.
func (s *Shipper) Close() {
	s.inflight.Wait()
	close(s.queue)
	s.workers.Wait()
}

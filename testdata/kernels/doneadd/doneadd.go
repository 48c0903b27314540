// Package doneadd is the Done-before-Add kernel: the Go form of a
// Con-UnInit order violation (ConMem, conmem.txt Sec. 4.3; precog
// DESIGN.md, "Go's crash shapes", Con-UnInit: negative WaitGroup counter).
//
// A log shipper sends each batch on its own goroutine and counts the batches
// in flight with a WaitGroup so that Close can wait for them. Ship starts the
// goroutine first and calls Add(1) after the go statement: the goroutine can
// finish and call Done while the counter is still 0.
//
// Crashing interleaving:
//
//	Ship goroutine                 send goroutine
//	go s.send(batch)
//	                               s.sink.Write(batch)
//	                               S2 s.inflight.Done()
//	                               panic: sync: negative WaitGroup counter
//	S1 s.inflight.Add(1)
//
// The test's normal schedule hides the bug: sending a batch takes a
// millisecond, and Add runs right after the go statement.
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
}

// NewShipper returns a shipper writing to sink.
func NewShipper(sink io.Writer) *Shipper {
	return &Shipper{sink: sink}
}

// Ship sends one batch on its own goroutine.
func (s *Shipper) Ship(batch []byte) {
	go s.send(batch)
	s.inflight.Add(1) // S1
}

func (s *Shipper) send(batch []byte) {
	defer s.inflight.Done() // S2 (runs when send returns) // want `may run before the matching`
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sink.Write(batch)
}

// Close waits for all shipped batches.
func (s *Shipper) Close() {
	s.inflight.Wait()
}

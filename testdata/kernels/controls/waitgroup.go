package controls

import (
	"sync"
	"time"
)

// joinedQueue is the FIFO of package pbzip2mutex, deleted only after main has
// joined its consumers (PBZIP2 1.0).
type joinedQueue struct {
	mu      *sync.Mutex
	blocks  [][]byte
	allDone bool
}

// CompressJoined queues blocks, runs workers consumers over them, joins the
// consumers and only then deletes the FIFO (q.mu = nil).
func CompressJoined(blocks [][]byte, workers int) int {
	q := &joinedQueue{mu: new(sync.Mutex)}
	for _, b := range blocks {
		q.mu.Lock()
		q.blocks = append(q.blocks, b)
		q.mu.Unlock()
	}
	q.mu.Lock()
	q.allDone = true
	q.mu.Unlock()
	var wg sync.WaitGroup
	var total sync.Mutex
	n := 0
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				q.mu.Lock()
				if len(q.blocks) == 0 {
					q.mu.Unlock()
					return
				}
				b := q.blocks[0]
				q.blocks = q.blocks[1:]
				q.mu.Unlock()
				total.Lock()
				n += len(b)
				total.Unlock()
			}
		}()
	}
	wg.Wait()
	q.mu = nil // queueDelete, after every consumer returned
	return n
}

var (
	joinedStart int64
	joinedEnd   int64
)

// FFTJoined is the main of package fft that prints gEnd after WAIT_FOR_END.
func FFTJoined(p int) (elapsed int64) {
	joinedStart = time.Now().UnixNano()
	var wg sync.WaitGroup
	for i := 0; i < p; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 0 {
				joinedEnd = time.Now().UnixNano()
			}
		}()
	}
	wg.Wait()
	return joinedEnd - joinedStart
}

// AddFirstShipper is the shipper of package doneadd with Add before the go
// statement.
type AddFirstShipper struct {
	mu       sync.Mutex
	sent     []string
	inflight sync.WaitGroup
}

// Ship sends one batch on its own goroutine.
func (s *AddFirstShipper) Ship(batch string) {
	s.inflight.Add(1)
	go func() {
		defer s.inflight.Done()
		s.mu.Lock()
		s.sent = append(s.sent, batch)
		s.mu.Unlock()
	}()
}

// Close waits for the shipped batches and returns them.
func (s *AddFirstShipper) Close() []string {
	s.inflight.Wait()
	return s.sent
}

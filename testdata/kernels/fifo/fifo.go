// Package fifo is a known false-positive shape of OSCS (oscs.txt Fig. 13,
// PBZIP2's FIFO queue): head and tail indices read by both sides and each
// incremented by one side only.
//
// The producer stores an element at q.tail and increments q.tail; the
// consumer waits under q.mu while the queue is empty (q.head == q.tail),
// then takes the element at q.head and increments q.head. Both read both
// indices: the producer reads q.head to see whether the queue is full (S3),
// the consumer reads q.tail to see whether it is empty (S1). Their order
// only changes timing, not what is delivered; but each index is written by
// one side with a read-write sequence (S2, S4) and only read by the other,
// so the paper's OSCS reports both pairs. There is no bug; the kernel
// records what the checker says about the shape, with and without the
// option that treats a flag awaited under a Cond as synchronization.
package fifo

import "sync"

const size = 4

// Queue is a bounded FIFO queue.
type Queue struct {
	mu      sync.Mutex
	changed *sync.Cond
	buf     [size]int
	head    int
	tail    int
}

// NewQueue returns an empty queue.
func NewQueue() *Queue {
	q := &Queue{}
	q.changed = sync.NewCond(&q.mu)
	return q
}

// Put adds v, waiting while the queue is full.
func (q *Queue) Put(v int) {
	q.mu.Lock()
	for q.tail-q.head == size { // S3
		q.changed.Wait()
	}
	q.buf[q.tail%size] = v
	q.tail++ // S2
	q.changed.Broadcast()
	q.mu.Unlock()
}

// Get removes the oldest element, waiting while the queue is empty.
func (q *Queue) Get() int {
	q.mu.Lock()
	for q.head == q.tail { // S1
		q.changed.Wait()
	}
	v := q.buf[q.head%size]
	q.head++ // S4
	q.changed.Broadcast()
	q.mu.Unlock()
	return v
}

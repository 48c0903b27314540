// Package pbzip2mutex is the PBZIP2-1 kernel (ConMem, conmem.txt
// Tables VII-IX; unicorn.txt Fig. 1; PBZIP2 0.9.4): a Con-NULL order
// violation.
//
// The main goroutine queues the input blocks in a FIFO whose mutex is a
// pointer field, starts the consumer goroutines that compress them, and
// deletes the FIFO (queueDelete: q.mu = nil) without joining the consumers
// (unicorn.txt Fig. 1: the missing pthread_join at S0). A consumer that has
// not yet taken its block locks the nil mutex.
//
// Crashing interleaving (S1 and S2 in unicorn.txt Fig. 1):
//
//	main goroutine                consumer goroutine
//	q.finish(); go q.consumer()
//	S1 q.mu = nil
//	                              S2 q.mu.Lock()
//	                              panic: runtime error: invalid memory
//	                              address or nil pointer dereference
//
// (S1 between the consumer's Lock and its Unlock panics the same way in
// Unlock.) The test's normal schedule hides the bug: main writes the stream
// header to a slow output before it deletes the FIFO, and the consumer has
// long taken its block by then.
package pbzip2mutex

import (
	"io"
	"sync"
)

// queue is PBZIP2's queue: a block FIFO guarded by a heap-allocated mutex.
type queue struct {
	mu       *sync.Mutex
	notEmpty *sync.Cond
	blocks   [][]byte
	allDone  bool
}

func newQueue() *queue {
	mu := new(sync.Mutex)
	return &queue{mu: mu, notEmpty: sync.NewCond(mu)}
}

func (q *queue) add(b []byte) {
	q.mu.Lock()
	q.blocks = append(q.blocks, b)
	q.mu.Unlock()
	q.notEmpty.Signal()
}

func (q *queue) finish() {
	q.mu.Lock()
	q.allDone = true
	q.mu.Unlock()
	q.notEmpty.Broadcast()
}

// delete is queueDelete.
func (q *queue) delete() {
	q.mu = nil // S1
}

// consumer compresses blocks until the FIFO is drained and allDone is set. A
// consumer that takes the last block returns without locking the FIFO again.
func (q *queue) consumer(out chan<- []byte) {
	for {
		q.mu.Lock() // S2 // want `may be nil when`
		for len(q.blocks) == 0 && !q.allDone {
			q.notEmpty.Wait()
		}
		if len(q.blocks) == 0 {
			q.mu.Unlock() // want `may be nil when`
			return
		}
		b := q.blocks[0]
		q.blocks = q.blocks[1:]
		last := q.allDone && len(q.blocks) == 0
		q.mu.Unlock() // want `may be nil when`
		out <- compress(b)
		if last {
			return
		}
	}
}

// compress is a run-length encoder standing in for bzip2: each run of one
// byte becomes the pair (length, byte).
func compress(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		j := i + 1
		for j < len(b) && b[j] == b[i] && j-i < 255 {
			j++
		}
		out = append(out, byte(j-i), b[i])
		i = j
	}
	return out
}

// Compress is PBZIP2 0.9.4's main for an input small enough to be queued
// before the consumers start: it deletes the FIFO before it joins them.
func Compress(w io.Writer, data []byte, blockSize, workers int) error {
	q := newQueue()
	n := 0
	for off := 0; off < len(data); off += blockSize {
		q.add(data[off:min(off+blockSize, len(data))])
		n++
	}
	q.finish()
	out := make(chan []byte, n)
	for i := 0; i < workers; i++ {
		go q.consumer(out)
	}
	if _, err := w.Write([]byte("PBZ1")); err != nil { // the stream header
		return err
	}
	q.delete()
	for i := 0; i < n; i++ {
		if _, err := w.Write(<-out); err != nil {
			return err
		}
	}
	return nil
}

// Package pbzip2mutex is the PBZIP2-1 kernel (ConMem, conmem.txt Tables
// VII-IX; unicorn.txt Fig. 1; PBZIP2 0.9.4): a Con-NULL order violation.
//
// The main goroutine produces blocks into a FIFO that consumer goroutines
// compress. When the input is exhausted, main sets allDone, and then tears the
// FIFO down (queueDelete: fifo.mu = nil) without waiting for the consumers to
// return. A consumer that is still in its loop locks or unlocks the nil mutex.
//
// Crashing interleaving (S1 and S2 in unicorn.txt Fig. 1):
//
//	main goroutine                consumer goroutine
//	q.finish()                    q.mu.Lock(); ... sees a last block
//	S1 q.mu = nil
//	                              S2 q.mu.Unlock()
//	                              panic: runtime error: invalid memory
//	                              address or nil pointer dereference
//
// Unlike most kernels here, the normal schedule often shows the bug: a
// consumer woken by finish's Broadcast, or one that has not run yet, reaches
// q.mu after main, which does nothing between the Broadcast and S1. Every
// q.mu.Lock and q.mu.Unlock in the consumer loop is a crash site.
//
// RIGHT version in this file: joinedQueue is the same FIFO as PBZIP2 1.0 uses
// it: main waits for every consumer (WaitGroup) before it deletes the FIFO.
package pbzip2mutex

import (
	"sync"
	"sync/atomic"
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

// consumer compresses blocks until the FIFO is drained and allDone is set.
func (q *queue) consumer(compress func([]byte)) {
	for {
		q.mu.Lock() // want `may be nil when`
		for len(q.blocks) == 0 && !q.allDone {
			q.notEmpty.Wait()
		}
		if len(q.blocks) == 0 {
			q.mu.Unlock() // want `may be nil when`
			return
		}
		b := q.blocks[0]
		q.blocks = q.blocks[1:]
		q.mu.Unlock() // want `may be nil when`
		compress(b)
	}
}

// Compress is PBZIP2 0.9.4's main: it never joins its consumers.
func Compress(data []byte, blockSize, workers int) int64 {
	q := newQueue()
	var out atomic.Int64
	for i := 0; i < workers; i++ {
		go q.consumer(func(b []byte) { out.Add(int64(len(b))) })
	}
	for off := 0; off < len(data); off += blockSize {
		q.add(data[off:min(off+blockSize, len(data))])
	}
	q.finish()
	q.delete()
	return out.Load()
}

// joinedQueue is the same FIFO, torn down only after its consumers returned.
type joinedQueue struct {
	mu       *sync.Mutex
	notEmpty *sync.Cond
	blocks   [][]byte
	allDone  bool
}

func (q *joinedQueue) consumer(compress func([]byte)) {
	for {
		q.mu.Lock()
		for len(q.blocks) == 0 && !q.allDone {
			q.notEmpty.Wait()
		}
		if len(q.blocks) == 0 {
			q.mu.Unlock()
			return
		}
		b := q.blocks[0]
		q.blocks = q.blocks[1:]
		q.mu.Unlock()
		compress(b)
	}
}

// CompressJoined is the fixed main: consumers are joined before queueDelete.
func CompressJoined(data []byte, blockSize, workers int) int64 {
	mu := new(sync.Mutex)
	q := &joinedQueue{mu: mu, notEmpty: sync.NewCond(mu)}
	var out atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q.consumer(func(b []byte) { out.Add(int64(len(b))) })
		}()
	}
	for off := 0; off < len(data); off += blockSize {
		q.mu.Lock()
		q.blocks = append(q.blocks, data[off:min(off+blockSize, len(data))])
		q.mu.Unlock()
		q.notEmpty.Signal()
	}
	q.mu.Lock()
	q.allDone = true
	q.mu.Unlock()
	q.notEmpty.Broadcast()
	wg.Wait()
	q.mu = nil // queueDelete, after every consumer returned
	return out.Load()
}

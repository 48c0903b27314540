package pbzip2mutex

import (
	"sync"
	"sync/atomic"
)

// The RIGHT version of the same code, which precog vet must not report:
// joinedQueue is the same FIFO as PBZIP2 1.0 uses it: main waits for every
// consumer (WaitGroup) before it deletes the FIFO.

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

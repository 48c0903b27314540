package lockunlock

import (
	"sync"
	"sync/atomic"
)

// RBMutex is a reader-biased RWMutex (theine's copy of puzpuzpuz/xsync's):
// RLock's fast path only bumps a reader slot and checks the bias again;
// Lock takes rw, turns the bias off and waits for every slot to drain.
// Its RLock holds rw for reading.
type RBMutex struct {
	slots []struct{ n int32 }
	bias  atomic.Int32
	rw    sync.RWMutex
}

// RLock returns the slot it took, or -1 when it took rw.RLock.
// NewRBMutex turns the bias on in the mutex it makes.
func NewRBMutex() *RBMutex {
	mu := &RBMutex{slots: make([]struct{ n int32 }, 8)}
	mu.bias.Store(1)
	return mu
}

func (mu *RBMutex) RLock() int {
	if i, ok := mu.fastRLock(); ok {
		return i
	}
	mu.rw.RLock()
	if mu.bias.Load() == 0 {
		mu.bias.Store(1) // no writer holds rw: on again
	}
	return -1
}

func (mu *RBMutex) fastRLock() (int, bool) {
	if mu.bias.Load() == 1 {
		for i := range mu.slots {
			n := atomic.LoadInt32(&mu.slots[i].n)
			if atomic.CompareAndSwapInt32(&mu.slots[i].n, n, n+1) {
				if mu.bias.Load() == 1 {
					return i, true
				}
				atomic.AddInt32(&mu.slots[i].n, -1)
				break
			}
		}
	}
	return 0, false
}

func (mu *RBMutex) RUnlock(i int) {
	if i < 0 {
		mu.rw.RUnlock()
		return
	}
	atomic.AddInt32(&mu.slots[i].n, -1)
}

func (mu *RBMutex) Lock() {
	mu.rw.Lock()
	if mu.bias.Load() == 1 {
		mu.bias.Store(0)
		for i := range mu.slots {
			for atomic.LoadInt32(&mu.slots[i].n) > 0 {
			}
		}
	}
}

func (mu *RBMutex) Unlock() { mu.rw.Unlock() }

type rbShard struct {
	mu *RBMutex
	m  map[int]int
}

func (s *rbShard) get(k int) int {
	t := s.mu.RLock()
	defer s.mu.RUnlock(t)
	mark() // want `^held: RBMutex.rw\(r\)$`
	return s.m[k]
}

func (s *rbShard) set(k, v int) {
	s.mu.Lock()
	mark() // want `^held: RBMutex.rw\(w\)$`
	s.m[k] = v
	s.mu.Unlock()
}

// The controls: their RLock's fast path holds nothing.

// noWaitRB's Lock turns the bias off but does not wait for the readers
// already counted: it looks at each slot once, in a loop over the slots.
type noWaitRB struct {
	slots [8]int32
	bias  int32
	rw    sync.RWMutex
}

func (mu *noWaitRB) RLock() int {
	if atomic.LoadInt32(&mu.bias) == 1 && atomic.CompareAndSwapInt32(&mu.slots[0], 0, 1) {
		if atomic.LoadInt32(&mu.bias) == 1 {
			return 0
		}
		atomic.AddInt32(&mu.slots[0], -1)
	}
	mu.rw.RLock()
	return -1
}

func (mu *noWaitRB) RUnlock(i int) {
	if i < 0 {
		mu.rw.RUnlock()
		return
	}
	atomic.AddInt32(&mu.slots[i], -1)
}

func (mu *noWaitRB) Lock() {
	mu.rw.Lock()
	atomic.StoreInt32(&mu.bias, 0)
	for i := range mu.slots {
		if atomic.LoadInt32(&mu.slots[i]) > 0 {
			atomic.StoreInt32(&mu.bias, 1)
		}
	}
}

func (mu *noWaitRB) Unlock() { mu.rw.Unlock() }

func (mu *noWaitRB) get() {
	t := mu.RLock()
	mark() // want `^held: none$`
	mu.RUnlock(t)
}

// noCheckRB's RLock does not look at the bias again after its increment:
// a writer that turned it off and found the slot still zero goes on.
type noCheckRB struct {
	slots [8]int32
	bias  int32
	rw    sync.RWMutex
}

func (mu *noCheckRB) RLock() int {
	if atomic.LoadInt32(&mu.bias) == 1 {
		atomic.AddInt32(&mu.slots[0], 1)
		return 0
	}
	mu.rw.RLock()
	return -1
}

func (mu *noCheckRB) RUnlock(i int) {
	if i < 0 {
		mu.rw.RUnlock()
		return
	}
	atomic.AddInt32(&mu.slots[i], -1)
}

func (mu *noCheckRB) Lock() {
	mu.rw.Lock()
	atomic.StoreInt32(&mu.bias, 0)
	for atomic.LoadInt32(&mu.slots[0]) > 0 {
	}
}

func (mu *noCheckRB) Unlock() { mu.rw.Unlock() }

func (mu *noCheckRB) get() {
	t := mu.RLock()
	mark() // want `^held: none$`
	mu.RUnlock(t)
}

// review33's controls: the shape with one step wrong, each a fast reader
// beside a writer.

// rollbackRB's RLock takes its slot back before it checks the bias: a
// writer that turned the bias off then finds the slot empty and goes on
// while the reader, which saw the bias still on, reads.
type rollbackRB struct {
	slots [8]int32
	bias  int32
	rw    sync.RWMutex
}

func (mu *rollbackRB) RLock() int {
	if atomic.LoadInt32(&mu.bias) == 1 && atomic.CompareAndSwapInt32(&mu.slots[0], 0, 1) {
		atomic.AddInt32(&mu.slots[0], -1)
		if atomic.LoadInt32(&mu.bias) == 1 {
			return 0
		}
	}
	mu.rw.RLock()
	return -1
}

func (mu *rollbackRB) RUnlock(i int) {
	if i < 0 {
		mu.rw.RUnlock()
		return
	}
	atomic.AddInt32(&mu.slots[i], -1)
}

func (mu *rollbackRB) Lock() {
	mu.rw.Lock()
	atomic.StoreInt32(&mu.bias, 0)
	for atomic.LoadInt32(&mu.slots[0]) > 0 {
	}
}

func (mu *rollbackRB) Unlock() { mu.rw.Unlock() }

func (mu *rollbackRB) get() {
	t := mu.RLock()
	mark() // want `^held: none$`
	mu.RUnlock(t)
}

// unheededRB's RLock loads the bias again after its increment but goes
// on whatever it finds.
type unheededRB struct {
	slots [8]int32
	bias  int32
	seen  int32
	rw    sync.RWMutex
}

func (mu *unheededRB) RLock() int {
	if atomic.LoadInt32(&mu.bias) == 1 {
		atomic.AddInt32(&mu.slots[0], 1)
		mu.seen = atomic.LoadInt32(&mu.bias)
		return 0
	}
	mu.rw.RLock()
	return -1
}

func (mu *unheededRB) RUnlock(i int) {
	if i < 0 {
		mu.rw.RUnlock()
		return
	}
	atomic.AddInt32(&mu.slots[i], -1)
}

func (mu *unheededRB) Lock() {
	mu.rw.Lock()
	atomic.StoreInt32(&mu.bias, 0)
	for atomic.LoadInt32(&mu.slots[0]) > 0 {
	}
}

func (mu *unheededRB) Unlock() { mu.rw.Unlock() }

func (mu *unheededRB) get() {
	t := mu.RLock()
	mark() // want `^held: none$`
	mu.RUnlock(t)
}

// lateBiasRB's Unlock turns the bias on after it lets rw go: the next
// writer may hold rw with the bias off by then, and a reader that sees it
// on reads beside that writer.
type lateBiasRB struct {
	slots [8]int32
	bias  int32
	rw    sync.RWMutex
}

func (mu *lateBiasRB) RLock() int {
	if atomic.LoadInt32(&mu.bias) == 1 && atomic.CompareAndSwapInt32(&mu.slots[0], 0, 1) {
		if atomic.LoadInt32(&mu.bias) == 1 {
			return 0
		}
		atomic.AddInt32(&mu.slots[0], -1)
	}
	mu.rw.RLock()
	return -1
}

func (mu *lateBiasRB) RUnlock(i int) {
	if i < 0 {
		mu.rw.RUnlock()
		return
	}
	atomic.AddInt32(&mu.slots[i], -1)
}

func (mu *lateBiasRB) Lock() {
	mu.rw.Lock()
	atomic.StoreInt32(&mu.bias, 0)
	for atomic.LoadInt32(&mu.slots[0]) > 0 {
	}
}

func (mu *lateBiasRB) Unlock() {
	mu.rw.Unlock()
	atomic.StoreInt32(&mu.bias, 1)
}

func (mu *lateBiasRB) get() {
	t := mu.RLock()
	mark() // want `^held: none$`
	mu.RUnlock(t)
}

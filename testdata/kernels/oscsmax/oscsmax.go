// Package oscsmax is a known false-positive shape of OSCS (oscs.txt Fig. 5,
// from SPLASH-2 Ocean): a maximum updated under a lock.
//
// Every worker computes its local error and, under m.mu, raises m.maxErr to
// it if it is larger. The result is the same in every order: max commutes.
// But a worker whose error is not larger only reads m.maxErr (S1) and never
// writes it (S2), so its critical section has no read-write sequence, and
// OSCS's commutativity heuristic cannot see that the pair is
// order-insensitive: it reports the pair. There is no bug; the kernel
// records what the checker says about the shape. percentile.go is another
// false-positive shape of OSCS: a lost update of scratch space.
package oscsmax

import "sync"

// Max is a global maximum guarded by a mutex.
type Max struct {
	mu     sync.Mutex
	maxErr int
}

// Update raises the maximum to local.
func (m *Max) Update(local int) {
	m.mu.Lock()
	if local > m.maxErr { // S1
		m.maxErr = local // S2
	}
	m.mu.Unlock()
}

// Parallel runs one worker per local error and returns the maximum. Two
// workers with the same error make sure that some worker only reads,
// whatever the order.
func Parallel(errs []int) int {
	m := &Max{}
	var wg sync.WaitGroup
	for _, e := range errs {
		wg.Add(1)
		go func(e int) {
			defer wg.Done()
			m.Update(e)
		}(e)
	}
	wg.Wait()
	return m.maxErr
}

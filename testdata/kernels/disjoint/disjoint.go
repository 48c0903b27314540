// Package disjoint is a negative control for OSCS (oscs.txt §2.3): critical
// sections without conflicting accesses.
//
// Data-parallel workers each square their own element of r.out and count
// it in their own slot of r.done, under the one mutex r.mu. The critical
// sections run in any order, but no two touch the same location with a
// write, so their order cannot change the state. A checker must report
// nothing here.
package disjoint

import "sync"

// Results are per-worker results guarded by one mutex.
type Results struct {
	mu   sync.Mutex
	out  []int
	done []bool
}

// Squares squares in in parallel, one worker per element.
func Squares(in []int) []int {
	r := &Results{out: make([]int, len(in)), done: make([]bool, len(in))}
	var wg sync.WaitGroup
	for i, v := range in {
		wg.Add(1)
		go func(i, v int) {
			defer wg.Done()
			r.mu.Lock()
			r.out[i] = v * v
			r.done[i] = true
			r.mu.Unlock()
		}(i, v)
	}
	wg.Wait()
	return r.out
}

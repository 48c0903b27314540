// Package oscssum is a negative control for OSCS (oscs.txt Fig. 3b): a
// commutative critical-section pair.
//
// Every worker computes a partial sum of its slice and adds it to s.total
// under s.mu. The critical sections run in any order, but each reads
// s.total and then writes it (a read-write sequence), and addition
// commutes, so the total is the same in every run. A checker must report
// nothing here.
package oscssum

import "sync"

// Sum is a global sum guarded by a mutex.
type Sum struct {
	mu    sync.Mutex
	total int
}

// Parallel sums parts, one worker per part.
func Parallel(parts [][]int) int {
	s := &Sum{}
	var wg sync.WaitGroup
	for _, p := range parts {
		wg.Add(1)
		go func(p []int) {
			defer wg.Done()
			local := 0
			for _, v := range p {
				local += v
			}
			s.mu.Lock()
			s.total += local
			s.mu.Unlock()
		}(p)
	}
	wg.Wait()
	return s.total
}

// Package counter is written for go1.20, older than the shim's go1.22: the
// overlaid build must keep the module's language version (a go1.22 go line
// would change what the loop below captures).
package counter

import "sync"

// Count starts n goroutines that each add one to a shared total. Before
// go1.22 the loop variable i is one variable for all iterations, so the
// goroutines must not use it.
func Count(n int) int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	total := 0
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			total++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return total
}

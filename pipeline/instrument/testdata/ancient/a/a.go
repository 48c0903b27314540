// Package a is written for go1.16, before generics: precog's rewritten
// files call the shim's generic functions, so the instrumented build must
// raise the module's language version.
package a

import "sync"

// Sum adds up xs in one goroutine per element.
func Sum(xs []int) int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	total := 0
	for _, x := range xs {
		x := x
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			total += x
			mu.Unlock()
		}()
	}
	wg.Wait()
	return total
}

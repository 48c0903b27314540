// Package a is written for go1.13, before generics: precog's rewritten
// files call the shim's generic functions, so the instrumented build must
// raise the module's language version, and with it list the requirements
// of its dependencies that go1.13 left to their own go.mod files. The
// module's vendor directory, in go1.13's format, is one go test leaves
// unused (vendoring was opt-in before go1.14), and so must the build
// whose go line precog raised.
package a

import (
	"sync"

	"precog.example/ancientlib"
)

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
			total = lib.Add(total, x)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return total
}

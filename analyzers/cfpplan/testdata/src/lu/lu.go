// Package lu is the CFP paper's Fig. 4: lu0 calls daxpy on every iteration
// and synchronizes with nothing, so daxpy inherits lu0's concurrent
// functions (Opt2).
package lu

import "sync"

var a []float64

func lu0(n int) { // want `lu0: logged spawned`
	for k := 0; k < n; k++ {
		a[k] /= 2
		for j := k + 1; j < n; j++ {
			daxpy(j, k)
		}
	}
}

func daxpy(j, k int) { // want `daxpy: opt2 from lu0 spawned`
	a[j] -= a[k] * 0.5
}

// Run factors on two goroutines.
func Run(n int) { // want `Run: opt1`
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { // want `Run\$1: logged spawned`
			defer wg.Done()
			lu0(n)
		}()
	}
	wg.Wait()
}

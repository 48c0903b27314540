// Package noloops is package lu, planned without the loop heuristic:
// daxpy, called in a loop, is then logged.
package noloops

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

func daxpy(j, k int) { // want `daxpy: logged spawned`
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

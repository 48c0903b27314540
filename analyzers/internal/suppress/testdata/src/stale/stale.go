// Package stale: a //precog:ignore directive naming the check that
// suppresses none of its diagnostics is reported, so stale suppressions
// do not pile up.
package stale

import "sync"

func Fixed(n int) {
	var mu sync.Mutex
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			mu.Lock()
			// want +1 `precog:ignore con-map suppresses nothing`
			m[i] = 1 //precog:ignore con-map the lock was added since
			mu.Unlock()
		}()
	}
}

func Nothing() int {
	// want +1 `precog:ignore con-map suppresses nothing`
	//precog:ignore con-map nothing here at all
	return 0
}

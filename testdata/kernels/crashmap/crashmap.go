// Package crashmap is the fail-like-go-test kernel of a test that dies of a
// fatal runtime error: two goroutines fill one map with no lock, many
// times, so the runtime's check catches the overlapping writes in about
// every run ("fatal error: concurrent map writes", which recover cannot
// stop). precog test reports it once: the con-map prediction at the
// write and the crash that happened there are one finding, confirmed
// (issue 10, item 1).
package crashmap

import "sync"

// Fill writes n keys into m from each of two goroutines.
func Fill(m map[int]int, n int) {
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				m[i*2+g] = i // concurrent map writes // want `concurrent map writes`
			}
		}()
	}
	wg.Wait()
}

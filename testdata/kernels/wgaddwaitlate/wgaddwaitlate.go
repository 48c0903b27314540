// Package wgaddwaitlate is wgaddwait's bug where the usual schedule hides
// it: each goroutine calls wg.Add(1) itself, and Crawl prepares its result
// (20 ms here) before it waits, so in the usual run every Add has long
// happened and Wait waits for every fetch. Go's rule (sync.WaitGroup's
// doc) is broken all the same: an Add that finds the counter at zero must
// happen before the Wait. precog predicts it from that usual run (the Add
// is not ordered before the Wait, only the Done that Wait waited for is
// ordered after it), and confirms it by forcing the Wait before the first
// Add: Wait finds the counter at zero, Crawl returns before that fetch,
// and the caller gets fewer results than links. RIGHT version: right.go,
// Add before each go statement.
package wgaddwaitlate

import (
	"sync"
	"time"
)

// Crawl fetches every link on a goroutine of its own and returns the
// sizes fetched.
func Crawl(links []string, fetch func(string) int) []int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	sizes := make([]int, 0, len(links))
	for _, l := range links {
		go func() {
			wg.Add(1) // finds the counter at zero if Wait came first
			defer wg.Done()
			n := fetch(l)
			mu.Lock()
			sizes = append(sizes, n)
			mu.Unlock()
		}()
	}
	time.Sleep(20 * time.Millisecond) // preparing the result
	wg.Wait()                         // may return before any Add // want `may return before`
	mu.Lock()
	defer mu.Unlock()
	return sizes
}

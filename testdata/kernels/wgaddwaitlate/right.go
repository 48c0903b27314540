package wgaddwaitlate

import (
	"sync"
	"time"
)

// SafeCrawl adds to the counter before each go statement, so Wait waits
// for every fetch however the goroutines are scheduled.
func SafeCrawl(links []string, fetch func(string) int) []int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	sizes := make([]int, 0, len(links))
	for _, l := range links {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := fetch(l)
			mu.Lock()
			sizes = append(sizes, n)
			mu.Unlock()
		}()
	}
	time.Sleep(20 * time.Millisecond) // preparing the result
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return sizes
}

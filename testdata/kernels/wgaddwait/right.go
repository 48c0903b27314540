package wgaddwait

import "sync"

// SafeCrawl adds to the counter before each go statement, so Wait waits
// for every fetch.
func SafeCrawl(links []string, fetch func(string)) int {
	var wg sync.WaitGroup
	for _, l := range links {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fetch(l)
		}()
	}
	wg.Wait()
	return len(links)
}

// Batches reuses one WaitGroup for batch after batch: each batch's Adds
// come after the previous Wait has returned, on the same goroutine, as
// the rule allows.
func Batches(batches [][]string, fetch func(string)) {
	var wg sync.WaitGroup
	for _, b := range batches {
		for _, l := range b {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fetch(l)
			}()
		}
		wg.Wait()
	}
}

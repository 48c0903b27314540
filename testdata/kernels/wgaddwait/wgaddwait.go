// Package wgaddwait is the kernel of a WaitGroup Add that can run
// concurrently with Wait (issue 10, item 3). Go's rule (sync.WaitGroup's
// doc): an Add with a positive delta that finds the counter at zero must
// happen before Wait.
//
// Bug: Crawl starts a goroutine per link, and each goroutine calls
// wg.Add(1) itself. Wait can run before any of them has: it finds the
// counter at zero and returns at once, and Crawl returns while the fetches
// still run (or, if an Add lands while Wait is waking up, Wait panics
// "WaitGroup is reused before previous Wait has returned"). go test -race
// reports the Add and the Wait as a race. In the test the fetches are
// quick and the results are read after a channel handshake, so the test
// passes. RIGHT version: right.go, Add before each go statement.
package wgaddwait

import "sync"

// Crawl fetches every link on a goroutine of its own and returns how many
// it started.
func Crawl(links []string, fetch func(string)) int {
	var wg sync.WaitGroup
	for _, l := range links {
		go func() {
			wg.Add(1) // the first Add finds the counter at zero
			defer wg.Done()
			fetch(l)
		}()
	}
	wg.Wait() // may return before any Add // want `may return before`
	return len(links)
}

// Package initrefresh has a package-level setting that a goroutine started
// during package initialization refreshes, without a lock, while the tests
// read it: a data race.
//
// The refresher runs concurrently with the test: package initialization
// (runtime.main's goroutine) comes before the test, but what the
// goroutine it started does afterwards does not. precog test reports the
// race between the refresher's write and the test's read, and forcing
// them adjacent in both orders confirms it. It is the positive of
// initpool, whose constructor's writes, made on runtime.main's goroutine
// itself, come before the test: the order from package initialization to
// a top-level test must not reach the goroutines initialization started.
package initrefresh

import "time"

// limit is refreshed every millisecond, twenty times.
var limit = 1

func init() {
	go refresh()
}

func refresh() {
	for i := 2; i < 22; i++ {
		time.Sleep(time.Millisecond)
		limit = i
	}
}

// Limit returns the current limit.
func Limit() int { return limit }

// Package functable is the kernel of function literals stored in the func
// fields of composite literals and called later (issue 10, item 3): a
// package-level table of handlers and a test's table of cases, each entry
// a function literal, each run on a goroutine of its own. The literals of
// a package-level variable's initializer belong to the package
// initializer, which go/analysis's buildssa leaves out of a package's
// source functions: their accesses got no sites and their races went
// unrecorded.
//
// Bug: the handlers update the one running total without a lock, so two
// handlers' updates race (go test -race reports it; the total can come out
// wrong). RIGHT version: right.go, the same table with the total under a
// mutex.
package functable

import "sync"

var total int

// handlers is the table of operations; each literal updates total.
var handlers = []struct {
	name string
	run  func(n int)
}{
	{"add", func(n int) { total += n }}, // written by one handler's goroutine
	{"sub", func(n int) { total -= n }}, // written by another handler's goroutine
}

// Apply runs every handler with n, each on a goroutine of its own, and
// returns the total.
func Apply(n int) int {
	var wg sync.WaitGroup
	for _, h := range handlers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.run(n)
		}()
	}
	wg.Wait()
	return total
}

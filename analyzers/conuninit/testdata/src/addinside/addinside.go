// Package addinside: goroutines that call Add themselves, against the
// Wait of the function that starts them.
package addinside

import "sync"

// inside: each goroutine adds for itself; Wait may find the counter at
// zero.
func inside(n int, f func(int)) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		go func() {
			wg.Add(1)
			defer wg.Done()
			f(i)
		}()
	}
	wg.Wait() // want `wg.Wait in inside may return before func literal in inside calls Add`
}

// named: the goroutine's function is declared, the WaitGroup passed.
func named(wg *sync.WaitGroup, f func()) {
	go work(wg, f)
	wg.Wait() // want `may return before work calls Add`
}

func work(wg *sync.WaitGroup, f func()) {
	wg.Add(1)
	defer wg.Done()
	f()
}

// before: Add before the go statement: silent.
func before(n int, f func(int)) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i)
		}()
	}
	wg.Wait()
}

// nested: the starter counts the goroutine, which adds for work it
// starts itself: the counter is above zero at Wait until the inner Add
// has run: silent.
func nested(f func()) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}()
	wg.Wait()
}

// waitFirst: the Wait comes before the go statement and never after it:
// silent.
func waitFirst(f func()) {
	var wg sync.WaitGroup
	wg.Wait()
	go func() {
		wg.Add(1)
		defer wg.Done()
		f()
	}()
}

// negative: Add(-1) inside is a Done: silent.
func negative(wg *sync.WaitGroup) {
	go func() { wg.Add(-1) }()
	wg.Wait()
}

// Package epochdoneadd is a pool that starts each worker before it counts
// it, and a worker that runs through a garbage collection before it
// counts itself done: the Done-before-Add of doneadd (DESIGN.md's
// Con-UnInit crash shape, a negative WaitGroup counter) with a collection
// between the Add and the Done, as pond's workers see them (its submit
// counts them the right way: the negative control is epochworker).
//
// The first worker's Done can run before Submit's Add: "sync: negative
// WaitGroup counter". The test's schedule hides it: the worker collects
// twice first, over 300 ms (100 ms let a loaded CI machine's scheduler
// stall the Add past the Done), while the Add follows the go statement. precog test predicts it from a run that passed, and forcing the
// Done before the Add confirms it. A WaitGroup's events are one location
// across GC epochs, so the Done, in the epoch after the collection, is
// checked against the Add in the epoch before it, which it is concurrent
// with (the second Submit's Add, at the same line, is concurrent with it
// too).
package epochdoneadd

import (
	"runtime"
	"sync"
	"time"
)

// Pool runs each submitted function on a worker of its own and collects
// the results.
type Pool struct {
	wg      sync.WaitGroup
	mu      sync.Mutex
	results []int
}

// Submit starts a worker, then counts it: the worker may be done first.
func (p *Pool) Submit(f func() int) {
	go p.worker(f)
	p.wg.Add(1)
}

func (p *Pool) worker(f func() int) {
	defer p.wg.Done() // want `may run before the matching`
	v := f()
	p.mu.Lock()
	p.results = append(p.results, v)
	p.mu.Unlock()
}

// Wait waits for every worker and returns their results.
func (p *Pool) Wait() []int {
	p.wg.Wait()
	return p.results
}

// Collect is work that allocates enough to be collected twice: it runs
// two collections and lets the finalizers run after each (the shim counts
// collections with a finalizer).
func Collect() int {
	for range 2 {
		runtime.GC()
		time.Sleep(150 * time.Millisecond)
	}
	return 1
}

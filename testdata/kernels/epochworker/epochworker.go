// Package epochworker is a pool that counts each worker before it starts
// it, as pond's submit does (github.com/alitto/pond/v2, pool.go: Add under
// the pool's lock, then `go p.worker(task)`), and a worker that runs
// through a garbage collection before it counts itself done.
//
// This is the negative control of epochdoneadd: every Done is ordered
// after the Add that counted its worker by the go statement. precog test
// reports nothing. The shim tells collections apart (GC epochs: an
// address may be another object's after one), and detect/conmem indexed a
// WaitGroup's events by address and epoch: the first worker's Done, in
// the epoch after the collection, was checked against the test's first
// Add of that epoch, the second Submit's, which it is concurrent with,
// and reported as a Done before its Add (pond's false con-uninit at
// pool.go:468/431). A WaitGroup is now one location across epochs.
package epochworker

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

// Submit counts a worker, then starts it.
func (p *Pool) Submit(f func() int) {
	p.wg.Add(1)
	go p.worker(f)
}

func (p *Pool) worker(f func() int) {
	defer p.wg.Done()
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
		time.Sleep(5 * time.Millisecond)
	}
	return 1
}

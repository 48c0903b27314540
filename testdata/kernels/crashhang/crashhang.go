// Package crashhang is the fail-like-go-test kernel of a test that times
// out: a worker pool's Stop waits for a worker that waits for a job that
// never comes (the Stop forgets to close the jobs channel). go test -timeout
// kills it with "panic: test timed out"; precog test reports the hang as a
// confirmed crash finding at the Wait the test's goroutine is stuck in
// (issue 10, item 1). Its expect file gives a short -timeout, so the kernel
// costs seconds.
package crashhang

import "sync"

// Pool runs jobs on one worker.
type Pool struct {
	jobs chan func()
	wg   sync.WaitGroup
}

// Start starts the worker.
func Start() *Pool {
	p := &Pool{jobs: make(chan func())}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for j := range p.jobs {
			j()
		}
	}()
	return p
}

// Stop should close p.jobs before it waits (the bug).
func (p *Pool) Stop() {
	p.wg.Wait() // hangs: the worker still ranges over p.jobs
}

// Package tlogiface is the kernel of a t.Logf reached through an
// interface after the test has completed (issue 10, item 3): the Go form
// of a Con-Dangling bug whose released object is a test, as in tlogafter,
// but the goroutine that logs is the pool's own, and it logs to a Logger
// that the test passed its *testing.T as.
//
// Bug: Close stops the pool's queue and returns without waiting for the
// worker, which logs each job it finishes. If the test returns (and the
// binary's tests are done) before the worker's last Logf, the call panics:
// "Log in goroutine after TestPool has completed". The test sleeps 10ms
// after Close, by when the worker has usually logged. RIGHT version:
// right.go, Shutdown waits for the worker.
package tlogiface

// Logger is where the pool reports its jobs; tests pass their *testing.T.
type Logger interface {
	Logf(format string, args ...any)
}

// Pool runs jobs on a worker goroutine and logs each one.
type Pool struct {
	log  Logger
	jobs chan string
	done chan struct{}
}

// NewPool starts a pool's worker.
func NewPool(log Logger) *Pool {
	p := &Pool{log: log, jobs: make(chan string, 4), done: make(chan struct{})}
	go p.work()
	return p
}

func (p *Pool) work() {
	defer close(p.done)
	for j := range p.jobs {
		p.log.Logf("job %s done", j) // may run after the test has completed
	}
}

// Submit queues job j.
func (p *Pool) Submit(j string) { p.jobs <- j }

// Close stops the queue; it does not wait for the worker.
func (p *Pool) Close() { close(p.jobs) }

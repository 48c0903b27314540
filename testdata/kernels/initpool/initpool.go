// Package initpool has a package-level pool made during package
// initialization, as pond's default pool is (github.com/alitto/pond/v2,
// default.go: `var defaultPool = newPool(...)`, whose constructor sets the
// pool's context and task queue): its workers read the fields the
// constructor set.
//
// This is a negative control: package initialization runs on
// runtime.main's goroutine before the testing package starts any test, so
// the constructor's writes happen before everything the test and its
// workers do. precog test reports nothing. The test's goroutine begins
// with no recorded parent (the testing package is not instrumented), and
// detect/hb ordered nothing of runtime.main's goroutine before it: the
// constructor's writes raced with every worker's read (pond: 4 races,
// pool.go:594 and :596 against :160, :164, :409 and :465, all diverged).
// A top-level test now begins after what runtime.main's goroutine did.
package initpool

import "sync"

// Pool runs jobs on workers and sums their results.
type Pool struct {
	scale int
	mu    sync.Mutex
	sum   int
}

// An Option configures a pool.
type Option func(*Pool)

// WithScale multiplies the pool's results by n.
func WithScale(n int) Option {
	return func(p *Pool) { p.scale = n }
}

// NewPool returns a pool configured by opts; its results are doubled.
func NewPool(opts ...Option) *Pool {
	p := &Pool{scale: 1}
	for _, o := range opts {
		o(p)
	}
	p.scale *= 2
	return p
}

// Default is the package's pool, made during initialization.
var Default = NewPool()

// Run runs job on a worker of its own and waits for it.
func (p *Pool) Run(jobs ...func() int) int {
	var wg sync.WaitGroup
	for _, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := job() * p.scale
			p.mu.Lock()
			p.sum += v
			p.mu.Unlock()
		}()
	}
	wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sum
}

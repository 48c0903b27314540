// Package pool is a stand-in with the API shape of
// github.com/sourcegraph/conc/pool.
package pool

import "sync"

type Pool struct {
	wg sync.WaitGroup
}

func New() *Pool { return &Pool{} }

func (p *Pool) Go(f func()) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		f()
	}()
}

func (p *Pool) Wait() {
	p.wg.Wait()
}

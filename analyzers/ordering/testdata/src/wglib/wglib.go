// Package wglib wraps a sync.WaitGroup as ristretto's z.Closer does, for
// wgwrap; another package, so that its calls are known to wgwrap only by
// spawnfacts' WaitGroupFacts.
package wglib

import (
	"context"
	"sync"
)

type Closer struct {
	waiting sync.WaitGroup
	ctx     context.Context
	cancel  context.CancelFunc
}

func NewCloser(initial int) *Closer {
	ret := &Closer{}
	ret.ctx, ret.cancel = context.WithCancel(context.Background())
	ret.waiting.Add(initial)
	return ret
}

func (lc *Closer) AddRunning(delta int) { lc.waiting.Add(delta) }

func (lc *Closer) Signal() { lc.cancel() }

func (lc *Closer) Done() {
	if lc == nil {
		return
	}
	lc.waiting.Done()
}

func (lc *Closer) Wait() { lc.waiting.Wait() }

func (lc *Closer) SignalAndWait() {
	lc.Signal()
	lc.Wait()
}

// MaybeWait waits only when told to.
func (lc *Closer) MaybeWait(wait bool) {
	if wait {
		lc.waiting.Wait()
	}
}

// Release does not call Done: it only signals.
func (lc *Closer) Release() { lc.cancel() }

// MaybeAdd may add one more to the count.
func (lc *Closer) MaybeAdd(add bool) {
	if add {
		lc.waiting.Add(1)
	}
}

// Finish is handed the WaitGroup itself.
func Finish(wg *sync.WaitGroup) { wg.Done() }

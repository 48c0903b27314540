// Package wglib wraps sync.WaitGroups, as ristretto's z.Closer does; the
// spawnfacts analyzer gives the wrappers a WaitGroupFact naming the
// operation and the WaitGroup's path from a parameter.
package wglib

import (
	"context"
	"sync"
)

type Closer struct {
	ctx     context.Context
	waiting sync.WaitGroup
	cancel  context.CancelFunc
}

// NewCloser adds on a WaitGroup of its own result, no parameter's: no
// fact (nor a StartsFact: context.WithCancel has none, contextStarts).
func NewCloser(initial int) *Closer {
	ret := &Closer{}
	ret.ctx, ret.cancel = context.WithCancel(context.Background())
	ret.waiting.Add(initial)
	return ret
}

func (lc *Closer) AddRunning(delta int) { // want AddRunning:`waitgroup\(Add! 0\.1\)`
	lc.waiting.Add(delta)
}

func (lc *Closer) Signal() { lc.cancel() }

func (lc *Closer) Done() { // want Done:`waitgroup\(Done 0\.1\)`
	if lc == nil {
		return
	}
	lc.waiting.Done()
}

func (lc *Closer) Wait() { // want Wait:`waitgroup\(Wait 0\.1\)`
	lc.waiting.Wait()
}

func (lc *Closer) SignalAndWait() { // want SignalAndWait:`waitgroup\(Wait 0\.1\)`
	lc.Signal()
	lc.Wait()
}

// MaybeWait does not wait on every path: no fact.
func (lc *Closer) MaybeWait(wait bool) {
	if wait {
		lc.waiting.Wait()
	}
}

// DoneTwice and DoneEach are not one Done: no fact.
func (lc *Closer) DoneTwice() {
	lc.waiting.Done()
	lc.waiting.Done()
}

func (lc *Closer) DoneEach(n int) {
	for range n {
		lc.waiting.Done()
	}
}

// MaybeAdd may add: the fact says so, without the "!" of an Add on every
// path.
func (lc *Closer) MaybeAdd(add bool) { // want MaybeAdd:`waitgroup\(Add 0\.1\)`
	if add {
		lc.waiting.Add(1)
	}
}

// Finish is handed the WaitGroup itself.
func Finish(wg *sync.WaitGroup) { // want Finish:`waitgroup\(Done 0\)`
	wg.Done()
}

// Group reaches the WaitGroup through a pointer field.
type Group struct {
	name  string
	inner *Closer
}

func (g *Group) Wait() { // want Wait:`waitgroup\(Wait 0\.1\.1\)`
	g.inner.Wait()
}

// AddLater adds in a goroutine it starts.
func AddLater(wg *sync.WaitGroup) { // want AddLater:`waitgroup\(Add 0\)` AddLater:`^starts goroutines$`
	go func() {
		wg.Add(1)
	}()
}

// done is not exported: its fact would be of no use to other packages.
func done(wg *sync.WaitGroup) {
	wg.Done()
}

// Package atomicptr: nil stored in an atomic.Pointer (by Store, Swap or
// CompareAndSwap) against a Load whose result is dereferenced unchecked.
package atomicptr

import (
	"sync"
	"sync/atomic"
)

type config struct{ max int }

type limiter struct {
	mu  sync.Mutex
	cfg atomic.Pointer[config]
}

func (l *limiter) limit() int { return l.cfg.Load().max } // want `may be nil when`

func (l *limiter) disable() { l.cfg.Store(nil) }

// checked loads once, checks and uses the local: silent.
func (l *limiter) checked() int {
	if c := l.cfg.Load(); c != nil {
		return c.max
	}
	return 0
}

func run(l *limiter) {
	go l.disable()
	_ = l.limit()
	_ = l.checked()
}

// swapped clears by Swap; CompareAndSwap of nil clears too.
type swapped struct{ cur atomic.Pointer[config] }

func (s *swapped) get() int { return s.cur.Load().max } // want `may be nil when`

func (s *swapped) take() *config { return s.cur.Swap(nil) }

type cased struct{ cur atomic.Pointer[config] }

func (c *cased) get() int { return c.cur.Load().max } // want `may be nil when`

func (c *cased) drop(old *config) { c.cur.CompareAndSwap(old, nil) }

func run2(s *swapped, c *cased, old *config) {
	go s.take()
	go c.drop(old)
	_ = s.get()
	_ = c.get()
}

// locked: the load and its dereference hold the lock the nil store
// holds: silent.
type locked struct {
	mu  sync.Mutex
	cfg atomic.Pointer[config]
}

func (l *locked) get() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cfg.Load() == nil {
		return 0
	}
	return l.cfg.Load().max
}

func (l *locked) clear() {
	l.mu.Lock()
	l.cfg.Store(nil)
	l.mu.Unlock()
}

func run3(l *locked) {
	go l.clear()
	_ = l.get()
}

// valued: an atomic.Value cannot be made nil (its Store of nil panics):
// silent.
type valued struct{ v atomic.Value }

func (v *valued) get() int { return v.v.Load().(*config).max }

func (v *valued) set() { v.v.Store((*config)(nil)) }

func run4(v *valued) {
	go v.set()
	_ = v.get()
}

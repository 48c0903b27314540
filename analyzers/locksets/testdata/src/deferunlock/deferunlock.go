// Package deferunlock: a deferred Unlock keeps the mutex held until the
// function returns, on every path.
package deferunlock

import "sync"

func mark() {}

type T struct {
	mu sync.Mutex
	rw sync.RWMutex
}

func (t *T) Deferred(early bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if early {
		mark() // want `^held: T.mu\(w\)$`
		return
	}
	mark() // want `^held: T.mu\(w\)$`
}

func (t *T) DeferredRead() {
	t.rw.RLock()
	defer t.rw.RUnlock()
	mark() // want `^held: T.rw\(r\)$`
}

func (t *T) DeferredClosure() {
	t.mu.Lock()
	defer func() {
		mark() // want `^held: T.mu\(w\)$`
		t.mu.Unlock()
	}()
	mark() // want `^held: T.mu\(w\)$`
}

func (t *T) read() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return 0
}

// After a call of a function that locks and defers the unlock, nothing
// is held.
func (t *T) AfterRead() {
	t.read()
	mark() // want `^held: none$`
}

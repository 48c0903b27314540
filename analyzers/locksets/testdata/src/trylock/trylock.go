// Package trylock: TryLock and TryRLock hold the mutex only on the branch
// where they returned true.
package trylock

import "sync"

func mark() {}

type T struct {
	mu sync.Mutex
	rw sync.RWMutex
}

func (t *T) Try() {
	if t.mu.TryLock() {
		mark() // want `^held: T.mu\(w\)$`
		t.mu.Unlock()
	} else {
		mark() // want `^held: none$`
	}
	mark() // want `^held: none$`
}

func (t *T) TryRead() {
	if !t.rw.TryRLock() {
		mark() // want `^held: none$`
		return
	}
	mark() // want `^held: T.rw\(r\)$`
	t.rw.RUnlock()
}

func (t *T) Stored() {
	ok := t.mu.TryLock()
	mark() // want `^held: none$`
	if ok {
		mark() // want `^held: T.mu\(w\)$`
		t.mu.Unlock()
	}
}

// Package helpers: a call of a function of the package applies its net
// effect on the caller's locks, so lock() and unlock() helpers acquire and
// release.
package helpers

import "sync"

func mark() {}

type S struct {
	mu sync.Mutex
	rw sync.RWMutex
	n  int
}

func (s *S) lock()    { s.mu.Lock() }
func (s *S) unlock()  { s.mu.Unlock() }
func (s *S) rlock()   { s.rw.RLock() }
func (s *S) runlock() { s.rw.RUnlock() }

// balanced locks and unlocks: no net effect.
func (s *S) balanced() {
	s.mu.Lock()
	s.n++
	s.mu.Unlock()
}

func (s *S) Helpers() {
	s.lock()
	mark() // want `^held: S.mu\(w\)$`
	s.unlock()
	mark() // want `^held: none$`
	s.rlock()
	mark() // want `^held: S.rw\(r\)$`
	s.runlock()
	mark() // want `^held: none$`
}

func (s *S) DeferredHelper() {
	s.lock()
	defer s.mu.Unlock()
	mark() // want `^held: S.mu\(w\)$`
}

func (s *S) Balanced() {
	s.balanced()
	mark() // want `^held: none$`
	s.rlock()
	s.balanced()
	mark() // want `^held: S.rw\(r\)$`
	s.runlock()
}

// relock is entered with the lock held, drops it around slow work and
// takes it again: for its callers the lock stays held.
func (s *S) relock() {
	s.mu.Unlock()
	s.n++
	s.mu.Lock()
}

func (s *S) Relock() {
	s.mu.Lock()
	s.relock()
	mark() // want `^held: S.mu\(w\)$`
	s.mu.Unlock()
}

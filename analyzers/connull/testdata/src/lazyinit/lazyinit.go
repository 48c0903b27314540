// Package lazyinit is go-oidc's remote key set (held-out rehearsal 44's
// A): under the lock, a nil field is set to a new request, whose
// goroutine clears it under the same lock when done, and the field is
// read before the Unlock. The read sees the value the check found not nil
// or the one just stored (made in place or by a constructor): silent.
// Reported: the branch stores a value that may be nil (a field, what a
// function that may return nil returns), calls a function after its store
// (which could unlock), or the goroutine clears the field without the
// lock.
package lazyinit

import "sync"

type inflight struct{ done chan struct{} }

func (i *inflight) wait() <-chan struct{} { return i.done }

type Set struct {
	mu       sync.Mutex
	inflight *inflight
	spare    *inflight
}

func (s *Set) Get() {
	s.mu.Lock()
	if s.inflight == nil {
		s.inflight = &inflight{done: make(chan struct{})}
		go func() {
			close(s.inflight.done)
			s.mu.Lock()
			defer s.mu.Unlock()
			s.inflight = nil
		}()
	}
	f := s.inflight
	s.mu.Unlock()
	<-f.wait()
}

type Spare struct {
	mu       sync.Mutex
	inflight *inflight
	spare    *inflight
}

func (s *Spare) Get() {
	s.mu.Lock()
	if s.inflight == nil {
		s.inflight = s.spare
		go func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.inflight = nil
		}()
	}
	f := s.inflight
	s.mu.Unlock()
	<-f.wait() // want `s.inflight may be nil when used to call \(\*inflight\).wait here`
}

type Noted struct {
	mu       sync.Mutex
	inflight *inflight
	n        int
}

func (s *Noted) note() { s.n++ }

func (s *Noted) Get() {
	s.mu.Lock()
	if s.inflight == nil {
		s.inflight = &inflight{done: make(chan struct{})}
		s.note()
		go func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.inflight = nil
		}()
	}
	f := s.inflight
	s.mu.Unlock()
	<-f.wait() // want `s.inflight may be nil when used to call \(\*inflight\).wait here`
}

type Unlocked struct {
	mu       sync.Mutex
	inflight *inflight
}

func (s *Unlocked) Get() {
	s.mu.Lock()
	if s.inflight == nil {
		s.inflight = &inflight{done: make(chan struct{})}
		go func() {
			s.inflight = nil
		}()
	}
	f := s.inflight
	s.mu.Unlock()
	<-f.wait() // want `s.inflight may be nil when used to call \(\*inflight\).wait here`
}

func newInflight() *inflight { return &inflight{done: make(chan struct{})} }

type Made struct {
	mu       sync.Mutex
	inflight *inflight
}

func (s *Made) Get() {
	s.mu.Lock()
	if s.inflight == nil {
		s.inflight = newInflight()
		go func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.inflight = nil
		}()
	}
	f := s.inflight
	s.mu.Unlock()
	<-f.wait()
}

var cached *inflight

func maybeInflight(reuse bool) *inflight {
	if reuse {
		return cached
	}
	return newInflight()
}

type Maybe struct {
	mu       sync.Mutex
	inflight *inflight
}

func (s *Maybe) Get(reuse bool) {
	s.mu.Lock()
	if s.inflight == nil {
		s.inflight = maybeInflight(reuse)
		go func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.inflight = nil
		}()
	}
	f := s.inflight
	s.mu.Unlock()
	<-f.wait() // want `s.inflight may be nil when used to call \(\*inflight\).wait here`
}

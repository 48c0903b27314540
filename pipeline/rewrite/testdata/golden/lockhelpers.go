package p

import "sync"

// Lock helpers: each records its lock operation at its caller's site.

type spinner struct {
	mu    *sync.RWMutex
	text  string
	inner struct{ mu sync.Mutex }
}

// lock allocates the mutex first, as pterm's helpers do.
func (s *spinner) lock() {
	if s.mu == nil {
		s.mu = &sync.RWMutex{}
	}
	s.mu.Lock()
}

func (s *spinner) unlock() { s.mu.Unlock() }

func (s *spinner) rlock()   { s.mu.RLock() }
func (s *spinner) runlock() { s.mu.RUnlock() }

// lockInner locks a field of a field.
func (s *spinner) lockInner()   { s.inner.mu.Lock() }
func (s *spinner) unlockInner() { s.inner.mu.Unlock() }

// lockAll is a helper of a helper.
func lockAll(s *spinner) { s.lockInner() }

var global sync.Mutex

func lockGlobal()   { global.Lock() }
func unlockGlobal() { global.Unlock() }

// Set and Text are operations: their sections begin and end at the
// helpers' calls.
func (s *spinner) Set(t string) {
	s.lock()
	s.text = t
	s.unlock()
}

func (s *spinner) Text() string {
	s.rlock()
	defer s.runlock()
	return s.text
}

func (s *spinner) Stop() {
	lockAll(s)
	if s.text == "" {
		s.unlockInner()
		return
	}
	s.text = ""
	s.unlockInner()
	lockGlobal()
	unlockGlobal()
}

// get is an operation, not a helper: it locks and unlocks.
func (s *spinner) get() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.text
}

// lockValue is used as a value: no helper.
func (s *spinner) lockValue() { s.mu.Lock() }

var hook = (*spinner).lockValue

func (s *spinner) Get() string { return s.get() }

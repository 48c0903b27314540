// Package constcallback: a helper that takes its mailbox's lock for
// writing or for reading as its boolean parameter says, then calls the
// callback it was handed (inbucket's mem store: withMailbox(name,
// writeLock, f)). Each caller passes a constant and a callback of its
// own, so the callback runs under the lock in the mode its call asked
// for: for writing where it passed true, for reading where it passed
// false, whether a closure captures the parameter (go/ssa then tests a
// load of its cell) or not. Beside it, near misses that hold the lock
// only for reading: a caller that passes a value that is not constant,
// and one callback handed over with true by one call and with false by
// another.
package constcallback

import "sync"

func mark() {}

type Store struct {
	mu    sync.Mutex
	boxes map[string]*mbox
}

type mbox struct {
	sync.RWMutex
	messages map[string]int
}

func (s *Store) withMailbox(name string, writeLock bool, f func(mb *mbox)) {
	s.mu.Lock()
	mb, ok := s.boxes[name]
	if !ok {
		mb = &mbox{messages: make(map[string]int)}
		s.boxes[name] = mb
	}
	s.mu.Unlock()
	if writeLock {
		mb.Lock()
	} else {
		mb.RLock()
	}
	defer func() {
		if writeLock {
			mb.Unlock()
		} else {
			mb.RUnlock()
		}
	}()
	f(mb)
}

// Add writes under the lock it asked for writing.
func (s *Store) Add(name, id string) {
	s.withMailbox(name, true, func(mb *mbox) {
		mark() // want `^held: mbox.RWMutex\(w\)$`
		mb.messages[id]++
	})
}

// Get reads under the lock it asked for reading.
func (s *Store) Get(name, id string) (n int) {
	s.withMailbox(name, false, func(mb *mbox) {
		mark() // want `^held: mbox.RWMutex\(r\)$`
		n = mb.messages[id]
	})
	return n
}

// Maybe passes what its own caller says.
func (s *Store) Maybe(name, id string, write bool) {
	s.withMailbox(name, write, func(mb *mbox) {
		mark() // want `^held: mbox.RWMutex\(r\)$`
		mb.messages[id]++
	})
}

// Both hands one callback over with true and with false.
func (s *Store) Both(name, id string) {
	f := func(mb *mbox) {
		mark() // want `^held: mbox.RWMutex\(r\)$`
		mb.messages[id]++
	}
	s.withMailbox(name, true, f)
	s.withMailbox(name, false, f)
}

// withBox tests its parameter itself (no closure captures it), before
// and after the callback.
func (s *Store) withBox(mb *mbox, write bool, f func()) {
	if write {
		mb.Lock()
	} else {
		mb.RLock()
	}
	f()
	if write {
		mb.Unlock()
	} else {
		mb.RUnlock()
	}
}

// Clear writes under the lock it asked withBox for writing.
func (s *Store) Clear(mb *mbox) {
	s.withBox(mb, true, func() {
		mark() // want `^held: mbox.RWMutex\(w\)$`
		clear(mb.messages)
	})
}

// Count reads under the lock it asked withBox for reading.
func (s *Store) Count(mb *mbox) (n int) {
	s.withBox(mb, false, func() {
		mark() // want `^held: mbox.RWMutex\(r\)$`
		n = len(mb.messages)
	})
	return n
}

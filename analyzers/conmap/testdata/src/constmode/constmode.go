// Package constmode: a store whose helper locks a mailbox for writing or
// for reading as its boolean parameter says and then runs the callback it
// was handed (inbucket's mem store: withMailbox(name, writeLock, f)).
// Each caller passes a constant: the callbacks handed over with true
// write the mailbox's map under the write lock, those handed over with
// false read it under the read lock, and the enforcer goroutine's
// removal excludes both. Silent; the enforcer's callback that writes the
// map although its call asked for the read lock, and one handed over by
// a call whose argument is not constant, are reported against Get.
package constmode

import "sync"

type Store struct {
	mu    sync.Mutex
	boxes map[string]*mbox
	ops   chan op
}

type op struct {
	kind    int
	box, id string
	write   bool
}

type mbox struct {
	sync.RWMutex
	messages map[string]int
}

func New() *Store {
	s := &Store{boxes: make(map[string]*mbox), ops: make(chan op)}
	go s.enforcer()
	return s
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

// enforcer carries out the operations it is sent: a removal under the
// write lock, a reset under the read lock (a bug), and a mark under the
// lock the operation says.
func (s *Store) enforcer() {
	for op := range s.ops {
		switch op.kind {
		case 0:
			s.withMailbox(op.box, true, func(mb *mbox) {
				delete(mb.messages, op.id)
			})
		case 1:
			s.withMailbox(op.box, false, func(mb *mbox) {
				mb.messages[op.id] = 0 // want `concurrent map read and map write: mb\.messages is written here and read by func literal in \(\*Store\)\.Get with no common lock`
			})
		default:
			s.withMailbox(op.box, op.write, func(mb *mbox) {
				mb.messages[op.id] = 1 // want `concurrent map read and map write: mb\.messages is written here and read by func literal in \(\*Store\)\.Get with no common lock`
			})
		}
	}
}

// Add writes under the write lock.
func (s *Store) Add(name, id string) {
	s.withMailbox(name, true, func(mb *mbox) {
		mb.messages[id]++
	})
}

// Get reads under the read lock.
func (s *Store) Get(name, id string) (n int) {
	s.withMailbox(name, false, func(mb *mbox) {
		n = mb.messages[id]
	})
	return n
}

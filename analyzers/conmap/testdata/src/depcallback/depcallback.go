// Package depcallback: a server (creachadair/jrpc2's) whose reader stops
// it with its lock held; stopping cancels each queued request through a
// callback that a dependency's queue calls before it returns, and that
// reads and deletes the server's map of requests, which the dispatcher
// writes under the same lock, in a callback it hands to the same queue.
// The callbacks handed to Each, to Visit (which hands them on to Each)
// and to Last run under the caller's lock: no report. A callback that
// the queue keeps (OnPush), to call it from a later Add, holds nothing,
// although the lock is held where it is handed over; so does one that the
// queue runs on a goroutine of its own (Async): their writes of another
// map, which stopLocked deletes from, are reported.
package depcallback

import (
	"sync"

	"depcallback/queue"
)

type Server struct {
	mu   sync.Mutex
	used map[string]func()
	kept map[string]bool
	inq  queue.Queue[string]
	in   chan string
}

func New() *Server {
	s := &Server{used: map[string]func(){}, kept: map[string]bool{}, in: make(chan string)}
	go s.read()
	go s.dispatch()
	return s
}

func (s *Server) read() {
	for id := range s.in {
		s.mu.Lock()
		s.inq.Add(id)
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.stopLocked()
	s.mu.Unlock()
}

// dispatch assigns each queued request a cancel function, under s.mu.
func (s *Server) dispatch() {
	for {
		s.mu.Lock()
		s.inq.Each(func(id string) bool {
			s.used[id] = func() {}
			return true
		})
		s.inq.OnPush(func(id string) {
			s.kept[id] = true // want `concurrent map writes: s.kept is written here and by func literal in \(\*Server\).dispatch`
		})
		s.inq.Async(func(id string) {
			s.kept[id] = false // want `concurrent map writes: s.kept is written here and by func literal in \(\*Server\).dispatch`
		})
		s.mu.Unlock()
	}
}

// stopLocked cancels every queued request. The caller holds s.mu.
func (s *Server) stopLocked() {
	s.inq.Each(func(id string) bool {
		s.cancelLocked(id)
		return true
	})
	s.inq.Visit(func(id string) {
		s.cancelLocked(id)
	})
	s.inq.Last(func(id string) {
		s.cancelLocked(id)
	})
	delete(s.kept, "") // want `concurrent map writes: s.kept is written here and by func literal in \(\*Server\).dispatch`
}

// cancelLocked cancels the request id. The caller holds s.mu.
func (s *Server) cancelLocked(id string) {
	if cancel, ok := s.used[id]; ok {
		cancel()
		delete(s.used, id)
	}
}

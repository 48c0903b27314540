// Package nilrecheck holds request loops that start a handler goroutine
// which registers a channel in a field, and then send on the field after
// checking it non-nil (gliderlabs/ssh's session: `if sess.sigCh != nil {
// sess.sigCh <- sig }`). The send loads the field a second time: silent
// when the check and the send are in one critical section of the mutex
// every store of the field holds, so that the second load sees what the
// first found set; reported when the store does not take the mutex, when
// the loop unlocks between the check and the send, or when the send goes
// to another object's field than the one checked.
package nilrecheck

import "sync"

type session struct {
	sync.Mutex
	handler func(*session)
	breakCh chan<- bool
}

func (s *session) Break(c chan<- bool) {
	s.Lock()
	defer s.Unlock()
	s.breakCh = c
}

// handleRequests checks and sends under the lock Break takes: silent.
func (s *session) handleRequests(reqs <-chan string) {
	for req := range reqs {
		if req == "shell" {
			go s.handler(s)
			continue
		}
		s.Lock()
		if s.breakCh != nil {
			s.breakCh <- true
		}
		s.Unlock()
	}
}

type unlocked struct {
	sync.Mutex
	handler func(*unlocked)
	sigCh   chan<- bool
}

// Signals stores the channel without the lock.
func (s *unlocked) Signals(c chan<- bool) {
	s.sigCh = c
}

// handleRequests checks and sends under a lock Signals does not take:
// reported.
func (s *unlocked) handleRequests(reqs <-chan string) {
	for req := range reqs {
		if req == "shell" {
			go s.handler(s)
			continue
		}
		s.Lock()
		if s.sigCh != nil {
			s.sigCh <- true // want `s.sigCh may be read before it is set`
		}
		s.Unlock()
	}
}

type released struct {
	sync.Mutex
	handler func(*released)
	winCh   chan<- bool
}

func (s *released) Window(c chan<- bool) {
	s.Lock()
	defer s.Unlock()
	s.winCh = c
}

// handleRequests releases the lock between the check and the send:
// reported.
func (s *released) handleRequests(reqs <-chan string) {
	for req := range reqs {
		if req == "shell" {
			go s.handler(s)
			continue
		}
		s.Lock()
		if s.winCh != nil {
			s.Unlock()
			s.winCh <- true // want `s.winCh may be read before it is set`
			continue
		}
		s.Unlock()
	}
}

type pair struct {
	sync.Mutex
	handler func(*pair)
	peer    *pair
	exitCh  chan<- bool
}

func (s *pair) Exit(c chan<- bool) {
	s.Lock()
	defer s.Unlock()
	s.exitCh = c
}

// handleRequests checks its peer's field and sends on its own: reported.
func (s *pair) handleRequests(reqs <-chan string) {
	for req := range reqs {
		if req == "shell" {
			go s.handler(s)
			continue
		}
		s.Lock()
		if s.peer.exitCh != nil {
			s.exitCh <- true // want `s.exitCh may be read before it is set`
		}
		s.Unlock()
	}
}

func DefaultHandler(s *session) {
	c := make(chan bool, 1)
	s.Break(c)
	<-c
}

func UnlockedHandler(s *unlocked) {
	c := make(chan bool, 1)
	s.Signals(c)
	<-c
}

func ReleasedHandler(s *released) {
	c := make(chan bool, 1)
	s.Window(c)
	<-c
}

func PairHandler(s *pair) {
	c := make(chan bool, 1)
	s.Exit(c)
	<-c
}

func Serve(conns []chan string) {
	for _, reqs := range conns {
		go func(reqs chan string) {
			s := &session{handler: DefaultHandler}
			s.handleRequests(reqs)
		}(reqs)
		go func(reqs chan string) {
			s := &unlocked{handler: UnlockedHandler}
			s.handleRequests(reqs)
		}(reqs)
		go func(reqs chan string) {
			s := &released{handler: ReleasedHandler}
			s.handleRequests(reqs)
		}(reqs)
		go func(reqs chan string) {
			s := &pair{handler: PairHandler}
			s.peer = &pair{handler: PairHandler}
			s.handleRequests(reqs)
		}(reqs)
	}
}

type captured struct {
	sync.Mutex
	handler func(*captured)
	next    *captured
	hupCh   chan<- bool
}

func (s *captured) Hangup(c chan<- bool) {
	s.Lock()
	defer s.Unlock()
	s.hupCh = c
}

// handleRequests starts its handler in a literal that captures s, so
// that each s.hupCh loads s again from its cell, stored once: silent.
func (s *captured) handleRequests(reqs <-chan string) {
	for req := range reqs {
		if req == "shell" {
			go func() { s.handler(s) }()
			continue
		}
		s.Lock()
		if s.hupCh != nil {
			s.hupCh <- true
		}
		s.Unlock()
	}
}

// moveRequests is handleRequests with s moved on to the next session
// after each request: s's cell is stored more than once, which the rule
// does not follow (a store between the check and the send would make
// them two sessions'): reported.
func (s *captured) moveRequests(reqs <-chan string) {
	for req := range reqs {
		if req == "shell" {
			go func() { s.handler(s) }()
			continue
		}
		s.Lock()
		if s.hupCh != nil {
			s.hupCh <- true // want `s.hupCh may be read before it is set`
		}
		s.Unlock()
		s = s.next
	}
}

func CapturedHandler(s *captured) {
	c := make(chan bool, 1)
	s.Hangup(c)
	<-c
}

func ServeCaptured(conns []chan string) {
	for _, reqs := range conns {
		go func(reqs chan string) {
			s := &captured{handler: CapturedHandler}
			s.next = s
			s.handleRequests(reqs)
		}(reqs)
		go func(reqs chan string) {
			s := &captured{handler: CapturedHandler}
			s.next = s
			s.moveRequests(reqs)
		}(reqs)
	}
}

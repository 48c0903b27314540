// Package methodexpr: a session whose receive loop dispatches frames
// through a table of method expressions, handlers[t](s, f), as yamux does.
// Each handler takes the session's lock itself around the map it touches,
// and so does the user's Open, so nothing is reported (a method called
// only through a thunk had no lock sets at all). A dispatcher that holds
// the lock around the table's call guards handlers that take none
// (Locked); one that releases it first does not (Leaky, LeakyDispatch).
package methodexpr

import "sync"

type Session struct {
	lock    sync.Mutex
	streams map[int]int
	frames  chan int
}

var handlers = []func(*Session, int) error{
	0: (*Session).handleData,
	1: (*Session).handleClose,
}

func New() *Session {
	s := &Session{streams: map[int]int{}, frames: make(chan int)}
	go s.recv()
	return s
}

func (s *Session) recv() {
	for f := range s.frames {
		if err := handlers[f%2](s, f); err != nil {
			return
		}
	}
}

func (s *Session) handleData(f int) error {
	s.lock.Lock()
	s.streams[f]++
	s.lock.Unlock()
	return nil
}

func (s *Session) handleClose(f int) error {
	s.lock.Lock()
	delete(s.streams, f)
	s.lock.Unlock()
	return nil
}

func Serve() {
	s := New()
	go s.Open(1)
}

func (s *Session) Open(id int) {
	s.lock.Lock()
	s.streams[id] = 0
	s.lock.Unlock()
}

// Leaky's handler forgets the lock: reported.
type Leaky struct {
	lock    sync.Mutex
	streams map[int]int
	frames  chan int
}

var leakyHandlers = []func(*Leaky, int) error{
	(*Leaky).handleData,
}

func NewLeaky() *Leaky {
	s := &Leaky{streams: map[int]int{}, frames: make(chan int)}
	go s.recv()
	return s
}

func (s *Leaky) recv() {
	for f := range s.frames {
		if err := leakyHandlers[0](s, f); err != nil {
			return
		}
	}
}

func (s *Leaky) handleData(f int) error {
	s.streams[f]++ // want `concurrent map writes: s.streams is written here and by \(\*Leaky\).Open`
	return nil
}

func ServeLeaky() {
	s := NewLeaky()
	go s.Open(1)
}

func (s *Leaky) Open(id int) {
	s.lock.Lock()
	s.streams[id] = 0 // want `concurrent map read and map write: s.streams is written here and read by \(\*Leaky\).handleData`
	s.lock.Unlock()
}

// Locked's dispatcher holds the lock around the handler's call.
type Locked struct {
	lock    sync.Mutex
	streams map[int]int
	frames  chan int
}

var lockedHandlers = []func(*Locked, int){
	(*Locked).handleData,
}

func NewLocked() *Locked {
	s := &Locked{streams: map[int]int{}, frames: make(chan int)}
	go s.recv()
	return s
}

func (s *Locked) recv() {
	for f := range s.frames {
		s.lock.Lock()
		lockedHandlers[0](s, f)
		s.lock.Unlock()
	}
}

func (s *Locked) handleData(f int) {
	s.streams[f]++
}

func ServeLocked() {
	s := NewLocked()
	go s.Open(1)
}

func (s *Locked) Open(id int) {
	s.lock.Lock()
	s.streams[id] = 0
	s.lock.Unlock()
}

// LeakyDispatch's dispatcher runs the handler after the unlock.
type LeakyDispatch struct {
	lock    sync.Mutex
	streams map[int]int
	frames  chan int
}

var leakyDispatchHandlers = []func(*LeakyDispatch, int){
	(*LeakyDispatch).handleData,
}

func NewLeakyDispatch() *LeakyDispatch {
	s := &LeakyDispatch{streams: map[int]int{}, frames: make(chan int)}
	go s.recv()
	return s
}

func (s *LeakyDispatch) recv() {
	for f := range s.frames {
		s.lock.Lock()
		lockedHandlers := leakyDispatchHandlers
		s.lock.Unlock()
		lockedHandlers[0](s, f)
	}
}

func (s *LeakyDispatch) handleData(f int) {
	s.streams[f]++ // want `concurrent map writes: s.streams is written here and by \(\*LeakyDispatch\).Open`
}

func ServeLeakyDispatch() {
	s := NewLeakyDispatch()
	go s.Open(1)
}

func (s *LeakyDispatch) Open(id int) {
	s.lock.Lock()
	s.streams[id] = 0 // want `concurrent map read and map write: s.streams is written here and read by \(\*LeakyDispatch\).handleData`
	s.lock.Unlock()
}

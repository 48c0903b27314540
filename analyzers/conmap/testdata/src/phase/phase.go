// Package phase: a supervisor's Add writes its map only while, under the
// mutex, the state says it is not running; Serve marks it running under
// the mutex and then reads the map without it (thejerf/suture): Add's
// write came before Serve's mark, or never ran. Silent. A map written
// without the test, a state set back to notRunning, and a reader that
// reads before marking are reported.
package phase

import "sync"

const (
	notRunning = iota
	running
	stopped
)

type Supervisor struct {
	m        sync.Mutex
	state    int
	services map[int]string
	control  chan int
}

func New() *Supervisor {
	return &Supervisor{services: make(map[int]string), control: make(chan int), state: notRunning}
}

func (s *Supervisor) Add(id int, name string) {
	s.m.Lock()
	if s.state == notRunning {
		s.services[id] = name
		s.m.Unlock()
		return
	}
	s.m.Unlock()
	s.control <- id
}

func (s *Supervisor) Serve() {
	s.m.Lock()
	s.state = running
	s.m.Unlock()
	defer func() {
		s.m.Lock()
		s.state = stopped
		s.m.Unlock()
	}()
	s.services[0] = "self"
	s.list()
	for id := range s.control {
		s.services[id] = "added"
	}
}

func (s *Supervisor) list() {
	for id := range s.services {
		_ = id
	}
}

type Reset struct {
	m        sync.Mutex
	state    int
	services map[int]string
}

func NewReset() *Reset { return &Reset{services: make(map[int]string)} }

func (s *Reset) Add(id int) {
	s.m.Lock()
	if s.state == notRunning {
		s.services[id] = "x" // want `concurrent map writes: s.services is written here and by \(\*Reset\).Serve`
	}
	s.m.Unlock()
}

func (s *Reset) Serve() {
	s.m.Lock()
	s.state = running
	s.m.Unlock()
	s.services[0] = "y" // want `concurrent map writes: s.services is written here and by \(\*Reset\).Add`
	s.m.Lock()
	s.state = notRunning
	s.m.Unlock()
}

type Early struct {
	m        sync.Mutex
	running  bool
	services map[int]string
}

func NewEarly() *Early { return &Early{services: make(map[int]string)} }

func (s *Early) Add(id int) {
	s.m.Lock()
	if !s.running {
		s.services[id] = "x" // want `concurrent map writes: s.services is written here and by \(\*Early\).Serve`
	}
	s.m.Unlock()
}

func (s *Early) Serve() {
	s.services[0] = "y" // want `concurrent map writes: s.services is written here and by \(\*Early\).Add`
	s.m.Lock()
	s.running = true
	s.m.Unlock()
}

func Run() {
	s := New()
	go s.Serve()
	s.Add(1, "a")
	r := NewReset()
	go r.Serve()
	r.Add(1)
	e := NewEarly()
	go e.Serve()
	e.Add(1)
}

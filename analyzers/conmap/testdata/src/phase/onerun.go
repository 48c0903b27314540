package phase

import "sync"

// Server's Serve lets one run at a time in: its entry, under the mutex,
// panics unless the state holds no running value (serving or paused),
// and only a literal it defers after the entry sets the state back.
// Two Serves on one server never touch its map at once: silent.
type Server struct {
	m     sync.Mutex
	state int
	conns map[int]bool
}

func NewServer() *Server { return &Server{conns: make(map[int]bool)} }

func (s *Server) Serve() {
	s.m.Lock()
	if s.state == running || s.state == paused {
		s.m.Unlock()
		panic("already serving")
	}
	s.state = running
	s.m.Unlock()
	defer func() {
		s.m.Lock()
		s.state = stopped
		s.m.Unlock()
	}()
	s.conns[1] = true
	s.drop(1)
}

func (s *Server) drop(id int) { delete(s.conns, id) }

// Pause keeps the state running: it stores a running value.
func (s *Server) Pause() {
	s.m.Lock()
	s.state = paused
	s.m.Unlock()
}

const paused = 3

// Early defers the exit before its entry: a Serve that panics at the
// entry sets the state back while another runs.
type Early2 struct {
	m     sync.Mutex
	state int
	conns map[int]bool
}

func NewEarly2() *Early2 { return &Early2{conns: make(map[int]bool)} }

func (s *Early2) Serve() {
	defer func() {
		s.m.Lock()
		s.state = stopped
		s.m.Unlock()
	}()
	s.m.Lock()
	if s.state == running {
		s.m.Unlock()
		panic("already serving")
	}
	s.state = running
	s.m.Unlock()
	s.conns[1] = true // want `concurrent map writes: s.conns is written here by several goroutines`
}

// Half checks one running value of two: a paused server is let in.
type Half struct {
	m     sync.Mutex
	state int
	conns map[int]bool
}

func NewHalf() *Half { return &Half{conns: make(map[int]bool)} }

func (s *Half) Serve() {
	s.m.Lock()
	if s.state == running {
		s.m.Unlock()
		panic("already serving")
	}
	s.state = running
	s.m.Unlock()
	defer func() {
		s.m.Lock()
		s.state = stopped
		s.m.Unlock()
	}()
	s.conns[1] = true // want `concurrent map writes: s.conns is written here by several goroutines`
}

func (s *Half) Pause() {
	s.m.Lock()
	s.state = paused
	s.m.Unlock()
}

// Stop sets the state back outside any run's end.
type Stoppable struct {
	m     sync.Mutex
	state int
	conns map[int]bool
}

func NewStoppable() *Stoppable { return &Stoppable{conns: make(map[int]bool)} }

func (s *Stoppable) Serve() {
	s.m.Lock()
	if s.state == running {
		s.m.Unlock()
		panic("already serving")
	}
	s.state = running
	s.m.Unlock()
	defer func() {
		s.m.Lock()
		s.state = stopped
		s.m.Unlock()
	}()
	s.conns[1] = true // want `concurrent map writes: s.conns is written here by several goroutines`
}

func (s *Stoppable) Stop() {
	s.m.Lock()
	s.state = stopped
	s.m.Unlock()
}

func RunTwice() {
	s := NewServer()
	go s.Serve()
	go s.Serve()
	s.Pause()
	e := NewEarly2()
	go e.Serve()
	go e.Serve()
	h := NewHalf()
	go h.Serve()
	go h.Serve()
	h.Pause()
	t := NewStoppable()
	go t.Serve()
	go t.Serve()
	t.Stop()
}

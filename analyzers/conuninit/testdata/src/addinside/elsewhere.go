package addinside

import "sync"

// Server's goroutine adds for itself at its start, and Stop waits: a Stop
// right after Start may find the counter at zero.
type Server struct {
	wg   sync.WaitGroup
	done chan struct{}
}

func (s *Server) Start() {
	s.done = make(chan struct{})
	go s.serve()
}

func (s *Server) serve() {
	s.wg.Add(1)
	defer s.wg.Done()
	<-s.done
}

func (s *Server) Stop() {
	close(s.done)
	s.wg.Wait() // want `s.wg.Wait in \(\*Server\).Stop may return before \(\*Server\).serve calls Add`
}

// Ready's Start waits for the goroutine to say it has added: silent.
type Ready struct {
	wg    sync.WaitGroup
	ready chan struct{}
}

func (r *Ready) Start() {
	r.ready = make(chan struct{})
	go r.serve()
	<-r.ready
}

func (r *Ready) serve() {
	r.wg.Add(1)
	defer r.wg.Done()
	close(r.ready)
}

func (r *Ready) Stop() { r.wg.Wait() }

// Awaited's Start waits in a function it calls: silent.
type Awaited struct {
	wg    sync.WaitGroup
	ready chan struct{}
}

func (a *Awaited) Start() {
	a.ready = make(chan struct{})
	go a.serve()
	a.await()
}

func (a *Awaited) await() { <-a.ready }

func (a *Awaited) serve() {
	a.wg.Add(1)
	defer a.wg.Done()
	close(a.ready)
}

func (a *Awaited) Stop() { a.wg.Wait() }

// Mixed's Start also adds before starting another goroutine: the counter
// may be above zero at the Wait, and which Add comes first is not the
// check's to say: silent.
type Mixed struct{ wg sync.WaitGroup }

func (m *Mixed) Start() {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
	}()
	go m.serve()
}

func (m *Mixed) serve() {
	m.wg.Add(1)
	defer m.wg.Done()
}

func (m *Mixed) Stop() { m.wg.Wait() }

// Shared's adding function also runs on the caller's goroutine (Run calls
// it directly): silent.
type Shared struct{ wg sync.WaitGroup }

func (s *Shared) Start() { go s.work() }

func (s *Shared) Run() { s.work() }

func (s *Shared) work() {
	s.wg.Add(1)
	defer s.wg.Done()
}

func (s *Shared) Stop() { s.wg.Wait() }

// Package apartpaths: inbucket's pop3 Start (held-out rehearsal 43's V1).
// Start closes notify on the path where listening failed, which returns
// before the go statement; on the other path it starts serve, which closes
// notify when accepting fails. Within one call of Start the two exclude
// each other: they meet only if Start runs twice on one server, an
// assumption, so the reports have low confidence and the default output
// leaves them out. Reported beside it: a Start that closes on the path
// that also starts the goroutine.
package apartpaths

import "errors"

type Server struct {
	notify chan error
	ok     bool
}

func New() *Server { return &Server{notify: make(chan error, 1)} }

func (s *Server) Start(listen func() error) {
	if err := listen(); err != nil {
		s.notify <- err
		close(s.notify)
		return
	}
	go s.serve()
}

func (s *Server) serve() {
	if !s.ok {
		s.notify <- errors.New("accept")
		close(s.notify)
	}
}

type Both struct{ notify chan error }

func NewBoth() *Both { return &Both{notify: make(chan error, 1)} }

func (s *Both) Start(listen func() error) {
	go s.serve()
	if err := listen(); err != nil {
		close(s.notify) // want `close of closed channel: s\.notify may also be closed by \(\*Both\)\.serve`
	}
}

func (s *Both) serve() {
	close(s.notify)
}

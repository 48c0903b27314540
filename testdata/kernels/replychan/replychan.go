// Package replychan is PBZIP2-2 (ConMem Fig. 8, Con-Dangling: send on a
// closed channel) through a channel of channels: each request carries
// the channel its reply goes to, and the client closes that channel when
// it gives up waiting, to tell the server nobody listens any more.
//
// Crashing interleaving:
//
//	client                               server
//	s.reqs <- request{key, reply}
//	select: <-time.After(timeout) fires
//	S1 close(reply)
//	                                     r := <-s.reqs
//	                                     S2 r.reply <- value
//	                                     panic: send on closed channel
//
// The test's normal schedule hides it: the server answers within
// microseconds and the timeout is a second, so no run takes the timeout
// branch, and no recorded run has the close that the send would pair with.
package replychan

import (
	"errors"
	"time"
)

// errTimeout is Get's error when the server did not answer in time.
var errTimeout = errors.New("replychan: timed out")

type request struct {
	key   string
	reply chan string
}

// Server answers requests from a map.
type Server struct {
	reqs chan request
	data map[string]string
}

// NewServer starts a server that answers from data; Stop stops it.
func NewServer(data map[string]string) *Server {
	s := &Server{reqs: make(chan request), data: data}
	go s.serve()
	return s
}

func (s *Server) serve() {
	for r := range s.reqs {
		r.reply <- s.data[r.key] // S2
	}
}

// Stop stops the server.
func (s *Server) Stop() { close(s.reqs) }

// Get is WRONG: it closes the reply channel when the timeout fires, while
// the server may still send the answer on it.
func (s *Server) Get(key string, timeout time.Duration) (string, error) {
	reply := make(chan string)
	s.reqs <- request{key, reply}
	select {
	case v := <-reply:
		return v, nil
	case <-time.After(timeout):
		close(reply) // S1
		return "", errTimeout
	}
}

// Package bubblewait is a negative control for testing/synctest (issue
// 15): a server goroutine connects (sets s.conn) and then blocks for
// requests; the test reads s.conn after synctest.Wait, which returns only
// once every other goroutine of the bubble is durably blocked, so the
// connection is set before the read in every run. On shutdown the
// goroutine sets s.conn to nil after the test closed the request channel.
// Without the Wait the read could come before the connect.
package bubblewait

// Conn is a connection.
type Conn struct{ Addr string }

// Server serves requests on a connection its goroutine makes.
type Server struct {
	conn *Conn
	reqs chan string
	done chan struct{}
}

// Start starts the server's goroutine.
func Start(addr string) *Server {
	s := &Server{reqs: make(chan string), done: make(chan struct{})}
	go s.loop(addr)
	return s
}

func (s *Server) loop(addr string) {
	s.conn = &Conn{Addr: addr} // S1: before the goroutine blocks
	for range s.reqs {
	}
	s.conn = nil // S3: after Stop closed reqs
	close(s.done)
}

// Addr returns the connection's address.
func (s *Server) Addr() string {
	return s.conn.Addr // S2
}

// Stop ends the server's goroutine and waits for it.
func (s *Server) Stop() {
	close(s.reqs)
	<-s.done
}

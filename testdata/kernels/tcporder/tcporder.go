// Package tcporder is a negative control, with one bug beside it, for the
// order a TCP connection gives its two ends (package rtnet in the shim;
// emersion/go-smtp's tests): a line server answers each line with the
// server's mode, which a test sets between two round trips. A read that
// got a byte comes after the write that sent it, so the server's read of
// the mode for a line sent after the test's write comes after that
// write: no race. The race detector orders them too (internal/poll's
// ioSync). So does the server's read of Bye once its read found the end
// of the stream, after the test's Close. The bug: a test that sets the
// mode while the server may be greeting, before any reply has come back.
package tcporder

import (
	"bufio"
	"net"
)

// Server answers each line with its mode, and counts the connections
// closed after a goodbye was asked for.
type Server struct {
	Loud  bool // read by the connection's goroutine for every line
	Greet bool // read by the connection's goroutine once, as it starts
	Bye   bool // read by the connection's goroutine once the client has closed
	byes  int  // connections that said goodbye
}

// Serve answers the connections of l until it is closed.
func (s *Server) Serve(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go s.serve(c)
	}
}

func (s *Server) serve(c net.Conn) {
	defer c.Close()
	if s.Greet {
		c.Write([]byte("hello\n"))
	}
	r := bufio.NewReader(c)
	for {
		if _, err := r.ReadString('\n'); err != nil {
			if s.Bye {
				s.byes++
			}
			return
		}
		reply := "quiet\n"
		if s.Loud {
			reply = "LOUD\n"
		}
		if _, err := c.Write([]byte(reply)); err != nil {
			return
		}
	}
}

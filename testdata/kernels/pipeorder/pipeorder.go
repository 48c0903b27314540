// Package pipeorder is a negative control for the order a net.Pipe gives
// its two ends (package rtnet in the shim; a test's in-memory connection to
// a server of its own, as strongswan/govici's tests talk to their daemon,
// held-out rehearsal 52): a line server answers each line with its mode,
// which a test sets between two round trips. A read that got a byte comes
// after the write that sent it, so the server's read of the mode for a
// line sent after the test's write comes after that write, and its read of
// Bye once it found the end of the stream comes after the test's Close.
package pipeorder

import (
	"bufio"
	"net"
)

// Server answers each line with its mode, and counts the connections
// closed after a goodbye was asked for.
type Server struct {
	Loud bool // read by the connection's goroutine for every line
	Bye  bool // read by the connection's goroutine once the client has closed
	byes int  // connections that said goodbye
}

// Serve answers c's lines on a goroutine of its own.
func (s *Server) Serve(c net.Conn) {
	go s.serve(c)
}

func (s *Server) serve(c net.Conn) {
	defer c.Close()
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

package pipeorder

import (
	"bufio"
	"net"
	"testing"
)

// start serves s on one end of a pipe and returns the other.
func start(t *testing.T, s *Server) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, srv := net.Pipe()
	s.Serve(srv)
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// TestAfterReply sets the mode after the first reply came back and before
// the second line is sent: ordered by the pipe.
func TestAfterReply(t *testing.T) {
	s := &Server{}
	c, r := start(t, s)
	c.Write([]byte("one\n"))
	if got, _ := r.ReadString('\n'); got != "quiet\n" {
		t.Fatalf("first reply %q, want quiet", got)
	}
	s.Loud = true
	c.Write([]byte("two\n"))
	if got, _ := r.ReadString('\n'); got != "LOUD\n" {
		t.Fatalf("second reply %q, want LOUD", got)
	}
}

// TestAfterClose asks for a goodbye and closes its end: the server reads
// the request once its read found the end of the stream.
func TestAfterClose(t *testing.T) {
	s := &Server{}
	c, r := start(t, s)
	c.Write([]byte("one\n"))
	r.ReadString('\n')
	s.Bye = true
	c.Close()
}

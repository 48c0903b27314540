package tcporder

import (
	"bufio"
	"net"
	"testing"
)

// start serves s on a loopback port and dials it.
func start(t *testing.T, s *Server) (net.Conn, *bufio.Reader) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no loopback TCP:", err)
	}
	t.Cleanup(func() { l.Close() })
	go s.Serve(l)
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// TestAfterReply sets the mode after the first reply came back and before
// the second line is sent: ordered by the connection.
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

// TestBeforeGreeting sets the greeting after the connection is made,
// while the server's goroutine may already be reading it: a data race.
func TestBeforeGreeting(t *testing.T) {
	s := &Server{}
	c, r := start(t, s)
	s.Greet = true
	c.Write([]byte("one\n"))
	got, _ := r.ReadString('\n')
	if got == "hello\n" {
		got, _ = r.ReadString('\n')
	}
	if got != "quiet\n" {
		t.Fatalf("reply %q, want quiet", got)
	}
}

// TestAfterClose asks for a goodbye and closes its end: the server reads
// the request once its read found the end of the stream.
func TestAfterClose(t *testing.T) {
	s := &Server{}
	c, r := start(t, s)
	c.Write([]byte("one\n"))
	if got, _ := r.ReadString('\n'); got != "quiet\n" {
		t.Fatalf("reply %q, want quiet", got)
	}
	s.Bye = true
	c.Close()
}

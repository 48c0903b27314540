package rtnet

import (
	"io"
	"net"
	"testing"
)

// TestDirections checks that the two ends of one loopback connection find
// each other's directions by the 4-tuple, that a write is pending for the
// other end's reader until a read got its first byte, and that a read
// which got only part of a later write still joins it.
func TestDirections(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no loopback TCP:", err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	a, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b := <-accepted
	if b == nil {
		t.Fatal("accept failed")
	}
	defer b.Close()
	ea, eb := endsOf(a.(*net.TCPConn)), endsOf(b.(*net.TCPConn))
	if ea == nil || eb == nil || ea.out != eb.in || ea.in != eb.out || ea.out == ea.in {
		t.Fatalf("ends %+v and %+v do not mirror each other", ea, eb)
	}
	if again := endsOf(a.(*net.TCPConn)); again != ea {
		t.Errorf("a second look at a's ends found %p, want %p", again, ea)
	}
	wa := &conn{Conn: a, e: ea}
	wb := &conn{Conn: b, e: eb}
	wa.Write([]byte("hello"))
	wa.Write([]byte("world!"))
	if got := ea.out.pending; len(got) != 2 || got[0] != 0 || got[1] != 5 {
		t.Fatalf("pending %v, want [0 5]", got)
	}
	buf := make([]byte, 6)
	if _, err := io.ReadFull(wb, buf); err != nil {
		t.Fatal(err)
	}
	if got := eb.in.pending; len(got) != 0 {
		t.Errorf("after 6 of 11 bytes read, pending %v: want both writes joined (the second's first byte, at 5, was read)", got)
	}
}

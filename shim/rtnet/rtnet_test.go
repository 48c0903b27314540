package rtnet

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"math/big"
	"net"
	"testing"
	"time"
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
	ea, eb := endsOf(a.(*net.TCPConn), nil), endsOf(b.(*net.TCPConn), nil)
	if ea == nil || eb == nil || ea.out != eb.in || ea.in != eb.out || ea.out == ea.in {
		t.Fatalf("ends %+v and %+v do not mirror each other", ea, eb)
	}
	if again := endsOf(a.(*net.TCPConn), nil); again != ea {
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

// TestTLSLayer checks that the two TLS ends of one loopback connection
// find each other's directions, apart from the bare TCP ends of the same
// 4-tuple (whose bytes are the ciphertext), and that a read of the
// plaintext joins the other end's write of it.
func TestTLSLayer(t *testing.T) {
	cert := selfSigned(t)
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Skip("no loopback TCP:", err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil && c.(*tls.Conn).Handshake() != nil { // tls.Dial waits for it
			c.Close()
			c = nil
		}
		accepted <- c
	}()
	a, err := tls.Dial("tcp", l.Addr().String(), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b := <-accepted
	if b == nil {
		t.Fatal("accept failed")
	}
	defer b.Close()
	ta, la := tcpOf(a)
	tb, lb := tcpOf(b)
	if ta == nil || tb == nil || la == nil || la != lb {
		t.Fatalf("tcpOf: %v layer %v and %v layer %v, want both ends' TCP connections under one layer", ta, la, tb, lb)
	}
	ea, eb := endsOf(ta, la), endsOf(tb, lb)
	if ea == nil || eb == nil || ea.out != eb.in || ea.in != eb.out {
		t.Fatalf("TLS ends %+v and %+v do not mirror each other", ea, eb)
	}
	if bare := endsOf(ta, nil); bare == nil || bare.out == ea.out || bare.in == ea.in {
		t.Fatalf("the bare TCP end %+v shares a direction with the TLS end %+v", bare, ea)
	}
	wa, wb := &conn{Conn: a, e: ea}, &conn{Conn: b, e: eb}
	if _, err := wa.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(wb, buf); err != nil || string(buf) != "hello" {
		t.Fatalf("read %q, %v", buf, err)
	}
	ea.out.mu.Lock()
	pending := len(ea.out.pending)
	ea.out.mu.Unlock()
	if pending != 0 {
		t.Errorf("after the plaintext was read, %d writes pending: want the write joined", pending)
	}
}

// selfSigned returns a certificate for the loopback address.
func selfSigned(t *testing.T) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestPipe checks that the two ends of a net.Pipe find each other's
// directions by the channels that carry their bytes, that another pipe's
// ends find others, and that a read joins the write whose bytes it got.
func TestPipe(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	end, out, in, ok := pipeOf(a)
	if !ok {
		t.Fatal("net.Pipe's end not recognized (its fields changed?)")
	}
	ea := pipeEnds(end, out, in)
	end, out, in, _ = pipeOf(b)
	eb := pipeEnds(end, out, in)
	if ea.out != eb.in || ea.in != eb.out || ea.out == ea.in {
		t.Fatalf("ends %+v and %+v do not mirror each other", ea, eb)
	}
	c, d := net.Pipe()
	defer c.Close()
	defer d.Close()
	end, out, in, _ = pipeOf(c)
	if ec := pipeEnds(end, out, in); ec.out == ea.out || ec.out == eb.out || ec.in == ea.in || ec.in == eb.in {
		t.Errorf("another pipe's end shares a direction: %+v against %+v and %+v", ec, ea, eb)
	}
	if _, _, _, ok := pipeOf(struct{ net.Conn }{a}); ok {
		t.Error("a wrapper of a pipe's end taken for the end")
	}
	wa, wb := &conn{Conn: a, e: ea}, &conn{Conn: b, e: eb}
	go wa.Write([]byte("hello"))
	buf := make([]byte, 5)
	if _, err := io.ReadFull(wb, buf); err != nil {
		t.Fatal(err)
	}
	if got := eb.in.pending; len(got) != 0 {
		t.Errorf("after the write's bytes were read, pending %v, want none", got)
	}
}

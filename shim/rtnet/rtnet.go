// Package rtnet orders the two ends of a TCP connection by the bytes that
// pass through it: a read that got a byte comes after the write that sent
// it, and a read that found the stream's end after the other end's
// Close. Rewritten code hands it the net.Conn values it reads, writes and
// closes itself (c.Read(b), c.Write(b), c.Close(), and a connection passed
// where one of io's readers, writers or closers is expected:
// bufio.NewReader(c), textproto.NewConn(c), io.ReadFull(c, b)):
//
//	c.Write(b)           precog_rtnet.Conn(S, c).Write(b)
//	bufio.NewReader(c)   bufio.NewReader(precog_rtnet.Conn(S, c))
//
// It is a package of its own so that only files that use a connection
// import net through it.
//
// Conn wraps a *net.TCPConn whose two addresses are known, or a
// connection layered on one that says so (NetConn: a *tls.Conn), whose
// plaintext bytes it counts, and an end of a net.Pipe (a test's in-memory
// connection to a server of its own), whose two ends find each other by
// the channels that carry their bytes; anything else it returns as it is. The ends
// of a layered connection pair only with ends of the same layer (a TLS
// client with its TLS server, whose plaintext streams are one another's),
// never with a bare TCP end of the same 4-tuple, which sees other bytes.
// A wrapper counts, per direction of the connection
// (its local address to its remote one), the bytes its writes reserve and
// the bytes its reads get. Each write that sends at least one byte is
// released before it is sent (shim.ConnSent, a token naming its first
// byte); a read that brought the count of bytes read past a write's first
// byte joins that write (shim.ConnReceived): the byte was sent, so the
// write had begun. A Close is released the same way, for a read of the
// other end that finds the end of the stream (io.EOF) after the bytes
// sent before the Close, and for a read of the closing end that fails
// with net.ErrClosed. Both ends of a connection made in one process find the
// same direction by its 4-tuple; the first two ends of a 4-tuple are one
// connection, and a third starts a new one (a port reused after a close).
// A connection to another process, or one whose peer reads through code
// that was not rewritten (net/http), gives no edge; a write
// whose bytes are never read keeps its token until maxPending newer ones
// push it out.
//
// This is the release and acquire that the race detector takes on every
// read and write of a file descriptor (internal/poll's ioSync), narrowed
// to the bytes that one read can have got.
package rtnet

import (
	"errors"
	"io"
	"net"
	"reflect"
	"runtime"
	"sync"
	"unsafe"
	"weak"

	"github.com/precog-dev/precog/shim"
)

// maxPending bounds the writes a direction keeps for its reader.
const maxPending = 4096

// A dir is one direction of a connection: what its writer's end sent and
// its reader's end got. Its address names it in the trace.
type dir struct {
	mu      sync.Mutex
	sent    uint64   // bytes the writes reserved
	got     uint64   // bytes the reads got
	pending []uint64 // first byte of each write not yet joined, in order
}

// A pair is the two directions of one 4-tuple and the ends that took it.
type pair struct {
	dirs [2]*dir // from the lesser address to the greater, and back
	ends int
}

// ends is one end's two directions.
type ends struct{ out, in *dir }

var (
	mu     sync.Mutex
	pairs  = make(map[string]*pair)  // by "lesser|greater" address
	byConn = make(map[connKey]*ends) // nil: not a known TCP pair
)

// Conn returns c, wrapped to order its reads after the writes of the
// other end whose bytes they got when c is a TCP connection of known
// addresses and the shim records.
func Conn(site uint32, c net.Conn) net.Conn {
	if !shim.Enabled() {
		return c
	}
	var e *ends
	if tc, layer := tcpOf(c); tc != nil {
		e = endsOf(tc, layer)
	} else if end, out, in, ok := pipeOf(c); ok {
		e = pipeEnds(end, out, in)
	}
	if e == nil {
		return c
	}
	return &conn{Conn: c, site: site, e: e}
}

// pipeOf returns, when c is an end of a net.Pipe, the end and the
// channels that carry its two directions' bytes: it writes on out, which
// is the other end's in. The pipe's type is unexported; its fields are
// read by reflection, and a Go whose pipe lacks them gives no order.
func pipeOf(c net.Conn) (end *byte, out, in uintptr, ok bool) {
	if reflect.TypeOf(c) != pipeType || pipeWr == nil {
		return nil, 0, 0, false // every wrapped call of other connections asks: a comparison
	}
	v := reflect.ValueOf(c)
	if v.IsNil() {
		return nil, 0, 0, false
	}
	wr, rd := v.Elem().FieldByIndex(pipeWr), v.Elem().FieldByIndex(pipeRd)
	if wr.IsNil() || rd.IsNil() {
		return nil, 0, 0, false
	}
	return (*byte)(v.UnsafePointer()), wr.Pointer(), rd.Pointer(), true
}

// pipeType is the type of a net.Pipe's ends; pipeWr and pipeRd are the
// indexes of its channels' fields, looked up once (nil when this Go's
// pipe has no such channels).
var pipeType, pipeWr, pipeRd = func() (reflect.Type, []int, []int) {
	a, b := net.Pipe()
	a.Close()
	b.Close()
	t := reflect.TypeOf(a)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return t, nil, nil
	}
	wr, ok := t.Elem().FieldByName("wrTx")
	rd, ok2 := t.Elem().FieldByName("rdRx")
	if !ok || !ok2 || wr.Type.Kind() != reflect.Chan || rd.Type.Kind() != reflect.Chan {
		return t, nil, nil
	}
	return t, wr.Index, rd.Index
}()

var (
	byPipe   = make(map[weak.Pointer[byte]]*ends)
	pipeDirs = make(map[uintptr]*dir) // by the channel that carries the direction's bytes
)

// pipeEnds returns the directions of the pipe end whose writes go on the
// channel out and whose reads come from in: the other end of the pipe
// finds the same two, the other way round. A direction is forgotten when
// either end is collected (the other has its ends already), so that a
// channel address reused by a later pipe names a new direction.
func pipeEnds(end *byte, out, in uintptr) *ends {
	w := weak.Make(end)
	mu.Lock()
	defer mu.Unlock()
	if e, seen := byPipe[w]; seen {
		return e
	}
	dirOf := func(ch uintptr) *dir {
		d := pipeDirs[ch]
		if d == nil {
			d = new(dir)
			pipeDirs[ch] = d
		}
		return d
	}
	e := &ends{out: dirOf(out), in: dirOf(in)}
	byPipe[w] = e
	runtime.AddCleanup(end, func(w weak.Pointer[byte]) {
		mu.Lock()
		delete(byPipe, w)
		delete(pipeDirs, out)
		delete(pipeDirs, in)
		mu.Unlock()
	}, w)
	return e
}

// tcpOf returns the TCP connection that c is, or that c is layered on (a
// connection with a NetConn method that returns it: *tls.Conn) with c's
// type as the layer; nil if neither.
func tcpOf(c net.Conn) (*net.TCPConn, reflect.Type) {
	if tc, ok := c.(*net.TCPConn); ok {
		return tc, nil
	}
	l, ok := c.(interface{ NetConn() net.Conn })
	if !ok {
		return nil, nil
	}
	if tc, ok := l.NetConn().(*net.TCPConn); ok {
		return tc, reflect.TypeOf(c)
	}
	return nil, nil
}

// A connKey names one end of a connection: its TCP connection, and the
// layer's type for a connection layered on it (nil for the bare one).
type connKey struct {
	tc    weak.Pointer[net.TCPConn]
	layer reflect.Type
}

// endsOf returns the directions of tc's end seen through layer (nil: tc's
// own bytes), nil when its addresses are not both known.
func endsOf(tc *net.TCPConn, layer reflect.Type) *ends {
	w := connKey{weak.Make(tc), layer}
	mu.Lock()
	e, seen := byConn[w]
	mu.Unlock()
	if seen {
		return e
	}
	var key string
	out := 0
	if la, ra := tc.LocalAddr(), tc.RemoteAddr(); la != nil && ra != nil {
		l, r := la.String(), ra.String()
		key = l + "|" + r
		if r < l {
			key, out = r+"|"+l, 1
		}
		if layer != nil {
			key = layer.String() + " " + key
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if e, seen := byConn[w]; seen {
		return e // another goroutine's first use of tc came first
	}
	if key != "" {
		p := pairs[key]
		if p == nil || p.ends >= 2 {
			p = &pair{dirs: [2]*dir{new(dir), new(dir)}}
			pairs[key] = p
		}
		p.ends++
		e = &ends{out: p.dirs[out], in: p.dirs[1-out]}
	}
	byConn[w] = e
	runtime.AddCleanup(tc, func(w connKey) {
		mu.Lock()
		delete(byConn, w)
		mu.Unlock()
	}, w)
	return e
}

// conn is a wrapped TCP connection: every method but Read, Write and
// Close is the connection's own.
type conn struct {
	net.Conn
	site uint32
	e    *ends
}

func (c *conn) Write(b []byte) (int, error) {
	if len(b) > 0 {
		d := c.e.out
		d.mu.Lock()
		first := d.sent
		d.sent += uint64(len(b))
		if len(d.pending) == maxPending {
			d.pending = append(d.pending[:0], d.pending[1:]...)
		}
		d.pending = append(d.pending, first)
		d.mu.Unlock()
		shim.ConnSent(c.site, unsafe.Pointer(d), bytesToken(first))
	}
	return c.Conn.Write(b)
}

func (c *conn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	d := c.e.in
	switch {
	case n > 0:
		d.mu.Lock()
		d.got += uint64(n)
		k := 0
		for k < len(d.pending) && d.pending[k] < d.got {
			k++
		}
		joined := append([]uint64(nil), d.pending[:k]...)
		d.pending = append(d.pending[:0], d.pending[k:]...)
		d.mu.Unlock()
		for _, first := range joined {
			shim.ConnReceived(c.site, unsafe.Pointer(d), bytesToken(first))
		}
	case err == io.EOF:
		// The other end closed after sending what this end got.
		d.mu.Lock()
		got := d.got
		d.mu.Unlock()
		shim.ConnReceived(c.site, unsafe.Pointer(d), finToken(got))
	case errors.Is(err, net.ErrClosed):
		shim.ConnReceived(c.site, unsafe.Pointer(c.e.out), closedToken)
	}
	return n, err
}

// Close releases what the goroutine did so far for a read of this end
// that then fails because the connection is closed, and for a read of
// the other end that then finds the end of the stream after the bytes
// sent (a FIN).
func (c *conn) Close() error {
	d := c.e.out
	d.mu.Lock()
	sent := d.sent
	d.mu.Unlock()
	shim.ConnSent(c.site, unsafe.Pointer(d), closedToken)
	shim.ConnSent(c.site, unsafe.Pointer(d), finToken(sent))
	return c.Conn.Close()
}

// The tokens of a direction: a write's is even (its first byte's offset),
// the end of the stream's odd (the bytes sent before it), and the close
// of the writing end, which its own reads see, 0.
const closedToken = 0

func bytesToken(first uint64) uint64 { return 2*first + 2 }

func finToken(sent uint64) uint64 { return 2*sent + 1 }

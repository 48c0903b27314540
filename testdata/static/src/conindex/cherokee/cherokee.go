// Package cherokee is the Cherokee kernel (ConMem, conmem.txt Tables VII-IX;
// Cherokee 0.9.2): a Con-Overflow atomicity violation.
//
// A connection's response header is a reusable buffer (cherokee_buffer_t:
// a fixed byte slice and the length in use). The worker goroutine sends it
// on a non-blocking socket that may take part of it, advancing c.sent: it
// reads c.header.len to test for more, waits for the socket to become
// writable (Cherokee returns to its poll loop), then reads c.header.len again
// to slice the unsent part. The server's timeout goroutine cleans the buffers of
// connections it thinks are idle (c.header.len = 0) without the worker's
// knowledge and without a lock the worker holds.
//
// Crashing interleaving:
//
//	worker goroutine                       timeout goroutine
//	c.sent = 5 (partial send)
//	c.sent < c.header.len                  (5 < 120)
//	c.sock.WaitWritable(...)
//	                                       c.header.clean()  (len = 0)
//	c.header.buf[c.sent:c.header.len]
//	panic: runtime error: slice bounds out of range [5:0]
//
// Without the panic, a smaller update of len sends a truncated or stale
// header (the paper's "wrong message"). The normal schedule hides the bug: a
// connection that is sending is active, so the timeout goroutine almost never
// picks it.
//
// RIGHT version in this file: c.incoming is filled and sliced under c.mu, and
// the timeout goroutine holds c.mu when it cleans it.
package cherokee

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// buffer is cherokee_buffer_t.
type buffer struct {
	buf []byte // capacity, allocated once per connection
	len int    // bytes in use
}

func (b *buffer) clean() { b.len = 0 }

// Socket is a non-blocking socket: Send may take fewer than len(p) bytes.
type Socket interface {
	WaitWritable(timeout time.Duration) error
	Send(p []byte) (int, error)
}

// Conn is cherokee_connection_t.
type Conn struct {
	sock       Socket
	header     buffer
	sent       int // bytes of header already sent
	lastActive atomic.Int64

	mu       sync.Mutex // guards incoming
	incoming buffer
}

func newConn(sock Socket) *Conn {
	c := &Conn{sock: sock}
	c.header.buf = make([]byte, 1024)
	c.incoming.buf = make([]byte, 4096)
	return c
}

func (c *Conn) readRequest(p []byte) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.incoming.len = copy(c.incoming.buf, p)
	return string(c.incoming.buf[:c.incoming.len])
}

// sendHeader is cherokee_connection_send_header.
func (c *Conn) sendHeader() error {
	for c.sent < c.header.len {
		if err := c.sock.WaitWritable(time.Second); err != nil {
			return err
		}
		n, err := c.sock.Send(c.header.buf[c.sent:c.header.len]) // want `may be out of range`
		c.sent += n
		c.lastActive.Store(time.Now().UnixNano())
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *Conn) handle(req []byte) error {
	c.lastActive.Store(time.Now().UnixNano())
	line := c.readRequest(req)
	c.header.len = copy(c.header.buf, fmt.Sprintf("HTTP/1.1 200 OK\r\nServer: Cherokee\r\nX-Request: %.64q\r\n\r\n", line))
	c.sent = 0
	return c.sendHeader()
}

// Server owns the connections and the timeout goroutine.
type Server struct {
	mu    sync.Mutex // guards conns
	conns []*Conn
}

// reapIdle cleans the connections idle since before deadline.
func (s *Server) reapIdle(deadline int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		if c.lastActive.Load() < deadline {
			c.header.clean()
			c.mu.Lock()
			c.incoming.clean()
			c.mu.Unlock()
		}
	}
}

func (s *Server) timeoutLoop(timeout time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(timeout / 2)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			s.reapIdle(now.Add(-timeout).UnixNano())
		}
	}
}

// Serve runs one worker goroutine per socket and the timeout goroutine.
func Serve(socks []Socket, requests [][]byte, timeout time.Duration) {
	s := &Server{}
	var wg sync.WaitGroup
	for _, sock := range socks {
		c := newConn(sock)
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range requests {
				if c.handle(r) != nil {
					return
				}
			}
		}()
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.timeoutLoop(timeout, stop)
	}()
	wg.Wait()
	close(stop)
	<-done
}

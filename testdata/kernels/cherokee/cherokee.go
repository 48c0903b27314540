// Package cherokee is the Cherokee kernel (ConMem, conmem.txt
// Tables VII-IX; Cherokee 0.9.2): a Con-Overflow atomicity violation.
//
// A connection's response header is a reusable buffer (cherokee_buffer_t:
// a byte slice and the length in use). The worker goroutine sends it on a
// socket that may take part of it, advancing c.sent: it reads
// c.header.len to test for more, then reads it again to slice the unsent
// part. The server's timeout goroutine cleans the buffers of connections it
// thinks are idle (c.header.len = 0), without a lock the worker holds.
//
// Crashing interleaving:
//
//	worker goroutine                       timeout goroutine
//	c.sent = 16 (partial send)
//	S1 c.sent < c.header.len   (16 < 38)
//	                                       S3 c.header.len = 0 (clean)
//	S2 c.header.buf[c.sent:c.header.len]
//	panic: runtime error: slice bounds out of range [16:0]
//
// The test's normal schedule hides the bug: the timeout goroutine looks
// for idle connections 20 ms after the request arrived, and the worker has
// long sent the header by then.
package cherokee

import "fmt"

// buffer is cherokee_buffer_t.
type buffer struct {
	buf []byte
	len int // bytes in use
}

func (b *buffer) clean() { b.len = 0 } // S3

// Socket is a non-blocking socket: Send may take fewer than len(p) bytes.
type Socket interface {
	Send(p []byte) int
}

// Conn is cherokee_connection_t.
type Conn struct {
	sock   Socket
	header buffer
	sent   int // bytes of header already sent
	done   bool
}

// NewConn returns a connection on sock.
func NewConn(sock Socket) *Conn {
	return &Conn{sock: sock, header: buffer{buf: make([]byte, 256)}}
}

// Handle answers one request: it builds the header and sends it.
func (c *Conn) Handle(path string) {
	c.header.len = copy(c.header.buf, fmt.Sprintf("HTTP/1.1 200 OK\r\nX-Path: %s\r\n\r\n", path))
	c.sent = 0
	for c.sent < c.header.len { // S1
		c.sent += c.sock.Send(c.header.buf[c.sent:c.header.len]) // S2 // want `may be out of range`
	}
	c.done = true
}

// Reap is the timeout goroutine's pass: it cleans the connection's buffers.
func (c *Conn) Reap() {
	c.header.clean()
}

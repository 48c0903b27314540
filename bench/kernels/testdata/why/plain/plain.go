// Package plain is testdata/kernels/lazyconn with the request about as
// late as the dial (1.6ms against 1ms), so that random delays fail some
// runs: the accesses are plain, ordered by timing alone, and the trace
// knows no order between them (issue 10 item 4: why Unicorn stayed silent).
package plain

import (
	"errors"
	"time"
)

// Conn is a connection.
type Conn struct{ addr string }

// Pool holds the connection to one server.
type Pool struct {
	conn *Conn
}

// Dial connects to addr, which takes handshake, and publishes the
// connection.
func (p *Pool) Dial(addr string, handshake time.Duration) {
	time.Sleep(handshake)
	p.conn = &Conn{addr: addr} // S1
}

// errNotConnected is the request's error before the dial is done.
var errNotConnected = errors.New("not connected")

// Do sends a request over the connection.
func (p *Pool) Do(req string) (string, error) {
	c := p.conn // S2
	if c == nil {
		return "", errNotConnected
	}
	return req + " via " + c.addr, nil
}

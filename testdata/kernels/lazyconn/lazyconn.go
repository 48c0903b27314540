// Package lazyconn is an order violation (unicorn.txt Table I, P2 W1(x)
// R2(x), failing as P1 R2(x) W1(x)) whose goroutines are milliseconds
// apart and ordered by timing alone: no lock, no channel, nothing but the
// time the two goroutines take (issue 9, targeted perturbation).
//
// Dial connects in the background and publishes the connection (S1)
// after a couple of milliseconds of handshake; a request, started at the
// same time, uses the connection (S2) once its own preparation is done,
// several milliseconds later. Nothing makes the request wait for the
// dial: the request fails when it comes first.
//
// Failing interleaving (x is p.conn):
//
//	dial goroutine                   request goroutine
//	                                 S2 p.conn == nil: no connection
//	S1 p.conn = c
//
// The accesses are a data race (go test -race reports it when it runs);
// for Unicorn the trace knows their order only when the run forced it.
package lazyconn

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

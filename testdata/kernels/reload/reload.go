// Package reload is a multi-variable order bug whose goroutines are
// milliseconds apart, the shape random delays do not reach (issue 9,
// targeted perturbation): pattern P12 of unicorn.txt Table I, W1(x) R2(x)
// R2(y) W1(y).
//
// A client's endpoint is a host and a port that only make sense together.
// Reload switches to a new endpoint: it sets the host (S1), checks the new
// endpoint (work of a couple of milliseconds), then sets the port (S4),
// each in a critical section of its own. Addr reads both in one critical
// section (S2, S3). Every access is locked (go test -race has nothing to
// say), but Reload's two writes are not atomic.
//
// Failing interleaving (x is c.host, y is c.port):
//
//	reload goroutine                 client goroutine
//	S1 c.host = host
//	   (checks the endpoint, ms)
//	                                 S2 c.host   (the new host)
//	                                 S3 c.port   (the old port)
//	S4 c.port = port
//
// In the test the client asks for the address several milliseconds after
// the reload began, long after it ended: a random delay of up to a
// millisecond at an instrumented point does not bridge that. Reversing
// the pair S4 then S3 (the port read before the port write) fails the
// test at once.
package reload

import (
	"fmt"
	"sync"
	"time"
)

// Client holds the endpoint it talks to.
type Client struct {
	mu   sync.Mutex
	host string
	port int
}

// NewClient returns a client of host:port.
func NewClient(host string, port int) *Client {
	return &Client{host: host, port: port}
}

// Reload switches the client to host:port, checking the new endpoint for
// check in between.
func (c *Client) Reload(host string, port int, check time.Duration) {
	c.mu.Lock()
	c.host = host // S1
	c.mu.Unlock()
	time.Sleep(check) // checks the new endpoint
	c.mu.Lock()
	c.port = port // S4
	c.mu.Unlock()
}

// Addr returns the endpoint as host:port.
func (c *Client) Addr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprintf("%s:%d", c.host, c.port) // S2, S3
}

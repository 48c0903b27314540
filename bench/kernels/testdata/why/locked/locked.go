// Package locked is testdata/kernels/reload with the client about as late
// as the reload (1.6ms against 1ms), so that random delays fail some runs:
// every access is in a critical section, so the trace knows their order
// (issue 10 item 4, the control of package plain).
package locked

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

// Package lockhandoff is a Con-NULL kernel (ConMem §4.2) on a lock that
// passes between goroutines, and its negative control. Go mutexes have no
// owner: Stop takes its client's lock on a goroutine of its own, so that
// it can stop waiting for it when its context ends, and goes on under
// that lock once the goroutine signals that it has it (otlptracegrpc's
// client.Stop). Its nil store is inside the write-locked section, which
// excludes Upload's check and use: precog test must report nothing for it
// (before detect/hb modeled the hand-off, the store's goroutine held no
// lock and ConMem reported a con-null). StopEarly clears the connection
// before it waits for the lock: between Upload's check and its use, it
// leaves a nil that Upload dereferences (panic: invalid memory address or
// nil pointer dereference). The test uploads before it stops, 20 ms
// apart, so the bug does not happen in the recorded run.
package lockhandoff

import (
	"context"
	"errors"
	"sync"
)

// ErrStopped is what a stopped client returns.
var ErrStopped = errors.New("client stopped")

// Conn is a connection with a limit on what one upload sends.
type Conn struct {
	limit int
}

// Client uploads over its connection until it is stopped.
type Client struct {
	mu   sync.RWMutex
	conn *Conn
}

// New returns a client with a connection.
func New(limit int) *Client { return &Client{conn: &Conn{limit: limit}} }

// Upload sends n units unless the client stopped, holding the read lock
// from its check to its use.
func (c *Client) Upload(n int) (int, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.conn == nil {
		return 0, ErrStopped
	}
	// precog vet reports the next line, naming Stop's nil store (a known
	// false positive for that pair: the static lock sets do not follow a
	// lock handed over through a channel) where StopEarly's is the bug;
	// precog test reports StopEarly's only.
	return min(n, c.conn.limit), nil // want `may be nil when`
}

// lockAsync takes the write lock on a goroutine of its own and closes the
// returned channel once it has it: the caller goes on under the lock
// (and unlocks it) after it received.
func (c *Client) lockAsync() <-chan struct{} {
	acquired := make(chan struct{})
	go func() {
		c.mu.Lock()
		close(acquired)
	}()
	return acquired
}

// Stop waits for the lock, or for ctx to end (then for the lock all the
// same), and clears the connection under it.
func (c *Client) Stop(ctx context.Context) error {
	acquired := c.lockAsync()
	select {
	case <-ctx.Done():
		<-acquired
	case <-acquired:
	}
	defer c.mu.Unlock()
	if c.conn == nil {
		return ErrStopped
	}
	c.conn = nil
	return nil
}

// StopEarly clears the connection before it has the lock.
func (c *Client) StopEarly() {
	acquired := c.lockAsync()
	c.conn = nil
	<-acquired
	c.mu.Unlock()
}

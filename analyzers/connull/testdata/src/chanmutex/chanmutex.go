// Package chanmutex: a channel of capacity 1 used as a mutex
// (coder/websocket's mu: lock sends in a select with ctx.Done and the
// connection's closed channel, unlock receives in a select with a
// default, Close takes the lock for good with forceLock) guards what the
// writer uses against Close's nil stores. Silent; a reader that uses its
// buffer without the lock is reported.
package chanmutex

import (
	"context"
	"errors"
	"fmt"
)

type mu struct {
	c  *Conn
	ch chan struct{}
}

func newMu(c *Conn) *mu { return &mu{c: c, ch: make(chan struct{}, 1)} }

var errClosed = errors.New("closed")

func (m *mu) forceLock() { m.ch <- struct{}{} }

func (m *mu) lock(ctx context.Context) error {
	select {
	case <-m.c.closed:
		return errClosed
	case <-ctx.Done():
		return fmt.Errorf("failed to acquire lock: %w", ctx.Err())
	case m.ch <- struct{}{}:
		select {
		case <-m.c.closed:
			m.unlock()
			return errClosed
		default:
		}
		return nil
	}
}

func (m *mu) unlock() {
	select {
	case <-m.ch:
	default:
	}
}

type buf struct{ n int }

func (b *buf) Flush() { b.n = 0 }

type Conn struct {
	closed  chan struct{}
	writeMu *mu
	bw      *buf
	scratch *buf
}

func New() *Conn {
	c := &Conn{closed: make(chan struct{}), bw: &buf{}, scratch: &buf{}}
	c.writeMu = newMu(c)
	return c
}

func (c *Conn) Write(ctx context.Context) error {
	if err := c.writeMu.lock(ctx); err != nil {
		return err
	}
	defer c.writeMu.unlock()
	c.bw.Flush()
	return nil
}

func (c *Conn) Peek() {
	c.scratch.Flush() // want `c\.scratch may be nil`
}

func (c *Conn) Close() {
	c.writeMu.forceLock()
	close(c.closed)
	c.bw = nil
	c.scratch = nil
}

func Run(ctx context.Context, c *Conn) {
	go c.Write(ctx)
	go c.Peek()
	go c.Close()
}

// Package chanmutex: a channel of capacity 1 used as a mutex
// (coder/websocket's mu: lock sends in a select with ctx.Done and the
// connection's closed channel, unlock receives in a select with a
// default, Close takes the lock for good with forceLock) guards what the
// writer uses against Close's nil stores. Silent; a reader that uses its
// buffer without the lock is reported. So does a token lock, a channel of
// capacity 1 its maker puts one token in, taken by a receive and given
// back by a send (open-feature's multi-provider lifecycleLock, held-out
// rehearsal 26): Init's and Shutdown's nil stores and calls under it are
// silent; a call outside it, and the same code under a channel of capacity
// 2 or one that is also closed, are reported.
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

// Provider's lifecycle is a token lock: lockLifecycle takes the token in a
// select with ctx.Done and holds it only where it returns nil.
type Provider struct {
	lifecycle chan struct{}
	stop      func()
}

func NewProvider() *Provider {
	l := make(chan struct{}, 1)
	l <- struct{}{}
	return &Provider{lifecycle: l}
}

func (p *Provider) lockLifecycle(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-p.lifecycle:
		return nil
	}
}

func (p *Provider) unlockLifecycle() { p.lifecycle <- struct{}{} }

func (p *Provider) Init(ctx context.Context) error {
	if err := p.lockLifecycle(ctx); err != nil {
		return err
	}
	defer p.unlockLifecycle()
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
	p.stop = func() {}
	return nil
}

func (p *Provider) Shutdown(ctx context.Context) error {
	if err := p.lockLifecycle(ctx); err != nil {
		return err
	}
	defer p.unlockLifecycle()
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
	return nil
}

func (p *Provider) Peek() {
	if p.stop != nil {
		p.stop() // want `p\.stop may be nil`
	}
}

// Wide's channel holds two tokens, Shut's is also closed: neither is a
// lock, and their users' nil stores race with their calls.
type Wide struct {
	lifecycle chan struct{}
	stop      func()
}

func NewWide() *Wide {
	l := make(chan struct{}, 2)
	l <- struct{}{}
	return &Wide{lifecycle: l}
}

func (w *Wide) Shutdown() {
	<-w.lifecycle
	defer func() { w.lifecycle <- struct{}{} }()
	if w.stop != nil {
		w.stop() // want `w\.stop may be nil`
		w.stop = nil
	}
}

type Shut struct {
	lifecycle chan struct{}
	stop      func()
}

func NewShut() *Shut {
	l := make(chan struct{}, 1)
	l <- struct{}{}
	return &Shut{lifecycle: l}
}

func (s *Shut) Shutdown() {
	<-s.lifecycle
	defer func() { s.lifecycle <- struct{}{} }()
	if s.stop != nil {
		s.stop() // want `s\.stop may be nil`
		s.stop = nil
	}
}

func (s *Shut) Close() { close(s.lifecycle) }

func RunLifecycle(ctx context.Context) {
	p, w, s := NewProvider(), NewWide(), NewShut()
	go p.Init(ctx)
	go p.Shutdown(ctx)
	go p.Peek()
	go w.Shutdown()
	go w.Shutdown()
	go s.Shutdown()
	go s.Shutdown()
	go s.Close()
}

// EarlyProvider reads ctx.Err() before its select: the error it returns in
// the Done case may be nil (the context not done then), and Shutdown goes
// on without the token. Not a lock.
type EarlyProvider struct {
	lifecycle chan struct{}
	stop      func()
}

func NewEarlyProvider() *EarlyProvider {
	l := make(chan struct{}, 1)
	l <- struct{}{}
	return &EarlyProvider{lifecycle: l}
}

func (p *EarlyProvider) lockLifecycle(ctx context.Context) error {
	err := ctx.Err()
	select {
	case <-ctx.Done():
		return err
	case <-p.lifecycle:
		return nil
	}
}

func (p *EarlyProvider) unlockLifecycle() { p.lifecycle <- struct{}{} }

func (p *EarlyProvider) Shutdown(ctx context.Context) error {
	if err := p.lockLifecycle(ctx); err != nil {
		return err
	}
	defer p.unlockLifecycle()
	if p.stop != nil {
		p.stop() // want `p\.stop may be nil`
		p.stop = nil
	}
	return nil
}

func RunEarly(ctx context.Context) {
	p := NewEarlyProvider()
	p.stop = func() {}
	go p.Shutdown(ctx)
	go p.Shutdown(ctx)
}

// Twice gives gate a second channel, with its own token, after the first
// goroutine started: each goroutine may take the token of a different
// channel. Not a lock.
func Twice() {
	stop := func() {}
	gate := make(chan struct{}, 1)
	gate <- struct{}{}
	go func() {
		<-gate
		if stop != nil {
			stop() // want `stop may be nil`
			stop = nil
		}
		gate <- struct{}{}
	}()
	gate = make(chan struct{}, 1)
	gate <- struct{}{}
	go func() {
		<-gate
		if stop != nil {
			stop() // want `stop may be nil`
			stop = nil
		}
		gate <- struct{}{}
	}()
}

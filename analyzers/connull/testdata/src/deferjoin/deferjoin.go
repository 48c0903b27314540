// Package deferjoin: a function stores nil in a deferred call after it
// joins the goroutines that read the field (cloudevents' StartReceiver
// and OpenInbound). A return before the defer statement runs no deferred
// call, and the panic go/ssa puts after a blocking select's last case is
// no way out: silent. A return after the defer and before the join, a
// select with a default that returns without the receive, or a real panic
// before it lets the store run while a goroutine may read: reported.
package deferjoin

import (
	"context"
	"errors"
	"sync"
)

type Invoker interface{ Invoke(m int) }

type Client struct {
	mu      sync.Mutex
	invoker Invoker
	recv    chan int
}

// Start returns early before its defer when a receiver is set.
func (c *Client) Start(inv Invoker, n int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.invoker != nil {
		return errors.New("client already has a receiver")
	}
	c.invoker = inv
	defer func() {
		c.invoker = nil
	}()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range c.recv {
				c.invoker.Invoke(m)
			}
		}()
	}
	wg.Wait()
	return nil
}

type Client2 struct {
	invoker Invoker
	recv    chan int
}

// StartQuick returns after its defer and before the join when quick.
func (c *Client2) StartQuick(inv Invoker, quick bool) error {
	c.invoker = inv
	defer func() {
		c.invoker = nil
	}()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for m := range c.recv {
			c.invoker.Invoke(m) // want `c\.invoker may be nil`
		}
	}()
	if quick {
		return nil
	}
	wg.Wait()
	return nil
}

type server struct{ stop chan struct{} }

func (s *server) Serve() error    { <-s.stop; return nil }
func (s *server) Shutdown() error { close(s.stop); return nil }

type Protocol struct {
	mu     sync.Mutex
	server *server
}

// Open receives the goroutine's one send in both arms of a select without
// a default.
func (p *Protocol) Open(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.server = &server{stop: make(chan struct{})}
	defer func() {
		p.server = nil
	}()
	errc := make(chan error)
	go func() {
		errc <- p.server.Serve()
	}()
	select {
	case <-ctx.Done():
		err := p.server.Shutdown()
		if rerr := <-errc; rerr != nil {
			return rerr
		}
		return err
	case err := <-errc:
		return err
	}
}

type Protocol2 struct {
	server *server
}

// OpenPoll's select has a default that returns without the receive.
func (p *Protocol2) OpenPoll() error {
	p.server = &server{stop: make(chan struct{})}
	defer func() {
		p.server = nil
	}()
	errc := make(chan error)
	go func() {
		errc <- p.server.Serve() // want `p\.server may be nil`
	}()
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

type Protocol3 struct {
	server *server
}

// OpenOrPanic panics in one arm, before the receive.
func (p *Protocol3) OpenOrPanic(ctx context.Context) error {
	p.server = &server{stop: make(chan struct{})}
	defer func() {
		p.server = nil
	}()
	errc := make(chan error)
	go func() {
		errc <- p.server.Serve() // want `p\.server may be nil`
	}()
	select {
	case <-ctx.Done():
		panic("cancelled")
	case err := <-errc:
		return err
	}
}

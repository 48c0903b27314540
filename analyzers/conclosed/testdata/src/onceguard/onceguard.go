// Package onceguard: a Connect that runs at most once per client, as
// paho.golang's does. A flag tested and set under the client's mutex,
// never cleared, lets one call per client past it; that call closes the
// client's packets channel on its early return, through a cleanup
// closure or inline, and otherwise starts the goroutine that closes it:
// never both. Its done channel is made afresh by each call, so the
// cleanup's close and the goroutine's are of one call's channel whatever
// the flag, as is NoOnce's, closed by a shutdown that context.AfterFunc
// runs once Connect is past its cleanups. Near misses, reported: no flag
// (a second Connect closes the first's channel while its goroutine
// sends), a flag that Reset clears, a flag tested and set without the
// mutex, a flag reset by storing a whole client, a close on a path after
// the goroutine's start, and a cleanup deferred (it runs when Connect
// returns, after the start).
package onceguard

import (
	"context"
	"errors"
	"sync"
)

// Run connects every client twice at once.
func Run() {
	c, n, r, u, z, a, d := &Client{}, &NoOnce{}, &Reset{}, &Unlocked{}, &Zeroed{}, &After{}, &Deferred{}
	for range 2 {
		go c.Connect(true)
		go n.Connect(context.Background(), true)
		go r.Connect(true)
		go r.Clear()
		go u.Connect(true)
		go z.Connect(true)
		go z.Clear()
		go a.Connect(true)
		go d.Connect(true)
	}
}

type Client struct {
	mu      sync.Mutex
	called  bool
	packets chan int
}

func (c *Client) Connect(fail bool) error {
	c.mu.Lock()
	if c.called {
		c.mu.Unlock()
		return errors.New("connect must only be called once")
	}
	c.called = true
	c.mu.Unlock()
	done := make(chan struct{})
	cleanup := func() {
		close(c.packets)
		close(done)
	}
	c.packets = make(chan int, 1)
	if fail {
		cleanup()
		return errors.New("failed")
	}
	if c.packets == nil {
		close(c.packets)
		return errors.New("no packets")
	}
	go c.incoming(done)
	return nil
}

func (c *Client) incoming(done chan struct{}) {
	defer close(done)
	defer close(c.packets)
	c.packets <- 1
}

// NoOnce's Connect runs any number of times per client.
type NoOnce struct {
	packets chan int
}

func (c *NoOnce) Connect(ctx context.Context, fail bool) error {
	done := make(chan struct{})
	cleanup := func() {
		close(c.packets)
		close(done)
	}
	c.packets = make(chan int, 1)
	if fail {
		cleanup()
		return errors.New("failed")
	}
	context.AfterFunc(ctx, func() { c.shutdown(done) })
	go c.incoming()
	return nil
}

// shutdown closes the done channel of the Connect that registered it.
func (c *NoOnce) shutdown(done chan<- struct{}) {
	close(done)
}

func (c *NoOnce) incoming() {
	c.packets <- 1 // want `send on closed channel: c.packets may be closed concurrently by func literal in \(\*NoOnce\).Connect`
}

// Reset's flag is cleared again.
type Reset struct {
	mu      sync.Mutex
	called  bool
	packets chan int
}

func (c *Reset) Connect(fail bool) error {
	c.mu.Lock()
	if c.called {
		c.mu.Unlock()
		return errors.New("once")
	}
	c.called = true
	c.mu.Unlock()
	c.packets = make(chan int, 1)
	if fail {
		close(c.packets) // want `close of closed channel: c.packets may also be closed by \(\*Reset\).Connect`
		return errors.New("failed")
	}
	go c.incoming()
	return nil
}

func (c *Reset) Clear() {
	c.mu.Lock()
	c.called = false
	c.mu.Unlock()
}

func (c *Reset) incoming() {
	c.packets <- 1 // want `send on closed channel: c.packets may be closed concurrently by \(\*Reset\).Connect`
}

// Unlocked's flag is tested and set without a mutex: two calls may both
// find it clear.
type Unlocked struct {
	called  bool
	packets chan int
}

func (c *Unlocked) Connect(fail bool) error {
	if c.called {
		return errors.New("once")
	}
	c.called = true
	c.packets = make(chan int, 1)
	if fail {
		close(c.packets) // want `close of closed channel: c.packets may also be closed by \(\*Unlocked\).Connect`
		return errors.New("failed")
	}
	go c.incoming()
	return nil
}

func (c *Unlocked) incoming() {
	c.packets <- 1 // want `send on closed channel: c.packets may be closed concurrently by \(\*Unlocked\).Connect`
}

// Zeroed's Clear stores a whole new value over the client, flag and all.
type Zeroed struct {
	mu      sync.Mutex
	called  bool
	packets chan int
}

func (c *Zeroed) Connect(fail bool) error {
	c.mu.Lock()
	if c.called {
		c.mu.Unlock()
		return errors.New("once")
	}
	c.called = true
	c.mu.Unlock()
	c.packets = make(chan int, 1)
	if fail {
		close(c.packets) // want `close of closed channel: c.packets may also be closed by \(\*Zeroed\).Connect`
		return errors.New("failed")
	}
	go c.incoming()
	return nil
}

func (c *Zeroed) Clear() {
	*c = Zeroed{}
}

func (c *Zeroed) incoming() {
	c.packets <- 1 // want `send on closed channel: c.packets may be closed concurrently by \(\*Zeroed\).Connect`
}

// After's close may follow the goroutine's start in the one call.
type After struct {
	mu      sync.Mutex
	called  bool
	packets chan int
}

func (c *After) Connect(fail bool) error {
	c.mu.Lock()
	if c.called {
		c.mu.Unlock()
		return errors.New("once")
	}
	c.called = true
	c.mu.Unlock()
	c.packets = make(chan int, 1)
	go c.incoming()
	if fail {
		close(c.packets)
		return errors.New("failed")
	}
	return nil
}

func (c *After) incoming() {
	c.packets <- 1 // want `send on closed channel: c.packets may be closed concurrently by \(\*After\).Connect`
}

// Deferred's cleanup runs when Connect returns.
type Deferred struct {
	mu      sync.Mutex
	called  bool
	failed  bool
	packets chan int
}

func (c *Deferred) Connect(fail bool) error {
	c.mu.Lock()
	if c.called {
		c.mu.Unlock()
		return errors.New("once")
	}
	c.called = true
	c.mu.Unlock()
	c.packets = make(chan int, 1)
	cleanup := func() {
		if fail {
			close(c.packets)
		}
	}
	defer cleanup()
	go c.incoming()
	return nil
}

func (c *Deferred) incoming() {
	c.packets <- 1 // want `send on closed channel: c.packets may be closed concurrently by func literal in \(\*Deferred\).Connect`
}

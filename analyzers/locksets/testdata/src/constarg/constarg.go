// Package constarg: a helper that takes its connection's lock only when
// its boolean parameter says so (netpoll's closeCallback(needLock bool):
// `if needLock && !c.lock(processing) { return }`), called with true where
// nothing is held and with false where the caller holds the lock already.
// Each call's parameter is a constant, so the helper holds the lock past
// the test on every call: on true because it took it, on false because
// its caller did. Beside it, near misses that hold nothing there: a
// helper one of whose callers passes a value that is not constant from
// where no lock is held, and one called with false from where no lock is
// held.
package constarg

import "sync"

func mark() {}

type Conn struct {
	mu     sync.Mutex
	closed bool
}

func (c *Conn) closeCallback(needLock bool) {
	if needLock && !c.mu.TryLock() {
		return
	}
	mark() // want `^held: Conn.mu\(w\)$`
	c.closed = true
}

// Close takes the lock through the helper.
func (c *Conn) Close() { c.closeCallback(true) }

// OnEvent holds the lock and has the helper run under it.
func (c *Conn) OnEvent() {
	c.mu.Lock()
	c.closeCallback(false)
	c.mu.Unlock()
}

type Loose struct {
	mu     sync.Mutex
	closed bool
}

func (c *Loose) closeCallback(needLock bool) {
	if needLock && !c.mu.TryLock() {
		return
	}
	mark() // want `^held: none$`
	c.closed = true
}

func (c *Loose) Close() { c.closeCallback(true) }

func (c *Loose) OnEvent() {
	c.mu.Lock()
	c.closeCallback(false)
	c.mu.Unlock()
}

// Maybe passes what its caller says, with no lock held.
func (c *Loose) Maybe(needLock bool) { c.closeCallback(needLock) }

type Unheld struct {
	mu     sync.Mutex
	closed bool
}

func (c *Unheld) closeCallback(needLock bool) {
	if needLock && !c.mu.TryLock() {
		return
	}
	mark() // want `^held: none$`
	c.closed = true
}

func (c *Unheld) Close() { c.closeCallback(true) }

// Forget runs the helper without the lock, and without holding it.
func (c *Unheld) Forget() { c.closeCallback(false) }

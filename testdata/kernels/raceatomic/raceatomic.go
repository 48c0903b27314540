// Package raceatomic is the data race kernel of mixed atomic and plain
// accesses of one word (issue 10, item 2): a closed flag that Close sets
// with sync/atomic and Closed reads plainly. The Go memory model makes the
// pair a race (go test -race reports it); so must precog test. The
// atomic accesses of the flag among themselves are not races. trylock.go:
// the accesses that an atomic try-lock of a pointer guards are ordered by
// it, and one made after the lock is given back races.
package raceatomic

import "sync/atomic"

// Conn is a connection that can be closed once.
type Conn struct {
	closed int32
}

// Close marks c closed; it reports whether this call closed it.
func (c *Conn) Close() bool {
	return atomic.CompareAndSwapInt32(&c.closed, 0, 1)
}

// Closed reports whether c is closed, with a plain read (the bug: should
// be atomic.LoadInt32).
func (c *Conn) Closed() bool {
	return c.closed == 1
}

// Package atomiccfg is MySQL-2 (ConMem Tables VII-IX, Con-NULL) through an
// atomic.Pointer: a client loads its configuration, checks it for nil,
// loads it again and dereferences it, while Drop stores nil. Every access
// is atomic, so there is no data race; the check and the use are two
// loads, and the nil store can come between them.
//
// Crashing interleaving:
//
//	Addr's goroutine                      Drop's goroutine
//	c.cfg.Load() != nil   (true)
//	                                      c.cfg.Store(nil)
//	c.cfg.Load().Addr
//	panic: runtime error: invalid memory address or nil pointer dereference
//
// The test's normal schedule hides it: Drop runs 20 milliseconds after
// the reader started, which has long returned.
package atomiccfg

import "sync/atomic"

// Config is a client's configuration.
type Config struct{ Addr string }

// Client holds its configuration behind an atomic.Pointer.
type Client struct{ cfg atomic.Pointer[Config] }

// Drop forgets the configuration.
func (c *Client) Drop() { c.cfg.Store(nil) }

// Addr is WRONG: it loads the pointer twice, once to check it and once
// to use it.
func (c *Client) Addr() string {
	if c.cfg.Load() != nil {
		return c.cfg.Load().Addr // want `may be nil when`
	}
	return ""
}

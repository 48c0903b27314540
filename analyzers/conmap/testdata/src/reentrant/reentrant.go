// Package reentrant: a server whose commands do their work in callbacks
// that withTx runs under the server's lock, except on the path a flag of
// the connection's context selects, where its caller holds the lock
// already (a script's nested call, as alicebob/miniredis's withTx and
// blocking). That the flag is set only under the lock is not something
// the analysis can follow, so the callbacks' reports rest on the skipping
// path running unlocked: low confidence, silent by default (reentrantall
// shows them). So does a callback's write against a helper that another
// goroutine enters only under the lock, though the helper's entry holds
// nothing where a constructor calls it before the server is shared (as
// miniredis's commands against del, which its unlocked Copy calls too). A
// path that runs the call after an Unlock, one that calls another
// function, and one where a TryLock failed stay reported.
package reentrant

import "sync"

type Ctx struct{ nested, again, wait bool }

type Server struct {
	sync.Mutex
	keys, list, after, other, tried, dels map[string]int
}

// NewServer deletes before the server is shared, without the lock: del's
// entry holds nothing.
func NewServer() *Server {
	s := &Server{dels: make(map[string]int)}
	s.del("init")
	return s
}

func (s *Server) del(k string) { delete(s.dels, k) }

// Delete enters del with the lock held.
func (s *Server) Delete(k string) {
	s.Lock()
	defer s.Unlock()
	s.del(k)
}

func withTx(s *Server, c *Ctx, cb func(c *Ctx)) {
	if c.nested {
		cb(c) // called from a script, which holds s already
		return
	}
	s.Lock()
	cb(c)
	s.Unlock()
}

func blocking(s *Server, c *Ctx, cb func(c *Ctx) bool) {
	if !c.nested {
		s.Lock()
		defer s.Unlock()
	}
	for !cb(c) {
	}
}

// withTxAfter calls cb again after its Unlock: that call runs unlocked.
func withTxAfter(s *Server, c *Ctx, cb func(c *Ctx)) {
	s.Lock()
	cb(c)
	s.Unlock()
	if c.again {
		cb(c)
	}
}

// withOther skips the lock to call another function.
func withOther(s *Server, c *Ctx, cb, fast func(c *Ctx)) {
	if c.nested {
		fast(c)
		return
	}
	s.Lock()
	cb(c)
	s.Unlock()
}

// withTry locks around cb, or tries to, and calls it unlocked where its
// TryLock failed.
func withTry(s *Server, c *Ctx, cb func(c *Ctx)) {
	if c.wait {
		s.Lock()
		cb(c)
		s.Unlock()
		return
	}
	if s.TryLock() {
		cb(c)
		s.Unlock()
		return
	}
	cb(c)
}

func (s *Server) Set(c *Ctx, k string) {
	withTx(s, c, func(c *Ctx) { s.keys[k] = 1 })
	withTx(s, c, func(c *Ctx) { s.dels[k] = 1 })
	blocking(s, c, func(c *Ctx) bool { s.list[k]++; return true })
	withTxAfter(s, c, func(c *Ctx) {
		s.after[k] = 1 // want `concurrent map read and map write: s.after is written here and read by \(\*Server\).Get with no common lock`
	})
	withOther(s, c, func(c *Ctx) {}, func(c *Ctx) {
		s.other[k] = 1 // want `concurrent map read and map write: s.other is written here and read by \(\*Server\).Get with no common lock`
	})
	withTry(s, c, func(c *Ctx) {
		s.tried[k] = 1 // want `concurrent map read and map write: s.tried is written here and read by \(\*Server\).Get with no common lock`
	})
}

// Get reads under the lock.
func (s *Server) Get(k string) int {
	s.Lock()
	defer s.Unlock()
	return s.keys[k] + s.list[k] + s.after[k] + s.other[k] + s.tried[k]
}

func (s *Server) Serve(c *Ctx) {
	go s.Set(c, "a")
	go s.Delete("a")
	s.Get("a")
}

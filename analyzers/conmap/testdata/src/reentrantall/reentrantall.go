// Package reentrantall is reentrant's withTx and blocking, checked under
// -all: the diagnostics are shown, with the assumption they rest on (both
// helpers skip the server's lock, so both are named).
package reentrantall

import "sync"

type Ctx struct{ nested bool }

type Server struct {
	sync.Mutex
	keys, list map[string]int
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

func (s *Server) Set(c *Ctx, k string) {
	withTx(s, c, func(c *Ctx) {
		s.keys[k] = 1 // want `s.keys is written here .*\(low confidence: it assumes that where withTx or blocking skips the lock it takes around the same call on another path, the call runs unlocked \(not re-entered under the caller's lock\)\)`
	})
	blocking(s, c, func(c *Ctx) bool {
		s.list[k]++ // want `s.list is written here .*\(low confidence: it assumes that where withTx or blocking skips the lock`
		return true
	})
}

func (s *Server) Get(k string) int {
	s.Lock()
	defer s.Unlock()
	return s.keys[k] + s.list[k]
}

func (s *Server) Serve(c *Ctx) {
	go s.Set(c, "a")
	s.Get("a")
}

// Package rwscript is Mozilla-1 (OSCS, oscs.txt Fig. 3c; the kernel
// mozilla1) with a sync.RWMutex: Load sets the current script under the
// write lock, tokenizes it unlocked, and compiles it in a second critical
// section under the read lock; Reset stores nil under the write lock. No
// data race: the crash needs Reset's section between Load's two.
//
// Crashing interleaving:
//
//	Load's goroutine                      Reset's goroutine
//	Lock;  e.cur = s;  Unlock
//	                                      Lock;  e.cur = nil;  Unlock
//	RLock; len(e.cur.src)
//	panic: runtime error: invalid memory address or nil pointer dereference
//
// The test's normal schedule hides it: Reset comes 20 ms after Load.
package rwscript

import (
	"strings"
	"sync"
)

// Script is a script to compile.
type Script struct{ src string }

// Engine is the script engine shared by a page's goroutines.
type Engine struct {
	mu  sync.RWMutex
	cur *Script
}

// Load makes s the current script and compiles it.
func (e *Engine) Load(s *Script) int {
	e.mu.Lock()
	e.cur = s
	e.mu.Unlock()
	n := len(strings.Fields(s.src))
	e.mu.RLock()
	defer e.mu.RUnlock()
	return n + len(e.cur.src)
}

// Reset forgets the current script.
func (e *Engine) Reset() {
	e.mu.Lock()
	e.cur = nil
	e.mu.Unlock()
}

package rwscript

import "strings"

// The RIGHT version: the current script is set and compiled in one
// critical section, which reads back its own store whichever order it
// and Reset's section run in. detect/oscs does not pair that read with
// Reset's nil store. It still reports the two sections' stores of e.cur
// (OSCS's lost update: blind writes of different values, whose order
// decides what e.cur is left with); the expect file says so.

// LoadLocked makes s the current script and compiles it under one lock.
func (e *Engine) LoadLocked(s *Script) int {
	n := len(strings.Fields(s.src))
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cur = s
	return n + len(e.cur.src)
}

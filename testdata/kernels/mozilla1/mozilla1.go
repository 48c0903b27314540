// Package mozilla1 is the Mozilla-1 kernel (OSCS, oscs.txt Fig. 3c and
// Table 2 Mozilla1-A; AVIO's Mozilla bug; execution-suppression.txt
// mozilla-2): a non-race atomicity violation.
//
// The script runtime keeps the script being compiled in rt.currentScript.
// Compile sets it in one critical section and compiles it in a later one of
// the same lock; Reset, on another goroutine, clears it in its own critical
// section. Every access holds rt.mu, so there is no data race, but the two
// critical sections of Compile are not one: the result depends on the order
// in which the three critical sections run.
//
// Crashing interleaving (1.3, 2.2, 1.9 in the paper):
//
//	compile goroutine                    reset goroutine
//	S1 rt.currentScript = s
//	                                     S2 rt.currentScript = nil
//	S3 rt.currentScript.compile()
//	panic: runtime error: invalid memory address or nil pointer dereference
//
// The test's normal schedule hides the bug: Reset runs when the page is
// torn down, milliseconds after the compile has finished.
package mozilla1

import "sync"

// Script is a script to compile.
type Script struct {
	source string
}

func (s *Script) compile() int { return len(s.source) }

// Runtime is the script runtime shared by the goroutines of a page.
type Runtime struct {
	mu            sync.Mutex
	currentScript *Script
	compiled      int
}

// Compile compiles s as the runtime's current script (js_CompileScript).
func (rt *Runtime) Compile(s *Script) int {
	rt.mu.Lock()
	rt.currentScript = s // S1
	rt.mu.Unlock()

	prepare(s)

	rt.mu.Lock()
	n := rt.currentScript.compile() // S3
	rt.compiled++
	rt.mu.Unlock()
	return n
}

// Reset forgets the current script (js_DestroyContext).
func (rt *Runtime) Reset() {
	rt.mu.Lock()
	rt.currentScript = nil // S2
	rt.mu.Unlock()
}

// prepare stands for the scanning the compiler does outside the lock.
func prepare(s *Script) int {
	n := 0
	for _, c := range s.source {
		if c == ' ' {
			n++
		}
	}
	return n
}

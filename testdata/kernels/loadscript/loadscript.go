// Package loadscript is the Unicorn LoadScript kernel (unicorn.txt Table
// III, extracted from Mozilla's script loader): a single-variable atomicity
// violation, pattern P5 of Table I, W1(x) W2(x) R1(x), "a local read
// expects to get the result of a local write but does not".
//
// LoadScript makes its script the loader's current one (S1), compiles it,
// and then reads the current script back to evaluate it (S3), expecting
// its own. Cancel, on another goroutine, replaces the current script with
// an empty placeholder (S2). Every access to l.current is locked, so go test
// -race has nothing to say: the load's write and its read are two critical
// sections, and Cancel's can come between them.
//
// Failing interleaving:
//
//	load goroutine                   cancel goroutine
//	S1 l.current = s
//	   compile(s)
//	                                 S2 l.current = placeholder
//	S3 if l.current != s: the script evaluated is not the one loaded
//
// In the usual schedule the load finishes within microseconds and Cancel
// comes later (W1 R1 W2, or W2 W1 R1 when Cancel is early: pairs that
// passing runs have too); a delay inside the load (while compiling) lets
// S2 fall between S1 and S3.
package loadscript

import (
	"errors"
	"sync"
)

// Script is one script element.
type Script struct {
	src      string
	compiled bool
}

// Loader is a document's script loader.
type Loader struct {
	mu        sync.Mutex
	current   *Script // the script being loaded and evaluated
	evaluated []string
}

var placeholder = &Script{src: "/* cancelled */"}

// compile compiles s.
func compile(s *Script) {
	s.compiled = true
}

// LoadScript loads, compiles and evaluates s.
func (l *Loader) LoadScript(s *Script) error {
	l.mu.Lock()
	l.current = s // S1
	l.mu.Unlock()
	compile(s)
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.current // S3
	if cur != s {
		return errors.New("evaluated another script than the one loaded")
	}
	l.evaluated = append(l.evaluated, cur.src)
	return nil
}

// Cancel drops the loader's current script.
func (l *Loader) Cancel() {
	l.mu.Lock()
	l.current = placeholder // S2
	l.mu.Unlock()
}

// Evaluated returns the sources evaluated so far.
func (l *Loader) Evaluated() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.evaluated...)
}

// Package jsstring is the Unicorn JsString kernel (unicorn.txt Table III,
// extracted from Mozilla's JavaScript engine): a multi-variable atomicity
// violation, pattern P12 of Table I, W1(x) R2(x) R2(y) W1(y), "observed
// reads of x and y are inconsistent".
//
// A String keeps its length and its characters in two fields, read and
// written under the string's lock (so go test -race has nothing to say).
// Concat grows the string in place through setters that each lock the
// string: it sets the new length (S1), clears the cached flags, and only
// then installs the new characters (S4). Chars, on another goroutine, reads
// the length (S2) and the characters (S3) in one critical section and
// checks that they agree.
//
// Failing interleaving (x is s.length, y is s.chars):
//
//	concat goroutine                 reader goroutine
//	S1 s.length = len(next)
//	   s.flags = 0
//	                                 S2 n := s.length
//	                                 S3 c := s.chars   (n > len(c))
//	S4 s.chars = next
//
// In the usual schedule the concatenation takes microseconds and the read
// comes later (or earlier, when the reader is early): the pairs W1(x)
// R2(x) and R2(y) W1(y) each occur in passing runs, only their
// combination fails.
package jsstring

import (
	"fmt"
	"sync"
)

// String is a JSString: a length and its characters.
type String struct {
	mu     sync.Mutex
	length int
	flags  int
	chars  []byte
}

// NewString returns a string holding s.
func NewString(s string) *String {
	return &String{length: len(s), chars: []byte(s)}
}

// Concat appends t to s in place (js_ConcatStrings on a mutable string).
func (s *String) Concat(t string) {
	old := s.getChars()
	next := append(append(make([]byte, 0, len(old)+len(t)), old...), t...)
	s.setLength(len(next))
	s.setFlags(0)
	s.setChars(next)
}

func (s *String) setLength(n int) {
	s.mu.Lock()
	s.length = n // S1
	s.mu.Unlock()
}

func (s *String) setFlags(f int) {
	s.mu.Lock()
	s.flags = f
	s.mu.Unlock()
}

func (s *String) setChars(c []byte) {
	s.mu.Lock()
	s.chars = c // S4
	s.mu.Unlock()
}

func (s *String) getChars() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chars
}

// Chars returns the string's characters (js_GetStringChars), checking the
// length against them.
func (s *String) Chars() (string, error) {
	s.mu.Lock()
	n := s.length // S2
	c := s.chars  // S3
	s.mu.Unlock()
	if n != len(c) {
		return "", fmt.Errorf("string of length %d has %d characters", n, len(c))
	}
	return string(c), nil
}

// Package entry: a function's entry lock set is what every one of its
// call sites in the package holds; exported functions, goroutine entries
// and functions without callers start with none.
package entry

import (
	"sort"
	"sync"
)

func mark() {}

type S struct {
	mu sync.Mutex
	xs []int
}

// lockedOnly is called only with s.mu held.
func (s *S) lockedOnly() {
	mark() // want `^held: S.mu\(w\)$`
}

// sometimes is called with and without s.mu held.
func (s *S) sometimes() {
	mark() // want `^held: none$`
}

// Exported is also called with s.mu held, but callers outside the package
// may hold nothing.
func (s *S) Exported() {
	mark() // want `^held: none$`
}

func (s *S) worker() {
	mark() // want `^held: none$`
}

func (s *S) Run() {
	s.mu.Lock()
	s.lockedOnly()
	s.sometimes()
	s.Exported()
	go s.worker()
	sort.Slice(s.xs, func(i, j int) bool {
		mark() // want `^held: S.mu\(w\)$`
		return s.xs[i] < s.xs[j]
	})
	func() {
		mark() // want `^held: S.mu\(w\)$`
	}()
	s.mu.Unlock()
	s.sometimes()
}

func (s *S) Twice() {
	s.mu.Lock()
	s.lockedOnly()
	s.mu.Unlock()
}

// deep is called only from lockedCaller, itself called with s.mu held.
func (s *S) deep() {
	mark() // want `^held: S.mu\(w\)$`
}

func (s *S) lockedCaller() {
	s.deep()
}

func (s *S) Deep() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lockedCaller()
}

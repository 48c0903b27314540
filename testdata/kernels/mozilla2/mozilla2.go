// Package mozilla2 is the Mozilla-2-AM kernel (OSCS, oscs.txt Table 2
// Mozilla2-AM): a non-race multi-variable atomicity violation.
//
// An atom cache keeps its table in c.table and says whether it holds
// anything in c.empty; c.empty false promises a table. Init builds the
// table in one critical section and clears the empty flag in a later one;
// Clear, on another goroutine, drops the table and sets the flag in one
// critical section of its own. Every access holds c.mu, so there is no data
// race, but Init's two steps are not one critical section.
//
// Crashing interleaving:
//
//	init goroutine                       clear goroutine
//	S1 c.table = table
//	                                     S3 c.table = nil
//	                                     S4 c.empty = true
//	S2 c.empty = false
//	c.empty is false and c.table is nil: every lookup misses, and the
//	next store panics with assignment to entry in nil map
//
// The test's normal schedule hides the bug: Clear runs 2 ms after Init has
// finished, leaving an empty, consistent cache.
package mozilla2

import "sync"

// Cache is the atom cache (jsatom.c's state->table and its empty flag).
type Cache struct {
	mu    sync.Mutex
	table map[string]int
	empty bool
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{empty: true} }

// Init fills the cache with the predefined atoms.
func (c *Cache) Init(atoms []string) {
	table := make(map[string]int, len(atoms))
	for i, a := range atoms {
		table[a] = i
	}
	c.mu.Lock()
	c.table = table // S1
	c.mu.Unlock()

	publish(atoms)

	c.mu.Lock()
	c.empty = false // S2
	c.mu.Unlock()
}

// publish stands for the work Init does between its two critical sections.
func publish(atoms []string) int {
	n := 0
	for _, a := range atoms {
		n += len(a)
	}
	return n
}

// Clear drops every atom (js_FinishAtomState).
func (c *Cache) Clear() {
	c.mu.Lock()
	c.table = nil  // S3
	c.empty = true // S4
	c.mu.Unlock()
}

// Consistent reports whether the empty flag agrees with the table: a
// non-empty cache has a table.
func (c *Cache) Consistent() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.empty || c.table != nil
}

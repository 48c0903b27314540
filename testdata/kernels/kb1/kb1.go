// Package kb1 is the KB1-A kernel (OSCS, oscs.txt Table 2, a MySQL bug as a
// two-goroutine kernel): a non-race atomicity violation.
//
// A query cache counts the queries it holds in c.queries and computes the
// average result size from it. Insert sets the count in one critical
// section and divides by it in a later one; Flush, on another goroutine,
// sets the count back to zero in its own critical section. Every access
// holds c.mu, so there is no data race.
//
// Crashing interleaving:
//
//	insert goroutine                     flush goroutine
//	S1 c.queries = n
//	                                     S2 c.queries = 0
//	S3 c.bytes / c.queries
//	panic: runtime error: integer divide by zero
//
// The test's normal schedule hides the bug: the flush comes 2 ms after the
// insert has finished.
package kb1

import "sync"

// QueryCache is MySQL's query cache, reduced to its counters.
type QueryCache struct {
	mu      sync.Mutex
	queries int
	bytes   int
}

// Insert adds n queries of size bytes and returns the average size.
func (c *QueryCache) Insert(n, size int) int {
	c.mu.Lock()
	c.queries = n // S1
	c.mu.Unlock()

	total := n * size

	c.mu.Lock()
	c.bytes = total
	avg := c.bytes / c.queries // S3
	c.mu.Unlock()
	return avg
}

// Flush empties the cache.
func (c *QueryCache) Flush() {
	c.mu.Lock()
	c.queries = 0 // S2
	c.mu.Unlock()
}

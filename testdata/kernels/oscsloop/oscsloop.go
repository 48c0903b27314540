// Package oscsloop is KB1 (oscs.txt Table 2, KB1-A) as the paper's
// benchmarks run their critical sections: over and over, for the hardware
// model (hwmodel, precog hwreplay).
//
// A query cache's count of queries is set by one goroutine's Set and
// cleared by another's Reset, each in a critical section that also updates
// the cache's eight per-shard statistics. Every access holds c.mu, so
// there is no data race, but the value the count is left with depends on
// the order of the critical sections: OSCS flags the pair of writes. The
// statistics are read-modify-writes on both sides, which commute and are
// not flagged.
//
// For OSCS-HW (oscs.txt §4): the first critical section runs on a line no
// other core has touched, which the hardware does not record; from the
// second round on the line is tagged shared and the hardware records and
// checks the count's accesses, and catches the pair with the default
// 256-entry AHB. With an AHB of 4 entries, the eight statistics that each
// critical section updates after the count evict the count's entry before
// the other goroutine's section looks it up, and the hardware loses it.
package oscsloop

import "sync"

// Shards is the number of per-shard statistics.
const Shards = 8

// QueryCache is a query cache reduced to its counters.
type QueryCache struct {
	mu      sync.Mutex
	queries int
	stats   [Shards]int
}

// Set sets the count of queries and counts the operation in every shard.
func (c *QueryCache) Set(n int) {
	c.mu.Lock()
	c.queries = n // S1
	for k := range c.stats {
		c.stats[k]++
	}
	c.mu.Unlock()
}

// Reset clears the count and counts the operation in every shard.
func (c *QueryCache) Reset() {
	c.mu.Lock()
	c.queries = 0 // S2
	for k := range c.stats {
		c.stats[k]++
	}
	c.mu.Unlock()
}

// Ops returns the operations counted in shard k.
func (c *QueryCache) Ops(k int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats[k]
}

// Package condlock: a lock and an unlock guarded by the same condition
// (jellydator/ttlcache's getWithOpts) are taken on the same paths, so
// the function neither holds nor releases the mutex; a caller that
// passes false keeps its own lock across the call. Its every caller
// passes a constant (true where nothing is held, false under the lock),
// so between the two the lock is held on both paths.
package condlock

import "sync"

func mark() {}

type C struct {
	mu sync.Mutex
	m  map[int]int
}

func (c *C) get(k int, lock bool) int {
	if lock {
		c.mu.Lock()
	}
	v := c.m[k]
	mark() // want `^held: C.mu\(w\)$`
	if lock {
		c.mu.Unlock()
	}
	if lock && v == 0 {
		mark() // want `^held: none$`
	}
	return v
}

func (c *C) Get(k int) int { return c.get(k, true) }

func (c *C) GetOrSet(k int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.get(k, false) == 0 {
		mark() // want `^held: C.mu\(w\)$`
		c.m[k] = 1
	}
}

// Near misses: the unlock is guarded by another condition, or by the
// same variable after it changed; both release the caller's lock.

func (c *C) other(k int, lock, unlock bool) int {
	if lock {
		c.mu.Lock()
	}
	v := c.m[k]
	if unlock {
		c.mu.Unlock()
	}
	return v
}

func (c *C) reassigned(k int, lock bool) int {
	if lock {
		c.mu.Lock()
	}
	v := c.m[k]
	lock = v > 0
	if lock {
		c.mu.Unlock()
	}
	return v
}

func (c *C) Other(k int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.other(k, false, true)
	mark() // want `^held: none$`
}

func (c *C) Reassigned(k int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reassigned(k, false)
	mark() // want `^held: none$`
}

// In a loop, a condition computed in each turn is forgotten where it is
// computed: an even turn unlocks, so an odd turn after it runs without
// the lock.
func (c *C) Loop(ks []int) {
	c.mu.Lock()
	for _, k := range ks {
		odd := k%2 == 1
		if odd {
			mark() // want `^held: none$`
		}
		if !odd {
			c.mu.Unlock()
		}
	}
}

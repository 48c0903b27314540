// Package testlocks: a cache whose helper evict always runs under c.mu in
// the package, and which tests also call without the lock. A test that
// calls it alone does not make it unlocked on another test's goroutines:
// silent. A test that calls it while the cache's janitor runs rests on the
// test's own timing: low confidence, shown only under -all. A cache whose
// own flusher goroutine calls its helper without the lock is reported.
package testlocks

import "sync"

type Cache struct {
	mu    sync.Mutex
	items map[int]int
}

func New() *Cache {
	c := &Cache{items: map[int]int{}}
	go c.janitor()
	return c
}

func (c *Cache) janitor() {
	for i := 0; ; i++ {
		c.mu.Lock()
		c.evict(i)
		c.mu.Unlock()
	}
}

// evict runs under c.mu wherever the package calls it.
func (c *Cache) evict(k int) { delete(c.items, k) }

func (c *Cache) Remove(k int) {
	c.mu.Lock()
	c.evict(k)
	c.mu.Unlock()
}

func (c *Cache) Put(k, v int) {
	c.mu.Lock()
	c.items[k] = v
	c.mu.Unlock()
}

// Leaky's flusher calls its helper without the lock.
type Leaky struct {
	mu    sync.Mutex
	items map[int]int
}

func NewLeaky() *Leaky {
	c := &Leaky{items: map[int]int{}}
	go c.janitor()
	go c.flusher()
	return c
}

func (c *Leaky) janitor() {
	for i := 0; ; i++ {
		c.mu.Lock()
		c.evict(i)
		c.mu.Unlock()
	}
}

func (c *Leaky) evict(k int) { delete(c.items, k) } // want `concurrent map writes: c.items is written here`

func (c *Leaky) flusher() { c.evict(0) }

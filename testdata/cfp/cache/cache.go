// Package cache is a multi-test package in the shape CFP-guided detection
// is for: five tests exercise Get and Put on several goroutines and cover
// the same pairs, and one test, TestCloseWhileWriting, is the only one to
// run Close concurrently with Put, which carries the bug: Put sends the
// evicted key on a channel that Close closes (send on closed channel).
// Guided detection must select that test, with Put and Close among its
// functions, and still find the bug.
package cache

import "sync"

// Cache is a string cache of bounded size that reports evictions.
type Cache struct {
	mu        sync.Mutex
	items     map[string]string
	order     []string
	capacity  int
	evictions chan string // evicted keys, for whoever listens; closed by Close
}

// New returns a cache of the given capacity.
func New(capacity int) *Cache {
	return &Cache{items: make(map[string]string), capacity: capacity, evictions: make(chan string, 1024)}
}

// Get returns the value of key.
func (c *Cache) Get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.items[key]
	return v, ok
}

// Put stores a value and reports the key it evicted, if any.
func (c *Cache) Put(key, value string) {
	c.mu.Lock()
	if _, ok := c.items[key]; !ok {
		c.order = append(c.order, key)
	}
	c.items[key] = value
	evicted := ""
	if len(c.order) > c.capacity {
		evicted = c.order[0]
		c.order = c.order[1:]
		delete(c.items, evicted)
	}
	c.mu.Unlock()
	if evicted != "" {
		c.evictions <- evicted // after Close: panic
	}
}

// Len returns the number of entries.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Close stops reporting evictions.
func (c *Cache) Close() {
	close(c.evictions)
}

// Package rwmodes: an RWMutex is held in read mode after RLock and in write
// mode after Lock; where a write path and a read path meet, it is held for
// reading.
package rwmodes

import "sync"

func mark() {}

type cache struct {
	rw sync.RWMutex
	m  map[string]int
}

func (c *cache) Get(k string) int {
	c.rw.RLock()
	mark() // want `^held: cache.rw\(r\)$`
	v := c.m[k]
	c.rw.RUnlock()
	mark() // want `^held: none$`
	return v
}

func (c *cache) Put(k string, v int) {
	c.rw.Lock()
	mark() // want `^held: cache.rw\(w\)$`
	c.m[k] = v
	c.rw.Unlock()
}

func (c *cache) Either(write bool) {
	if write {
		c.rw.Lock()
	} else {
		c.rw.RLock()
	}
	mark() // want `^held: cache.rw\(r\)$`
}

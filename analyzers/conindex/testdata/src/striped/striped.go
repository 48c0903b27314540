// Package striped: a sharded buffer whose shards are guarded by an array
// of mutexes (a striped lock, as a sharded cache's locks[i] beside its
// segments[i]). Every access of a shard's positions holds the shard's
// element of locks: silent. Reset, which resets the positions without the
// lock, is reported against the readers.
package striped

import "sync"

const shards = 4

type ring struct {
	data  []byte
	index int
}

func (r *ring) read(n int) []byte { return r.data[r.index : r.index+n] }

func (r *ring) reset() { r.index = 0 }

func (r *ring) grow(n int) {
	r.data = make([]byte, n)
	r.index = n / 2
}

type Cache struct {
	locks  [shards]sync.Mutex
	rings  [shards]ring
	loose  [shards]ring
	looseL []sync.Mutex
}

func (c *Cache) Read(i, n int) []byte {
	c.locks[i%shards].Lock()
	defer c.locks[i%shards].Unlock()
	return c.rings[i%shards].read(n)
}

func (c *Cache) Clear() {
	for i := range c.rings {
		c.locks[i].Lock()
		c.rings[i].grow(8)
		c.locks[i].Unlock()
	}
}

func (c *Cache) ReadLoose(i, n int) []byte {
	c.looseL[i%shards].Lock()
	b := c.loose[i%shards].data[c.loose[i%shards].index:n] // want `may be out of range: c\.loose\[i % shards\]\.index is written concurrently by \(\*Cache\)\.ResetLoose`
	c.looseL[i%shards].Unlock()
	return b
}

func (c *Cache) ResetLoose() {
	for i := range c.loose {
		c.loose[i].index = 0
	}
}

func Run(c *Cache) {
	go c.Clear()
	go c.ResetLoose()
	c.Read(1, 2)
	c.ReadLoose(1, 2)
}

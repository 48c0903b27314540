// Package boundcallback: a cache whose shards call a removal callback with
// the shard lock held. The callback is a method value (a bound method of
// the cache) stored in each shard, and the shard's eviction hands its own
// method value to a helper that calls it through a parameter. Both run
// with the shard's lock held, so the statistics they update are guarded by
// it, as is the cleanup goroutine's eviction. A shard whose callback is
// also run after the lock is released is reported.
package boundcallback

import "sync"

type Cache struct {
	shards []*shard
}

type shard struct {
	lock     sync.RWMutex
	stats    map[uint64]int
	items    map[uint64][]byte
	onRemove func(key uint64)
}

func New(n int) *Cache {
	c := &Cache{}
	for range n {
		c.shards = append(c.shards, &shard{stats: map[uint64]int{}, items: map[uint64][]byte{}, onRemove: c.removed})
	}
	go func() {
		for _, s := range c.shards {
			s.cleanUp()
		}
	}()
	return c
}

func (c *Cache) shard(key uint64) *shard { return c.shards[key%uint64(len(c.shards))] }

// removed runs as each shard's onRemove, always under the shard's lock.
func (c *Cache) removed(key uint64) {
	s := c.shard(key)
	_ = s.stats[key]
}

func (c *Cache) Set(key uint64, v []byte) {
	s := c.shard(key)
	s.lock.Lock()
	s.stats[key]++
	if len(s.items) > 100 {
		s.evict(s.removeOldest)
	}
	s.items[key] = v
	s.lock.Unlock()
}

func (c *Cache) Delete(key uint64) {
	s := c.shard(key)
	s.lock.Lock()
	delete(s.items, key)
	s.stats[key] = 0
	s.onRemove(key)
	s.lock.Unlock()
}

func (s *shard) evict(remove func() uint64) {
	remove()
}

func (s *shard) removeOldest() uint64 {
	for k := range s.items {
		delete(s.items, k)
		s.onRemove(k)
		return k
	}
	return 0
}

func (s *shard) cleanUp() {
	s.lock.Lock()
	s.evict(s.removeOldest)
	s.lock.Unlock()
}

// Leaky's Delete runs the callback once the lock is released.
type Leaky struct {
	shards []*leakyShard
}

type leakyShard struct {
	lock     sync.Mutex
	stats    map[uint64]int
	items    map[uint64][]byte
	onRemove func(key uint64)
}

func NewLeaky(n int) *Leaky {
	c := &Leaky{}
	for range n {
		c.shards = append(c.shards, &leakyShard{stats: map[uint64]int{}, items: map[uint64][]byte{}, onRemove: c.removed})
	}
	go func() {
		for _, s := range c.shards {
			s.lock.Lock()
			s.stats[0]++ // want `concurrent map read and map write: s.stats is written here`
			s.lock.Unlock()
		}
	}()
	return c
}

func (c *Leaky) removed(key uint64) {
	s := c.shards[key%uint64(len(c.shards))]
	_ = s.stats[key]
}

func (c *Leaky) Delete(key uint64) {
	s := c.shards[key%uint64(len(c.shards))]
	s.lock.Lock()
	delete(s.items, key)
	s.lock.Unlock()
	s.onRemove(key)
}

// Package apache1 is the Apache-1 kernel (ConMem, conmem.txt Tables
// VII-IX; Apache 2.0.46 mod_mem_cache): a Con-Dangling multi-variable
// atomicity violation.
//
// Cached objects are reference counted. open looks an object up under the
// cache lock but takes its reference only after releasing the lock. A purge
// on another goroutine removes the object and drops the cache's reference;
// the last reference to go releases the object, which in Go closes its hit
// log (the channel its logger goroutine drains). The request that looked
// the object up then logs a hit on the released object.
//
// Crashing interleaving:
//
//	request goroutine                purge goroutine
//	obj := c.objects[key] (locked)
//	                                 delete(c.objects, key) (locked)
//	                                 refs 1 -> 0: S1 close(obj.hits)
//	refs 0 -> 1
//	S2 obj.hits <- key
//	panic: send on closed channel
//
// The test's normal schedule hides the bug: the purge comes 2 ms after the
// request, which has long logged its hit and dropped its reference.
package apache1

import "sync"

type cacheObject struct {
	key    string
	refs   int         // guarded by the cache's mu
	hits   chan string // the hit log, closed when the object is released
	logged chan int    // the number of hits, once hits is closed
}

func (o *cacheObject) logger() {
	n := 0
	for range o.hits {
		n++
	}
	o.logged <- n
}

// Cache is mod_mem_cache's cache.
type Cache struct {
	mu      sync.Mutex
	objects map[string]*cacheObject
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{objects: make(map[string]*cacheObject)} }

// Store caches an object under key and returns the channel that gets its
// hit count when it is released.
func (c *Cache) Store(key string) <-chan int {
	obj := &cacheObject{key: key, refs: 1, hits: make(chan string, 8), logged: make(chan int, 1)}
	go obj.logger()
	c.mu.Lock()
	c.objects[key] = obj
	c.mu.Unlock()
	return obj.logged
}

// open is open_entity: the reference is taken after the lock is released.
func (c *Cache) open(key string) *cacheObject {
	c.mu.Lock()
	obj := c.objects[key]
	c.mu.Unlock()
	if obj != nil {
		c.mu.Lock()
		obj.refs++
		c.mu.Unlock()
	}
	return obj
}

// decref is decrement_refcount: the last reference releases the object.
func (c *Cache) decref(obj *cacheObject) {
	c.mu.Lock()
	obj.refs--
	free := obj.refs == 0
	c.mu.Unlock()
	if free {
		close(obj.hits) // S1 // want `close of closed channel`
	}
}

// Serve answers one request from the cache.
func (c *Cache) Serve(key string) bool {
	obj := c.open(key)
	if obj == nil {
		return false
	}
	obj.hits <- key // S2 // want `send on closed channel`
	c.decref(obj)
	return true
}

// Remove is remove_url, run by the purge goroutine.
func (c *Cache) Remove(key string) {
	c.mu.Lock()
	obj := c.objects[key]
	delete(c.objects, key)
	c.mu.Unlock()
	if obj != nil {
		c.decref(obj)
	}
}

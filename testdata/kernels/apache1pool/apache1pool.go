// Package apache1pool is the Apache-1 kernel (ConMem, conmem.txt Tables VII-IX;
// Apache 2.0.46 mod_mem_cache): a Con-Dangling multi-variable atomicity
// violation.
//
// Cached responses are reference counted. open looks an object up under the
// cache lock but takes its reference only after releasing the lock. A purge
// running on another goroutine removes the object and drops the cache's
// reference; if that was the last one, decref releases the object (its body
// is Reset and the object goes back to a sync.Pool for the next response).
// The request that looked it up then writes the released body.
//
// Crashing interleaving:
//
//	request goroutine               purge goroutine
//	obj := c.objects[key] (locked)
//	                                delete(c.objects, key) (locked)
//	                                obj.refs 1 -> 0: obj.body.Reset(), c.pool.Put(obj)
//	obj.refs.Add(1)
//	w.Write(obj.body.Bytes())       serves an empty or foreign body; in C a
//	                                crash on freed memory
//
// Go does not crash here: the symptom is a response with another URL's
// body, or with none. The normal schedule hides the bug: purges are rare
// and the window is two statements wide.
//
// RIGHT version in this file: each request formats its headers into a
// buffer it takes from c.scratch and puts back itself after the last use.
package apache1pool

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

type cacheObject struct {
	key     string
	refs    atomic.Int32
	cleanup atomic.Bool // removed from the cache: release at refs == 0
	body    bytes.Buffer
}

// memCache is mod_mem_cache's cache.
type memCache struct {
	mu      sync.Mutex
	objects map[string]*cacheObject
	pool    sync.Pool // released objects, reused for new responses
	scratch sync.Pool // per-request header buffers
}

func newMemCache() *memCache {
	c := &memCache{objects: make(map[string]*cacheObject)}
	c.pool.New = func() any { return new(cacheObject) }
	c.scratch.New = func() any { return new(bytes.Buffer) }
	return c
}

func (c *memCache) store(key string, body []byte) {
	obj := c.pool.Get().(*cacheObject)
	obj.key = key
	obj.cleanup.Store(false)
	obj.refs.Store(1) // the cache's reference
	obj.body.Write(body)
	c.mu.Lock()
	c.objects[key] = obj
	c.mu.Unlock()
}

// open is open_entity: the reference is taken after the lock is released.
func (c *memCache) open(key string) *cacheObject {
	c.mu.Lock()
	obj := c.objects[key]
	c.mu.Unlock()
	if obj != nil {
		obj.refs.Add(1)
	}
	return obj
}

// decref is decrement_refcount.
func (c *memCache) decref(obj *cacheObject) {
	if obj.refs.Add(-1) == 0 && obj.cleanup.Load() {
		obj.body.Reset()
		c.pool.Put(obj)
	}
}

// remove is remove_url, run by the purge goroutine.
func (c *memCache) remove(key string) {
	c.mu.Lock()
	obj := c.objects[key]
	delete(c.objects, key)
	c.mu.Unlock()
	if obj != nil {
		obj.cleanup.Store(true)
		c.decref(obj)
	}
}

// serve answers one request from the cache.
func (c *memCache) serve(w io.Writer, key string) bool {
	obj := c.open(key)
	if obj == nil {
		return false
	}
	defer c.decref(obj)

	hdr := c.scratch.Get().(*bytes.Buffer)
	hdr.Reset()
	fmt.Fprintf(hdr, "HTTP/1.1 200 OK\r\nX-Cache: HIT %s\r\n\r\n", key)
	w.Write(hdr.Bytes())
	c.scratch.Put(hdr)

	w.Write(obj.body.Bytes()) // want `used after .* releases it`
	return true
}

// Run serves requests on worker goroutines while a purge runs.
func Run(w io.Writer, keys []string, purge []string) {
	c := newMemCache()
	for _, k := range keys {
		c.store(k, []byte("body of "+k))
	}
	var mu sync.Mutex // serializes writes to w
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var resp bytes.Buffer
			c.serve(&resp, k)
			mu.Lock()
			w.Write(resp.Bytes())
			mu.Unlock()
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, k := range purge {
			c.remove(k)
		}
	}()
	wg.Wait()
}

// Package striped: a mutex that is an element of an array or slice (a
// striped lock) is held between its Lock and Unlock, named by the
// elements' location.
package striped

import "sync"

func mark() {}

const n = 4

type cache struct {
	locks    [n]sync.Mutex
	rlocks   []sync.RWMutex
	segments [n]map[string]int
}

func (c *cache) Set(k string, v int) {
	i := len(k) % n
	c.locks[i].Lock()
	mark() // want `^held: cache.locks\[\]\(w\)$`
	c.segments[i][k] = v
	c.locks[i].Unlock()
	mark() // want `^held: none$`
}

func (c *cache) Get(k string) int {
	i := len(k) % n
	c.rlocks[i].RLock()
	defer c.rlocks[i].RUnlock()
	mark() // want `^held: cache.rlocks\[\]\(r\)$`
	return c.segments[i][k]
}

var global [n]sync.Mutex

func Global(i int) {
	global[i%n].Lock()
	mark() // want `^held: global\[\]\(w\)$`
	global[i%n].Unlock()
}

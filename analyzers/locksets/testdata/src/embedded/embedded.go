// Package embedded: the promoted Lock and Unlock of an embedded mutex are
// the mutex's own, named by the embedded field.
package embedded

import "sync"

func mark() {}

type counter struct {
	sync.Mutex
	n int
}

func (c *counter) Inc() {
	c.Lock()
	defer c.Unlock()
	mark() // want `^held: counter.Mutex\(w\)$`
	c.n++
}

type registry struct {
	sync.RWMutex
	names []string
}

func (r *registry) Names() []string {
	r.RLock()
	mark() // want `^held: registry.RWMutex\(r\)$`
	names := r.names
	r.RUnlock()
	mark() // want `^held: none$`
	return names
}

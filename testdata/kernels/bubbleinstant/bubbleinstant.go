// Package bubbleinstant is the positive bubble kernel of issue 15: inside
// a testing/synctest bubble, two goroutines wake at the same virtual time,
// one second after the start; one stores nil to the cache entry and the
// other dereferences it. Virtual time orders only what happens at
// different instants: the clock reached one second for both at once, and
// the runtime may run them in either order. The crash (nil pointer
// dereference in Get) needs the store first; the expiry goroutine yields
// before its store, so the reader normally wins.
package bubbleinstant

import (
	"runtime"
	"time"
)

// Entry is a cached value.
type Entry struct{ Value string }

// Cache holds one entry that expires after a TTL.
type Cache struct {
	entry *Entry
}

// New caches v and starts the goroutine that expires it after ttl.
func New(v string, ttl time.Duration) *Cache {
	c := &Cache{entry: &Entry{Value: v}}
	go func() {
		time.Sleep(ttl)
		for range 100 {
			runtime.Gosched() // the reader normally runs first
		}
		c.entry = nil // S1: at virtual time ttl
	}()
	return c
}

// Get returns the entry's value.
func (c *Cache) Get() string {
	return c.entry.Value // S2 // want `may be nil when`
}

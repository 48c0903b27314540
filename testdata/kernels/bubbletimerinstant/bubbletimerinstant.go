// Package bubbletimerinstant is bubbleinstant with timers (issue 15):
// inside a testing/synctest bubble, a timer (time.NewTimer) of one second
// wakes the goroutine that sets the cache entry to nil, and time.After of
// one second wakes the reader. Both fire at the same virtual time, and the
// runtime may run the two goroutines in either order: the clock orders
// nothing within an instant. The crash (nil pointer dereference in Get)
// needs the store first; the expiry goroutine yields before its store, so
// the reader normally wins.
package bubbletimerinstant

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

// New caches v and starts the goroutine that expires it when a timer of
// ttl fires.
func New(v string, ttl time.Duration) *Cache {
	c := &Cache{entry: &Entry{Value: v}}
	t := time.NewTimer(ttl)
	go func() {
		<-t.C
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

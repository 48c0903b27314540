// Package bubblereal is bubblecache without the synctest bubble (issue 15):
// a cache whose entry a goroutine sets to nil after sleeping the TTL, read
// by the test before the TTL ran out. In real time a sleep orders nothing:
// a reader that is descheduled for longer than the TTL dereferences nil,
// so precog predicts the pair and confirms it by holding the reader until
// the store has run.
package bubblereal

import "time"

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
		c.entry = nil // S1: ttl of real time later
	}()
	return c
}

// Get returns the entry's value; it must be called before the TTL ran out.
func (c *Cache) Get() string {
	return c.entry.Value // S2 // want `may be nil when`
}

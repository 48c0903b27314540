// Package bubblecache is a negative control for testing/synctest (issue
// 15): a cache whose entry expires after one second of virtual time. The
// expiry goroutine sleeps time.Second and then sets the entry to nil; the
// test reads and dereferences the entry at virtual time zero. Inside a
// synctest bubble the clock advances only when every goroutine of the
// bubble is durably blocked, so the expiry cannot run before the read: no
// run of the test can crash. Without the bubble (real time) the same code
// would be a con-null: a sleep orders nothing.
package bubblecache

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
		c.entry = nil // S1: at virtual time ttl
	}()
	return c
}

// Get returns the entry's value; it must be called before the TTL ran out.
func (c *Cache) Get() string {
	// precog vet reports the next line (a known false positive: the static
	// check does not know bubbles); precog test, which sees virtual time,
	// stays silent.
	return c.entry.Value // S2: at virtual time zero // want `may be nil when`
}

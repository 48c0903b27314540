// Package bubbletimer is a negative control for testing/synctest (issue
// 15): two caches whose entries expire on virtual time without time.Sleep,
// one by a timer (time.NewTimer) and one by a context's deadline
// (context.WithTimeout); a goroutine of each waits for the expiry and then
// sets the entry to nil. The test reads both entries at virtual time zero.
// Inside the bubble the timer and the deadline fire only after the clock
// moved to one second, which needs every goroutine of the bubble, the
// reader included, to be durably blocked: the reads come first in every
// run. detect/hb sees it from the clock readings around the receives that
// return when they fire.
package bubbletimer

import (
	"context"
	"time"
)

// Entry is a cached value.
type Entry struct{ Value string }

// Cache holds one entry that expires.
type Cache struct {
	entry *Entry
}

// NewTimed caches v and starts a goroutine that expires it when a timer of
// ttl fires.
func NewTimed(v string, ttl time.Duration) *Cache {
	c := &Cache{entry: &Entry{Value: v}}
	t := time.NewTimer(ttl)
	go func() {
		<-t.C
		c.entry = nil // S1: at virtual time ttl
	}()
	return c
}

// NewScoped caches v until ctx is done.
func NewScoped(ctx context.Context, v string) *Cache {
	c := &Cache{entry: &Entry{Value: v}}
	go func() {
		select {
		case <-ctx.Done():
		case <-time.After(time.Hour):
		}
		c.entry = nil // S3: at ctx's deadline
	}()
	return c
}

// Get returns the entry's value; it must be called before it expired.
func (c *Cache) Get() string {
	return c.entry.Value // S2 // want `may be nil when`
}

// Package bubbletimer is a negative control for testing/synctest (issue
// 15): three caches whose entries expire on virtual time without
// time.Sleep, by a timer (time.NewTimer), by a context's deadline
// (context.WithTimeout) and by time.AfterFunc. A goroutine of each of the
// first two waits for the expiry and then sets the entry to nil; the third
// sets it in the AfterFunc callback. The test reads the entries at virtual
// time zero. Inside the bubble the timers and the deadline fire only after
// the clock moved to one second, which needs every goroutine of the
// bubble, the reader included, to be durably blocked: the reads come first
// in every run. detect/hb sees it from the clock readings around the
// receives that return when they fire, and at the start of the callback.
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

// NewDeferred caches v and expires it in a time.AfterFunc callback after
// ttl.
func NewDeferred(v string, ttl time.Duration) *Cache {
	c := &Cache{entry: &Entry{Value: v}}
	time.AfterFunc(ttl, func() {
		c.entry = nil // S4: at virtual time ttl
	})
	return c
}

// Get returns the entry's value; it must be called before it expired.
func (c *Cache) Get() string {
	return c.entry.Value // S2 // want `may be nil when`
}

// Package expireloop is a negative control for OSCS's whole-operation
// filter (issue 18 item 2), from ttlcache v2's expiration loop: a
// goroutine that, under the cache's lock, reads the earliest deadline of
// its queue, computes how long to sleep and unlocks, sleeps that long,
// and locks again to drop what has expired, looking at the queue afresh.
// Purge, which replaces the queue, can run between the two sections: the
// loop then wakes at the old deadline and finds the new queue, which it
// handles as it finds it. Nothing the first section read reaches the
// second (the instrumenter's trace.UseSealed on its Unlock), so the
// atomicity shape OSCS looks for (KB1's) has no premise to break. No
// Go panic is possible; the paper's OSCS reports every read of the queue
// in the loop's first section against Purge's write, precog test nothing.
package expireloop

import (
	"sync"
	"time"
)

type entry struct {
	key      string
	expireAt time.Time
}

// queue is kept in deadline order; the earliest first.
type queue struct{ items []*entry }

func (q *queue) Len() int { return len(q.items) }

func (q *queue) root() *entry {
	if len(q.items) == 0 {
		return nil
	}
	return q.items[0]
}

func (q *queue) push(e *entry) {
	i := len(q.items)
	for i > 0 && q.items[i-1].expireAt.After(e.expireAt) {
		i--
	}
	q.items = append(q.items, nil)
	copy(q.items[i+1:], q.items[i:])
	q.items[i] = e
}

// Cache holds entries until their deadline.
type Cache struct {
	mu       sync.Mutex
	q        *queue
	items    map[string]*entry
	expired  int
	wake     chan struct{}
	stop     chan struct{}
	stopped  chan struct{}
	nextWake time.Time // what the loop last decided, for nobody
}

// New starts the cache's expiration loop.
func New() *Cache {
	c := &Cache{q: new(queue), items: make(map[string]*entry), wake: make(chan struct{}, 1),
		stop: make(chan struct{}), stopped: make(chan struct{})}
	go c.expire()
	return c
}

func (c *Cache) expire() {
	defer close(c.stopped)
	timer := time.NewTimer(time.Hour)
	for {
		var sleep time.Duration
		c.mu.Lock()
		if c.q.Len() > 0 {
			sleep = time.Until(c.q.root().expireAt)
			if sleep < 0 {
				sleep = time.Microsecond
			}
		} else {
			sleep = time.Hour
		}
		c.nextWake = time.Now().Add(sleep)
		c.mu.Unlock()
		timer.Reset(sleep)
		select {
		case <-c.stop:
			timer.Stop()
			return
		case <-c.wake:
			timer.Stop()
		case <-timer.C:
			c.mu.Lock()
			for c.q.Len() > 0 && !time.Now().Before(c.q.root().expireAt) {
				e := c.q.root()
				c.q.items = c.q.items[1:]
				delete(c.items, e.key)
				c.expired++
			}
			c.mu.Unlock()
		}
	}
}

// Set adds key until ttl has passed, and wakes the loop.
func (c *Cache) Set(key string, ttl time.Duration) {
	c.mu.Lock()
	e := &entry{key: key, expireAt: time.Now().Add(ttl)}
	c.items[key] = e
	c.q.push(e)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Purge drops every entry.
func (c *Cache) Purge() {
	c.mu.Lock()
	c.items = make(map[string]*entry)
	c.q = new(queue)
	c.mu.Unlock()
}

// Len returns the number of entries.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Close stops the loop and waits for it.
func (c *Cache) Close() {
	close(c.stop)
	<-c.stopped
}

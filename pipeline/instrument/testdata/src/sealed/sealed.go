// Package sealed holds the cases of TestSealedUnlocks: each Unlock's line
// is marked sealed or kept (with why).
package sealed

import (
	"sync"
	"time"
)

type item struct{ at time.Time }

type queue struct{ items []*item }

func (q *queue) Len() int { return len(q.items) }

func (q *queue) root() *item {
	if len(q.items) == 0 {
		return nil
	}
	return q.items[0]
}

func (q *queue) popExpired() {
	for len(q.items) > 0 && time.Until(q.items[0].at) <= 0 {
		q.items = q.items[1:]
	}
}

type cache struct {
	mu      sync.Mutex
	q       *queue
	pending bool
	next    time.Time // written by the loop, read nowhere
	last    int       // written and read by a loop
	log     []int
	wake    chan bool
	stop    chan struct{}
	n       int
	byAt    map[time.Time]int
}

// expire is ttlcache's loop: the first section's reads reach past its
// Unlock only as the timer's duration; the second looks afresh.
func (c *cache) expire() {
	timer := time.NewTimer(time.Hour)
	for {
		var d time.Duration
		c.mu.Lock()
		c.pending = false
		if c.q.Len() > 0 {
			d = time.Until(c.q.root().at)
			if d < 0 {
				d = time.Microsecond
			}
		} else {
			d = time.Hour
		}
		c.next = time.Now().Add(d)
		c.mu.Unlock() // sealed
		timer.Reset(d)
		select {
		case <-c.stop:
			return
		case <-timer.C:
			c.mu.Lock()
			if c.q.Len() == 0 {
				c.mu.Unlock() // kept: one of two Unlocks of the section
				continue
			}
			c.q.popExpired()
			c.mu.Unlock() // kept: one of two Unlocks of the section
		case <-c.wake:
		}
	}
}

// sleeper sleeps as long as the section said.
func (c *cache) sleeper() {
	c.mu.Lock()
	d := time.Duration(c.n) * time.Millisecond
	c.mu.Unlock() // sealed
	time.Sleep(d)
}

// setter stores a constant: it computes nothing.
func (c *cache) setter() {
	c.mu.Lock()
	c.pending = true
	c.mu.Unlock() // sealed
}

// count hands the value read on past the Unlock.
func (c *cache) count() int {
	c.mu.Lock()
	n := c.n
	c.mu.Unlock() // kept: n is returned
	return n
}

// early unlocks on an early return, and again at the end.
func (c *cache) early() {
	c.mu.Lock()
	if c.pending {
		c.mu.Unlock() // kept: one of two Unlocks of the section
		return
	}
	c.n++
	c.mu.Unlock() // kept: one of two Unlocks of the section
}

// deferred unlocks at its return.
func (c *cache) deferred() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// twice carries the first section's read into the second through a field
// it loads again.
func (c *cache) twice() int {
	c.mu.Lock()
	c.last = c.n * 2
	c.mu.Unlock() // kept: c.last is loaded again below
	c.mu.Lock()
	x := c.last
	c.mu.Unlock() // kept: x is returned
	return x
}

// logs calls a method that keeps what it is given.
func (c *cache) logs() {
	c.mu.Lock()
	c.record(c.n)
	c.mu.Unlock() // kept: record stores into c.log
}

func (c *cache) record(n int) { c.log = append(c.log, n) }

// sends publishes the value read.
func (c *cache) sends() {
	c.mu.Lock()
	c.wake <- c.pending
	c.mu.Unlock() // kept: a send
}

// held keeps the lock across the loop's back edge.
func (c *cache) held() {
	c.mu.Lock()
	for c.n > 0 {
		c.n--
		c.mu.Unlock() // kept: entered at two Locks
		time.Sleep(time.Millisecond)
		c.mu.Lock()
	}
	c.mu.Unlock() // kept: entered at two Locks
}

// joined uses the duration after a join outside the section.
func (c *cache) joined(lock bool) {
	d := time.Second
	if lock {
		c.mu.Lock()
		d = time.Duration(c.n)
		c.mu.Unlock() // kept: d reaches a phi past the Unlock
	}
	time.Sleep(d)
}

// local stores the value read into a local variable that a closure
// captures.
func (c *cache) local() func() int {
	var n int
	f := func() int { return n }
	c.mu.Lock()
	n = c.n
	c.mu.Unlock() // kept: n is a local variable's cell
	return f
}

// unlocked is called with the lock held.
func (c *cache) unlocked() {
	c.n++
	c.mu.Unlock() // kept: no Lock in the function
}

type snap struct{ n int }

// fill stores what it read into an object its caller passed.
func (c *cache) fill(s *snap) {
	c.mu.Lock()
	s.n = c.n
	c.mu.Unlock() // kept: s may be the caller's own, unrecorded
}

// recurA's section calls walkA, which stores into c.log after a call of
// walkB, which calls walkA back.
func (c *cache) recurA() {
	c.mu.Lock()
	c.walkA(c.n)
	c.mu.Unlock() // kept: walkA stores into c.log
}

// recurB's section calls walkB, judged after recurA's: impure through
// walkA, however the first judgement went.
func (c *cache) recurB() {
	c.mu.Lock()
	c.walkB(c.n)
	c.mu.Unlock() // kept: walkB calls walkA, which stores into c.log
}

func (c *cache) walkA(n int) {
	if n > 0 {
		c.walkB(n - 1)
	}
	c.log = append(c.log, n)
}

func (c *cache) walkB(n int) {
	if n > 0 {
		c.walkA(n - 1)
	}
}

// drop is ttlcache's expiration section: it pops what expired and
// deletes it from a map the cache holds, and hands nothing on.
func (c *cache) drop() {
	for {
		time.Sleep(time.Millisecond)
		c.mu.Lock()
		for c.q.Len() > 0 && time.Until(c.q.root().at) <= 0 {
			it := c.q.root()
			c.q.items = c.q.items[1:]
			delete(c.byAt, it.at)
			c.byAt[time.Time{}]++
		}
		c.mu.Unlock() // sealed
	}
}

// dropRead deletes from the cache's map and reads the map again after
// the section.
func (c *cache) dropRead() int {
	c.mu.Lock()
	delete(c.byAt, c.q.root().at)
	c.mu.Unlock() // kept: c.byAt is loaded again below
	return len(c.byAt)
}

// dropInto deletes from a map its caller passed.
func (c *cache) dropInto(m map[time.Time]int) {
	c.mu.Lock()
	delete(m, c.q.root().at)
	c.mu.Unlock() // kept: m may be the caller's own, unrecorded
}

// putInto stores into a map its caller passed.
func (c *cache) putInto(m map[int]bool) {
	c.mu.Lock()
	m[c.n] = true
	c.mu.Unlock() // kept: m may be the caller's own, unrecorded
}

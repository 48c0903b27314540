// Package lockall: a sharded cache that locks every shard in a range
// loop (ccache's halt) holds the shards' mutex past the loop, through a
// helper's return and into the function it then calls, until a loop
// unlocks them all (Run starts Clear on a goroutine, so that the helper's
// callback has its call site). A loop that locks only on some
// iterations, or that unlocks each shard again before the next, holds
// nothing past its end.
package lockall

import "sync"

func mark() {}

type shard struct {
	sync.RWMutex
	items map[string]int
}

type cache struct {
	shards []*shard
	byName map[string]*shard
}

func (c *cache) halt() {
	for _, s := range c.shards {
		s.Lock()
	}
}

func (c *cache) unhalt() {
	for _, s := range c.shards {
		s.Unlock()
	}
}

func (c *cache) halted(fn func()) {
	c.halt()
	defer c.unhalt()
	mark() // want `^held: shard.RWMutex\(w\)$`
	fn()
}

// Clear empties every shard with all of them locked.
func (c *cache) Clear() {
	c.halted(func() {
		for _, s := range c.shards {
			mark() // want `^held: shard.RWMutex\(w\)$`
			s.items = make(map[string]int)
		}
	})
	mark() // want `^held: none$`
}

// Snapshot read-locks every shard of a map of them.
func (c *cache) Snapshot() int {
	for _, s := range c.byName {
		s.RLock()
	}
	mark() // want `^held: shard.RWMutex\(r\)$`
	n := 0
	for _, s := range c.byName {
		n += len(s.items)
		s.RUnlock()
	}
	mark() // want `^held: none$`
	return n
}

// Some locks the shards that hold a key: not every iteration locks.
func (c *cache) Some(k string) {
	for _, s := range c.shards {
		if _, ok := s.items[k]; ok {
			s.Lock()
		}
	}
	mark() // want `^held: none$`
}

// Each locks and unlocks each shard in turn.
func (c *cache) Each() {
	for _, s := range c.shards {
		s.Lock()
		s.items = nil
		s.Unlock()
	}
	mark() // want `^held: none$`
}

// Skip locks the shards but skips the empty ones with a continue first.
func (c *cache) Skip() {
	for _, s := range c.shards {
		if s.items == nil {
			continue
		}
		s.Lock()
	}
	mark() // want `^held: none$`
}

// Direct calls the helpers itself.
func (c *cache) Direct() {
	c.halt()
	mark() // want `^held: shard.RWMutex\(w\)$`
	c.unhalt()
	mark() // want `^held: none$`
}

// Run clears on a goroutine of its own.
func Run(c *cache) {
	go c.Clear()
	c.Snapshot()
}

// Package addfix holds Done-before-Add bugs with and without a mechanical
// fix. The fix moves the Add above the go statement when it is the next
// statement, with a constant delta; the golden file is the result.
package addfix

import "sync"

type Shipper struct {
	inflight sync.WaitGroup
	workers  sync.WaitGroup
	sent     int
}

// Ship adds right after the go statement: fixed.
func (s *Shipper) Ship(batch []byte) {
	go s.send(batch)
	s.inflight.Add(1) // one per batch
}

func (s *Shipper) send(batch []byte) {
	defer s.inflight.Done() // want `s.inflight.Done may run before the matching Add`
	s.sent += len(batch)
}

// A Crawler fetches pages.
type Crawler struct {
	pending sync.WaitGroup
	get     func(string)
}

// Kick adds right after the go statement of a case clause: fixed.
func (c *Crawler) Kick(kind, u string) {
	switch kind {
	case "page":
		go c.fetch(u)
		c.pending.Add(1) // the page
	default:
		c.get(u)
	}
}

func (c *Crawler) fetch(u string) {
	defer c.pending.Done() // want `c.pending.Done may run before the matching Add`
	c.get(u)
}

// StartAll adds once for the whole loop, after it: no fix, since moving
// the Add into the loop would change what it counts.
func (s *Shipper) StartAll(n int) {
	for i := 0; i < n; i++ {
		go s.work()
	}
	s.workers.Add(n)
}

func (s *Shipper) work() {
	defer s.workers.Done() // want `s.workers.Done may run before the matching Add`
}

// Spread adds one per part, a count the goroutine's loop matches: no
// fix, the delta is not a constant.
func (c *Crawler) Spread(parts []string) {
	go func() {
		for _, p := range parts {
			c.get(p)
			c.pending.Done() // want `c.pending.Done may run before the matching Add`
		}
	}()
	c.pending.Add(len(parts))
	c.pending.Wait()
}

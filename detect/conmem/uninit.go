package conmem

import (
	"fmt"
	"slices"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/shim/trace"
)

// uninit reports Con-UnInit bugs (§4.3): the first read of a location by
// a goroutine that has not written it, concurrent with every initializing
// write of the other goroutines, one of which started the reader or was
// started by it (see the package doc); and, for WaitGroups, a Done that
// can run before every other goroutine's Add (a negative counter).
func (c *checker) uninit() {
	for _, list := range c.mem {
		c.uninitLoc(list, trace.EvWrite, trace.EvRead)
	}
	for _, list := range c.wgs {
		c.uninitLoc(list, trace.EvWGAdd, trace.EvWGDone)
	}
}

// uninitLoc checks one location's accesses: init events of kind initK
// (writes of a non-zero value; Adds of a positive delta) and use events
// of kind useK (reads; Dones and negative Adds).
func (c *checker) uninitLoc(list []int, initK, useK trace.Kind) {
	g := c.g
	isInit := func(i int) bool {
		ev := g.Events[i]
		if ev.Kind != initK {
			return false
		}
		if initK == trace.EvWGAdd {
			return ev.Arg > 0
		}
		return ev.Value != 0
	}
	isUse := func(i int) bool {
		ev := g.Events[i]
		return ev.Kind == useK || (useK == trace.EvWGDone && ev.Kind == trace.EvWGAdd && ev.Arg < 0)
	}
	if !slices.ContainsFunc(list, isInit) {
		return
	}
	// The Initializer table: each goroutine's first initializing write.
	// firstW is each goroutine's first write of any value; lastW its last.
	init := make(map[int]int)
	var inits []int
	firstW := make(map[int]int)
	lastW := make(map[int]int)
	for _, i := range list {
		gi := g.Goroutine(i)
		if g.Events[i].Kind == initK {
			if _, ok := firstW[gi]; !ok {
				firstW[gi] = i
			}
			lastW[gi] = i
		}
		if isInit(i) {
			if _, ok := init[gi]; !ok {
				init[gi] = i
				inits = append(inits, i)
			}
		}
	}
	if len(inits) == 0 {
		return
	}
	read := make(map[int]bool)
	for _, r := range list {
		gi := g.Goroutine(r)
		if !isUse(r) || read[gi] {
			continue
		}
		read[gi] = true // only the first read of each goroutine
		if w, ok := firstW[gi]; ok && (w < r || (initK == trace.EvWrite && lastW[gi] > r)) {
			// Its own write came first: the read sees its own goroutine's
			// value. Or it writes the location itself later: the
			// location is the goroutine's running state (a counter or
			// index it updates from what it read), whose zero value is
			// its start, not an uninitialized one.
			continue
		}
		var remote []int
		concurrent, related, locked := true, false, true
		for _, w := range inits {
			if g.Goroutine(w) == gi {
				continue
			}
			related = related || c.ancestor(g.Goroutine(w), gi) || c.ancestor(gi, g.Goroutine(w))
			remote = append(remote, w)
			locked = locked && g.CommonLock(r, w)
			if !g.Concurrent(r, w) {
				concurrent = false
				break
			}
		}
		if len(remote) == 0 || !concurrent || !related || (locked && initK == trace.EvWrite) {
			continue
		}
		roles := []role{{ev: r, role: finding.RoleRead}}
		sites := make(map[uint32]bool)
		for _, w := range remote {
			if s := g.Events[w].Site; !sites[s] {
				sites[s] = true
				roles = append(roles, role{ev: w, role: finding.RoleInit})
			}
		}
		if initK == trace.EvWGAdd {
			roles[0].role = finding.RoleDone
			for i := range roles[1:] {
				roles[i+1].role = finding.RoleAdd
			}
			c.report(finding.ConUninit,
				fmt.Sprintf("%s.Done in %s may run before %s calls Add, making the counter negative; Add should come before the go statement",
					c.expr(r), c.fn(r), c.fn(remote[0])),
				roles, "the Done is concurrent with every other goroutine's Add")
			continue
		}
		c.report(finding.ConUninit,
			fmt.Sprintf("%s may be read by %s before %s initializes it; the initialization should happen before the go statement or be published to the reader",
				c.expr(r), c.fn(r), c.fn(remote[0])),
			roles, "the read is concurrent with every other goroutine's first write of a non-zero value, and its goroutine wrote none before it")
	}
}

// ancestor reports whether goroutine a started goroutine b, directly or
// through goroutines it started.
func (c *checker) ancestor(a, b int) bool {
	for p := c.g.Goroutines[b].Parent; p >= 0; p = c.g.Goroutines[p].Parent {
		if p == a {
			return true
		}
	}
	return false
}

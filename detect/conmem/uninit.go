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
		c.addWait(list)
	}
}

// addWait reports a WaitGroup Add that finds the counter at zero and is
// concurrent with another goroutine's Wait: Go's rule is that such an Add
// must happen before the Wait, or the Wait may return before the work the
// Add counts has been done (or, if the Add lands while Wait is waking up,
// panic "WaitGroup is reused before previous Wait has returned"). The
// counter is the sum of the deltas before the Add in trace order; Adds
// whose goroutine waited before them are the WaitGroup's reuse and count
// only if the Wait does not order them. One finding per Wait and Add site.
func (c *checker) addWait(list []int) {
	g := c.g
	var starts, waits []int
	counter := int64(0)
	for _, i := range list {
		switch ev := g.Events[i]; ev.Kind {
		case trace.EvWGAdd:
			if counter == 0 && ev.Arg > 0 {
				starts = append(starts, i)
			}
			counter += ev.Arg
		case trace.EvWGDone:
			counter--
		case trace.EvWGWait:
			waits = append(waits, i)
		}
	}
	for _, w := range waits {
		for _, a := range starts {
			if g.Goroutine(a) == g.Goroutine(w) || !g.Concurrent(a, w) {
				continue
			}
			roles := []role{{ev: w, role: finding.RoleWait}, {ev: a, role: finding.RoleAdd}}
			if c.reported(finding.ConUninit, roles) {
				continue
			}
			c.report(finding.ConUninit,
				fmt.Sprintf("%s.Wait in %s may return before %s calls Add with the counter at zero, and so before the work it counts; Add should come before the go statement",
					c.expr(w), c.fn(w), c.fn(a)),
				roles, "the Add that starts the count is concurrent with the Wait")
		}
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

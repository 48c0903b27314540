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
	for _, list := range c.atoms {
		c.uninitLoc(list, trace.EvAtomicStore, trace.EvAtomicLoad)
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
//
// Whether the Add comes before the Wait is decided without the Wait's own
// acquire, on the clock of the event before it in its goroutine: a Wait
// that returned after the Add's Done (the recorded run ran the goroutine
// before the Wait) is ordered after the Add by that Done only because the
// Add came first; in a run where the Wait comes first the counter is zero
// and nothing holds it. So the finding does not depend on which of the two
// the recorded schedule ran first (kernel wgaddwait was found only when
// the Wait came first, and missed under load). As for an atomic load's
// acquire in uninitLoc. The subtests the Wait's goroutine joined at the
// Wait (hb joins a subtest that ended while its parent waited in t.Run
// at the parent's next event, Graph.Joined) count as before it: t.Run
// (or F.Fuzz, for each seed input) returned after them, so an Add in a
// subtest's function comes before a Wait after t.Run returns.
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
		before := c.eventBefore(w)
		for _, a := range starts {
			if g.Goroutine(a) == g.Goroutine(w) || g.HappensBefore(w, a) || before >= 0 && g.HappensBefore(a, before) || c.beforeJoined(a, w) {
				continue
			}
			roles := []role{{ev: w, role: finding.RoleWait}, {ev: a, role: finding.RoleAdd}}
			if c.reported(finding.ConUninit, roles) {
				continue
			}
			c.report(finding.ConUninit,
				fmt.Sprintf("%s.Wait in %s may return before %s calls Add with the counter at zero, and so before the work it counts; the Add should come before the go statement that starts %s",
					c.expr(w), c.fn(w), c.fn(a), c.fn(a)),
				roles, "the Add that starts the count is concurrent with the Wait")
		}
	}
}

// uninitLoc checks one location's accesses: init events of kind initK
// (writes of a non-zero value; Adds of a positive delta) and use events
// of kind useK (reads; Dones and negative Adds).
//
// For atomics (stores of a non-nil pointer, loads; see derefAtomics) a
// goroutine's first load is reported only if its value is dereferenced
// unchecked, and it is ordered with an init without its own acquire: hb
// orders a load after the store whose value it read, which is the order of
// the recorded run, not one the program imposes; a load that can come
// first reads nil. So the order checks take the load's goroutine's event
// before it for the init-before-load direction.
//
// A goroutine's first use r is reported when it is concurrent with the
// first init of every other goroutine that made one (the remote inits),
// one of those goroutines is related to r's (started it or was started by
// it) and, for memory, not every remote init shares a lock with r. Which
// inits decide it does not depend on the order they are tried in, so the
// cheap conditions come first and the costly one, concurrency with every
// remote init, last, trying first the inits most likely to be ordered with
// r (see refute): a location that thousands of goroutines initialize and
// read (gocron's WaitGroup, added by each job's starter and done by the
// job) cost the product of the two before, 118 M order checks in one run,
// and costs about one check per read now. A read whose finding's lines
// were reported already is not checked again.
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
	var zeros []int // see reinitialized
	if initK == trace.EvWrite {
		for _, i := range list {
			if gi := g.Goroutine(i); firstW[gi] == i && g.Events[i].Value == 0 && len(zeros) < maxZeros {
				zeros = append(zeros, i)
			}
		}
	}
	u := c.newUninitState(inits, init)
	readRole, initRole := finding.RoleRead, finding.RoleInit
	if initK == trace.EvWGAdd {
		readRole, initRole = finding.RoleDone, finding.RoleAdd
	}
	read := make(map[int]bool)
	for _, r := range list {
		gi := g.Goroutine(r)
		if !isUse(r) || read[gi] {
			continue
		}
		read[gi] = true // only the first read of each goroutine
		if useK == trace.EvAtomicLoad && !c.used(r, useDeref) {
			continue // checked for nil, or not a pointer's use
		}
		if w, ok := firstW[gi]; ok && (w < r || (initK != trace.EvWGAdd && lastW[gi] > r)) {
			// Its own write came first: the read sees its own goroutine's
			// value. Or it writes the location itself later: the
			// location is the goroutine's running state (a counter or
			// index it updates from what it read), whose zero value is
			// its start, not an uninitialized one.
			continue
		}
		ownInit, hasOwn := init[gi]
		if !hasOwn {
			ownInit = -1
		}
		if len(inits) == 1 && hasOwn || !u.related(gi) || initK != trace.EvWGAdd && u.locked(r) {
			continue
		}
		if c.seen[u.key(r, ownInit, readRole, initRole)] {
			continue // reported with the same lines
		}
		if slices.ContainsFunc(zeros, func(w int) bool {
			return reinitialized(w < r, g.Goroutine(w) != gi, u.initSites[g.Events[w].Site] > 0, func() bool { return g.HappensBefore(w, r) })
		}) {
			continue
		}
		switch refuted, decided := u.refute(r, gi); {
		case !decided:
			c.uninitUnchecked++
			continue
		case refuted:
			continue
		}
		var remote []int
		for _, w := range inits {
			if w != ownInit {
				remote = append(remote, w)
			}
		}
		if slices.ContainsFunc(remote, func(w int) bool { return w < r && c.switchedAfter(r, w) }) {
			continue // runs after that init whenever it runs
		}
		roles := []role{{ev: r, role: readRole}}
		sites := make(map[uint32]bool)
		for _, w := range remote {
			if s := g.Events[w].Site; !sites[s] {
				sites[s] = true
				roles = append(roles, role{ev: w, role: initRole})
			}
		}
		if initK == trace.EvWGAdd {
			c.report(finding.ConUninit,
				fmt.Sprintf("%s.Done in %s may run before %s calls Add, making the counter negative; the Add should come before the go statement that starts %s",
					c.expr(r), c.fn(r), c.fn(remote[0]), c.fn(r)),
				roles, "the Done is concurrent with every other goroutine's Add")
			continue
		}
		c.report(finding.ConUninit,
			fmt.Sprintf("%s may be read by %s before %s initializes it; the initialization should happen before the go statement or be published to the reader",
				c.expr(r), c.fn(r), c.fn(remote[0])),
			roles, "the read is concurrent with every other goroutine's first write of a non-zero value, and its goroutine wrote none before it")
	}
}

// maxZeros bounds the goroutines per location whose first write of zero
// reinitialized looks at: the first ones in the trace.
const maxZeros = 8

// reinitialized reports whether a read is no uninitialized one for a
// goroutine's first write of the location, w, which wrote zero: w comes
// before the read (before), on another goroutine (other), at the site of
// one of the location's initializing writes (atInit), and happens before
// the read (hb, asked last). The statement that initializes the location
// ran before the read, with a zero value: a test's loop that calls Init("")
// and then Init("a"), starting a reader each time, has the first reader
// read what its Init wrote; the second Init's write is no initialization
// the reader was waiting for but a reinitialization, which the data race
// check reports (mailpit's tenant, held-out rehearsal 55). A zero write at
// another site (x = nil before the go statement, x = dial() after it)
// leaves the read reported.
func reinitialized(before, other, atInit bool, hb func() bool) bool {
	return before && other && atInit && hb()
}

// MaxUninitChecks bounds the order checks (Graph.Concurrent) that
// con-uninit makes in one run, over all locations. A read it could not
// decide within them is not reported and is counted in
// Stats.UninitUnchecked, which precog test prints in a note. The tries of
// refute make most reads cost one check (gocron's 529,257-event
// TestScheduler_ManyJobs: 25,000 checks where the plain pairing took 118
// M), so the bound is there for shapes none of the measured traces had.
const MaxUninitChecks = 1 << 25

// uninitState is what uninitLoc knows of one location's inits for the
// checks of its reads.
type uninitState struct {
	c     *checker
	inits []int       // each goroutine's first init, in trace order
	init  map[int]int // goroutine -> its first init
	last  int         // the init that refuted the last read, or -1

	// related: per goroutine, whether a goroutine it started, directly
	// or not, made an init (descendant) and whether one that started it
	// did (ancestor), filled in as asked.
	descendant map[int]bool
	ancestor   map[int]bool
	// lockRep holds one init per lock set of the inits; locked caches
	// the answer per lock set of a read.
	lockRep []int
	lockedL map[int32]bool
	// initSites are the inits' sites, each with the number of goroutines
	// whose first init it is; keys caches a read's finding key by its
	// site (for reads whose goroutine made no init).
	initSites map[uint32]int
	siteRep   []int
	keys      map[uint32]string
}

func (c *checker) newUninitState(inits []int, init map[int]int) *uninitState {
	u := &uninitState{c: c, inits: inits, init: init, last: -1,
		descendant: make(map[int]bool), ancestor: make(map[int]bool),
		lockedL: make(map[int32]bool), initSites: make(map[uint32]int), keys: make(map[uint32]string)}
	g := c.g
	locks := make(map[int32]bool)
	for _, w := range inits {
		// Every goroutine above an initializing one has an init below.
		for p := g.Goroutines[g.Goroutine(w)].Parent; p >= 0 && !u.descendant[p]; p = g.Goroutines[p].Parent {
			u.descendant[p] = true
		}
		if k := g.LocksKey(w); !locks[k] {
			locks[k] = true
			u.lockRep = append(u.lockRep, w)
		}
		s := g.Events[w].Site
		if u.initSites[s] == 0 {
			u.siteRep = append(u.siteRep, w)
		}
		u.initSites[s]++
	}
	return u
}

// related reports whether another goroutine that made an init started
// goroutine gi, directly or not, or was started by it.
func (u *uninitState) related(gi int) bool {
	return u.descendant[gi] || u.hasAncestor(gi)
}

// hasAncestor reports whether a goroutine that started gi, directly or
// not, made an init (memoized along the chain).
func (u *uninitState) hasAncestor(gi int) bool {
	gs := u.c.g.Goroutines
	p := gs[gi].Parent
	if p < 0 {
		return false
	}
	if v, ok := u.ancestor[gi]; ok {
		return v
	}
	_, v := u.init[p]
	if !v {
		v = u.hasAncestor(p)
	}
	u.ancestor[gi] = v
	return v
}

// locked reports whether read r shares a lock (in modes that exclude each
// other) with every init; for memory no init is r's goroutine's.
func (u *uninitState) locked(r int) bool {
	g := u.c.g
	k := g.LocksKey(r)
	if v, ok := u.lockedL[k]; ok {
		return v
	}
	v := true
	for _, w := range u.lockRep {
		if !g.CommonLock(r, w) {
			v = false
			break
		}
	}
	u.lockedL[k] = v
	return v
}

// key returns the key (checker.lineKey) of the finding that read r would
// be: its site and the sites of the other goroutines' inits (all but
// ownInit, the first init of r's goroutine, or -1).
func (u *uninitState) key(r, ownInit int, readRole, initRole string) string {
	g := u.c.g
	s := g.Events[r].Site
	if ownInit < 0 {
		if k, ok := u.keys[s]; ok {
			return k
		}
	}
	roles := []role{{ev: r, role: readRole}}
	for _, w := range u.siteRep {
		ws := g.Events[w].Site
		if ownInit >= 0 && g.Events[ownInit].Site == ws && u.initSites[ws] == 1 {
			continue
		}
		roles = append(roles, role{ev: w, role: initRole})
	}
	k := u.c.lineKey(finding.ConUninit, roles)
	if ownInit < 0 {
		u.keys[s] = k
	}
	return k
}

// refute looks for another goroutine's init ordered with read r (of
// goroutine gi): refuted if it found one, decided false if the run's
// budget of checks (MaxUninitChecks) ran out first. It tries the inits of
// the goroutines that started gi (an Add or a write before the go
// statement), then the init that refuted the last read (a value published
// once to every reader), then the others by their distance from r in the
// trace, the nearest first (a write handed to the reader just before).
func (u *uninitState) refute(r, gi int) (refuted, decided bool) {
	c, g := u.c, u.c.g
	try := func(w int) (ordered, ok bool) {
		if g.Goroutine(w) == gi {
			return false, true
		}
		if c.uninitChecks >= c.maxUninit {
			return false, false
		}
		c.uninitChecks++
		if g.HappensBefore(r, w) || g.HappensBefore(w, u.acquired(r)) || c.beforeJoined(w, r) {
			u.last = w
			return true, true
		}
		return false, true
	}
	tried := 0
	for p := g.Goroutines[gi].Parent; p >= 0 && tried < 8; p = g.Goroutines[p].Parent {
		if w, ok := u.init[p]; ok {
			tried++
			if o, ok := try(w); o || !ok {
				return o, ok
			}
		}
	}
	if u.last >= 0 {
		if o, ok := try(u.last); o || !ok {
			return o, ok
		}
	}
	k, _ := slices.BinarySearch(u.inits, r)
	for b, f := k-1, k; b >= 0 || f < len(u.inits); b, f = b-1, f+1 {
		if b >= 0 {
			if o, ok := try(u.inits[b]); o || !ok {
				return o, ok
			}
		}
		if f < len(u.inits) {
			if o, ok := try(u.inits[f]); o || !ok {
				return o, ok
			}
		}
	}
	return false, true
}

// acquired returns the event whose clock decides whether an init happens
// before read r: r itself, or for an atomic load the event of its
// goroutine before it (its Begin at the earliest), whose clock does not
// have the load's own acquire of the store it read.
func (u *uninitState) acquired(r int) int {
	if u.c.g.Events[r].Kind != trace.EvAtomicLoad {
		return r
	}
	if b := u.c.eventBefore(r); b >= 0 {
		return b
	}
	return r
}

// beforeJoined reports whether event a happens before (or is) the last
// event of a subtest that event i's goroutine joined at i (Graph.Joined):
// before i without i's own acquire, which eventBefore's clock misses.
func (c *checker) beforeJoined(a, i int) bool {
	for _, e := range c.g.Joined(i) {
		if int(e) == a || c.g.HappensBefore(a, int(e)) {
			return true
		}
	}
	return false
}

// eventBefore returns the event before i in its goroutine, -1 if i is the
// first.
func (c *checker) eventBefore(i int) int {
	evs := c.g.Goroutines[c.g.Goroutine(i)].Events
	if k, _ := slices.BinarySearch(evs, i); k > 0 {
		return evs[k-1]
	}
	return -1
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

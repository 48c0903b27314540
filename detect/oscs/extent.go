package oscs

import (
	"slices"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// maxExtent bounds the events of a goroutine that extentCommutes looks
// through; a longer goroutine's setter of a function that takes other
// locks too is not alone (the pair stays reported).
const maxExtent = 1 << 20

// effects is what a run of a goroutine's events did, for extentCommutes:
// the locations it read and wrote (plain accesses and atomics alike,
// keyed by address, GC epoch and generation: a plain read of a field
// and an atomic store to it meet), the maps it used and those it wrote,
// the channels it made and those it used, and whether it called a
// context's cancel function (which closes a channel the trace does not
// name).
type effects struct {
	touched, written   map[hb.Loc]bool
	mapUsed, mapWrote  map[hb.Loc]bool
	made, chans        map[hb.Loc]bool
	cancels, unordered bool
}

// add records event i.
func (e *effects) add(c *checker, i int) {
	switch c.g.Events[i].Kind {
	case trace.EvRead, trace.EvAtomicLoad:
		e.touched = addTo(e.touched, c.addrLoc(i))
	case trace.EvWrite, trace.EvAtomicStore:
		e.touched = addTo(e.touched, c.addrLoc(i))
		e.written = addTo(e.written, c.addrLoc(i))
	case trace.EvMapRead, trace.EvMapIter:
		e.mapUsed = addTo(e.mapUsed, c.g.Loc(i))
	case trace.EvMapWrite:
		e.mapUsed = addTo(e.mapUsed, c.g.Loc(i))
		e.mapWrote = addTo(e.mapWrote, c.g.Loc(i))
	case trace.EvChanMake:
		e.made = addTo(e.made, c.chanOf(i))
	case trace.EvChanSend, trace.EvChanRecv, trace.EvSelect, trace.EvChanClose:
		e.chans = addTo(e.chans, c.chanOf(i))
	case trace.EvCancel:
		e.cancels = true
	case trace.EvWGAdd, trace.EvWGDone, trace.EvWGWait, trace.EvOnceDo, trace.EvCondWait, trace.EvCondSignal,
		trace.EvCondBroadcast, trace.EvPoolPut, trace.EvPoolGet, trace.EvTaskGo, trace.EvTaskWait, trace.EvFork:
		// Operations whose effect on another goroutine's section this
		// check does not model.
		e.unordered = true
	}
}

// addrLoc is event i's location with the variable's name left out: a
// plain access and an atomic one at one address are one location.
func (c *checker) addrLoc(i int) hb.Loc {
	l := c.g.Loc(i)
	l.Var = 0
	return l
}

// commutesWith reports whether a getter's section that did g and the
// runs that did e leave the same state in either order, as far as the
// trace shows: no location one writes that the other touches, no map
// one writes that the other uses, no channel of both (nor one the runs
// made), and no cancel against a section that uses a channel.
func (e *effects) commutesWith(g *effects) bool { return e.commutesExcept(g, nil) }

// commutesExcept is commutesWith with e's writes of the locations in
// except left out.
func (e *effects) commutesExcept(g *effects, except map[hb.Loc]bool) bool {
	if g.unordered {
		return false
	}
	for l := range g.touched {
		if e.written[l] && !except[l] || g.written[l] && e.touched[l] {
			return false
		}
	}
	for l := range g.mapUsed {
		if e.mapWrote[l] || g.mapWrote[l] && e.mapUsed[l] {
			return false
		}
	}
	for l := range g.chans {
		if e.chans[l] || e.made[l] {
			return false
		}
	}
	for l := range g.made {
		if e.chans[l] {
			return false
		}
	}
	return !e.cancels || len(g.chans) == 0
}

// sectionEffects returns what critical section k (with the sections
// nested in it) did.
func (c *checker) sectionEffects(k int) *effects {
	if e, ok := c.effs[k]; ok {
		return e
	}
	e := &effects{}
	s := c.g.Sections()[k]
	for _, i := range c.secEvents(s) {
		e.add(c, i)
	}
	if c.effs == nil {
		c.effs = make(map[int]*effects)
	}
	c.effs[k] = e
	return e
}

// secEvents returns the events of section s's goroutine from its Lock to
// its Unlock (to the goroutine's end if it was not released).
func (c *checker) secEvents(s hb.Section) []int {
	evs := c.g.Goroutines[s.G].Events
	from, _ := slices.BinarySearch(evs, s.Begin)
	to := len(evs)
	if s.End >= 0 {
		to, _ = slices.BinarySearch(evs, s.End+1)
	}
	return evs[from:to]
}

// extentCommutes reports whether setter k, a critical section whose
// function takes locks at other sites too, is alone against section
// other as far as the rest of its goroutine goes: everything the
// goroutine did outside its sections taken at k's Lock site commutes with
// other (effects.commutesWith: every section of any function it ran,
// and every access outside sections, atomics and map operations
// included, touches nothing that other writes and writes nothing that
// other touches), and no section of it after its last section at k's
// Lock site before k is other's counterpart in another update
// (anotherCall: k's call compared the state before it set it, as the
// board's Update does, and other is another update's comparison, which
// may find it unchanged and stop; a comparison after the set is no check
// that the set acts on). The trace has no calls, so the extent of k's
// call is not known; the goroutine's events hold it, with the other
// goroutines' events that fall between its first and its last
// (sandwiched: a goroutine it started and waited for). Its other
// sections at k's own Lock site may be other calls of k's operation or
// steps of k's call (a loop that counts, then sets): each must commute
// with other but for the locations k writes too (a loop of one call
// that sets the same locations twice is taken for two calls, as alone
// takes a one-site function's repeats: pastRepeats). pubsub's recvMessages sets the time of the server's
// last response under pingMu, then reads and sets the exactly-once
// setting under eoMu; its receiving goroutine touches neither time
// elsewhere, so checkServer, which reads both in one section, falls
// before the set or after it, whole. Review A's three updates of the
// thirty-first stop are not alone: the count that the getter reads
// with the time is taken in a callee's section, by an atomic outside any
// section, or by a map write into the map the getter ranges over.
func (c *checker) extentCommutes(k, other int) bool {
	secs := c.g.Sections()
	s := secs[k]
	site := c.g.Events[s.Begin].Site
	rest, got := c.restOf(s.G, site), c.sectionEffects(other)
	if rest == nil || !rest.commutesWith(got) {
		return false
	}
	own := c.secsOf[s.G]
	mine := c.sectionEffects(k).written
	for _, n := range own {
		if int(n) != k && c.g.Events[secs[n].Begin].Site == site && !c.sectionEffects(int(n)).commutesExcept(got, mine) {
			// Another section at k's site, which may be a step of the
			// same call (a loop that counts, then sets): but for what
			// k sets too, it must commute with other.
			return false
		}
	}
	osite := c.g.Events[secs[other].Begin].Site
	at, _ := slices.BinarySearchFunc(own, s.Begin, func(x int32, b int) int { return secs[x].Begin - b })
	for j := at - 1; j >= 0; j-- {
		n := int(own[j])
		sn := secs[n]
		if within(s, sn) {
			continue
		}
		if c.g.Events[sn.Begin].Site == site {
			break
		}
		if c.g.Events[sn.Begin].Site != osite && !c.touches(sn, got) {
			// sameCheck needs one Lock site or one footprint.
			continue
		}
		if c.anotherCall(n, other) {
			return false
		}
	}
	return true
}

// touches reports whether section s (with the sections nested in it)
// touches a location that e touched.
func (c *checker) touches(s hb.Section, e *effects) bool {
	for _, i := range c.secEvents(s) {
		if isAccess(c.g.Events[i].Kind) && e.touched[c.addrLoc(i)] {
			return true
		}
	}
	return false
}

// restOf returns what goroutine g did outside its sections taken at Lock
// site site (with the sections nested in them), and what the other
// goroutines did between its first event and its last (sandwiched);
// nil if that is more than maxExtent events of g's or of the others'.
func (c *checker) restOf(g int, site uint32) *effects {
	key := restKey{g, site}
	if e, ok := c.rests[key]; ok {
		return e
	}
	var e *effects
	if evs := c.g.Goroutines[g].Events; len(evs) <= maxExtent {
		e = &effects{}
		secs := c.g.Sections()
		skip := -1 // the last event of the section at site being skipped
		var at []int32
		for _, n := range c.secsOf[g] {
			if c.g.Events[secs[n].Begin].Site == site {
				at = append(at, n)
			}
		}
		for _, i := range evs {
			if len(at) > 0 && i == secs[at[0]].Begin {
				end := secs[at[0]].End
				if end < 0 {
					end = evs[len(evs)-1]
				}
				skip = max(skip, end)
				at = at[1:]
			}
			if i <= skip {
				continue
			}
			e.add(c, i)
		}
		if !c.sandwiched(e, g) {
			e = nil
		}
	}
	if c.rests == nil {
		c.rests = make(map[restKey]*effects)
	}
	c.rests[key] = e
	return e
}

// sandwiched adds to e the events of the other goroutines that happen
// after goroutine g's first event and before its last: work that g
// handed out and waited for (a goroutine it started and joined, a worker
// it asked and heard back from), which is part of g's calls as much as
// its own events are. Each goroutine's such events are one run of its
// events (what follows g's first event is a suffix of them, what precedes
// its last a prefix). It reports false if they come to more than
// maxExtent events.
func (c *checker) sandwiched(e *effects, g int) bool {
	evs := c.g.Goroutines[g].Events
	if len(evs) == 0 {
		return true
	}
	first, last := evs[0], evs[len(evs)-1]
	n := 0
	for h := range c.g.Goroutines {
		hevs := c.g.Goroutines[h].Events
		if h == g || len(hevs) == 0 {
			continue
		}
		lo, _ := slices.BinarySearchFunc(hevs, true, func(i int, _ bool) int {
			if c.g.HappensBefore(first, i) {
				return 1
			}
			return -1
		})
		hi, _ := slices.BinarySearchFunc(hevs, true, func(i int, _ bool) int {
			if c.g.HappensBefore(i, last) {
				return -1
			}
			return 1
		})
		if n += max(hi-lo, 0); n > maxExtent {
			return false
		}
		for _, i := range hevs[lo:max(lo, hi)] {
			e.add(c, i)
		}
	}
	return true
}

// restKey names a goroutine and a Lock site, for restOf.
type restKey struct {
	g    int
	site uint32
}

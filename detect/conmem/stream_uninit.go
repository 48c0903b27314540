package conmem

import (
	"fmt"
	"slices"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// maxInits bounds the goroutines' first inits that CheckStream keeps per
// location for con-uninit: past it the location's reads are not decided
// (StreamStats.UninitUnchecked), for a read is reported only when it is
// concurrent with every other goroutine's first init.
const maxInits = 1 << 14

// maxPending bounds the first uses per location that no init was found
// ordered with yet: past it the oldest is dropped, undecided.
const maxPending = 1024

// uninitLoc is what CheckStream keeps of one location (memory, an atomic
// pointer, a WaitGroup life) for con-uninit, uninit.go's checks streamed:
// each goroutine's first init, and the goroutines' first uses that no
// init has been found ordered with yet. A use is decided at the end of the
// location (the walk's, or its state's drop): an init that comes after it
// refutes it when the use happens before it, one before it when it
// happens before the use, so that what is left at the end is concurrent
// with every init, and the rest of uninitLoc's tests then ask only of the
// inits kept.
type uninitLoc struct {
	wg     bool
	inits  []*sacc       // each goroutine's first init, in trace order
	initOf map[int]*sacc // goroutine -> its first init
	// lost is set when a goroutine's first init past maxInits was not
	// kept: no use of the location is decided.
	lost    bool
	last    *sacc    // the init that refuted the last use (refute's first try after the parents')
	pending []*uread // first uses not refuted yet, in trace order

	// A WaitGroup's Adds that start its count at zero and its Waits
	// (addWait), each at most maxKept, and per pair of their sites the
	// first pair found concurrent, reported at the end in the order of
	// Check's walk (by Wait, then Add).
	counter int64
	starts  []*sacc
	waits   []*uread
	late    map[sitePair][2]*sacc
}

// A uread is a goroutine's first use of a location as con-uninit keeps it,
// with what its checks ask of the goroutine's events before it.
type uread struct {
	*sacc
	prev     hb.EventRef   // its goroutine's event before it (no Ctx if none)
	joined   []hb.EventRef // the subtests its goroutine joined just before it
	switches []*switchRead
	// done is set once an init ordered with it was found, or its
	// goroutine wrote the location after it (its running state).
	done bool
}

// A sectionStart is, for a write in a critical section, the section's
// newest Lock and the value its location held before the section began
// (Graph.Changed's value before k).
type sectionStart struct {
	held  *hb.Held
	value uint64
}

// uninitAccess takes an access of a memory, atomic or WaitGroup location
// for con-uninit, before the other checks see it: its initializing write
// (a non-nil value, a positive Add) and its use (a read or atomic load, a
// Done or negative Add) as uninitLoc sees them, and a WaitGroup's Adds,
// Dones and Waits as addWait does.
func (s *streamChecker) uninitAccess(l *locState, a *sacc, st *hb.Step) {
	initK, useK := trace.EvWrite, trace.EvRead
	switch l.key.cat {
	case catAtom:
		initK, useK = trace.EvAtomicStore, trace.EvAtomicLoad
	case catWG:
		initK, useK = trace.EvWGAdd, trace.EvWGDone
	}
	wg := l.key.cat == catWG
	o := s.own(l, a)
	delta := int64(a.value) // a WaitGroup Add's
	isInit := a.Kind == initK && (!wg && a.value != 0 || wg && delta > 0)
	isUse := a.Kind == useK || wg && a.Kind == trace.EvWGAdd && delta < 0
	if l.key.cat == catMem && a.Kind == initK && a.value == 0 && !o.wroteInit && len(l.zeros) < maxZeros {
		l.zeros = append(l.zeros, a) // its goroutine's first write (reinitialized)
	}
	u := l.uninit
	if u == nil {
		if !wg && !isInit && !isUse {
			o.wroteInit = true // a zero write, all there is to keep of it
			return
		}
		u = &uninitLoc{wg: wg}
		l.uninit = u
	}
	if a.Kind == initK && !wg && o.pend != nil {
		// It writes the location itself after its first read: the
		// location is its running state (uninitLoc's lastW).
		o.pend.done, o.pend = true, nil
	}
	if isInit && u.initOf[a.g()] == nil {
		s.addInit(u, a)
	}
	if isUse && !o.used {
		o.used = true
		ev := trace.Event{Kind: a.Kind, Site: a.Site}
		if (useK != trace.EvAtomicLoad || s.used(&ev, useDeref)) && !o.wroteInit {
			s.addUse(u, o, a, st)
		}
	}
	if a.Kind == initK {
		o.wroteInit = true
	}
	if u.wg {
		s.waitGroup(u, a, delta, st)
	}
}

// addInit keeps a, its goroutine's first init of the location: the
// pending uses it follows in happens-before are refuted.
func (s *streamChecker) addInit(u *uninitLoc, a *sacc) {
	n := 0
	for _, p := range u.pending {
		if !p.done && p.g() != a.g() && s.ordered(a, p) {
			p.done = true
		}
		if !p.done {
			u.pending[n] = p
			n++
		}
	}
	clear(u.pending[n:])
	u.pending = u.pending[:n]
	if len(u.inits) >= maxInits {
		u.lost = true
		return
	}
	u.inits = append(u.inits, a)
	if u.initOf == nil {
		u.initOf = make(map[int]*sacc)
	}
	u.initOf[a.g()] = a
}

// addUse takes a, its goroutine's first use of the location, not after a
// write of its own: refuted now if an init before it happens before it
// (refute's test without the budget), pending otherwise.
func (s *streamChecker) addUse(u *uninitLoc, o *ownAccesses, a *sacc, st *hb.Step) {
	p := &uread{sacc: a, prev: st.Prev, joined: slices.Clone(st.Joined), switches: s.switchReads(a)}
	try := func(w *sacc) bool {
		if w.g() != a.g() && s.ordered(w, p) {
			u.last = w
			return true
		}
		return false
	}
	tried := 0
	for q := s.parentOf(a.g()); q >= 0 && tried < 8; q = s.parentOf(q) {
		if w := u.initOf[q]; w != nil {
			tried++
			if try(w) {
				return
			}
		}
	}
	if u.last != nil && try(u.last) {
		return
	}
	for i := len(u.inits) - 1; i >= 0; i-- {
		if try(u.inits[i]) {
			return
		}
	}
	if len(u.pending) >= maxPending {
		u.pending[0].done = true
		u.pending = slices.Delete(u.pending, 0, 1)
		s.uninitUnchecked++
	}
	u.pending = append(u.pending, p)
	if !u.wg {
		o.pend = p
	}
}

// ordered is refute's test of init w against use p: p happens before w,
// or w before p without p's own acquire for an atomic load (see
// uninitState.acquired), or before a subtest p's goroutine joined at p.
// Both directions are asked whatever the trace's order of the two: a
// send's receive recorded before it orders events against the trace's
// order.
func (s *streamChecker) ordered(w *sacc, p *uread) bool {
	at := hb.EventRef{Index: p.Index, Ctx: p.Ctx}
	if p.Kind == trace.EvAtomicLoad && p.prev.Ctx != nil {
		at = p.prev
	}
	return before(p.sacc, w) || hb.Before(w.Ctx, w.Index, at.Ctx, at.Index) || beforeJoined(w, p.joined)
}

// beforeJoined is checker.beforeJoined on a kept access and the subtests
// joined at an event.
func beforeJoined(a *sacc, joined []hb.EventRef) bool {
	return slices.ContainsFunc(joined, func(e hb.EventRef) bool {
		return e.Index == a.Index || hb.Before(a.Ctx, a.Index, e.Ctx, e.Index)
	})
}

// waitGroup is addWait streamed: a WaitGroup's Add that starts the count
// at zero against the Waits before it (concurrent unless the Wait happens
// before it), a Wait against the starting Adds before it (concurrent
// unless one happens before the Wait's goroutine's event before it or a
// subtest it joined there).
func (s *streamChecker) waitGroup(u *uninitLoc, a *sacc, delta int64, st *hb.Step) {
	switch a.Kind {
	case trace.EvWGAdd:
		if u.counter == 0 && delta > 0 {
			for _, w := range u.waits {
				if !w.ordered(a) {
					s.latePair(u, w.sacc, a)
				}
			}
			keep(s, &u.starts, a)
		}
		u.counter += delta
	case trace.EvWGDone:
		u.counter--
	case trace.EvWGWait:
		w := &uread{sacc: a, prev: st.Prev, joined: slices.Clone(st.Joined)}
		for _, x := range u.starts {
			if !w.ordered(x) {
				s.latePair(u, a, x)
			}
		}
		keep(s, &u.waits, w)
	}
}

// ordered is addWait's test of the Wait w against the Add a that starts
// the count: of one goroutine, or the Wait happens before the Add, or the
// Add before the Wait's goroutine's event before it or a subtest it
// joined there (in either order of the trace, as ordered).
func (w *uread) ordered(a *sacc) bool {
	return a.g() == w.g() || before(w.sacc, a) || w.prev.Ctx != nil && hb.Before(a.Ctx, a.Index, w.prev.Ctx, w.prev.Index) || beforeJoined(a, w.joined)
}

// latePair keeps the Wait w and the Add a as their sites' pair unless an
// earlier pair of theirs (by the Wait, then the Add) is kept.
func (s *streamChecker) latePair(u *uninitLoc, w, a *sacc) {
	if u.late == nil {
		u.late = make(map[sitePair][2]*sacc)
	}
	k := sitePair{finding.ConUninit, w.Site, a.Site}
	if old, ok := u.late[k]; ok && (old[0].Index < w.Index || old[0].Index == w.Index && old[1].Index < a.Index) {
		return
	}
	u.late[k] = [2]*sacc{w, a}
}

// flushUninit decides the location's pending uses, at its end, by the
// rest of uninitLoc's tests, and reports them and the Wait-Add pairs.
//
// zeros are the location's first writes of zero by their goroutines, at
// most maxZeros (reinitialized).
func (s *streamChecker) flushUninit(u *uninitLoc, zeros []*sacc) {
	readRole, initRole := finding.RoleRead, finding.RoleInit
	if u.wg {
		readRole, initRole = finding.RoleDone, finding.RoleAdd
	}
	var initSites map[uint32]bool // the inits' sites, made once, for reinitialized
	for _, p := range u.pending {
		if p.done {
			continue
		}
		if u.lost {
			s.uninitUnchecked++
			continue
		}
		own := u.initOf[p.g()]
		if len(u.inits) == 1 && own != nil || !s.related(u, p.g()) || !u.wg && s.lockedWithAll(u, p.sacc) {
			continue
		}
		var remote []*sacc
		for _, w := range u.inits {
			if w != own {
				remote = append(remote, w)
			}
		}
		if slices.ContainsFunc(remote, func(w *sacc) bool { return w.Index < p.Index && s.switchedAfter(p, w) }) {
			continue
		}
		if initSites == nil && len(zeros) > 0 {
			initSites = make(map[uint32]bool, len(u.inits))
			for _, w := range u.inits {
				initSites[w.Site] = true
			}
		}
		if slices.ContainsFunc(zeros, func(w *sacc) bool {
			return reinitialized(w.Index < p.Index, w.g() != p.g(), initSites[w.Site], func() bool { return hb.Before(w.Ctx, w.Index, p.Ctx, p.Index) })
		}) {
			continue
		}
		roles := []streamRole{{a: p.sacc, role: readRole}}
		sites := make(map[uint32]bool)
		for _, w := range remote {
			if !sites[w.Site] {
				sites[w.Site] = true
				roles = append(roles, streamRole{a: w, role: initRole})
			}
		}
		if u.wg {
			s.report(finding.ConUninit,
				fmt.Sprintf("%s.Done in %s may run before %s calls Add, making the counter negative; the Add should come before the go statement that starts %s",
					s.expr(p.sacc), s.fn(p.sacc), s.fn(remote[0]), s.fn(p.sacc)),
				roles, "the Done is concurrent with every other goroutine's Add")
			continue
		}
		s.report(finding.ConUninit,
			fmt.Sprintf("%s may be read by %s before %s initializes it; the initialization should happen before the go statement or be published to the reader",
				s.expr(p.sacc), s.fn(p.sacc), s.fn(remote[0])),
			roles, "the read is concurrent with every other goroutine's first write of a non-zero value, and its goroutine wrote none before it")
	}
	u.pending = nil
	pairs := make([][2]*sacc, 0, len(u.late))
	for _, pr := range u.late {
		pairs = append(pairs, pr)
	}
	slices.SortFunc(pairs, func(x, y [2]*sacc) int {
		if x[0].Index != y[0].Index {
			return x[0].Index - y[0].Index
		}
		return x[1].Index - y[1].Index
	})
	for _, pr := range pairs {
		w, a := pr[0], pr[1]
		// Keyed by the Wait's role, apart from the Done-Add findings
		// at the same sites (Check's siteKey has the roles).
		k := sitePair{finding.RoleWait, w.Site, a.Site}
		if s.pairs[k] {
			continue
		}
		s.pairs[k] = true
		s.report(finding.ConUninit,
			fmt.Sprintf("%s.Wait in %s may return before %s calls Add with the counter at zero, and so before the work it counts; the Add should come before the go statement that starts %s",
				s.expr(w), s.fn(w), s.fn(a), s.fn(a)),
			[]streamRole{{a: w, role: finding.RoleWait}, {a: a, role: finding.RoleAdd}}, "the Add that starts the count is concurrent with the Wait")
	}
	u.late = nil
}

// related is uninitState.related: an init's goroutine started goroutine
// gi, directly or not, or was started by it.
func (s *streamChecker) related(u *uninitLoc, gi int) bool {
	for q := s.parentOf(gi); q >= 0; q = s.parentOf(q) {
		if u.initOf[q] != nil {
			return true
		}
	}
	for _, w := range u.inits {
		for q := s.parentOf(w.g()); q >= 0; q = s.parentOf(q) {
			if q == gi {
				return true
			}
		}
	}
	return false
}

// lockedWithAll is uninitState.locked: r shares a lock, in modes that
// exclude each other, with every init.
func (s *streamChecker) lockedWithAll(u *uninitLoc, r *sacc) bool {
	for _, w := range u.inits {
		if !commonLock(r, w) {
			return false
		}
	}
	return true
}

// switchedAfter is checker.switchedAfter for the init w before the use p:
// a read i of p's goroutine before p that switches p's branch, in a
// critical section of a lock that w's section, begun before i, also
// holds (one of them to write), found the value w's section left there
// (its last write of i's location before i is that section's), which
// differs from the value before the section began. The value before the
// section is known when the section's newest Lock at that write is w's
// section's (sectionStart): another's is not looked for.
func (s *streamChecker) switchedAfter(p *uread, w *sacc) bool {
	for _, sr := range p.switches {
		for _, l := range sr.Ctx.Locks {
			hw := openLock(w.Ctx, l.Addr)
			if hw == nil || hw.Index >= sr.Index || !excludes(w.Ctx.Locks, l) {
				continue
			}
			last := sr.lastW
			if last == nil || last.g() != w.g() || openLock(last.Ctx, l.Addr) != hw || last.pre == nil || last.pre.held != hw {
				continue
			}
			if last.pre.value != last.value {
				return true
			}
		}
	}
	return false
}

// parentOf returns the dense index of the goroutine that started g, -1 if
// none was recorded.
func (s *streamChecker) parentOf(g int) int {
	if g < len(s.parents) {
		return s.parents[g]
	}
	return -1
}

// noteParent keeps the parent of the step's goroutine, which related
// asks of goroutines the walk has passed.
func (s *streamChecker) noteParent(st *hb.Step) {
	g := st.Ctx.G
	for len(s.parents) <= g {
		s.parents = append(s.parents, -1)
	}
	s.parents[g] = st.Parent
}

// sectionStartOf returns the sectionStart of the write a of location l,
// made before l.last is a: nil when a holds no lock, or when the value
// before its newest Lock's section is not known (another goroutine wrote
// the location after that Lock, before a; or the location's state was
// dropped before, if any was).
func (s *streamChecker) sectionStartOf(l *locState, a *sacc) *sectionStart {
	h := a.Ctx.Held
	if h == nil {
		return nil
	}
	p := l.last
	switch {
	case p == nil && s.locDropped == 0:
		return &sectionStart{held: h}
	case p == nil:
		return nil
	case p.Index < h.Index:
		return &sectionStart{held: h, value: p.value}
	case p.g() == a.g() && p.pre != nil && p.pre.held == h:
		return p.pre
	}
	return nil
}

package hb

// flat_test.go is the happens-before walk as it was before clocks became
// persistent trees (clock.go): flat vector clocks, copied whole at every
// release and snapshot. TestFlatDifferential checks that the two give the
// same order, clocks and snapshots on random traces and on the kernels'
// recordings; delete this file with that test once the flat clocks are
// no longer worth comparing against. A rule added to analyze.go that the
// random traces exercise needs its twin here.

import (
	"slices"
	"strings"

	"github.com/precog-dev/precog/shim/trace"
)

type flatVC []uint32

func (v flatVC) Get(g int) uint32 {
	if g < len(v) {
		return v[g]
	}
	return 0
}

func (v *flatVC) join(w flatVC) bool {
	changed := false
	if len(w) > len(*v) {
		*v = append(*v, make(flatVC, len(w)-len(*v))...)
	}
	for i, x := range w {
		if x > (*v)[i] {
			(*v)[i] = x
			changed = true
		}
	}
	return changed
}

type flatGraph struct {
	Events     []trace.Event
	Goroutines []Goroutine

	g        []int32
	own      []uint32
	snap     []int32
	lockset  []int32
	epoch    []uint64
	gen      []uint32
	clocks   []flatVC
	locksets [][]Lock
	sections []Section
	Vars     []string
	varOf    map[uint32]uint32
}

func (g *flatGraph) HappensBefore(a, b int) bool {
	ga := g.g[a]
	if ga == g.g[b] {
		return a < b
	}
	return g.own[a] <= g.clocks[g.snap[b]].Get(int(ga))
}

func (g *flatGraph) Clock(i int) flatVC {
	c := slices.Clone(g.clocks[g.snap[i]])
	gi := int(g.g[i])
	if gi >= len(c) {
		c = append(c, make(flatVC, gi+1-len(c))...)
	}
	c[gi] = g.own[i]
	return c
}

func (g *flatGraph) ClockKey(i int) uint64 { return uint64(uint32(g.snap[i]))<<32 | uint64(g.own[i]) }

// flatRecentStores is how many stores per atomic address an atomic load can be
// matched with.
const flatRecentStores = 8

// flatAnalyze computes the order and lock sets of events, which must be in the
// global order (trace.ReadAll and trace.Sort produce it).
func flatAnalyze(events []trace.Event, opts Options) *flatGraph {
	a := &flatAnalyzer{
		flatGraph: &flatGraph{
			Events:  events,
			g:       make([]int32, len(events)),
			own:     make([]uint32, len(events)),
			snap:    make([]int32, len(events)),
			lockset: make([]int32, len(events)),
			epoch:   make([]uint64, len(events)),
		},
		opts:      opts,
		byID:      make(map[uint64]int),
		forks:     make(map[uint64]flatFork),
		sync:      make(map[uint64]flatVC),
		groups:    make(map[uint64][]int),
		tests:     make(map[string]int),
		subtests:  make(map[string]flatVC),
		onces:     make(map[uint64]flatVC),
		stores:    make(map[uint64][]flatStore),
		edgeFrom:  make(map[int]flatVC),
		edgesTo:   make(map[int][]int),
		lockIndex: map[string]int32{"": 0},
		unlocked:  make(map[uint64]flatVC),
		runlocked: make(map[uint64]flatVC),
		atomics:   make(map[uint64]flatVC),
	}
	a.clocks = []flatVC{nil}
	a.Vars = []string{""}
	a.varOf = make(map[uint32]uint32)
	if opts.Sites != nil {
		index := map[string]uint32{"": 0}
		for _, s := range opts.Sites.Sites {
			if s.Kind != "read" && s.Kind != "write" {
				continue
			}
			name := siteVar(s.Expr)
			v, ok := index[name]
			if !ok {
				v = uint32(len(a.Vars))
				index[name] = v
				a.Vars = append(a.Vars, name)
			}
			a.varOf[s.ID] = v
		}
	}
	a.locksets = [][]Lock{nil}
	for _, e := range opts.Edges {
		if e.From >= 0 && e.From < e.To && e.To < len(events) {
			a.edgesTo[e.To] = append(a.edgesTo[e.To], e.From)
			a.edgeFrom[e.From] = nil
		}
	}
	a.chans = flatMatchChannels(events, opts.Sites)
	a.latest = make(map[uint64]int)
	a.endedID = make(map[uint64]bool)
	for i, ev := range events {
		a.latest[ev.Goroutine] = i
		a.endedID[ev.Goroutine] = ev.Kind == trace.EvEnd
	}
	if opts.LockOrder {
		a.condUnlocks = flatCondUnlocks(events)
	}
	a.lateStores = flatMatchLateStores(events)
	for i := range events {
		a.event(i)
	}
	return a.flatGraph
}

// flatGstate is a goroutine's state during the walk.
type flatGstate struct {
	vc      flatVC // current clock, own component included
	snap    int32  // index in clocks of a copy of vc taken after its last acquire; -1 when vc changed since
	held    []Lock
	lockset int32
	epoch   uint64
	open    []int // indices in sections of its open sections, innermost last
	ended   bool
	test    string // the test it runs, from its last EvTestStart
	// parentTest is its test's parent's name, "" for a top-level test.
	parentTest string
	// pending are receives whose clock the goroutine acquires at its next
	// event: the completion of its last send.
	pending []flatChanOp
	// unrecv are its unbuffered sends whose receive is not in the
	// trace, whose candidates' clocks its next event acquires.
	unrecv []int
	bubble *flatBubble // the synctest flatBubble it runs in, nil outside bubbles
	events int         // how many events it has had, GC epoch events aside
	// runKids are the subtests that ended while it waited in T.Run,
	// not joined yet; runParent is 1 + the dense index of the parent
	// test's goroutine of the subtest it runs, and runMark that
	// goroutine's events when the subtest started.
	runKids   []int
	runParent int
	runMark   int
}

type flatFork struct {
	vc     flatVC
	event  int
	bubble *flatBubble
}

// flatBubble is a testing/synctest flatBubble during the walk (see "Bubbles" in
// the package doc).
type flatBubble struct {
	// stamps hold, per goroutine of the flatBubble, the clock at its latest
	// reading of the flatBubble's clock before it may block (EvSleep, EvClock)
	// that the flatBubble's clock has not passed yet, with the time read.
	// Virtual time stands still while a goroutine runs, so a goroutine has
	// at most one such reading pending.
	stamps []flatStamp
	// before joins the clocks of the stamps the clock has passed: what
	// every goroutine of the flatBubble did before time passed.
	before flatVC
	passed uint64
	// members are the dense indices of the flatBubble's goroutines, in the
	// order they were first seen, ended ones included.
	members []int
}

type flatStamp struct {
	g  int
	at uint64
	vc flatVC
}

type flatStore struct {
	value uint64
	vc    flatVC
}

type flatAnalyzer struct {
	*flatGraph
	opts  Options
	gs    []*flatGstate
	byID  map[uint64]int    // logical id -> dense index of its latest goroutine
	made  map[uint64]uint32 // maps and channels made so far, per address (EvMapMake, EvChanMake)
	forks map[uint64]flatFork
	// sync holds the release clocks of WaitGroups, Conds and closed
	// flatChannels, keyed by address; a channel's close clock is keyed by
	// its flatChanOp id so that a channel made again at the same address
	// starts afresh.
	sync     map[uint64]flatVC
	groups   map[uint64][]int // task group address -> dense indices of its tasks
	onces    map[uint64]flatVC
	stores   map[uint64][]flatStore
	edgeFrom map[int]flatVC // release clocks of the From events of extra edges
	edgesTo  map[int][]int
	chans    *flatChannels
	// latest is each logical id's latest event, endedID whether that
	// is an EvEnd.
	latest  map[uint64]int
	endedID map[uint64]bool
	// lateStores maps an atomic load to the flatStore it read, when that
	// flatStore comes after it in the trace (see flatMatchLateStores).
	lateStores map[int]int
	tests      map[string]int    // test name -> dense index of the goroutine running it
	subtests   map[string]flatVC // test name -> join of the clocks of its ended subtests
	lockIndex  map[string]int32
	// unlocked and runlocked hold, with Options.LockOrder, the join of
	// the clocks of a mutex's Unlocks and of its RUnlocks.
	unlocked, runlocked map[uint64]flatVC
	// flatCondUnlocks are, with Options.LockOrder, the events after which a
	// Cond.Wait unlocked its mutex (see flatCondUnlocks).
	condUnlocks map[int]bool
	// atomics holds, with Options.LockOrder, the join of the clocks of
	// every atomic flatStore to an address.
	atomics map[uint64]flatVC
}

// flatCondUnlocks finds, for each EvCondWait (recorded when Wait returned),
// the previous event of its goroutine that is not an EvGCEpoch (recorded
// after Wait returned, when a collection came during it): Wait unlocked the Cond's mutex
// after it, and another goroutine's Lock may have come between.
func flatCondUnlocks(events []trace.Event) map[int]bool {
	last := make(map[uint64]int) // goroutine -> index of its last event
	out := make(map[int]bool)
	for i, ev := range events {
		if ev.Kind == trace.EvCondWait {
			if p, ok := last[ev.Goroutine]; ok {
				out[p] = true
			}
		}
		if ev.Kind != trace.EvGCEpoch {
			last[ev.Goroutine] = i
		}
	}
	return out
}

// goroutine returns the dense index of event i's goroutine, making a new
// one for a first event or for an EvBegin of a logical id whose goroutine
// ended.
func (a *flatAnalyzer) goroutine(i int) int {
	ev := &a.Events[i]
	gi, ok := a.byID[ev.Goroutine]
	if ok && !(ev.Kind == trace.EvBegin && (a.gs[gi].ended || len(a.Goroutines[gi].Events) > 0)) {
		return gi
	}
	gi = len(a.Goroutines)
	a.byID[ev.Goroutine] = gi
	a.Goroutines = append(a.Goroutines, Goroutine{ID: ev.Goroutine, Parent: -1, Fork: -1})
	st := &flatGstate{snap: -1}
	if f, ok := a.forks[ev.Goroutine]; ok {
		// The parent's clock at the go statement, a copy made for the
		// child, becomes the child's.
		delete(a.forks, ev.Goroutine)
		a.Goroutines[gi].Fork = f.event
		if p, ok := a.byID[a.Events[f.event].Goroutine]; ok {
			a.Goroutines[gi].Parent = p
		}
		st.vc = f.vc
		st.bubble = f.bubble
		if f.bubble != nil {
			f.bubble.members = append(f.bubble.members, gi)
		}
		if fe := a.Events[f.event]; fe.Kind == trace.EvTaskGo {
			a.groups[fe.Addr] = append(a.groups[fe.Addr], gi)
		}
	}
	if len(st.vc) <= gi {
		st.vc = append(st.vc, make(flatVC, gi+1-len(st.vc))...)
	}
	st.vc[gi] = 1
	a.gs = append(a.gs, st)
	return gi
}

// timePassed is goroutine gi's reading of its flatBubble's clock at time t:
// every stamp of the flatBubble taken at an earlier time is before it (see
// "Bubbles" in the package doc).
func (a *flatAnalyzer) timePassed(gi int, b *flatBubble, t uint64) {
	if t < b.passed {
		// The trace's order follows virtual time within a flatBubble (a
		// goroutine reads the clock and takes its seq while it runs, and
		// the clock stands still while one runs); a reading that went
		// back is not trusted to order anything.
		return
	}
	b.passed = t
	b.stamps = slices.DeleteFunc(b.stamps, func(s flatStamp) bool {
		if s.at < t {
			b.before.join(s.vc)
			return true
		}
		return false
	})
	a.acquire(gi, b.before)
}

// stamp records goroutine gi's clock at its reading t of the flatBubble's
// clock before it may block, for the readings of later times.
func (a *flatAnalyzer) stamp(gi int, b *flatBubble, t uint64) {
	c := flatStamp{g: gi, at: t, vc: a.release(gi)}
	for k := range b.stamps {
		if b.stamps[k].g == gi {
			// Its earlier pending reading is of the same time (an
			// earlier one was passed when its clock moved on) and
			// its clock holds less.
			b.stamps[k] = c
			return
		}
	}
	b.stamps = append(b.stamps, c)
}

// isTask reports whether goroutine gi runs a task of a group (EvTaskGo),
// whose end the group's TaskWait acquires.
func (a *flatAnalyzer) isTask(gi int) bool {
	f := a.Goroutines[gi].Fork
	return f >= 0 && a.Events[f].Kind == trace.EvTaskGo
}

// release returns a copy of goroutine gi's clock for a sync object and
// advances the goroutine's own component, so that its later events are not
// ordered before whoever acquires the copy.
func (a *flatAnalyzer) release(gi int) flatVC {
	st := a.gs[gi]
	c := slices.Clone(st.vc)
	st.vc[gi]++
	return c
}

func (a *flatAnalyzer) acquire(gi int, c flatVC) {
	st := a.gs[gi]
	own := st.vc[gi]
	if st.vc.join(c) {
		st.vc[gi] = own
		st.snap = -1
	}
}

func (a *flatAnalyzer) event(i int) {
	ev := &a.Events[i]
	gi := a.goroutine(i)
	st := a.gs[gi]

	// Acquires, before the event.
	for _, k := range st.runKids {
		a.acquire(gi, a.release(k))
	}
	st.runKids = st.runKids[:0]
	if ev.Kind != trace.EvGCEpoch {
		st.events++
	}
	keep := st.pending[:0]
	for _, op := range st.pending {
		vc, reached := a.chans.recvClock(a, op)
		a.acquire(gi, vc)
		if !reached {
			keep = append(keep, op)
		}
	}
	st.pending = keep
	for _, s := range st.unrecv {
		a.acquireUnrecv(gi, s)
	}
	st.unrecv = st.unrecv[:0]
	for _, from := range a.edgesTo[i] {
		if c := a.edgeFrom[from]; c != nil {
			a.acquire(gi, c)
		}
	}
	switch ev.Kind {
	case trace.EvGCEpoch:
		st.epoch = ev.Value
	case trace.EvTestStart:
		a.testStart(gi, ev.Name)
	case trace.EvBubble:
		st.bubble = &flatBubble{members: []int{gi}}
	case trace.EvSleep, trace.EvWake, trace.EvClock, trace.EvSyncWait:
		if b := st.bubble; b != nil {
			a.timePassed(gi, b, ev.Value)
			if ev.Kind == trace.EvSyncWait {
				// Every other goroutine of the flatBubble is durably
				// blocked or ended: all it recorded so far came
				// before this return.
				for _, m := range b.members {
					if m != gi {
						a.acquire(gi, a.release(m))
					}
				}
			}
		}
	case trace.EvWGWait, trace.EvCondWait:
		a.acquire(gi, a.sync[ev.Addr])
		if ev.Kind == trace.EvCondWait && a.opts.LockOrder {
			// Wait locked its mutex again before it returned.
			for _, l := range st.held {
				a.acquire(gi, a.unlocked[l.Addr])
				if l.Mode == Write {
					a.acquire(gi, a.runlocked[l.Addr])
				}
			}
		}
	case trace.EvTaskWait:
		for _, c := range a.groups[ev.Addr] {
			if a.gs[c].ended {
				a.acquire(gi, a.sync[flatEndKey(c)])
			}
		}
	case trace.EvOnceDo:
		if c, ok := a.onces[ev.Addr]; ok {
			a.acquire(gi, c)
		}
	case trace.EvAtomicStore:
		if a.opts.LockOrder {
			// A read-modify-write (Add, Swap, CompareAndSwap) reads
			// the stores before it in the word's modification order;
			// the trace does not tell it from a plain Store, which
			// this over-orders.
			a.acquire(gi, a.atomics[ev.Addr])
		}
	case trace.EvAtomicLoad:
		if j, ok := a.lateStores[i]; ok {
			// The flatStore this load read took its seq after the load
			// did; its goroutine's clock now holds everything before
			// the flatStore.
			a.acquire(gi, a.current(j))
			break
		}
		ss := a.stores[ev.Addr]
		if ev.Site == 0 {
			// A compare-and-swap's load (shim's casEvent): a
			// read-modify-write reads the word's latest store, so
			// it acquires that one or, when the value differs (the
			// store it read is not in the trace), none: an older
			// store of the same value is not the one it read.
			if n := len(ss); n > 0 && ss[n-1].value == ev.Value {
				a.acquire(gi, ss[n-1].vc)
			}
			break
		}
		for k := len(ss) - 1; k >= 0; k-- {
			if ss[k].value == ev.Value {
				a.acquire(gi, ss[k].vc)
				break
			}
		}
	case trace.EvChanRecv, trace.EvSelect:
		if op, ok := a.chans.ops[i]; ok && !op.send {
			if op.closed {
				if c, ok := a.sync[flatCloseKey(op.ch)]; ok {
					a.acquire(gi, c)
				} else {
					// Closed where nothing was recorded: by a
					// context's cancel, as far as the trace knows.
					a.acquire(gi, a.sync[flatCancelKey])
				}
			} else {
				a.acquire(gi, a.chans.sendClock(a, op))
			}
		}
	case trace.EvLock, trace.EvRLock, trace.EvTryLock:
		if ev.Kind != trace.EvTryLock || ev.Value != 0 {
			if a.opts.LockOrder {
				// Another goroutine holding it for writing
				// unlocked it unrecorded (a Cond.Wait), after
				// its last event.
				for o, other := range a.gs {
					if o != gi && slices.Contains(other.held, Lock{Addr: ev.Addr, Mode: Write}) {
						c := a.unlocked[ev.Addr]
						c.join(other.vc)
						a.unlocked[ev.Addr] = c
						other.vc[o]++
					}
				}
			}
			a.lock(i, gi, ev)
			if a.opts.LockOrder {
				a.acquire(gi, a.unlocked[ev.Addr])
				if a.tryMode(ev) == Write {
					a.acquire(gi, a.runlocked[ev.Addr])
				}
			}
		}
	}

	// The event itself.
	if st.snap < 0 {
		st.snap = int32(len(a.clocks))
		a.clocks = append(a.clocks, slices.Clone(st.vc))
	}
	a.g[i] = int32(gi)
	a.own[i] = st.vc[gi]
	a.snap[i] = st.snap
	a.lockset[i] = st.lockset
	a.epoch[i] = st.epoch
	switch ev.Kind {
	case trace.EvMapMake, trace.EvChanMake:
		if a.made == nil {
			a.made = make(map[uint64]uint32)
			a.gen = make([]uint32, len(a.Events))
		}
		a.made[ev.Addr]++
	case trace.EvMapRead, trace.EvMapWrite, trace.EvMapIter,
		trace.EvChanSend, trace.EvChanRecv, trace.EvChanClose, trace.EvSelect:
		if a.made != nil {
			a.gen[i] = a.made[ev.Addr]
		}
	}
	a.Goroutines[gi].Events = append(a.Goroutines[gi].Events, i)

	// Releases, after it.
	if _, ok := a.edgeFrom[i]; ok {
		a.edgeFrom[i] = a.release(gi)
	}
	if a.condUnlocks[i] {
		// The goroutine's next event is a Cond.Wait's return: Wait
		// unlocked the mutex after this event. Which of the held locks
		// is the Cond's the trace does not say; all of them are
		// released (an order too many may hide a race, never invent
		// one).
		for _, l := range st.held {
			m := a.unlocked
			if l.Mode == Read {
				m = a.runlocked
			}
			c := m[l.Addr]
			c.join(st.vc)
			m[l.Addr] = c
		}
		st.vc[gi]++
	}
	switch ev.Kind {
	case trace.EvFork, trace.EvTaskGo:
		a.forks[ev.Peer] = flatFork{vc: a.release(gi), event: i, bubble: st.bubble}
	case trace.EvSleep, trace.EvClock:
		if b := st.bubble; b != nil {
			a.stamp(gi, b, ev.Value)
		}
	case trace.EvTestEnd:
		if a.tests[st.test] == gi {
			delete(a.tests, st.test)
		}
		if p := st.parentTest; p != "" {
			c := a.subtests[p]
			c.join(st.vc)
			a.subtests[p] = c
			st.vc[gi]++
		}
		if p := st.runParent - 1; p >= 0 {
			st.runParent = 0
			if a.gs[p].events == st.runMark {
				a.gs[p].runKids = append(a.gs[p].runKids, gi)
			}
		}
	case trace.EvEnd:
		st.ended = true
		if a.isTask(gi) {
			a.sync[flatEndKey(gi)] = a.release(gi)
		}
	case trace.EvWGDone, trace.EvWGAdd, trace.EvCondSignal, trace.EvCondBroadcast:
		if ev.Kind == trace.EvWGAdd && ev.Arg >= 0 {
			break
		}
		c := a.sync[ev.Addr]
		c.join(st.vc)
		a.sync[ev.Addr] = c
		st.vc[gi]++
	case trace.EvOnceDo:
		if _, ok := a.onces[ev.Addr]; !ok {
			a.onces[ev.Addr] = a.release(gi)
		}
	case trace.EvAtomicStore:
		ss := append(a.stores[ev.Addr], flatStore{value: ev.Value, vc: a.release(gi)})
		if len(ss) > flatRecentStores {
			ss = slices.Delete(ss, 0, 1)
		}
		a.stores[ev.Addr] = ss
		if a.opts.LockOrder {
			c := a.atomics[ev.Addr]
			c.join(ss[len(ss)-1].vc)
			a.atomics[ev.Addr] = c
		}
	case trace.EvChanClose:
		if op, ok := a.chans.ops[i]; ok {
			a.sync[flatCloseKey(op.ch)] = a.release(gi)
		}
	case trace.EvCancel:
		c := a.sync[flatCancelKey]
		c.join(st.vc)
		a.sync[flatCancelKey] = c
		st.vc[gi]++
	case trace.EvChanRecv, trace.EvSelect:
		op, ok := a.chans.ops[i]
		if !ok || op.closed {
			break
		}
		if !op.send {
			if a.chans.completes(op) {
				a.chans.recvVC[op] = a.release(gi)
			}
			break
		}
		a.chans.sendVC[op] = a.release(gi)
		if r, ok := a.chans.completion(op); ok {
			if ev.Kind == trace.EvSelect {
				// Recorded after the send completed.
				vc, reached := a.chans.recvClock(a, r)
				a.acquire(gi, vc)
				if !reached {
					st.pending = append(st.pending, r)
				}
			} else {
				st.pending = append(st.pending, r)
			}
		} else if a.chans.caps[op.ch] == 0 {
			a.acquireUnrecv(gi, i)
		}
	case trace.EvChanSend:
		if op, ok := a.chans.ops[i]; ok {
			a.chans.sendVC[op] = a.release(gi)
			if r, ok := a.chans.completion(op); ok {
				st.pending = append(st.pending, r)
			} else if a.chans.caps[op.ch] == 0 {
				st.unrecv = append(st.unrecv, i)
			}
		}
	case trace.EvUnlock, trace.EvRUnlock:
		a.unlock(i, gi, ev)
		if a.opts.LockOrder {
			m := a.unlocked
			if ev.Kind == trace.EvRUnlock {
				m = a.runlocked
			}
			c := m[ev.Addr]
			c.join(st.vc)
			m[ev.Addr] = c
			st.vc[gi]++
		}
	}
}

// testStart orders a subtest (named parent/sub) after what its parent test's
// goroutine did before t.Run, and after the subtests of the same parent that
// have ended: t.Run blocks until a subtest that is not parallel ends, and
// the testing package starts the next one after it; and a subtest that
// ended while its parent recorded nothing before the parent's next event
// (analyzer.testStart says why).
func (a *flatAnalyzer) testStart(gi int, name string) {
	a.gs[gi].test = name
	a.tests[name] = gi
	parent := testParent(name, a.tests)
	a.gs[gi].parentTest = parent
	if parent == "" {
		// A top-level test's goroutine is started by the testing
		// package from runtime.main's goroutine, after package
		// initialization (and TestMain's work before m.Run) there.
		if m, ok := a.byID[mainGoroutine]; ok && m != gi {
			a.acquire(gi, a.release(m))
		}
		return
	}
	if p, ok := a.tests[parent]; ok && p != gi {
		a.acquire(gi, a.release(p))
		a.gs[gi].runParent, a.gs[gi].runMark = p+1, a.gs[p].events
	}
	a.acquire(gi, a.subtests[parent])
}

// flatMatchLateStores finds the atomic loads that read a flatStore recorded after
// them. The shim takes an atomic operation's seq after the operation, so a
// flatStore can be seen by another goroutine's load, which takes its seq first.
// A load whose value is not that of the last flatStore to its address before it
// is taken to have read the first later flatStore of that value by another
// goroutine.
func flatMatchLateStores(events []trace.Event) map[int]int {
	last := make(map[uint64]uint64) // address -> value of the last flatStore so far
	var pending []int               // loads waiting for a later flatStore
	late := make(map[int]int)
	for i, ev := range events {
		switch ev.Kind {
		case trace.EvAtomicStore:
			last[ev.Addr] = ev.Value
			for k := 0; k < len(pending); {
				l := events[pending[k]]
				if l.Addr == ev.Addr && l.Value == ev.Value && l.Goroutine != ev.Goroutine {
					late[pending[k]] = i
					pending = slices.Delete(pending, k, k+1)
					continue
				}
				k++
			}
		case trace.EvAtomicLoad:
			if v, ok := last[ev.Addr]; (ok && v != ev.Value) || (!ok && ev.Value != 0) {
				pending = append(pending, i)
			}
		}
		if len(pending) > flatMaxPendingLoads {
			pending = pending[len(pending)-flatMaxPendingLoads:]
		}
	}
	return late
}

// flatMaxPendingLoads bounds the loads flatMatchLateStores keeps waiting for a
// later flatStore: a flatStore that shows up at all comes soon after.
const flatMaxPendingLoads = 64

// flatEndKey and flatCloseKey key goroutine ends and channel closes in
// flatAnalyzer.sync, apart from the addresses (which are below 1<<63 on every
// platform Go supports).
// flatCancelKey keys the join of the clocks of every call of a context's
// cancel function (EvCancel), which a receive that found a channel closed
// with no recorded close acquires.
const flatCancelKey = 1<<64 - 1

func flatEndKey(gi int) uint64   { return 1<<63 | uint64(gi)<<1 }
func flatCloseKey(ch int) uint64 { return 1<<63 | uint64(ch)<<1 | 1 }

// setLocks interns goroutine gi's held locks as its lock set.
func (a *flatAnalyzer) setLocks(gi int) {
	st := a.gs[gi]
	var b strings.Builder
	for _, l := range st.held {
		b.WriteString(flatStrconvAddr(l))
	}
	key := b.String()
	idx, ok := a.lockIndex[key]
	if !ok {
		idx = int32(len(a.locksets))
		a.lockIndex[key] = idx
		a.locksets = append(a.locksets, slices.Clone(st.held))
	}
	st.lockset = idx
}

func flatStrconvAddr(l Lock) string {
	var b [10]byte
	for k := range 8 {
		b[k] = byte(l.Addr >> (8 * k))
	}
	b[8] = byte(l.Mode)
	b[9] = ','
	return string(b[:])
}

func (a *flatAnalyzer) tryMode(ev *trace.Event) Mode {
	if ev.Kind == trace.EvRLock {
		return Read
	}
	if ev.Kind == trace.EvTryLock {
		if s, ok := a.opts.Sites.Lookup(ev.Site); ok && s.Kind == "tryrlock" {
			return Read
		}
	}
	return Write
}

func (a *flatAnalyzer) lock(i, gi int, ev *trace.Event) {
	st := a.gs[gi]
	l := Lock{Addr: ev.Addr, Mode: a.tryMode(ev)}
	parent := -1
	if n := len(st.open); n > 0 {
		parent = st.open[n-1]
	}
	st.open = append(st.open, len(a.sections))
	a.sections = append(a.sections, Section{G: gi, Lock: l, Begin: i, End: -1, Parent: parent})
	k, _ := slices.BinarySearchFunc(st.held, l, lockKey)
	st.held = slices.Insert(st.held, k, l)
	a.setLocks(gi)
}

// unlock closes the innermost open section of the lock in the unlocking
// goroutine, or, since Go lets one goroutine unlock a mutex another locked,
// in any goroutine holding it.
func (a *flatAnalyzer) unlock(i, gi int, ev *trace.Event) {
	mode := Write
	if ev.Kind == trace.EvRUnlock {
		mode = Read
	}
	if a.closeSection(i, gi, ev.Addr, mode) {
		return
	}
	for other := range a.gs {
		if other != gi && a.closeSection(i, other, ev.Addr, mode) {
			return
		}
	}
}

func (a *flatAnalyzer) closeSection(i, gi int, addr uint64, mode Mode) bool {
	st := a.gs[gi]
	for k := len(st.open) - 1; k >= 0; k-- {
		s := &a.sections[st.open[k]]
		if s.Lock.Addr != addr || s.Lock.Mode != mode {
			continue
		}
		s.End = i
		st.open = slices.Delete(st.open, k, k+1)
		l := s.Lock
		if h := slices.Index(st.held, l); h >= 0 {
			st.held = slices.Delete(st.held, h, h+1)
		}
		a.setLocks(gi)
		return true
	}
	return false
}

// A flatChanOp is a send or receive on a channel: the k-th send, or the k-th
// receive that got a value, of channel ch (an index in flatChannels.sends).
// A receive that found the channel closed has closed set and no k.
type flatChanOp struct {
	ch     int
	k      int
	send   bool
	closed bool
}

// flatChannels matches the sends and receives of the trace, per channel.
type flatChannels struct {
	ops          map[int]flatChanOp // event index -> the operation it recorded
	sends, recvs [][]int            // per channel: event indices, in order
	caps         []int              // per channel: its capacity, -1 if its make was not recorded
	// sendVC and recvVC are the release clocks of sends and receives
	// that another event will acquire, deleted when it has.
	sendVC, recvVC map[flatChanOp]flatVC
}

// flatMatchChannels numbers the channel operations of events. A channel is its
// address from one make to the next make at the same address.
func flatMatchChannels(events []trace.Event, sites *trace.SiteTable) *flatChannels {
	c := &flatChannels{ops: make(map[int]flatChanOp), sendVC: make(map[flatChanOp]flatVC), recvVC: make(map[flatChanOp]flatVC)}
	current := make(map[uint64]int) // address -> channel
	channel := func(addr uint64) int {
		ch, ok := current[addr]
		if !ok {
			ch = len(c.sends)
			current[addr] = ch
			c.sends = append(c.sends, nil)
			c.recvs = append(c.recvs, nil)
			c.caps = append(c.caps, -1)
		}
		return ch
	}
	for i, ev := range events {
		var send bool
		switch ev.Kind {
		case trace.EvChanMake:
			delete(current, ev.Addr)
			c.caps[channel(ev.Addr)] = int(ev.Value)
			continue
		case trace.EvChanSend:
			send = true
		case trace.EvChanRecv:
		case trace.EvSelect:
			if ev.Arg < 0 || ev.Addr == 0 {
				continue
			}
			send = flatCaseIsSend(sites, ev.Site, int(ev.Arg))
		case trace.EvChanClose:
			c.ops[i] = flatChanOp{ch: channel(ev.Addr), k: -1}
			continue
		default:
			continue
		}
		ch := channel(ev.Addr)
		switch {
		case send:
			c.ops[i] = flatChanOp{ch: ch, k: len(c.sends[ch]), send: true}
			c.sends[ch] = append(c.sends[ch], i)
		case ev.Value == 0:
			c.ops[i] = flatChanOp{ch: ch, k: -1, closed: true}
		default:
			c.ops[i] = flatChanOp{ch: ch, k: len(c.recvs[ch])}
			c.recvs[ch] = append(c.recvs[ch], i)
		}
	}
	return c
}

// flatCaseIsSend reports whether case index of the select at site is a send,
// from the site table's Cases ("r", "s" or "d" per case).
func flatCaseIsSend(sites *trace.SiteTable, site uint32, index int) bool {
	s, ok := sites.Lookup(site)
	return ok && index < len(s.Cases) && s.Cases[index] == 's'
}

// completes reports whether some send's completion waits for receive r.
func (c *flatChannels) completes(r flatChanOp) bool {
	return c.caps[r.ch] >= 0 && r.k+c.caps[r.ch] < len(c.sends[r.ch])
}

// completion returns the receive that send s waits for before it
// completes: the (k-cap)-th.
func (c *flatChannels) completion(s flatChanOp) (flatChanOp, bool) {
	k := s.k - c.caps[s.ch]
	if c.caps[s.ch] < 0 || k < 0 || k >= len(c.recvs[s.ch]) {
		return flatChanOp{}, false
	}
	return flatChanOp{ch: s.ch, k: k}, true
}

// sendClock returns the clock that receive r acquires from its send: the
// send's release clock, or, for a select's send case that the trace records
// after the send completed and so after this receive, the sender's clock
// before that select. nil if the send was not recorded.
func (c *flatChannels) sendClock(a *flatAnalyzer, r flatChanOp) flatVC {
	s := flatChanOp{ch: r.ch, k: r.k, send: true}
	if vc, ok := c.sendVC[s]; ok {
		delete(c.sendVC, s)
		return vc
	}
	if r.k >= len(c.sends[r.ch]) {
		return nil
	}
	return a.current(c.sends[r.ch][r.k])
}

// recvClock returns the clock of receive r that the completion of a send
// acquires: r's release clock, or, if the walk has not reached r, the
// receiver's clock now, which holds every event of the receiver before r.
func (c *flatChannels) recvClock(a *flatAnalyzer, r flatChanOp) (vc flatVC, reached bool) {
	if vc, ok := c.recvVC[r]; ok {
		delete(c.recvVC, r)
		return vc, true
	}
	return a.current(c.recvs[r.ch][r.k]), false
}

// current returns the clock, now, of the goroutine of event i, which the
// walk has not reached; nil if that goroutine has not started.
func (a *flatAnalyzer) current(i int) flatVC {
	gi, ok := a.byID[a.Events[i].Goroutine]
	if !ok {
		return nil
	}
	return slices.Clone(a.gs[gi].vc)
}

// acquireUnrecv joins into goroutine gi's clock, for an unbuffered send
// at event i whose receive is not in the trace, the clock of every
// goroutine that has no End and no event from i on.
func (a *flatAnalyzer) acquireUnrecv(gi, i int) {
	for id, l := range a.latest {
		if l < i && !a.endedID[id] {
			a.acquire(gi, a.current(l))
		}
	}
}

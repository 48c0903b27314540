package hb

import (
	"math"
	"slices"
	"strings"

	"github.com/precog-dev/precog/shim/trace"
)

// recentStores is how many stores per atomic address an atomic load can be
// matched with.
const recentStores = 8

// Analyze computes the order and lock sets of events, which must be in the
// global order (trace.ReadAll and trace.Sort produce it).
func Analyze(events []trace.Event, opts Options) *Graph {
	a := newAnalyzer(&Graph{Events: events, seg: make([]uint32, len(events)), opts: opts}, opts)
	edges := opts.Edges
	if !opts.LockOrder && !opts.NoTakes {
		// With LockOrder the mutex orders a take already.
		takes := takeEdges(events, a.varOf, a.ptr)
		a.takes = len(takes)
		edges = append(takes, edges...)
	}
	for _, e := range edges {
		if e.From >= 0 && e.From < e.To && e.To < len(events) {
			a.edgesTo[e.To] = append(a.edgesTo[e.To], e.From)
			a.edgeFrom[e.From] = vclock{}
		}
	}
	if !opts.LockOrder && !opts.NoHandedLocks {
		a.handed, a.adopts = handedLocks(events, a.tryMode)
	}
	for i := range events {
		a.ahead(i)
	}
	a.eof = true
	for i := range events {
		a.event(i)
	}
	a.WordsUntracked = a.words.untracked
	return a.Graph
}

// setGen sets event i's Loc.Gen to n.
func (a *analyzer) setGen(i int, n uint32) {
	if a.gen == nil {
		a.gen = make([]uint32, len(a.Events))
	}
	a.gen[i] = n
}

// newAnalyzer returns an analyzer that fills g.
func newAnalyzer(g *Graph, opts Options) *analyzer {
	a := &analyzer{
		Graph:     g,
		tk:        &tokens{budget: visitBudget},
		opts:      opts,
		byID:      make(map[uint64]int),
		forks:     make(map[uint64]fork),
		sync:      make(map[uint64]vclock),
		groups:    make(map[uint64][]int),
		tests:     make(map[string]int),
		subtests:  make(map[string]vclock),
		onces:     make(map[uint64]vclock),
		stores:    make(map[uint64][]store),
		edgeFrom:  make(map[int]vclock),
		edgesTo:   make(map[int][]int),
		lockIndex: map[string]int32{"": 0},
		unlocked:  make(map[uint64]*lockClock),
		runlocked: make(map[uint64]vclock),
		atomics:   make(map[uint64]vclock),
		pools:     make(map[poolKey]pooled),
	}
	a.clocks = []snapshot{{}}
	a.Vars = []string{""}
	a.varOf = make(map[uint32]uint32)
	a.ptr = make(map[uint32]bool)
	ptr := a.ptr
	if opts.Sites != nil {
		index := map[string]uint32{"": 0}
		for _, s := range opts.Sites.Sites {
			if s.Kind != "read" && s.Kind != "write" {
				continue
			}
			if s.Kind == "read" && s.Used(trace.UsePointer) {
				ptr[s.ID] = true
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
	a.chans = newChannels(opts.Sites)
	a.condUnlocks = make(map[int]bool)
	a.writers = make(map[uint64][]int32)
	a.lastOf = make(map[uint64]latestEvent)
	a.late = newLateStores()
	a.lateStores = a.late.late
	return a
}

// ahead runs the matches that look ahead of the walk (channel operations,
// late stores, Cond.Wait unlocks) over event i, which must come after
// every event they saw before; the walk reaches i after them.
func (a *analyzer) ahead(i int) {
	ev := a.ev(i)
	a.chans.add(i, ev)
	a.late.add(i, ev)
	if a.opts.LockOrder && ev.Kind == trace.EvCondWait {
		if l, ok := a.lastOf[ev.Goroutine]; ok && l.i >= 0 {
			a.condUnlocks[l.i] = true
		}
	}
	l := latestEvent{i: i, any: i, end: ev.Kind == trace.EvEnd}
	if ev.Kind == trace.EvGCEpoch {
		// A goroutine's EvGCEpoch is recorded at its next event after
		// a collection, so one that waited in Cond.Wait across a
		// collection records it after Wait returned, before the
		// EvCondWait: Wait unlocked the mutex before both, after the
		// goroutine's event before them (fasthttp's streamPipe: the
		// writer waiting for room and the reader's section between,
		// reported as races on p.count and p.head when the unlock was
		// placed after the EvGCEpoch, past the reader's relock).
		l.i = -1
		if p, ok := a.lastOf[ev.Goroutine]; ok {
			l.i = p.i
		}
	}
	a.lastOf[ev.Goroutine] = l
}

// ev returns event i: from the trace's events, or from Stream's window.
func (a *analyzer) ev(i int) *trace.Event {
	if a.ring != nil {
		return &a.ring[i%len(a.ring)]
	}
	return &a.Events[i]
}

// gstate is a goroutine's state during the walk.
type gstate struct {
	handed []Lock // locks its parent handed it, opened at its first event
	vc     vclock // current clock, its own component kept apart (vclock.g)
	snap   int32  // index in clocks of a copy of vc taken after its last acquire; -1 when vc changed since
	// base is the latest of its snapshots that holds a tree of its own
	// (hasBase says whether there is one); see analyzer.snapshot.
	base    snapshot
	hasBase bool
	// from is 1 + the dense index of the goroutine whose clock it last
	// acquired news from, 0 if none.
	from    int32
	seg     int32 // index in segs of the segment of its latest event; -1 before its first
	held    []Lock
	lockset int32
	epoch   uint64
	open    []openSection // its open sections, innermost last
	ended   bool
	test    string // the test it runs, from its last EvTestStart
	// parentTest is the name of its test's parent test (see testParent),
	// "" for a top-level test.
	parentTest string
	// pending are receives whose clock the goroutine acquires at its next
	// event: the completion of its last send.
	pending []chanOp
	bubble  *bubble // the synctest bubble it runs in, nil outside bubbles
	events  int     // how many events it has had, GC epoch events aside
	task    bool    // it runs a task of a group (EvTaskGo)
	// runKids are the subtests T.Run started for it (EvBegin with it as
	// parent and no EvFork) that it has not joined yet, and the named
	// subtests that ended while it waited in T.Run (see testStart).
	runKids []int
	// joined are the last events of the subtests (and bubble
	// goroutines) joinRunKids acquired since its last event, which its
	// next event keeps in Graph.joins (see Graph.Joined).
	joined []int32
	// runParent is 1 + the dense index of the goroutine of the parent
	// test of the subtest it runs, 0 if none, and runMark that
	// goroutine's events when the subtest started.
	runParent int
	runMark   int
	// start is the clock it began with, a copy: its go statement's
	// (or T.Run's) for its descendants that code precog does not
	// instrument started (EvBelow); the zero clock if none.
	start vclock
	// marks are its clocks at its first mark at each site (EvMark), for
	// the goroutines that code precog does not instrument created during
	// a call from the mark's line (EvAfter); nil until its first.
	marks map[uint32]vclock

	// Stream's per-goroutine state (see stream.go).
	awaiting []chanOp // sends whose completing receive had not come when the walk passed them
	snapVC   vclock   // the copy of vc taken after its last acquire
	locks    []Lock   // held, shared with the Contexts made since the last change
	stack    *Frame
	openLk   *Held
	ctx      *Context // the Context of its events until its clock, locks, epoch or stack change
	last     EventRef // its last event (no Ctx before its first)
	joinedAt []EventRef
}

type fork struct {
	vc     vclock
	event  int
	bubble *bubble
	parent uint64 // the logical id of the goroutine that forked
	task   bool   // an EvTaskGo
	group  uint64 // its task group's address
	site   uint32
}

// bubble is a testing/synctest bubble during the walk (see "Bubbles" in
// the package doc).
type bubble struct {
	// stamps hold, per goroutine of the bubble, the clock at its latest
	// reading of the bubble's clock before it may block (EvSleep, EvClock)
	// that the bubble's clock has not passed yet, with the time read.
	// Virtual time stands still while a goroutine runs, so a goroutine has
	// at most one such reading pending.
	stamps []stamp
	// before joins the clocks of the stamps the clock has passed: what
	// every goroutine of the bubble did before time passed.
	before vclock
	passed uint64
	// members are the dense indices of the bubble's goroutines, in the
	// order they were first seen, ended ones included.
	members []int
}

type stamp struct {
	g  int
	at uint64
	vc vclock
}

type store struct {
	value uint64
	vc    vclock
}

type analyzer struct {
	*Graph
	opts Options
	tk   *tokens
	ptr  map[uint32]bool // read sites of pointer-shaped values
	// ring is Stream's window of events, nil for Analyze.
	ring []trace.Event
	// eof is set when every event has been seen by ahead: a match not
	// found then will not come.
	eof    bool
	lastOf map[uint64]latestEvent // logical id -> its latest events seen by ahead
	unrecv *unrecvCands           // built from lastOf once every event has been seen (see unrecvClock)
	late   *lateStores
	// Stream's walk: what it counts, and the visitor of its events.
	stream *streamState
	gs     []*gstate
	byID   map[uint64]int    // logical id -> dense index of its latest goroutine
	made   map[uint64]uint32 // maps and channels made so far, per address (EvMapMake, EvChanMake)
	words  words             // the field generations (EvNew)
	forks  map[uint64]fork
	// handed holds the locks each fork hands its child (handedLocks);
	// nil in Stream, which cannot look ahead for the child's Unlock.
	handed map[int][]Lock
	// adopts holds, by logical id, the locks goroutines adopt and have
	// not adopted yet (handedLocks); nil in Stream, as handed.
	adopts map[uint64][]adoption
	// sync holds the release clocks of WaitGroups, Conds and closed
	// channels, keyed by address; a channel's close clock is keyed by
	// its chanOp id so that a channel made again at the same address
	// starts afresh.
	sync     map[uint64]vclock
	groups   map[uint64][]int // task group address -> dense indices of its tasks
	onces    map[uint64]vclock
	stores   map[uint64][]store
	edgeFrom map[int]vclock // release clocks of the From events of extra edges
	edgesTo  map[int][]int
	// taker matches hand-offs as the walk comes to them (Stream without
	// LockOrder or NoTakes; Analyze matches them before its walk).
	taker *taker
	chans *channels
	// lateStores maps an atomic load to the store it read, when that
	// store comes after it in the trace (see matchLateStores).
	lateStores map[int]int
	tests      map[string]int    // name of a test that has not ended -> dense index of the goroutine running it
	subtests   map[string]vclock // test name -> join of the clocks of its ended subtests
	lockIndex  map[string]int32
	// unlocked and runlocked hold, with Options.LockOrder, the join of
	// the clocks of a mutex's Unlocks and of its RUnlocks.
	unlocked  map[uint64]*lockClock
	runlocked map[uint64]vclock
	// condUnlocks are, with Options.LockOrder, the events after which a
	// Cond.Wait unlocked its mutex: for each EvCondWait (recorded when
	// Wait returned), the previous event of its goroutine (ahead finds
	// them). Wait unlocked the Cond's mutex after it, and another
	// goroutine's Lock may have come between.
	condUnlocks map[int]bool
	// writers are, with Options.LockOrder, the goroutines that hold each
	// mutex for writing, by its address (see releaseWaiting).
	writers map[uint64][]int32
	// atomics holds, with Options.LockOrder, the join of the clocks of
	// every atomic store to an address: the latest store's, which
	// acquired the join before it.
	atomics map[uint64]vclock
	// pools holds the release clock of the latest Put of each object to
	// each sync.Pool that no Get has returned yet.
	pools map[poolKey]pooled
}

// A lockClock is the join of a mutex's Unlocks (analyzer.unlocked), and
// who holds the mutex since it acquired that join.
type lockClock struct {
	vc vclock
	// holder is 1 + the dense index of the goroutine whose write Lock
	// (or TryLock) acquired vc, if vc has not changed since; 0 if none.
	// That goroutine's Unlock releases a clock that already holds vc,
	// so the join of the two is its release clock, which the zero clock
	// takes without a walk, where a join into vc would walk what the
	// holder learned inside its section, at every Unlock (yamux's
	// streamed check spent 13% of its CPU there).
	holder int32
}

// unlockedClock returns the join of the Unlocks of the mutex at addr.
func (a *analyzer) unlockedClock(addr uint64) vclock {
	if lc := a.unlocked[addr]; lc != nil {
		return lc.vc
	}
	return vclock{}
}

// unlockedBy joins c, goroutine gi's release at an Unlock of the mutex at
// addr (gi -1 for a release that is not an Unlock), into the join of the
// mutex's Unlocks.
func (a *analyzer) unlockedBy(addr uint64, gi int, c vclock) {
	lc := a.unlocked[addr]
	if lc == nil {
		lc = new(lockClock)
		a.unlocked[addr] = lc
	}
	if gi >= 0 && lc.holder == int32(gi)+1 {
		// The join is c: started again from the zero clock, which
		// becomes c without a walk (and stays an accumulator that
		// later releases join into; c itself, a release copy, must not
		// be one).
		lc.vc = vclock{}
	}
	a.add(&lc.vc, c)
	lc.holder = 0
}

// poolKey is an object in a sync.Pool: its address and the pool's.
type poolKey struct{ obj, pool uint64 }

// pooled is a Put waiting for the Get that returns its object.
type pooled struct {
	vc    vclock
	epoch uint64 // the GC epoch of the Put's goroutine
}

// goroutine returns the dense index of event i's goroutine, making a new
// one for a first event or for an EvBegin of a logical id whose goroutine
// ended.
func (a *analyzer) goroutine(i int) int {
	ev := a.ev(i)
	gi, ok := a.byID[ev.Goroutine]
	if ok && !(ev.Kind == trace.EvBegin && (a.gs[gi].ended || a.gs[gi].events > 0)) {
		if ev.Kind == trace.EvBegin && a.Goroutines[gi].Fork < 0 && a.Goroutines[gi].Parent < 0 {
			// The shim records a garbage collection's EvGCEpoch
			// before the first event of a goroutine that begins
			// after it, so a subtest's EvBegin naming its parent
			// can come second.
			if p, ok := a.byID[ev.Peer]; ok && ev.Peer != trace.NoParent {
				a.runKid(gi, p)
				a.gs[gi].start = a.release(p)
				a.acquire(gi, a.gs[gi].start)
			}
		}
		return gi
	}
	gi = len(a.Goroutines)
	a.byID[ev.Goroutine] = gi
	a.Goroutines = append(a.Goroutines, Goroutine{ID: ev.Goroutine, Parent: -1, Fork: -1})
	st := &gstate{snap: -1, seg: -1}
	if f, ok := a.forks[ev.Goroutine]; ok {
		// The parent's clock at the go statement, a copy made for the
		// child, becomes the child's.
		delete(a.forks, ev.Goroutine)
		a.Goroutines[gi].Fork = f.event
		if p, ok := a.byID[f.parent]; ok {
			a.Goroutines[gi].Parent = p
		}
		st.vc, st.start = f.vc, f.vc
		st.handed = a.handed[f.event]
		st.bubble = f.bubble
		if f.bubble != nil {
			f.bubble.members = append(f.bubble.members, gi)
		}
		if f.task {
			st.task = true
			a.groups[f.group] = append(a.groups[f.group], gi)
		}
		if a.stream != nil {
			a.stream.spawn = append(a.stream.spawn, f.site)
		}
	} else {
		if p, ok := a.byID[ev.Peer]; ok && ev.Kind == trace.EvBegin && ev.Peer != trace.NoParent {
			// No go statement: a subtest that testing.T.Run started
			// for code that is not instrumented (see "Subtests" in
			// the package doc). Its parent, blocked in Run, joined
			// the subtests it started before, and hands on all it
			// knows.
			a.runKid(gi, p)
			st.vc = a.release(p)
			st.start = st.vc
		}
		if a.stream != nil {
			a.stream.spawn = append(a.stream.spawn, 0)
		}
	}
	st.vc = a.tk.newClock(st.vc, gi, 1)
	a.gs = append(a.gs, st)
	return gi
}

// runKid makes goroutine gi the next subtest that testing.T.Run started
// for goroutine p, after the ones it started before: the caller then hands
// p's clock to gi.
func (a *analyzer) runKid(gi, p int) {
	a.Goroutines[gi].Parent = p
	a.joinRunKids(p)
	a.gs[p].runKids = append(a.gs[p].runKids, gi)
}

// joinRunKids acquires into goroutine gi the clocks of the subtests that
// testing.T.Run started for it since it last did: each ended, or paused in
// t.Parallel until gi's test function returns, before gi went on.
//
// A kid that began a testing/synctest bubble (its EvBubble) is the
// function synctest.Test ran for gi, and Test returned only once every
// goroutine of the bubble had ended: gi acquires all of them.
func (a *analyzer) joinRunKids(gi int) {
	st := a.gs[gi]
	for _, k := range st.runKids {
		a.acquire(gi, a.release(k))
		a.noteJoined(st, k)
		if b := a.gs[k].bubble; b != nil && len(b.members) > 0 && b.members[0] == k {
			for _, m := range b.members[1:] {
				a.acquire(gi, a.release(m))
				a.noteJoined(st, m)
			}
		}
	}
	st.runKids = st.runKids[:0]
}

// noteJoined keeps, for st's next event, the last event of goroutine k
// that joinRunKids joined into st (Stream keeps no goroutine's events
// but the last's index and context).
func (a *analyzer) noteJoined(st *gstate, k int) {
	if a.stream != nil {
		if ks := a.gs[k]; ks.last.Ctx != nil {
			st.joinedAt = append(st.joinedAt, ks.last)
		}
		return
	}
	if evs := a.Goroutines[k].Events; len(evs) > 0 {
		st.joined = append(st.joined, int32(evs[len(evs)-1]))
	}
}

// timePassed is goroutine gi's reading of its bubble's clock at time t:
// every stamp of the bubble taken at an earlier time is before it (see
// "Bubbles" in the package doc).
func (a *analyzer) timePassed(gi int, b *bubble, t uint64) {
	if t < b.passed {
		// The trace's order follows virtual time within a bubble (a
		// goroutine reads the clock and takes its seq while it runs, and
		// the clock stands still while one runs); a reading that went
		// back is not trusted to order anything.
		return
	}
	b.passed = t
	b.stamps = slices.DeleteFunc(b.stamps, func(s stamp) bool {
		if s.at < t {
			a.add(&b.before, s.vc)
			return true
		}
		return false
	})
	a.acquire(gi, b.before)
}

// stamp records goroutine gi's clock at its reading t of the bubble's
// clock before it may block, for the readings of later times.
func (a *analyzer) stamp(gi int, b *bubble, t uint64) {
	c := stamp{g: gi, at: t, vc: a.release(gi)}
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
func (a *analyzer) isTask(gi int) bool { return a.gs[gi].task }

// The operations the rules use on clocks (vclock, clock.go): release
// (copy a goroutine's clock for a sync object and increment its own
// component), acquire (join a stored clock into a goroutine's), add and
// addTo (join a clock into a stored one, for a sync object that
// accumulates releases) and current (a copy of a goroutine's clock without
// the increment). Every clock stored outside a gstate is a copy, which
// nothing changes in place: store what release, current or add give.

// release returns a copy of goroutine gi's clock for a sync object and
// advances the goroutine's own component, so that its later events are not
// ordered before whoever acquires the copy.
func (a *analyzer) release(gi int) vclock {
	st := a.gs[gi]
	c := st.vc.copy(a.tk)
	c.final = true
	st.vc.inc()
	st.ctx = nil
	return c
}

// acquire joins c, a copy, into goroutine gi's clock.
func (a *analyzer) acquire(gi int, c vclock) {
	st := a.gs[gi]
	if st.vc.join(c, a.tk) {
		st.snap = -1
		if c.hasG {
			st.from = c.g + 1
		}
	}
	if c.taint && !st.vc.taint {
		st.vc.taint = true
		st.snap = -1
	}
}

// add joins c, a copy, into the stored clock *dst, which stays a copy.
func (a *analyzer) add(dst *vclock, c vclock) {
	dst.join(c, a.tk)
	dst.taint = dst.taint || c.taint
	*dst = dst.copy(a.tk)
}

// addTo joins c, a copy, into m[k].
func addTo[K comparable](a *analyzer, m map[K]vclock, k K, c vclock) {
	d := m[k]
	a.add(&d, c)
	m[k] = d
}

// completeSends acquires, at goroutine gi's event, the receives that its
// sends waited for (st.pending). A receive the walk has not reached gives
// its goroutine's clock now, and stays pending until the walk has passed
// it: the shim records a send when it arrives and the sender's accesses
// after it with that send's seq, so a sender's next events can come in the
// trace's order before the receive that let the send complete, and even
// before its receiver began (cron's Stop sends on an unbuffered channel,
// writes a field, and unlocks: the unlock, walked after the receive, must
// be ordered after what the receiver did before it). The accesses walked
// before the receive keep only the receiver's events before them.
//
// A receive the walk passed without keeping its clock (Stream: the send it
// completes was past the window then, a pooled channel's next send) gives
// its goroutine's clock now, once, and is dropped: more order than
// Analyze's, as for any match past the window. Kept pending, it was
// acquired again at every later event of the sender, for the rest of the
// walk: smux's TestParallel, whose writes take a result channel of
// capacity 1 from a sync.Pool, had senders with 1,569 such receives, and
// the streamed race check spent 91% of its time in them.
func (a *analyzer) completeSends(gi int) {
	st := a.gs[gi]
	keep := st.pending[:0]
	for _, op := range st.pending {
		vc, reached := a.chans.recvClock(a, op)
		a.acquire(gi, vc)
		if !reached && !a.chans.passed(op) { // the walk reaches it: it is in the trace
			keep = append(keep, op)
		}
	}
	st.pending = keep
}

func (a *analyzer) event(i int) {
	ev := a.ev(i)
	gi := a.goroutine(i)
	st := a.gs[gi]
	for _, l := range st.handed {
		a.open(i, gi, l, true)
	}
	st.handed = nil

	// Acquires, before the event.
	if len(st.runKids) > 0 {
		a.joinRunKids(gi)
	}
	if len(st.joined) > 0 {
		if a.joins == nil {
			a.joins = make(map[int][]int32)
		}
		a.joins[i] = st.joined
		st.joined = nil
	}
	a.completeSends(gi)
	for _, op := range st.awaiting {
		// A send whose receive had not come within the window when
		// the walk passed it (Stream), or an unbuffered channel's
		// send whose receive is not in the trace (eof).
		if r, ok := a.chans.completion(op); ok {
			if vc, reached := a.chans.recvClock(a, r); reached {
				a.acquire(gi, vc)
			} else {
				st.pending = append(st.pending, r)
				a.completeSends(gi)
			}
		} else if !a.eof {
			a.unsettle(gi)
		} else if a.chans.caps[op.ch] == 0 {
			a.acquire(gi, a.unrecvClock(a.chans.sendAt[op.ch][op.k]))
		}
	}
	st.awaiting = st.awaiting[:0]
	for _, from := range a.edgesTo[i] {
		a.acquire(gi, a.edgeFrom[from]) // the zero clock if From was not reached
	}
	var ended *takeSection // Stream's: a section of a hand-off's store that ends at i
	if a.taker != nil {
		var from []*takeSection
		from, ended = a.taker.step(i, ev)
		for _, f := range from {
			a.acquire(gi, f.clock)
			a.takes++
		}
	}
	switch ev.Kind {
	case trace.EvGCEpoch:
		st.epoch = ev.Value
	case trace.EvBelow:
		if p, ok := a.byID[ev.Peer]; ok {
			// A goroutine that code precog does not instrument
			// started, below goroutine p: it began after p did,
			// so after p's go statement, but maybe before what p
			// did since (the package doc's Order).
			st.start = a.gs[p].start
			a.acquire(gi, st.start)
			if b := a.gs[p].bubble; b != nil && st.bubble == nil {
				// Started from inside a synctest bubble: a
				// goroutine of it (the package doc's Bubbles).
				st.bubble = b
				b.members = append(b.members, gi)
			}
		}
	case trace.EvCreator:
		a.Goroutines[gi].Creators = append(a.Goroutines[gi].Creators, ev.Name)
	case trace.EvAfter:
		if p, ok := a.byID[ev.Peer]; ok {
			// Created during a call that p made from the line of its
			// mark at the site, after that mark (the package doc's
			// Order).
			if c, ok := a.gs[p].marks[ev.Site]; ok {
				a.acquire(gi, c)
			}
		}
	case trace.EvTestStart:
		a.testStart(gi, ev.Name)
	case trace.EvBubble:
		st.bubble = &bubble{members: []int{gi}}
	case trace.EvSleep, trace.EvWake, trace.EvClock, trace.EvSyncWait:
		if b := st.bubble; b != nil {
			a.timePassed(gi, b, ev.Value)
			if ev.Kind == trace.EvSyncWait {
				// Every other goroutine of the bubble is durably
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
				a.acquire(gi, a.unlockedClock(l.Addr))
				if l.Mode == Write {
					a.acquire(gi, a.runlocked[l.Addr])
				}
			}
		}
	case trace.EvTaskWait:
		for _, c := range a.groups[ev.Addr] {
			if a.gs[c].ended {
				a.acquire(gi, a.sync[endKey(c)])
			}
		}
	case trace.EvOnceDo:
		if c, ok := a.onces[ev.Addr]; ok {
			a.acquire(gi, c)
		}
	case trace.EvPoolGet:
		// The Put of the object Get returned, in the same GC epoch:
		// across a collection the address may be another object's
		// (the Get's New made it where a freed one was).
		k := poolKey{ev.Addr, ev.Value}
		if p, ok := a.pools[k]; ok {
			delete(a.pools, k)
			if p.epoch == st.epoch {
				a.acquire(gi, p.vc)
			}
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
			// The store this load read took its seq after the load
			// did; its goroutine's clock now holds everything before
			// the store.
			a.acquire(gi, a.current(a.ev(j).Goroutine))
			break
		}
		if !a.eof && a.late.waiting(i) {
			// Stream: the store it read may come past the window.
			a.unsettle(gi)
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
		if op, ok := a.chans.ops.at(i); ok && !op.send {
			if op.closed {
				if c, ok := a.sync[closeKey(op.ch)]; ok {
					a.acquire(gi, c)
				} else {
					// Closed where nothing was recorded: by a
					// context's cancel, as far as the trace knows.
					a.acquire(gi, a.sync[cancelKey])
				}
			} else {
				j := a.chans.pair(op.ch, op.k, uint32(ev.Peer), i)
				if p := &a.chans.pairs[op.ch]; !a.eof && (p.unsure || j < 0 || !a.chans.pairSure(i)) {
					// Its send (a select's send case,
					// recorded after it) may be past the
					// window; unless the window reached
					// pairHorizon past it, a later receive of
					// the channel may get the send this one
					// took.
					p.unsure = p.unsure || !a.chans.pairSure(i)
					a.unsettle(gi)
				}
				if j >= 0 {
					a.acquire(gi, a.chans.sendClock(a, op.ch, j))
				}
			}
		}
	case trace.EvLock, trace.EvRLock, trace.EvTryLock:
		if ev.Kind != trace.EvTryLock || ev.Value != 0 {
			if a.opts.LockOrder {
				a.releaseWaiting(gi, ev.Addr)
			}
			a.lock(i, gi, ev)
			if a.opts.LockOrder {
				lc := a.unlocked[ev.Addr]
				if lc != nil {
					a.acquire(gi, lc.vc)
				}
				if a.tryMode(ev) == Write {
					a.acquire(gi, a.runlocked[ev.Addr])
					if lc == nil {
						lc = new(lockClock)
						a.unlocked[ev.Addr] = lc
					}
					lc.holder = int32(gi) + 1
				}
			}
		}
	}

	// A lock adopted from the goroutine that took it, once its Lock is
	// ordered before the event: after the acquires.
	if len(a.adopts) > 0 && a.adopts[ev.Goroutine] != nil {
		a.adopt(i, gi, ev.Goroutine)
	}

	// The event itself. A GC epoch event does not count: the shim may
	// record one before its goroutine's Begin, which would otherwise
	// start a second goroutine of the id, with no go statement.
	if ev.Kind != trace.EvGCEpoch {
		st.events++
	}
	if a.stream != nil {
		a.step(i, gi, ev)
	} else {
		if st.snap < 0 {
			st.snap = int32(len(a.clocks))
			a.clocks = append(a.clocks, a.snapshot(gi))
		}
		sg := segment{g: int32(gi), own: st.vc.own, snap: st.snap, lockset: st.lockset, epoch: st.epoch}
		if st.seg < 0 || a.segs[st.seg] != sg {
			st.seg = int32(len(a.segs))
			a.segs = append(a.segs, sg)
		}
		a.seg[i] = uint32(st.seg)
		switch ev.Kind {
		case trace.EvMapMake, trace.EvChanMake:
			if a.made == nil {
				a.made = make(map[uint64]uint32)
			}
			a.made[ev.Addr]++
		case trace.EvMapRead, trace.EvMapWrite, trace.EvMapIter,
			trace.EvChanSend, trace.EvChanRecv, trace.EvChanClose, trace.EvSelect:
			if n := a.made[ev.Addr]; n != 0 {
				a.setGen(i, n)
			}
		case trace.EvNew:
			a.words.made(ev.Addr, ev.Value)
		default:
			if hasFieldGen(ev.Kind) {
				if n := a.words.touch(ev.Addr); n != 0 {
					a.setGen(i, n)
				}
			}
		}
		a.Goroutines[gi].Events = append(a.Goroutines[gi].Events, i)
	}

	// Releases, after it.
	if _, ok := a.edgeFrom[i]; ok {
		a.edgeFrom[i] = a.release(gi)
	}
	if ended != nil && ended.stored {
		// A take may come later (Stream matches them as they come,
		// Analyze before its walk): a release more than Analyze's,
		// which orders nothing by itself.
		ended.clock = a.release(gi)
	}
	if a.condUnlocks[i] || a.stream != nil && a.opts.LockOrder && len(st.held) > 0 && !a.eof && a.lastOf[ev.Goroutine].i == i {
		// (The second case: Stream's window ends at this event, and
		// a Cond.Wait of the goroutine may follow past it; released as
		// if it did, which only adds order.)
		// The goroutine's next event is a Cond.Wait's return: Wait
		// unlocked the mutex after this event. Which of the held locks
		// is the Cond's the trace does not say; all of them are
		// released (an order too many may hide a race, never invent
		// one).
		c := a.release(gi)
		for _, l := range st.held {
			if l.Mode == Read {
				addTo(a, a.runlocked, l.Addr, c)
			} else {
				a.unlockedBy(l.Addr, -1, c)
			}
		}
	}
	switch ev.Kind {
	case trace.EvFork, trace.EvTaskGo:
		for _, l := range a.handed[i] {
			a.closeSection(i, gi, l.Addr, l.Mode)
		}
		a.forks[ev.Peer] = fork{vc: a.release(gi), event: i, bubble: st.bubble,
			parent: ev.Goroutine, task: ev.Kind == trace.EvTaskGo, group: ev.Addr, site: ev.Site}
	case trace.EvMark:
		if _, ok := st.marks[ev.Site]; !ok {
			if st.marks == nil {
				st.marks = make(map[uint32]vclock)
			}
			st.marks[ev.Site] = a.release(gi)
		}
	case trace.EvSleep, trace.EvClock:
		if b := st.bubble; b != nil {
			a.stamp(gi, b, ev.Value)
		}
	case trace.EvTestEnd:
		if a.tests[st.test] == gi {
			delete(a.tests, st.test)
		}
		if st.parentTest != "" {
			addTo(a, a.subtests, st.parentTest, a.release(gi))
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
			a.sync[endKey(gi)] = a.release(gi)
		}
	case trace.EvWGDone, trace.EvWGAdd, trace.EvCondSignal, trace.EvCondBroadcast:
		if ev.Kind == trace.EvWGAdd && ev.Arg >= 0 {
			break
		}
		addTo(a, a.sync, ev.Addr, a.release(gi))
	case trace.EvOnceDo:
		if _, ok := a.onces[ev.Addr]; !ok {
			a.onces[ev.Addr] = a.release(gi)
		}
	case trace.EvPoolPut:
		if ev.Addr != 0 {
			a.pools[poolKey{ev.Addr, ev.Value}] = pooled{vc: a.release(gi), epoch: st.epoch}
		}
	case trace.EvAtomicStore:
		ss := append(a.stores[ev.Addr], store{value: ev.Value, vc: a.release(gi)})
		if len(ss) > recentStores {
			ss = slices.Delete(ss, 0, 1)
		}
		a.stores[ev.Addr] = ss
		if a.opts.LockOrder {
			// The join of every store to the word so far is this
			// store's clock: the store acquired the join of those
			// before it (above), so its release holds them all. A
			// copy, shared with the store's entry, costs nothing; a
			// join into a clock of the word's own would walk what the
			// storer learned since its last store, at every store.
			a.atomics[ev.Addr] = ss[len(ss)-1].vc
		}
	case trace.EvChanClose:
		if op, ok := a.chans.ops.at(i); ok {
			a.sync[closeKey(op.ch)] = a.release(gi)
		}
	case trace.EvCancel:
		addTo(a, a.sync, cancelKey, a.release(gi))
	case trace.EvChanRecv, trace.EvSelect:
		op, ok := a.chans.ops.at(i)
		if !ok || op.closed {
			break
		}
		if !op.send {
			if a.chans.completes(op) {
				a.chans.recvVC[op] = a.release(gi)
			}
			a.chans.walked[op.ch] = op.k + 1
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
		} else if a.chans.waits(op) && !a.eof {
			if ev.Kind == trace.EvSelect {
				a.unsettle(gi)
			} else {
				st.awaiting = append(st.awaiting, op)
			}
		} else if a.chans.caps[op.ch] == 0 {
			// A select's send case (a receive is no send) on an
			// unbuffered channel whose receive is not in the
			// trace, recorded after the send completed.
			a.acquire(gi, a.unrecvClock(i))
		}
	case trace.EvChanSend:
		if op, ok := a.chans.ops.at(i); ok {
			a.chans.sendVC[op] = a.release(gi)
			if r, ok := a.chans.completion(op); ok {
				st.pending = append(st.pending, r)
			} else if a.chans.waits(op) && (!a.eof || a.chans.caps[op.ch] == 0) {
				// Its receive is past the window, or (an unbuffered
				// channel's, eof) not in the trace: settled at the
				// sender's next event.
				st.awaiting = append(st.awaiting, op)
			}
		}
	case trace.EvUnlock, trace.EvRUnlock:
		a.unlock(i, gi, ev)
		if a.opts.LockOrder {
			if ev.Kind == trace.EvRUnlock {
				addTo(a, a.runlocked, ev.Addr, a.release(gi))
			} else {
				a.unlockedBy(ev.Addr, gi, a.release(gi))
			}
		}
	}
}

// maxDiff is how many components a snapshot holds apart from its tree.
const maxDiff = 16

// snapshot returns goroutine gi's clock now, for its events until its
// clock changes: as the goroutine's base snapshot and the components, but
// its own, in which the clock differs from it, if they are at most maxDiff;
// else as a new base, a copy of the clock. A copy is persistent, so the
// goroutine's next change of its clock copies the path to the changed
// component: where every event changes the clock (an unbuffered channel's
// sender, receiver and the goroutines they hear of, golang-set's
// Test_IterConcurrent) a copy per event kept a path per event, 1.4 GB of
// 4.0 (bench/RESULTS.md). A snapshot apart takes no copy and keeps 8 bytes
// a component, and the paths copied between two bases (for a release) are
// not kept once their clocks are acquired.
func (a *analyzer) snapshot(gi int) snapshot {
	st := a.gs[gi]
	c := &st.vc
	try := func(b snapshot) (snapshot, bool) {
		if b.depth != c.depth || len(a.diffs) > math.MaxUint32-maxDiff {
			return snapshot{}, false
		}
		off := len(a.diffs)
		if !diffTree(b.root, c.root, int(c.depth), 0, gi, &a.diffs, off+maxDiff) {
			a.diffs = a.diffs[:off]
			return snapshot{}, false
		}
		b.n, b.off = uint8(len(a.diffs)-off), uint32(off)
		return b, true
	}
	if st.hasBase {
		if s, ok := try(st.base); ok {
			return s
		}
	}
	if f := int(st.from) - 1; f >= 0 && f != gi && a.gs[f].hasBase {
		// Its clock holds what it acquired from f, whose base may
		// be close (a worker that just heard of its hub).
		if s, ok := try(a.gs[f].base); ok {
			return s
		}
	}
	cp := c.copy(a.tk)
	st.base, st.hasBase = snapshot{root: cp.root, depth: cp.depth}, true
	return st.base
}

func (a *analyzer) forget(i int) {
	a.chans.ops.seek(i + 1)
	delete(a.lateStores, i)
	delete(a.condUnlocks, i)
}

// mainGoroutine is the logical id the shim gives runtime.main's goroutine,
// which runs package initialization and starts the top-level tests.
const mainGoroutine = 0

// testStart orders a top-level test after what runtime.main's goroutine
// did before it (package initialization: a package-level pool whose
// constructor set its fields, read by the test's workers), and a subtest
// (named parent/sub) after what its parent test's goroutine did before
// t.Run, and after the subtests of the same parent that have ended: t.Run blocks until a subtest that is not parallel ends, and
// the testing package starts the next one after it. A subtest that ends
// with its parent's goroutine having recorded nothing since the subtest
// started is joined at the parent's next event: the parent waited in
// t.Run (influxdb-client-go's TestWriteAPIManagement calls Close after
// its subtests called WriteAPI). A parallel subtest, or one that another
// goroutine's t.Run started, lets the parent go on, which then records
// events, and is not joined. (The parent's accesses right after t.Run
// returns carry the seq of its last sync event before t.Run, so they stay
// unordered after the subtest until its next sync event: the trace has no
// event at t.Run's return.)
func (a *analyzer) testStart(gi int, name string) {
	a.gs[gi].test = name
	a.Goroutines[gi].Tested = true
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

// testParent returns the name of the parent test of the test named name,
// "" for a top-level test (no '/' in its name). A subtest's name is its
// parent's, a '/' and the name given to t.Run, which may hold '/' itself
// (t.Run("udp/INVITE", ...): sipgo's table tests), so the parent is the
// longest prefix ending before a '/' that names a test that has started and
// not ended (live: the tests by name that have not ended): a parent runs
// until its subtests end. With none live, it is the prefix before the last
// '/', the name's parent in the testing package's own reading.
//
// A parallel subtest X/a, paused, and its sibling X/a/b (t.Run("a/b") in X)
// would make X/a taken for X/a/b's parent; the testing package names X/a's
// own subtest b X/a/b#01 then, and the trace does not tell the two apart.
func testParent(name string, live map[string]int) string {
	k := strings.LastIndexByte(name, '/')
	if k < 0 {
		return ""
	}
	for p := name[:k]; ; {
		if _, ok := live[p]; ok {
			return p
		}
		j := strings.LastIndexByte(p, '/')
		if j < 0 {
			return name[:k]
		}
		p = p[:j]
	}
}

// lateStores finds the atomic loads that read a store recorded after
// them. The shim takes an atomic operation's seq after the operation, so a
// store can be seen by another goroutine's load, which takes its seq first.
// A load whose value is not that of the last store to its address before it
// is taken to have read the first later store of that value by another
// goroutine, within lateStoreReach events of it.
type lateStores struct {
	last    map[uint64]uint64 // address -> value of the last store so far
	pending []pendingLoad     // loads waiting for a later store, oldest first
	late    map[int]int       // load -> the store it read
}

type pendingLoad struct {
	i           int
	addr, value uint64
	g           uint64
}

func newLateStores() *lateStores {
	return &lateStores{last: make(map[uint64]uint64), late: make(map[int]int)}
}

// waiting reports whether load i still waits for its store.
func (l *lateStores) waiting(i int) bool {
	for _, p := range l.pending {
		if p.i == i {
			return true
		}
	}
	return false
}

// matchLateStores runs lateStores over events.
func matchLateStores(events []trace.Event) map[int]int {
	l := newLateStores()
	for i := range events {
		l.add(i, &events[i])
	}
	return l.late
}

func (l *lateStores) add(i int, ev *trace.Event) {
	switch ev.Kind {
	case trace.EvAtomicStore:
		l.last[ev.Addr] = ev.Value
		for k := 0; k < len(l.pending); {
			p := l.pending[k]
			if p.addr == ev.Addr && p.value == ev.Value && p.g != ev.Goroutine {
				l.late[p.i] = i
				l.pending = slices.Delete(l.pending, k, k+1)
				continue
			}
			k++
		}
	case trace.EvAtomicLoad:
		if v, ok := l.last[ev.Addr]; (ok && v != ev.Value) || (!ok && ev.Value != 0) {
			l.pending = append(l.pending, pendingLoad{i: i, addr: ev.Addr, value: ev.Value, g: ev.Goroutine})
		}
	}
	if len(l.pending) > maxPendingLoads {
		l.pending = l.pending[len(l.pending)-maxPendingLoads:]
	}
	for len(l.pending) > 0 && i-l.pending[0].i >= lateStoreReach {
		l.pending = l.pending[1:]
	}
}

// maxPendingLoads bounds the loads lateStores keeps waiting for a later
// store, and lateStoreReach how many events after a load its store may
// come: a store that shows up at all comes soon after (on raft, the
// kernels, pond and ristretto none came later at all: bench/RESULTS.md,
// "how far hb looks ahead"). A Stream whose window is at least
// lateStoreReach matches the loads as Analyze does.
const (
	maxPendingLoads = 64
	lateStoreReach  = 1 << 12
)

// endKey and closeKey key goroutine ends and channel closes in
// analyzer.sync, apart from the addresses (which are below 1<<63 on every
// platform Go supports).
// cancelKey keys the join of the clocks of every call of a context's
// cancel function (EvCancel), which a receive that found a channel closed
// with no recorded close acquires.
const cancelKey = 1<<64 - 1

func endKey(gi int) uint64   { return 1<<63 | uint64(gi)<<1 }
func closeKey(ch int) uint64 { return 1<<63 | uint64(ch)<<1 | 1 }

// setLocks interns goroutine gi's held locks as its lock set.
func (a *analyzer) setLocks(gi int) {
	st := a.gs[gi]
	if a.stream != nil {
		// Stream interns nothing: the set is shared by the Contexts
		// made until it changes.
		st.locks = slices.Clone(st.held)
		st.ctx = nil
		return
	}
	var b strings.Builder
	for _, l := range st.held {
		b.WriteString(strconvAddr(l))
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

func strconvAddr(l Lock) string {
	var b [10]byte
	for k := range 8 {
		b[k] = byte(l.Addr >> (8 * k))
	}
	b[8] = byte(l.Mode)
	b[9] = ','
	return string(b[:])
}

func (a *analyzer) tryMode(ev *trace.Event) Mode {
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

// An openSection is a critical section not yet closed: its lock and its
// index in Graph.sections (-1 in Stream, which keeps no sections).
type openSection struct {
	lock Lock
	k    int
}

func (a *analyzer) lock(i, gi int, ev *trace.Event) {
	a.open(i, gi, Lock{Addr: ev.Addr, Mode: a.tryMode(ev)}, false)
}

// open opens a section of lock l in goroutine gi at event i; handed says
// its parent handed it the lock (Section.Handed).
func (a *analyzer) open(i, gi int, l Lock, handed bool) {
	st := a.gs[gi]
	parent := -1
	if n := len(st.open); n > 0 {
		parent = st.open[n-1].k
	}
	k := -1
	if a.stream == nil {
		k = len(a.sections)
		a.sections = append(a.sections, Section{G: gi, Lock: l, Begin: i, End: -1, Parent: parent, Handed: handed})
	}
	st.open = append(st.open, openSection{lock: l, k: k})
	h, _ := slices.BinarySearchFunc(st.held, l, lockKey)
	st.held = slices.Insert(st.held, h, l)
	a.setLocks(gi)
	if l.Mode == Write && a.opts.LockOrder && !slices.Contains(a.writers[l.Addr], int32(gi)) {
		a.writers[l.Addr] = append(a.writers[l.Addr], int32(gi))
	}
}

// adopt opens, at event i of goroutine gi (logical id id), a section of
// each lock the goroutine adopts (handedLocks) whose Lock happens before
// i, and ends the locker's section there: the Lock is before i and i is
// before the adopter's Unlock in program order, so i runs while the lock
// is held, in every run in which the two goroutines synchronize as they
// did; the locker's events after i need not (it handed the lock on and
// may go on without it). Both sections are marked Handed. An adoption
// whose Unlock comes before any event ordered after its Lock (the
// hand-off went through synchronization the trace does not hold) opens
// nothing: the Unlock ends the locker's section, as unlock does.
func (a *analyzer) adopt(i, gi int, id uint64) {
	ps := a.adopts[id]
	keep := ps[:0]
	for _, p := range ps {
		if i >= p.until {
			continue
		}
		if i < p.first || i <= p.from {
			keep = append(keep, p)
			continue
		}
		sg := &a.segs[a.seg[p.from]]
		if int(sg.g) == gi || a.gs[gi].vc.get(int(sg.g)) < sg.own {
			keep = append(keep, p)
			continue
		}
		lst := a.gs[sg.g]
		for k := len(lst.open) - 1; k >= 0; k-- {
			if o := lst.open[k]; o.lock == p.lock {
				a.sections[o.k].Handed = true
				a.closeSection(i, int(sg.g), p.lock.Addr, p.lock.Mode)
				break
			}
		}
		a.open(i, gi, p.lock, true)
	}
	if len(keep) == 0 {
		delete(a.adopts, id)
	} else {
		a.adopts[id] = keep
	}
}

// releaseWaiting releases, as goroutine gi locks the mutex at addr, every
// other goroutine that holds it for writing: no Unlock of theirs is in the
// trace, so each unlocked it where the trace does not say, inside a
// Cond.Wait, after its last event. condUnlocks places that unlock when
// the Wait returns (its EvCondWait); a Wait that never returns (a waiter
// parked when the test ended: centrifuge's queues, held-out 30) records
// nothing, and its section before the Wait was unordered with every
// section of the mutex after it, races reported on accesses that both
// made holding it.
func (a *analyzer) releaseWaiting(gi int, addr uint64) {
	for _, o := range a.writers[addr] {
		if int(o) != gi {
			a.unlockedBy(addr, -1, a.release(int(o)))
		}
	}
}

// unlock closes the innermost open section of the lock in the unlocking
// goroutine, or, since Go lets one goroutine unlock a mutex another locked,
// in any goroutine holding it.
func (a *analyzer) unlock(i, gi int, ev *trace.Event) {
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

func (a *analyzer) closeSection(i, gi int, addr uint64, mode Mode) bool {
	st := a.gs[gi]
	for k := len(st.open) - 1; k >= 0; k-- {
		l := st.open[k].lock
		if l.Addr != addr || l.Mode != mode {
			continue
		}
		if s := st.open[k].k; s >= 0 {
			a.sections[s].End = i
		}
		st.open = slices.Delete(st.open, k, k+1)
		if h := slices.Index(st.held, l); h >= 0 {
			st.held = slices.Delete(st.held, h, h+1)
		}
		if mode == Write && a.opts.LockOrder && !slices.Contains(st.held, l) {
			w := slices.DeleteFunc(a.writers[addr], func(o int32) bool { return int(o) == gi })
			if len(w) == 0 {
				delete(a.writers, addr)
			} else {
				a.writers[addr] = w
			}
		}
		a.setLocks(gi)
		return true
	}
	return false
}

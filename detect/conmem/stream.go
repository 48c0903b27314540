package conmem

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/internal/streamed"
	"github.com/precog-dev/precog/shim/trace"
)

// StreamOptions configures CheckStream.
type StreamOptions struct {
	// Window is hb.StreamOptions.Window (hb.DefaultWindow if 0).
	Window int
	// MaxLocations bounds the locations (memory, maps, channels) that keep
	// state (DefaultMaxLocations if 0; negative, no bound): past it the
	// location first seen longest ago is dropped, and counted.
	MaxLocations int
	// Stats, if not nil, receives counts of what CheckStream did.
	Stats *StreamStats
}

// StreamStats counts what one CheckStream did.
type StreamStats struct {
	// Events counts the events walked.
	Events int
	// Withheld counts the findings not reported because one of their
	// events' goroutines was unsettled (hb.Context.Unsettled): the order
	// that would have pruned them may lie past the walk's window.
	Withheld int
	// LocationsDropped counts the locations whose state was dropped past
	// StreamOptions.MaxLocations (findings with their accesses missed).
	LocationsDropped int
	// Dropped counts the accesses dropped from a location's lists, each
	// of which holds the latest maxKept distinguishable accesses of its
	// role: pairs with the older ones are missed.
	Dropped int
	// UninitUnchecked counts the first reads (and WaitGroup Dones) that
	// con-uninit did not decide: their location had more initializing
	// goroutines than it keeps (maxInits), or more undecided reads
	// (maxPending). As Stats.UninitUnchecked.
	UninitUnchecked int
}

// DefaultMaxLocations is StreamOptions.MaxLocations' default: a location's
// state is a few hundred bytes when it holds a handful of accesses.
const DefaultMaxLocations = 1 << 18

// maxKept bounds each list of a location's state (its nil stores,
// dereferenced reads, index reads, writes, map accesses, closes and
// sends), as MaxInstances bounds Check's: a streamed location that passes
// it drops its oldest entry instead of being skipped.
const maxKept = 256

// maxCovers bounds the non-nil writes kept per nil store that happen after
// it (overwrittenBetween's writes): the latest are kept.
const maxCovers = 8

// CheckStream is Check on a trace too large to hold in memory: it walks
// the events that next returns in the global order (trace.OrderedReader's
// Next) with hb.Stream, without the mutexes' order as Check's graph, and
// applies five of Check's checks, con-null, con-uninit, con-closed,
// con-index and con-map, to each location's accesses as they come,
// keeping per location only what the checks ask of the past: the last
// write, each goroutine's last write and last access, the accesses of each
// role (at most maxKept, instances folded as Check folds them) and, for
// con-uninit, each goroutine's first init and the first uses not yet
// ordered with an init (stream_uninit.go), each with what a report needs,
// so that nothing refers back to the trace. A pair is judged when its
// second access comes, by Check's tests, but for con-null: a dereference
// is judged once its goroutine's next sync event came (settle: a write
// that happens before it may come after it in the trace until then, see
// checker.observed), against the nil stores before it by the two
// candidates and the writes ordered between them (the latest maxCovers of
// them), and against a nil store after it once that store's goroutine
// next writes the location (or at the end);
// con-uninit's first use when the location ends (the walk's end, or its
// state's drop), against every init kept. With a window longer than the
// trace and NoSpinLoops, its findings of these five kinds are Check's on
// a graph without locks handed at a go statement (hb.Options'
// NoHandedLocks: Stream has none), but for the validation-only witness events Check adds
// past the check before a use (a written value's next write, a loop's
// last index read), which CheckStream does not keep.
//
// Left out: the test lifetime check (every Add of a WaitGroup life
// against the test's end), the spin-loop inference (its edges are a
// second walk), and con-null's atomic accesses of a location before its
// first atomic load marked deref (Check indexes those locations from the
// whole trace first). A finding whose event's goroutine the walk marked
// unsettled is withheld and counted (StreamStats.Withheld). Past maxOpen
// dereferences waiting for their goroutines' next sync events, the oldest
// is judged with what the walk knows then. next's error other than io.EOF (trace.ErrBroken) is returned with the findings of
// the events before it.
func CheckStream(next func() (trace.Event, error), sites *trace.SiteTable, opts StreamOptions) ([]finding.Finding, error) {
	s := newStreamChecker(sites, opts)
	st, err := hb.Stream(next, hb.StreamOptions{Options: hb.Options{Sites: sites}, Window: opts.Window}, s.visit)
	for _, o := range s.open {
		s.judge(o)
	}
	s.open = nil
	for _, k := range s.order {
		if l := s.states[k]; l != nil {
			s.flush(l)
		}
	}
	slices.SortFunc(s.out, finding.Compare)
	if opts.Stats != nil {
		opts.Stats.Events += st.Events
		opts.Stats.Withheld += s.withheld
		opts.Stats.LocationsDropped += s.locDropped
		opts.Stats.Dropped += s.dropped
		opts.Stats.UninitUnchecked += s.uninitUnchecked
	}
	return s.out, err
}

// newStreamChecker returns CheckStream's checker, before its walk.
func newStreamChecker(sites *trace.SiteTable, opts StreamOptions) *streamChecker {
	s := &streamChecker{sites: sites, uses: siteUses(sites), states: make(map[stateKey]*locState), seen: make(map[string]bool), pairs: make(map[sitePair]bool), held: make(map[sitePair]bool),
		switching: switchingSites(sites), lastSwitch: make(map[int]map[uint32]*switchRead), lives: make(map[wgKey]*wgLife), openG: make(map[int][]*openRead)}
	s.maxLoc = opts.MaxLocations
	if s.maxLoc == 0 {
		s.maxLoc = DefaultMaxLocations
	}
	return s
}

type streamChecker struct {
	sites  *trace.SiteTable
	uses   []uint8
	states map[stateKey]*locState
	order  []stateKey // the locations with state, first seen first
	maxLoc int
	out    []finding.Finding
	seen   map[string]bool
	// pairs are the kinds and site pairs reported (reported's key, asked
	// at every pair the checks meet), held those withheld.
	pairs, held map[sitePair]bool
	// switching are the read sites that some site's Switches lists;
	// lastSwitch, per goroutine and such site, the goroutine's last read
	// there (switchedOff's).
	switching  map[uint32]bool
	lastSwitch map[int]map[uint32]*switchRead
	// lives are the WaitGroups' lives, by address and generation
	// (newChecker's).
	lives map[wgKey]*wgLife
	// parents are, per dense goroutine index, the goroutine that
	// started it (-1 if none).
	parents []int
	// open are the dereferences not yet judged, in the trace's order,
	// and openG, per goroutine, those not yet past its next sync event
	// (settle's).
	open  []*openRead
	openG map[int][]*openRead

	withheld, locDropped, dropped, uninitUnchecked int
}

// An openRead is a dereference waiting for its judgment: ready once its
// goroutine's next sync event came, done once judged.
type openRead struct {
	r           *sacc
	l           *locState
	ready, done bool
}

// maxOpen bounds the dereferences waiting for their judgment: past it,
// the oldest is judged with what the walk knows then.
const maxOpen = 1024

// A wgLife is a WaitGroup address's current life (see newChecker): its
// number, the latest GC epoch of its events and its counter.
type wgLife struct {
	n, epoch uint64
	count    int64
}

// A sitePair is a finding's kind and its two sites, in the order of its
// roles.
type sitePair struct {
	kind string
	a, b uint32
}

type stateKey struct {
	loc hb.Loc
	cat uint8
}

// An sacc is an access as CheckStream keeps it.
type sacc struct {
	streamed.Event
	value uint64 // a write's value (nil or not), an atomic load's, a WaitGroup Add's delta (as int64)
	seq   uint64 // trace.Event.Seq, which instances fold by
	// pre is, for a write in a critical section, the value before the
	// section (sectionStartOf), nil if not known.
	pre *sectionStart
	// prev and prevWrite are, for a kept read (a dereference or an
	// index read), its goroutine's last access and last write of the
	// location before it, as bare copies (links); nil for other reads.
	prev, prevWrite *sacc
	// sawNil is set on a dereferenced read that observed nil: it did not
	// crash, so it is no con-null suspect (nor is any instance of it).
	sawNil bool
	// settled is set on a kept dereference once it was judged against
	// the nil stores before it (settle).
	settled bool
	// saw is, for such a read, the write whose value it saw, if known;
	// unknown is set when it raced with the write it follows.
	saw     *sacc
	unknown bool
	// switches are, for a dereferenced read whose site has Switches, its
	// goroutine's last read at each of those sites before it.
	switches []*switchRead
}

// A switchRead is a read at a site that switches another's branch, with
// its location and the value it found (the last write's before it, zero
// if none).
type switchRead struct {
	*sacc
	key   stateKey
	found uint64
	lastW *sacc // the last write before it, which it found
}

// switchingSites returns the read sites that some site's Switches lists.
func switchingSites(sites *trace.SiteTable) map[uint32]bool {
	out := make(map[uint32]bool)
	if sites == nil {
		return out
	}
	for _, s := range sites.Sites {
		for id := range strings.FieldsSeq(s.Switches) {
			if n, err := strconv.ParseUint(id, 10, 32); err == nil {
				out[uint32(n)] = true
			}
		}
	}
	return out
}

func (a *sacc) g() int { return a.Ctx.G }

// A nilStore is a kept nil store with what later events taught of it.
type nilStore struct {
	*sacc
	next    *sacc   // its goroutine's next write of the location, once seen
	covers  []*sacc // non-nil writes that happen after it (the latest maxCovers)
	pending []*sacc // dereferences before it, judged when next comes
}

// ownAccesses are one goroutine's last write and last access of a
// location, and what con-uninit asks of its accesses: whether it made its
// first use (used), wrote before it or since (wroteInit: an access of
// the location's init kind, of any value), and its first use if pending.
type ownAccesses struct {
	write, access   *sacc
	used, wroteInit bool
	pend            *uread
}

// A locState is what CheckStream keeps of one location.
type locState struct {
	key  stateKey
	last *sacc // the last write, in the trace's order
	own  map[int]*ownAccesses
	// derefd is set on an atomic location once an atomic load marked
	// deref read it: only then do its accesses take part in con-null.
	derefd bool

	nils   []*nilStore
	derefs []*sacc
	idxR   []*sacc
	idxW   []*sacc
	maps   []*sacc
	closes []*sacc
	sends  []*sacc

	uninit *uninitLoc // con-uninit's, for memory, atomics and WaitGroups
	zeros  []*sacc    // con-uninit's: the first writes of zero of the first goroutines that wrote it so (reinitialized)
	// open counts its dereferences waiting for their judgment (settle).
	open int
}

func (s *streamChecker) visit(st *hb.Step) {
	if ownSeq(st.Event) {
		s.settle(st.Ctx.G)
	}
	s.access(st)
	s.noteParent(st)
}

// access takes an event of a location the checks follow.
func (s *streamChecker) access(st *hb.Step) {
	ev := st.Event
	var cat uint8
	switch ev.Kind {
	case trace.EvRead, trace.EvWrite:
		cat = catMem
	case trace.EvAtomicLoad, trace.EvAtomicStore:
		cat = catAtom
	case trace.EvMapRead, trace.EvMapWrite, trace.EvMapIter:
		cat = catMap
	case trace.EvChanClose, trace.EvChanSend:
		cat = catChan
	case trace.EvSelect:
		site, _ := s.sites.Lookup(ev.Site)
		if ev.Arg < 0 || int(ev.Arg) >= len(site.Cases) || site.Cases[ev.Arg] != 's' {
			return
		}
		cat = catChan
	case trace.EvWGAdd, trace.EvWGDone, trace.EvWGWait:
		cat = catWG
	default:
		return
	}
	a := &sacc{Event: streamed.Event{Index: st.Index, Site: ev.Site, N: st.Instance, Kind: ev.Kind, Ctx: st.Ctx}, value: ev.Value, seq: ev.Seq}
	k := stateKey{st.Loc, cat}
	if cat == catWG {
		a.value = uint64(ev.Arg)
		k.loc.Epoch = s.life(ev, st.Loc)
	}
	l := s.states[k]
	if l == nil {
		l = s.add(k)
	}
	switch cat {
	case catMem, catAtom, catWG:
		s.uninitAccess(l, a, st)
	}
	if cat == catAtom && !l.derefd {
		// Not (yet) a location an atomic load dereferences: its
		// accesses are only each goroutine's last ones, which a later
		// dereference's check may be.
		if l.derefd = ev.Kind == trace.EvAtomicLoad && s.used(ev, useDeref); !l.derefd {
			s.own(l, a).access = a
			if isWrite(a.Kind) {
				l.last = a
			}
			return
		}
	}
	switch cat {
	case catMem, catAtom:
		s.memory(l, a)
	case catMap:
		s.mapAccess(l, a)
	case catChan:
		s.channel(l, a)
	}
}

// A wgKey is a WaitGroup's address and generation (hb.Loc.Gen), the key
// of its lives.
type wgKey struct {
	addr uint64
	gen  uint32
}

// life returns the number of the life of the WaitGroup of event ev, at
// location loc, as newChecker numbers them.
func (s *streamChecker) life(ev *trace.Event, loc hb.Loc) uint64 {
	epoch := loc.Epoch
	k := wgKey{ev.Addr, loc.Gen}
	l := s.lives[k]
	if l == nil {
		l = &wgLife{epoch: epoch}
		s.lives[k] = l
	}
	if l.count == 0 && ev.Kind == trace.EvWGAdd && ev.Arg > 0 && epoch > l.epoch {
		l.n++
	}
	l.epoch = max(l.epoch, epoch)
	switch ev.Kind {
	case trace.EvWGAdd:
		l.count += ev.Arg
	case trace.EvWGDone:
		l.count--
	}
	return l.n
}

// add starts the state of location k, dropping the oldest past maxLoc.
func (s *streamChecker) add(k stateKey) *locState {
	if s.maxLoc > 0 && len(s.states) >= s.maxLoc {
		for len(s.order) > 0 {
			old := s.order[0]
			s.order = s.order[1:]
			if l := s.states[old]; l != nil {
				s.flush(l)
				delete(s.states, old)
				s.locDropped++
				break
			}
		}
	}
	l := &locState{key: k}
	s.states[k] = l
	s.order = append(s.order, k)
	return l
}

// flush reports the nil stores' pending pairs, which no next write
// judged, and con-uninit's findings at the location.
func (s *streamChecker) flush(l *locState) {
	for k := 0; l.open > 0 && k < len(s.open); k++ {
		if s.open[k].l == l {
			s.judge(s.open[k])
		}
	}
	for _, w := range l.nils {
		for _, r := range w.pending {
			if !r.sawNil && s.nullFeasible(w, r) {
				s.reportNull(r, w)
			}
		}
		w.pending = nil
	}
	if l.uninit != nil {
		s.flushUninit(l.uninit, l.zeros)
	}
}

func (s *streamChecker) used(ev *trace.Event, use uint8) bool {
	return (ev.Kind == trace.EvRead || ev.Kind == trace.EvAtomicLoad && use == useDeref) && int(ev.Site) < len(s.uses) && s.uses[ev.Site]&use != 0
}

// keep appends x to list, dropping the oldest entry past maxKept (the
// callers append only what no entry is an instance of).
func keep[T any](s *streamChecker, list *[]T, x T) {
	if len(*list) >= maxKept {
		*list = slices.Delete(*list, 0, 1)
		s.dropped++
	}
	*list = append(*list, x)
}

// folded reports whether list holds an instance of a.
func folded(list []*sacc, a *sacc) bool {
	return slices.ContainsFunc(list, func(b *sacc) bool { return sameInstance(a, b) })
}

// sameInstance reports whether a and b are accesses no check can tell
// apart (Check's instances): one goroutine's at one site, of one kind,
// with no sync event of that goroutine in between.
func sameInstance(a, b *sacc) bool {
	return b.g() == a.g() && b.Site == a.Site && b.Kind == a.Kind && b.seq == a.seq
}

// before is Graph.HappensBefore on two kept accesses.
func before(a, b *sacc) bool { return hb.Before(a.Ctx, a.Index, b.Ctx, b.Index) }

// commonLock is Graph.CommonLock on two kept accesses.
func commonLock(a, b *sacc) bool {
	return slices.ContainsFunc(a.Ctx.Locks, func(l hb.Lock) bool { return excludes(b.Ctx.Locks, l) })
}

// atomicSection is checker.atomic on kept accesses: a and b, of one
// goroutine (a first), hold a lock across both, in one critical section
// (the same Lock event still open at both), that x holds in a mode that
// excludes it.
func atomicSection(a, b, x *sacc) bool {
	for _, l := range b.Ctx.Locks {
		if !slices.Contains(a.Ctx.Locks, l) {
			continue
		}
		if !excludes(x.Ctx.Locks, l) {
			continue
		}
		if ha, hb := openLock(a.Ctx, l.Addr), openLock(b.Ctx, l.Addr); ha != nil && ha == hb {
			return true
		}
	}
	return false
}

// openLock returns the newest open Lock of addr in ctx, or nil.
func openLock(ctx *hb.Context, addr uint64) *hb.Held {
	for h := ctx.Held; h != nil; h = h.Next {
		if h.Addr == addr {
			return h
		}
	}
	return nil
}

// memory takes a read or write of memory (plain, or atomic at a location
// an atomic load dereferences): con-null and con-index.
func (s *streamChecker) memory(l *locState, a *sacc) {
	o := s.own(l, a)
	if isWrite(a.Kind) {
		if a.Kind == trace.EvWrite {
			a.pre = s.sectionStartOf(l, a)
		}
		s.write(l, a)
		l.last, o.write = a, a
	} else {
		s.read(l, a, o)
		if a.Kind == trace.EvRead && s.switching[a.Site] {
			m := s.lastSwitch[a.g()]
			if m == nil {
				m = make(map[uint32]*switchRead)
				s.lastSwitch[a.g()] = m
			}
			sr := &switchRead{sacc: a, key: l.key, lastW: l.last}
			if l.last != nil {
				sr.found = l.last.value
			}
			m[a.Site] = sr
		}
	}
	o.access = a
}

// own returns the last accesses of a's goroutine to location l.
func (s *streamChecker) own(l *locState, a *sacc) *ownAccesses {
	if l.own == nil {
		l.own = make(map[int]*ownAccesses)
	}
	o := l.own[a.g()]
	if o == nil {
		o = &ownAccesses{}
		l.own[a.g()] = o
	}
	return o
}

func (s *streamChecker) write(l *locState, a *sacc) {
	// A dereference before a in the trace that a happens before (the
	// trace's order is not always happens-before's: see
	// checker.observed) saw a's value, if what it saw so far happens
	// before a; else its value is unknown.
	for _, r := range l.derefs {
		if r.Kind == trace.EvAtomicLoad || !before(a, r) {
			continue
		}
		if r.unknown {
			continue
		}
		if r.saw != nil && !before(r.saw, a) {
			r.saw, r.sawNil, r.unknown = nil, false, true
			continue
		}
		r.saw, r.sawNil = a, a.value == 0
	}
	// The nil stores so far: a's goroutine's next write after theirs,
	// and a non-nil write that happens after them.
	for _, w := range l.nils {
		if w.next == nil && w.g() == a.g() {
			w.next = a
			s.judgePending(w)
		}
		if a.value != 0 && before(w.sacc, a) {
			if len(w.covers) >= maxCovers {
				w.covers = slices.Delete(w.covers, 0, 1)
			}
			w.covers = append(w.covers, a)
		}
	}
	if a.value == 0 && !slices.ContainsFunc(l.nils, func(n *nilStore) bool { return sameInstance(n.sacc, a) }) {
		w := &nilStore{sacc: a}
		// The dereferences before it: a lock across one and its
		// goroutine's access before prunes it now, one across the nil
		// store and its goroutine's next write when that comes.
		for _, r := range l.derefs {
			if r.settled && r.sawNil || r.g() == a.g() || s.reported(finding.ConNull, r, a) || before(r, a) {
				continue
			}
			if r.prev != nil && atomicSection(r.prev, r, a) || s.switchedOff(r, a) {
				continue
			}
			w.pending = append(w.pending, r)
		}
		keep(s, &l.nils, w)
	}
	if a.Kind == trace.EvWrite && !folded(l.idxW, a) {
		for _, r := range l.idxR {
			if r.g() != a.g() && !before(r, a) && !before(a, r) && !commonLock(r, a) {
				s.reportIndex(r, a)
			}
		}
		keep(s, &l.idxW, a)
	}
}

// read takes a read a of location l, whose goroutine's last accesses
// before it are o.
func (s *streamChecker) read(l *locState, a *sacc, o *ownAccesses) {
	ev := trace.Event{Kind: a.Kind, Site: a.Site}
	if s.used(&ev, useDeref) && !folded(l.derefs, a) {
		links(a, o)
		// What the read observed: an atomic load's own value, or the
		// last write's if it happens before the read.
		if a.Kind == trace.EvAtomicLoad {
			a.sawNil = a.value == 0
		} else if l.last != nil && before(l.last, a) {
			a.saw, a.sawNil = l.last, l.last.value == 0
		} else {
			a.unknown = l.last != nil
		}
		a.switches = s.switchReads(a)
		op := &openRead{r: a, l: l}
		l.open++
		s.open = append(s.open, op)
		s.openG[a.g()] = append(s.openG[a.g()], op)
		if len(s.open) > maxOpen {
			s.judge(s.open[0])
			s.pop()
		}
		keep(s, &l.derefs, a)
	}
	if s.used(&ev, useIndex) && !folded(l.idxR, a) {
		links(a, o)
		for _, w := range l.idxW {
			if w.g() != a.g() && !before(w, a) && !before(a, w) && !commonLock(w, a) {
				s.reportIndex(a, w)
			}
		}
		keep(s, &l.idxR, a)
	}
}

// links sets a kept read a's prev and prevWrite from o, its goroutine's
// last access and last write of the location before it. Only a kept
// read's are ever asked (nullFeasible, withCheck, atomicSection on the
// dereferences and index reads of a location's lists), and of them only
// their event, value and context, never their own links: each is a bare
// copy, so that a read keeps no chain of the reads before it alive. With
// the goroutine's last read as the next one's prev, that chain was every
// read one goroutine made of one location, where the walk is meant to
// hold a bounded state per location (porcupine's
// TestKvNoPartition10ClientsBad, 19 M events: 1.05 GB live at the walk's
// end, 0.21 GB without the chain; bench/RESULTS.md).
func links(a *sacc, o *ownAccesses) {
	if a.prev == nil {
		a.prev, a.prevWrite = bare(o.access), bare(o.write)
	}
}

// bare returns a, or a copy of it without what links it to other
// accesses, if it has any.
func bare(a *sacc) *sacc {
	if a == nil || a.prev == nil && a.prevWrite == nil && a.saw == nil && a.switches == nil {
		return a
	}
	return &sacc{Event: a.Event, value: a.value, seq: a.seq}
}

// settle judges the dereferences of goroutine gi waiting for its next
// sync event, which has come, and those before them in the trace whose
// goroutines' next sync events came, in the trace's order. A write that
// happens before a dereference comes in the trace before its goroutine's
// next sync event, though it may come after the dereference (a receiver's
// write before its receive from an unbuffered channel, and the sender's
// dereference after its send: checker.observed); until then, what the
// dereference saw and the writes ordered between it and a nil store
// (checker.overwrittenBetween) are not known.
func (s *streamChecker) settle(gi int) {
	if len(s.openG[gi]) == 0 {
		return
	}
	for _, o := range s.openG[gi] {
		o.ready = true
	}
	delete(s.openG, gi)
	for len(s.open) > 0 && (s.open[0].ready || s.open[0].done) {
		s.judge(s.open[0])
		s.pop()
	}
}

// pop drops the oldest open dereference.
func (s *streamChecker) pop() {
	o := s.open[0]
	s.open[0] = nil
	s.open = s.open[1:]
	if g := s.openG[o.r.g()]; len(g) > 0 && g[0] == o {
		if s.openG[o.r.g()] = g[1:]; len(g) == 1 {
			delete(s.openG, o.r.g())
		}
	}
}

// judge judges the open dereference r against the nil stores of its
// location in the trace's order: those before it now, those after it
// whose goroutine's next write came (the others when it comes, or at the
// end).
func (s *streamChecker) judge(o *openRead) {
	if o.done {
		return
	}
	o.done = true
	r, l := o.r, o.l
	l.open--
	r.settled = true
	for _, w := range l.nils {
		if w.Index > r.Index {
			if w.next != nil {
				s.judgePending(w)
			}
			continue
		}
		if !r.sawNil && w.g() != r.g() && !s.reported(finding.ConNull, r, w.sacc) && s.nullFeasible(w, r) {
			s.reportNull(r, w)
		}
	}
}

// judgePending judges the dereferences before the nil store w that are
// settled, once w's goroutine's next write came.
func (s *streamChecker) judgePending(w *nilStore) {
	keep := w.pending[:0]
	for _, r := range w.pending {
		if !r.settled {
			keep = append(keep, r)
			continue
		}
		if !r.sawNil && s.nullFeasible(w, r) {
			s.reportNull(r, w)
		}
	}
	clear(w.pending[len(keep):])
	w.pending = keep
}

// switchReads returns, for a read whose site has Switches, its
// goroutine's last read at each site that switches it (anySwitch's).
func (s *streamChecker) switchReads(a *sacc) []*switchRead {
	site, ok := s.sites.Lookup(a.Site)
	if !ok || site.Switches == "" {
		return nil
	}
	var out []*switchRead
	for id, sr := range s.lastSwitch[a.g()] {
		if site.SwitchedBy(id) {
			out = append(out, sr)
		}
	}
	return out
}

// nullFeasible is checker.nullFeasible for a nil store w and a dereference
// r judged (settled), w before r in the trace or after it with its next
// write known (or at the end).
func (s *streamChecker) nullFeasible(w *nilStore, r *sacc) bool {
	if rpp := r.prevWrite; rpp != nil && rpp.value != 0 && before(w.sacc, rpp) {
		return false
	}
	wpf := w.next
	if wpf != nil && wpf.value != 0 && before(wpf, r) {
		return false
	}
	if slices.ContainsFunc(w.covers, func(x *sacc) bool { return before(x, r) }) {
		return false
	}
	if r.prev != nil && atomicSection(r.prev, r, w.sacc) {
		return false
	}
	return wpf == nil || wpf.value == 0 || !atomicSection(w.sacc, wpf, r)
}

// switchedOff is checker.switchedOff for the nil store w after the
// dereference r, as far as the walk has seen w's critical section: a
// read r's goroutine made before r at a site that switches r's branch,
// with a lock held from it through r, and w's section of that lock, begun
// after that read, whose last write of the read's location so far (w's
// goroutine's) leaves another value than the read found. A write of the
// section after w is not seen.
func (s *streamChecker) switchedOff(r, w *sacc) bool {
	for _, sr := range r.switches {
		for _, l := range sr.Ctx.Locks {
			h := openLock(sr.Ctx, l.Addr)
			if !slices.Contains(r.Ctx.Locks, l) || h == nil || h != openLock(r.Ctx, l.Addr) {
				continue // not held from the read through r
			}
			hw := openLock(w.Ctx, l.Addr)
			if hw == nil || hw.Index < sr.Index || !excludes(w.Ctx.Locks, l) {
				continue
			}
			li := s.states[sr.key]
			if li == nil {
				continue
			}
			if o := li.own[w.g()]; o != nil && o.write != nil && o.write.Index > hw.Index && o.write.value != sr.found {
				return true
			}
		}
	}
	return false
}

// mapAccess takes a map read, write or iteration: con-map.
func (s *streamChecker) mapAccess(l *locState, a *sacc) {
	if folded(l.maps, a) {
		return
	}
	for _, b := range l.maps {
		if b.g() == a.g() || before(b, a) || before(a, b) || commonLock(a, b) {
			continue
		}
		switch {
		case b.Kind == trace.EvMapWrite:
			s.reportMap(b, a)
		case a.Kind == trace.EvMapWrite:
			s.reportMap(a, b)
		}
	}
	keep(s, &l.maps, a)
}

// channel takes a close or a send (a select's send case): con-closed.
func (s *streamChecker) channel(l *locState, a *sacc) {
	if a.Kind == trace.EvChanClose {
		if folded(l.closes, a) {
			return
		}
		for _, u := range l.sends {
			if u.g() != a.g() && !before(u, a) {
				s.reportClosed(a, u)
			}
		}
		for _, c := range l.closes {
			if c.g() != a.g() {
				s.reportClosed(c, a)
			}
		}
		keep(s, &l.closes, a)
		return
	}
	if folded(l.sends, a) {
		return
	}
	for _, c := range l.closes {
		if c.g() != a.g() {
			s.reportClosed(c, a)
		}
	}
	keep(s, &l.sends, a)
}

// A streamRole is one event of a streamed finding (role) as its site or,
// witness-only, in its witness.
type streamRole struct {
	a       *sacc
	role    string
	witness bool
}

// reported reports whether a finding of kind at a's and b's sites (in
// that order of roles) was reported already (report's key).
func (s *streamChecker) reported(kind string, a, b *sacc) bool {
	return s.pairs[sitePair{kind, a.Site, b.Site}]
}

func (s *streamChecker) expr(a *sacc) string {
	if site, ok := s.sites.Lookup(a.Site); ok && site.Expr != "" {
		return site.Expr
	}
	return "the location"
}

func (s *streamChecker) fn(a *sacc) string {
	if site, ok := s.sites.Lookup(a.Site); ok && site.Function != "" {
		return site.Function
	}
	return "another function"
}

// withCheck is checker.withCheck on kept accesses: r's goroutine's read
// of the location before r, unless the write w happens before it.
func withCheck(roles []streamRole, r, w *sacc) []streamRole {
	p := r.prev
	if p == nil || !isRead(p.Kind) || before(w, p) {
		return roles
	}
	return append(roles, streamRole{a: p, role: "check", witness: true})
}

func (s *streamChecker) reportNull(r *sacc, w *nilStore) {
	if s.reported(finding.ConNull, r, w.sacc) {
		return
	}
	msg, note := nullText(s.expr(w.sacc), s.fn(w.sacc), s.fn(r), commonLock(r, w.sacc))
	s.report(finding.ConNull, msg,
		withCheck([]streamRole{{a: r, role: finding.RoleDeref}, {a: w.sacc, role: finding.RoleNilStore}}, r, w.sacc),
		note)
}

func (s *streamChecker) reportIndex(r, w *sacc) {
	if s.reported(finding.ConIndex, r, w) {
		return
	}
	s.report(finding.ConIndex,
		fmt.Sprintf("%s used as an index or bound in %s may be changed concurrently by %s with no common lock: index or slice bounds out of range",
			s.expr(r), s.fn(r), s.fn(w)),
		withCheck([]streamRole{{a: r, role: finding.RoleIndex}, {a: w, role: finding.RoleWrite}}, r, w),
		"the read and the write are concurrent and hold no common lock")
}

func (s *streamChecker) reportMap(w, b *sacc) {
	if s.reported(finding.ConMap, w, b) {
		return
	}
	what := map[trace.Kind]string{trace.EvMapWrite: "writes", trace.EvMapRead: "read and map write", trace.EvMapIter: "iteration and map write"}[b.Kind]
	s.report(finding.ConMap,
		fmt.Sprintf("%s written in %s may run concurrently with %s's access with no common lock (fatal error: concurrent map %s)",
			s.expr(w), s.fn(w), s.fn(b), what),
		[]streamRole{{a: w, role: finding.RoleMapWrite}, {a: b, role: mapRole(b.Kind)}},
		"the two accesses are concurrent and hold no common lock")
}

func (s *streamChecker) reportClosed(cl, u *sacc) {
	if s.reported(finding.ConClosed, cl, u) {
		return
	}
	if u.Kind == trace.EvChanClose {
		s.report(finding.ConClosed,
			fmt.Sprintf("%s closed in %s may be closed again concurrently by %s (close of closed channel)",
				s.expr(cl), s.fn(cl), s.fn(u)),
			[]streamRole{{a: cl, role: finding.RoleClose}, {a: u, role: finding.RoleClose}},
			"two goroutines close the channel")
		return
	}
	s.report(finding.ConClosed,
		fmt.Sprintf("%s closed in %s may still be sent on by %s (send on closed channel); the close should wait for every sender",
			s.expr(cl), s.fn(cl), s.fn(u)),
		[]streamRole{{a: cl, role: finding.RoleClose}, {a: u, role: finding.RoleSend}},
		"the send does not happen before the close")
}

// report adds a finding, as checker.report does, unless one of the same
// kind and site lines was reported already or one of its events'
// goroutines was unsettled (withheld).
func (s *streamChecker) report(kind, msg string, roles []streamRole, notes ...string) {
	var main []*sacc
	for _, r := range roles {
		if !r.witness {
			main = append(main, r.a)
		}
	}
	key := sitePair{kind, main[0].Site, main[1].Site}
	if slices.ContainsFunc(main, func(a *sacc) bool { return a.Ctx.Unsettled }) {
		if !s.held[key] {
			s.held[key] = true
			s.withheld++
		}
		return
	}
	s.pairs[key] = true
	f := finding.Finding{Kind: kind, Status: finding.Predicted, Message: msg}
	w := finding.Witness{}
	for _, r := range roles {
		w.Events = append(w.Events, r.a.Witness(r.role))
		if !r.witness {
			streamed.AddSite(&f, s.sites, r.a.Event, r.role)
		}
	}
	s.out = addFinding(s.out, s.seen, f, w, notes)
}

package conmem

import (
	"fmt"
	"slices"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// Options configures Check. The zero value is the default.
type Options struct {
	// NoSpinLoops turns off the spin-loop inference of §4.6 (see the
	// package doc): without it, a loop left on a value another goroutine
	// wrote orders nothing.
	NoSpinLoops bool
	// Stats, if not nil, receives counts of what Check did.
	Stats *Stats
	// CountSpinPruned counts Stats.SpinPruned, which costs the checks a
	// second run (without the inferred edges) when the inference found
	// some.
	CountSpinPruned bool
}

// Stats counts what one Check did, for the bench and the report.
type Stats struct {
	// SpinEdges is the number of order edges the spin-loop inference
	// added.
	SpinEdges int
	// SpinPruned is the number of findings that the run without the
	// inferred edges reports and the run with them does not (counted
	// with Options.CountSpinPruned only).
	SpinPruned int
	// Skipped counts the locations (and channels, maps) with more than
	// MaxInstances distinguishable accesses, which were not checked.
	Skipped int
	// UninitUnchecked counts the reads (and WaitGroup Dones) that
	// con-uninit did not decide: the run's budget of order checks
	// (MaxUninitChecks) ran out before them. A finding they would have
	// made is missed.
	UninitUnchecked int
}

// TestLifetime reports the calls of a test's T's Log (and the other
// methods that panic once the test has completed) on another goroutine
// than the test's that do not happen before the test's end (con-closed;
// see testLife). g must have been built with hb.Options.LockOrder: the
// memory model's order, under which an atomic read-modify-write orders
// after the earlier ones (a last AddInt32 reaching zero, then a close the
// test waits for, orders every goroutine's log before the end; x/sync's
// TestPanicDo does that).
func TestLifetime(g *hb.Graph, sites *trace.SiteTable) []finding.Finding {
	c := newChecker(g, sites, nil)
	c.out, c.seen = nil, make(map[string]bool)
	c.testLife()
	slices.SortFunc(c.out, finding.Compare)
	return c.out
}

// Check reports the concurrency-memory bugs that some interleaving of the
// trace analyzed in g can produce: Con-NULL, Con-UnInit, Con-Dangling
// (con-closed), Con-Overflow (con-index) and Go's concurrent map access
// (con-map). sites is the trace's site table; the read sites' Uses (which
// the instrumenter fills in) say which reads are dereferenced, which feed an
// index and which decide a loop's exit. Findings come one per kind and set
// of sites, in a deterministic order, with IDs set.
func Check(g *hb.Graph, sites *trace.SiteTable, opts Options) []finding.Finding {
	c := newChecker(g, sites, nil)
	var edges []hb.Edge
	var sync map[int]bool
	if !opts.NoSpinLoops {
		edges, sync = c.spinEdges()
	}
	var before []finding.Finding
	if opts.Stats != nil && opts.CountSpinPruned && len(sync) > 0 {
		before = c.run()
	}
	if len(sync) > 0 {
		if len(edges) > 0 {
			o := g.Options()
			o.Sites, o.Edges = sites, append(o.Edges[:len(o.Edges):len(o.Edges)], edges...)
			g = hb.Analyze(g.Events, o)
		}
		c = newChecker(g, sites, sync)
	}
	out := c.run()
	if opts.Stats != nil {
		opts.Stats.Skipped += c.skipped
		opts.Stats.UninitUnchecked += c.uninitUnchecked
		opts.Stats.SpinEdges += len(edges)
		ids := make(map[string]bool)
		for _, f := range out {
			ids[f.ID] = true
		}
		for _, f := range before {
			if !ids[f.ID] {
				opts.Stats.SpinPruned++
			}
		}
	}
	return out
}

// run applies the five checks.
func (c *checker) run() []finding.Finding {
	c.out = nil
	c.seen = make(map[string]bool)
	c.uninitChecks, c.uninitUnchecked = 0, 0
	c.null()
	c.uninit()
	c.closed()
	c.index()
	c.maps()
	slices.SortFunc(c.out, finding.Compare)
	return c.out
}

// A checker holds one trace's events indexed for the checks.
type checker struct {
	g     *hb.Graph
	sites *trace.SiteTable
	site  map[uint32]trace.Site
	uses  []uint8 // per site ID: the useDeref, useIndex and useLoopExit bits

	// The accesses of each location that more than one goroutine
	// touched, in trace order, the locations in order of first access:
	mem   [][]int // reads and writes of memory
	atoms [][]int // atomic loads and stores of a pointer that a load dereferences (see derefAtomics)
	mapsL [][]int // map reads, writes and iterations
	chans [][]int // channel closes and sends (including select send cases)
	wgs   [][]int // WaitGroup Adds, Dones and Waits

	own map[ownKey][]int // per location (its list's first event) and goroutine: its accesses

	out     []finding.Finding
	seen    map[string]bool
	skipped int

	// uninitChecks counts con-uninit's order checks in this run, at most
	// maxUninit (MaxUninitChecks but in tests); uninitUnchecked the reads
	// it could not decide.
	uninitChecks    int
	maxUninit       int
	uninitUnchecked int
}

type ownKey struct{ first, g int }

// The bits of checker.uses.
const (
	useDeref uint8 = 1 << iota
	useIndex
	useLoopExit
)

// Event categories, which index their locations apart.
const (
	catMem = iota
	catMap
	catChan
	catWG
	catAtom
	numCats
)

// newChecker indexes g's events, leaving out those in skip. It groups
// the accesses by location with a counting sort: one map lookup per access
// and two int32s per access besides the lists themselves.
func newChecker(g *hb.Graph, sites *trace.SiteTable, skip map[int]bool) *checker {
	c := &checker{g: g, sites: sites, site: make(map[uint32]trace.Site), own: make(map[ownKey][]int), maxUninit: MaxUninitChecks, uses: siteUses(sites)}
	type key struct {
		loc hb.Loc
		cat uint8
	}
	type info struct {
		cat    uint8
		g      int32 // the first goroutine, -1 once a second one came
		n      int32
		shared bool
	}
	ids := make(map[key]int32)
	var locs []info
	// lives: per WaitGroup address and generation (hb.Loc.Gen: a
	// WaitGroup in an object that EvNew made anew is another one), its
	// current life (see below).
	type life struct {
		n, epoch uint64
		count    int64
	}
	lives := make(map[wgKey]*life)
	var evs, evID []int32
	atoms := c.derefAtomics()
	for i, ev := range g.Events {
		var cat uint8
		switch ev.Kind {
		case trace.EvRead, trace.EvWrite:
			cat = catMem
		case trace.EvAtomicLoad, trace.EvAtomicStore:
			if !atoms[g.Loc(i)] {
				continue
			}
			cat = catAtom
		case trace.EvMapRead, trace.EvMapWrite, trace.EvMapIter:
			cat = catMap
		case trace.EvChanClose, trace.EvChanSend:
			cat = catChan
		case trace.EvSelect:
			if !c.isSendCase(i) {
				continue
			}
			cat = catChan
		case trace.EvWGAdd, trace.EvWGDone, trace.EvWGWait:
			cat = catWG
		default:
			continue
		}
		if skip[i] {
			continue
		}
		k := key{g.Loc(i), cat}
		if cat == catWG {
			// A WaitGroup is one location across GC epochs while its
			// counter is above zero (see the package doc's Soundness):
			// its counter lives on, and a goroutine that will call Done
			// keeps it. An Add that starts a count at zero in a later
			// epoch than the address's events so far starts a new life:
			// the WaitGroup may be another one at the recycled address
			// (pubsub's batchDispatch: wg, a local of each call, moved
			// to the heap; one call's Wait was taken for concurrent with
			// another call's first Add). Epoch holds the life's number.
			l := lives[wgKey{ev.Addr, k.loc.Gen}]
			if l == nil {
				l = &life{epoch: k.loc.Epoch}
				lives[wgKey{ev.Addr, k.loc.Gen}] = l
			}
			if l.count == 0 && ev.Kind == trace.EvWGAdd && ev.Arg > 0 && k.loc.Epoch > l.epoch {
				l.n++
			}
			l.epoch = max(l.epoch, k.loc.Epoch)
			switch ev.Kind {
			case trace.EvWGAdd:
				l.count += ev.Arg
			case trace.EvWGDone:
				l.count--
			}
			k.loc.Epoch = l.n
		}
		id, ok := ids[k]
		if !ok {
			id = int32(len(locs))
			ids[k] = id
			locs = append(locs, info{cat: cat, g: int32(g.Goroutine(i))})
		}
		l := &locs[id]
		l.n++
		if !l.shared && l.g != int32(g.Goroutine(i)) {
			l.shared = true
		}
		evs = append(evs, int32(i))
		evID = append(evID, id)
	}
	ids = nil
	// Offsets of the shared locations' lists in one array.
	off := make([]int32, len(locs)+1)
	for id, l := range locs {
		off[id+1] = off[id]
		if l.shared {
			off[id+1] += l.n
		}
	}
	all := make([]int, off[len(locs)])
	fill := slices.Clone(off[:len(locs)])
	for k, i := range evs {
		id := evID[k]
		if locs[id].shared {
			all[fill[id]] = int(i)
			fill[id]++
		}
	}
	for id, l := range locs {
		if !l.shared {
			continue
		}
		list := all[off[id]:off[id+1]:off[id+1]]
		switch l.cat {
		case catMem:
			c.mem = append(c.mem, list)
		case catMap:
			c.mapsL = append(c.mapsL, list)
		case catChan:
			c.chans = append(c.chans, list)
		case catWG:
			c.wgs = append(c.wgs, list)
		case catAtom:
			c.atoms = append(c.atoms, list)
		}
	}
	return c
}

// siteUses returns, per site ID, the useDeref, useIndex and useLoopExit
// bits of the site's Uses (which the instrumenter fills in).
func siteUses(sites *trace.SiteTable) []uint8 {
	if sites == nil || len(sites.Sites) == 0 {
		return nil
	}
	uses := make([]uint8, sites.Sites[len(sites.Sites)-1].ID+1)
	for _, s := range sites.Sites {
		for _, u := range strings.Fields(s.Uses) {
			switch u {
			case trace.UseDeref:
				uses[s.ID] |= useDeref
			case trace.UseIndex:
				uses[s.ID] |= useIndex
			case trace.UseLoopExit:
				uses[s.ID] |= useLoopExit
			}
		}
	}
	return uses
}

// derefAtomics returns the locations that an atomic load whose value is
// dereferenced unchecked reads (the instrumenter marks the Load calls of
// atomic.Pointer and atomic.Value, and atomic.LoadPointer, as it marks
// plain reads): their atomic loads and stores are con-null's reads and
// writes (an atomic Store(nil), Swap(nil) or successful CompareAndSwap to
// nil is the nil store). Other atomics (counters, flags) are left out,
// for the checks have nothing to say of them and their events can be
// most of a trace.
func (c *checker) derefAtomics() map[hb.Loc]bool {
	var out map[hb.Loc]bool
	for i := range c.g.Events {
		if c.g.Events[i].Kind == trace.EvAtomicLoad && c.used(i, useDeref) {
			if out == nil {
				out = make(map[hb.Loc]bool)
			}
			out[c.g.Loc(i)] = true
		}
	}
	return out
}

// isWrite reports whether k is a write of memory: a plain write, or an
// atomic store (also a swap, an add, a successful compare-and-swap).
func isWrite(k trace.Kind) bool { return k == trace.EvWrite || k == trace.EvAtomicStore }

// isRead reports whether k is a read of memory, plain or atomic.
func isRead(k trace.Kind) bool { return k == trace.EvRead || k == trace.EvAtomicLoad }

// siteOf returns the site of event i (cached).
func (c *checker) siteOf(i int) trace.Site {
	id := c.g.Events[i].Site
	s, ok := c.site[id]
	if !ok {
		s, _ = c.sites.Lookup(id)
		c.site[id] = s
	}
	return s
}

// isSendCase reports whether the select event i ran a send case.
func (c *checker) isSendCase(i int) bool {
	ev := c.g.Events[i]
	s := c.siteOf(i)
	return ev.Arg >= 0 && int(ev.Arg) < len(s.Cases) && s.Cases[ev.Arg] == 's'
}

// used reports whether event i is a read whose site has the use bit. An
// atomic load carries only the deref bit.
func (c *checker) used(i int, use uint8) bool {
	ev := &c.g.Events[i]
	return (ev.Kind == trace.EvRead || ev.Kind == trace.EvAtomicLoad && use == useDeref) && int(ev.Site) < len(c.uses) && c.uses[ev.Site]&use != 0
}

// ownOf returns the accesses in list (a location's) of event i's goroutine.
func (c *checker) ownOf(list []int, i int) []int {
	k := ownKey{list[0], c.g.Goroutine(i)}
	own, ok := c.own[k]
	if !ok {
		for _, j := range list {
			if c.g.Goroutine(j) == k.g {
				own = append(own, j)
			}
		}
		c.own[k] = own
	}
	return own
}

// prevWrite returns the last write to the location (whose accesses are
// list) by i's goroutine before i, or -1.
func (c *checker) prevWrite(list []int, i int) int {
	own := c.ownOf(list, i)
	k, _ := slices.BinarySearch(own, i)
	for k--; k >= 0; k-- {
		if isWrite(c.g.Events[own[k]].Kind) {
			return own[k]
		}
	}
	return -1
}

// prevAccess returns the last read or write of the location by i's
// goroutine before i, or -1.
func (c *checker) prevAccess(list []int, i int) int {
	own := c.ownOf(list, i)
	k, _ := slices.BinarySearch(own, i)
	if k > 0 {
		return own[k-1]
	}
	return -1
}

// nextWrite returns the first write to the location by i's goroutine
// after i, or -1.
func (c *checker) nextWrite(list []int, i int) int {
	own := c.ownOf(list, i)
	k, found := slices.BinarySearch(own, i)
	if found {
		k++
	}
	for ; k < len(own); k++ {
		if isWrite(c.g.Events[own[k]].Kind) {
			return own[k]
		}
	}
	return -1
}

// observed returns the value the read r saw, when the trace tells: the
// value of the last write to its location before it in the trace's order,
// if that write happens before r. A read that races with the write it
// follows (or follows none) saw an unknown value: ok is false. An atomic
// load's event carries the value it read (nil or not, for a pointer).
//
// The trace's order is not always one of happens-before's: a send is
// recorded when it arrives, so on an unbuffered channel the sender's
// accesses after it come in the trace before the receiver's events that
// precede the receive, which happen before them (package hb's channel
// rule). A write after r in the trace that happens before r lies before
// r's goroutine's next sync event (r ran after it, and before that
// event); the last such write is the one r saw, if every other write
// seen happens before it, else r's value is unknown. Not looked at: a
// write before the last one in the trace that happens after it (a
// sender's write after an unbuffered send, recorded at the send, after
// the receiver's write before the receive) and before r; r saw that one.
func (c *checker) observed(list []int, r int) (value uint64, ok bool) {
	if ev := c.g.Events[r]; ev.Kind == trace.EvAtomicLoad {
		return ev.Value, true
	}
	k, _ := slices.BinarySearch(list, r)
	last := -1
	for j := k - 1; j >= 0; j-- {
		w := list[j]
		if !isWrite(c.g.Events[w].Kind) {
			continue
		}
		if !c.g.HappensBefore(w, r) {
			return 0, false
		}
		last = w
		break
	}
	end := c.nextSync(r)
	for j := k + 1; j < len(list) && list[j] < end; j++ {
		w := list[j]
		if !isWrite(c.g.Events[w].Kind) || !c.g.HappensBefore(w, r) {
			continue
		}
		if last >= 0 && !c.g.HappensBefore(last, w) {
			return 0, false
		}
		last = w
	}
	if last < 0 {
		return 0, false
	}
	return c.g.Events[last].Value, true
}

// ownSeq reports whether ev is a sync event with a seq of its own (an
// atomic load's is its store's): its goroutine's accesses before it in
// the trace ran before it.
func ownSeq(ev *trace.Event) bool { return ev.Sub == 0 && ev.Kind != trace.EvAtomicLoad }

// nextSync returns the index of the first sync event of i's goroutine
// after i (len(Events) if none): an event that happens before i comes in
// the trace before it.
func (c *checker) nextSync(i int) int {
	evs := c.g.Goroutines[c.g.Goroutine(i)].Events
	k, _ := slices.BinarySearch(evs, i)
	for k++; k < len(evs); k++ {
		if ownSeq(&c.g.Events[evs[k]]) {
			return evs[k]
		}
	}
	return len(c.g.Events)
}

// atomic reports whether the accesses a and b of one goroutine (a before
// b) hold a lock across both, in one critical section, that event x also
// holds in a mode that excludes it: then x cannot run between a and b.
func (c *checker) atomic(a, b, x int) bool {
	for _, l := range c.g.Locks(b) {
		if !slices.Contains(c.g.Locks(a), l) {
			continue
		}
		if !excludes(c.g.Locks(x), l) {
			continue
		}
		if c.heldThrough(a, b, l) {
			return true
		}
	}
	return false
}

// excludes reports whether locks hold the mutex of l in a mode that
// excludes l's: one of the two holds it to write.
func excludes(locks []hb.Lock, l hb.Lock) bool {
	return slices.ContainsFunc(locks, func(m hb.Lock) bool {
		return m.Addr == l.Addr && (m.Mode == hb.Write || l.Mode == hb.Write)
	})
}

// heldThrough reports whether lock l, held at a and at b, is not released
// by their goroutine in between.
func (c *checker) heldThrough(a, b int, l hb.Lock) bool {
	evs := c.g.Goroutines[c.g.Goroutine(a)].Events
	k, _ := slices.BinarySearch(evs, a)
	for ; k < len(evs) && evs[k] < b; k++ {
		ev := c.g.Events[evs[k]]
		if (ev.Kind == trace.EvUnlock || ev.Kind == trace.EvRUnlock) && ev.Addr == l.Addr && evs[k] != a {
			return false
		}
	}
	return true
}

// A role is one site of a finding: the event that stands for it and what
// it does in the bug. A witness-only role is an event validation needs
// that is not one of the finding's sites (con-null's check before the
// dereference): it goes into the finding's witness, not into its sites.
type role struct {
	ev      int
	role    string
	witness bool
}

// report adds a finding unless one of the same kind and site lines was
// reported already.
func (c *checker) report(kind, msg string, roles []role, notes ...string) {
	c.seen[c.siteKey(kind, roles)] = true
	f := finding.Finding{Kind: kind, Status: finding.Predicted, Message: msg}
	w := finding.Witness{}
	for _, r := range roles {
		ev := c.g.Events[r.ev]
		w.Events = append(w.Events, finding.Event{Role: r.role, G: ev.Goroutine, Site: ev.Site, N: c.g.Instance(r.ev), Kind: ev.Kind.String(), Index: r.ev})
		if r.witness {
			continue
		}
		f.Sites = append(f.Sites, finding.SiteOf(c.sites, ev.Site, r.role))
		gi := c.g.Goroutine(r.ev)
		var spawn finding.Site
		if s := c.g.Spawn(gi); s != 0 {
			spawn = finding.SiteOf(c.sites, s, finding.RoleGo)
			f.Sites[len(f.Sites)-1].Goroutine = spawn.Pos()
		} else if c.g.Adopted(gi) {
			spawn = finding.UnseenSpawn(c.g.Goroutines[gi].Creators)
		}
		f.Spawns = append(f.Spawns, spawn)
		var stack []finding.Site
		for _, j := range c.g.Stack(r.ev) {
			stack = append(stack, finding.SiteOf(c.sites, c.g.Events[j].Site, finding.RoleCall))
		}
		f.Stacks = append(f.Stacks, stack)
		f.Evidence.Locks = append(f.Evidence.Locks, c.g.LockNames(r.ev, c.sites))
		f.Evidence.Clocks = append(f.Evidence.Clocks, c.g.Clock(r.ev).String())
	}
	c.out = addFinding(c.out, c.seen, f, w, notes)
}

// addFinding appends f to out with its witness w and notes, and its ID
// set, unless a finding of its kind at its site lines is in seen (which
// it is then added to; see lineKey).
func addFinding(out []finding.Finding, seen map[string]bool, f finding.Finding, w finding.Witness, notes []string) []finding.Finding {
	f.Evidence.Notes = notes
	f.Witnesses = []finding.Witness{w}
	f.SetID()
	k := lineKey(f.Kind, f.Sites)
	if seen[k] {
		return out
	}
	seen[k] = true
	return append(out, f)
}

// lineKey is the key of a finding of kind at sites: one finding is
// reported per kind and set of (role, file, line), since two reads of one
// index expression, or one statement's two sides, are one bug.
func lineKey(kind string, sites []finding.Site) string {
	keys := make([]string, len(sites))
	for i, s := range sites {
		keys[i] = fmt.Sprintf("%s\x00%s\x00%d", s.Role, s.File, s.Line)
	}
	slices.Sort(keys)
	return kind + "\x00" + strings.Join(keys, "\x00")
}

// lineKey returns the key (see lineKey) of the finding that report would
// make of kind and roles.
func (c *checker) lineKey(kind string, roles []role) string {
	var sites []finding.Site
	for _, r := range roles {
		if !r.witness {
			sites = append(sites, finding.SiteOf(c.sites, c.g.Events[r.ev].Site, r.role))
		}
	}
	return lineKey(kind, sites)
}

// siteKey is the deduplication key of a finding of kind with these
// roles: its sites by ID and role.
func (c *checker) siteKey(kind string, roles []role) string {
	var b strings.Builder
	b.WriteString(kind)
	for _, r := range roles {
		if !r.witness {
			fmt.Fprintf(&b, "/%d:%s", c.g.Events[r.ev].Site, r.role)
		}
	}
	return b.String()
}

// reported reports whether a finding of kind with these roles' sites was
// reported already, so that checks skip the further dynamic instances of
// a pair cheaply.
func (c *checker) reported(kind string, roles []role) bool {
	return c.seen[c.siteKey(kind, roles)]
}

// expr returns the source expression of event i's site, or a placeholder.
func (c *checker) expr(i int) string {
	if e := c.siteOf(i).Expr; e != "" {
		return e
	}
	return "the location"
}

// fn returns the function of event i's site.
func (c *checker) fn(i int) string {
	if f := c.siteOf(i).Function; f != "" {
		return f
	}
	return "another function"
}

// MaxInstances bounds the accesses of one location (after instances
// folds them) that a check pairs with each other; a location past it is
// skipped and counted in Stats.Skipped.
const MaxInstances = 4096

// instances folds the events of list that no check can tell apart: those
// of one goroutine at one site with no sync event of that goroutine in
// between have one vector clock and one lock set. It keeps the first of
// each, in order. ok is false if more than MaxInstances remain.
func (c *checker) instances(list []int) (out []int, ok bool) {
	type key struct {
		g    int
		site uint32
		kind trace.Kind
		seq  uint64
	}
	seen := make(map[key]bool)
	for _, i := range list {
		ev := c.g.Events[i]
		k := key{c.g.Goroutine(i), ev.Site, ev.Kind, ev.Seq}
		if !seen[k] {
			seen[k] = true
			out = append(out, i)
		}
	}
	if len(out) > MaxInstances {
		c.skipped++
		return nil, false
	}
	return out, true
}

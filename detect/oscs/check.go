package oscs

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// A rec is one access in the history: the paper's PrevRead/PrevWrite
// timestamp (here the event, whose clock hb keeps), its CSList (the event's
// lock set, and sec, the goroutine's outermost open critical section) and
// the CSRWFlag of that critical section for the location.
type rec struct {
	ev  int32 // event index; -1: none
	g   int32 // dense goroutine index
	sec int32 // outermost critical section open at ev, -1 if none
	// flag is CSRWFlag: the critical section holds a read of the location
	// followed by a write (a read-write sequence). It is kept per
	// critical section rather than per goroutine (see doc.go).
	flag bool
	// same marks a write that stored the value the location already held
	// (a redundant write).
	same bool
	// zero marks a read that observed the zero value, or a write that
	// replaced it: the last write of the location before it in trace
	// order stored zero, or there was none.
	zero bool
	// init marks a lazy initialization: a write of a non-zero value whose
	// goroutine's last access of the location, in the same critical
	// section, was a read that observed zero (`if x.m == nil { x.m = ... }`).
	init bool
	val  uint64 // a write's value word
}

var none = rec{ev: -1, g: -1, sec: -1}

// baseLoc is OSCS-Base's history of one location: per goroutine, its most
// recent read and write.
type baseLoc struct {
	last  uint64 // the value word of the last write in trace order
	known bool   // a write was seen
	th    []baseThread
}

type baseThread struct {
	g           int32
	read, write rec
}

// optLoc is OSCS-Opt's history of one shared location: the two most
// recent reads and writes from different goroutines, newest first.
type optLoc struct {
	last  uint64
	known bool
	gen   uint64 // the AHB entry the slots are in (Options.Hardware)
	// resetAt is the event at which the slots were last emptied because
	// the entry was evicted (Options.Hardware); -1 if never.
	resetAt int32
	reads   [2]rec
	writes  [2]rec
}

// pending is an entry of the paper's DetectionList: a pair whose earlier
// side had a read-write sequence and whose later side had none yet,
// checked again when the later goroutine leaves its critical sections.
type pending struct {
	p      rec
	pWrite bool
	cur    rec
	cWrite bool
	loc    hb.Loc
	gen    uint64 // the AHB entry of the later side (Options.Hardware)
}

// report is a pair the filters left, the first of its site set.
type report struct {
	a, b         rec // a is the side whose site comes first
	aWrite       bool
	bWrite       bool
	aLock, bLock int // sections holding the common lock
	lock         uint64
	loc          hb.Loc
	lacksRW      int32 // goroutine whose critical section had no read-write sequence
}

type checker struct {
	g     *hb.Graph
	sites *trace.SiteTable
	opts  Options
	flags map[hb.Loc]bool
	stats *Stats

	// scalar and ownWrites are readsOwnValue's, made on first use.
	scalar    map[uint32]bool
	ownWrites map[ownWriteKey][]int32

	base   map[hb.Loc]*baseLoc
	opt    map[hb.Loc]*optLoc
	shared map[hb.Loc]bool

	open      [][]int32 // per goroutine: its open sections, in lock order
	endAt     map[int][]int32
	detection [][]pending // per goroutine: the DetectionList
	secsOf    [][]int32   // per goroutine: its sections in Begin order
	// gaps holds, per goroutine and location, the critical section in
	// which the hardware last missed one of its accesses
	// (Options.Hardware; nil until the first miss).
	gaps []map[hb.Loc]int32

	seen    map[string]bool
	reports []report
	waits   []finding.Finding // waitUses' findings

	secUses map[int32]map[hb.Loc]secUse // per critical section, on demand
	derefs  map[uint32]bool             // per site: trace.UseDeref
	// derefLocs holds the locations some read of which is dereferenced,
	// built on first use.
	derefLocs map[hb.Loc]bool
	// derefSites holds the site table's dereferenced read sites by
	// expression, built on first use.
	derefSites map[siteKey][]trace.Site
	// whole caches wholeOp and alones alone by critical section, splits split and
	// abandons abandoned by the section and the other side's.
	whole    map[int]bool
	alones   map[int]bool
	splits   map[[2]int]bool
	abandons map[[2]int]bool
	// atomics caches atomicSteps by critical section: the locations
	// loaded, and those stored.
	atomics map[int][2]map[hb.Loc]bool
	// exposed holds the write sites whose values some read found left
	// from before its goroutine's last lock operation (exposedSites);
	// nil until first used.
	exposed map[uint32]bool
	// plain is the trace's order without inferred edges (plainGraph).
	plain *hb.Graph
	// repeats caches pastRepeats: per section and direction, the first
	// section of its lock beyond a run taken at one Lock site.
	repeats map[[2]int]int
	// accessSites holds the site table's read and write sites by
	// expression, built on first use.
	accessSites map[siteKey][]trace.Site
	// lockSitesOf holds the site table's Lock and RLock sites by
	// function and lock expression, for relocked.
	lockSitesOf map[siteKey][]trace.Site
	// lockSites counts the lock acquisition sites per function (file and
	// name), for onlyLockSite.
	lockSites map[string]int
	// footprints caches what each critical section accessed.
	footprints map[int]*footprint
	// rests caches restOf: what a goroutine did outside its sections
	// taken at one Lock site.
	rests map[restKey]*effects
	// effs caches sectionEffects by critical section.
	effs map[int]*effects
}

// secUse is how one critical section (with the sections nested in it)
// uses a location: whether its first access of it is a read, whether that
// read is dereferenced without a nil check, and whether any of its reads
// is.
type secUse struct {
	firstRead, firstDeref, deref bool
	firstSite                    uint32 // the site of the first access
}

func newChecker(g *hb.Graph, sites *trace.SiteTable, opts Options, flags map[hb.Loc]bool, st *Stats) *checker {
	n := len(g.Goroutines)
	c := &checker{
		g: g, sites: sites, opts: opts, flags: flags, stats: st,
		open:      make([][]int32, n),
		detection: make([][]pending, n),
		endAt:     make(map[int][]int32),
		seen:      make(map[string]bool),
		secUses:   make(map[int32]map[hb.Loc]secUse),
		derefs:    make(map[uint32]bool),
	}
	for k, s := range g.Sections() {
		if s.End >= 0 {
			c.endAt[s.End] = append(c.endAt[s.End], int32(k))
		}
	}
	if opts.Algorithm == Base {
		c.base = make(map[hb.Loc]*baseLoc)
	} else {
		c.opt = make(map[hb.Loc]*optLoc)
		c.shared = c.sharedLocs()
	}
	return c
}

func isAccess(k trace.Kind) bool { return k == trace.EvRead || k == trace.EvWrite }

// sharedLocs finds, for Opt, the locations that two goroutines access
// inside critical sections, one of them writing: the only ones that can
// form a pair. The paper's hardware finds them from coherence traffic; a
// trace lets us find them in one pass before the walk.
func (c *checker) sharedLocs() map[hb.Loc]bool {
	type use struct {
		g       int32
		multi   bool
		written bool
	}
	uses := make(map[hb.Loc]*use)
	for i := range c.g.Events {
		ev := &c.g.Events[i]
		if !isAccess(ev.Kind) || len(c.g.Locks(i)) == 0 {
			continue
		}
		loc := c.g.Loc(i)
		if c.flags[loc] {
			continue
		}
		gi := int32(c.g.Goroutine(i))
		u := uses[loc]
		if u == nil {
			u = &use{g: gi}
			uses[loc] = u
		}
		if u.g != gi {
			u.multi = true
		}
		if ev.Kind == trace.EvWrite {
			u.written = true
		}
	}
	shared := make(map[hb.Loc]bool)
	for loc, u := range uses {
		if u.multi && u.written {
			shared[loc] = true
		}
	}
	c.stats.SharedBytes = int64(len(uses)) * int64(unsafe.Sizeof(hb.Loc{})+unsafe.Sizeof(use{})+unsafe.Sizeof(&use{}))
	return shared
}

func (c *checker) run() {
	secs := c.g.Sections()
	c.secsOf = make([][]int32, len(c.g.Goroutines))
	for k, s := range secs {
		c.secsOf[s.G] = append(c.secsOf[s.G], int32(k))
	}
	next := 0
	for i := range c.g.Events {
		for next < len(secs) && secs[next].Begin == i {
			s := secs[next]
			c.open[s.G] = append(c.open[s.G], int32(next))
			next++
		}
		if isAccess(c.g.Events[i].Kind) {
			c.access(i)
		}
		for _, k := range c.endAt[i] {
			gi := secs[k].G
			c.open[gi] = slices.DeleteFunc(c.open[gi], func(x int32) bool { return x == k })
			if len(c.open[gi]) == 0 {
				c.release(gi, i)
			}
		}
	}
	// Sections never released (the trace ended inside them): their
	// DetectionLists are checked at the end.
	for gi := range c.detection {
		c.release(gi, len(c.g.Events))
	}
	c.stats.PeakEntries, c.stats.PeakBytes = c.size()
}

func (c *checker) size() (int, int64) {
	key := int64(unsafe.Sizeof(hb.Loc{}))
	if c.opts.Algorithm == Base {
		n := 0
		for _, l := range c.base {
			n += len(l.th)
		}
		per := int64(unsafe.Sizeof(baseLoc{})) + key + int64(unsafe.Sizeof(&baseLoc{}))
		return n, int64(n)*int64(unsafe.Sizeof(baseThread{})) + int64(len(c.base))*per
	}
	per := int64(unsafe.Sizeof(optLoc{})) + key + int64(unsafe.Sizeof(&optLoc{}))
	return len(c.opt), int64(len(c.opt)) * per
}

// access is OSCS_detectCS with update_commutative_flag (Fig. 8) for event i.
func (c *checker) access(i int) {
	ev := &c.g.Events[i]
	loc := c.g.Loc(i)
	if c.flags[loc] {
		return
	}
	c.stats.Accesses++
	gi := int32(c.g.Goroutine(i))
	write := ev.Kind == trace.EvWrite
	sec := int32(-1)
	if o := c.open[gi]; len(o) > 0 {
		sec = o[0]
	}
	cur := rec{ev: int32(i), g: gi, sec: sec}

	var bl *baseLoc
	var th *baseThread
	var ol *optLoc
	var ownRead, ownWrite rec
	if c.base != nil {
		bl = c.base[loc]
		if bl == nil {
			bl = &baseLoc{}
			c.base[loc] = bl
		}
		for k := range bl.th {
			if bl.th[k].g == gi {
				th = &bl.th[k]
			}
		}
		if th == nil {
			bl.th = append(bl.th, baseThread{g: gi, read: none, write: none})
			th = &bl.th[len(bl.th)-1]
		}
		ownRead, ownWrite = th.read, th.write
	} else {
		if !c.shared[loc] {
			return
		}
		ol = c.opt[loc]
		if ol == nil {
			ol = &optLoc{reads: [2]rec{none, none}, writes: [2]rec{none, none}, resetAt: -1}
			c.opt[loc] = ol
		}
		if hw := c.opts.Hardware; hw != nil && sec >= 0 {
			gen, ok := hw.Seen(i)
			if !ok {
				// Not recorded, nor checked; the value in memory
				// still changes (the redundant-write check reads it
				// from the cache).
				c.stats.Unseen++
				c.gap(gi, loc, sec)
				if write {
					ol.last, ol.known = ev.Value, true
				}
				return
			}
			if gen != ol.gen {
				// The entry was evicted and allocated again: the
				// slots of the old one are gone.
				if ol.reads[0].ev >= 0 || ol.writes[0].ev >= 0 {
					ol.resetAt = int32(i) // history lost, not a first entry
				}
				ol.gen = gen
				ol.reads, ol.writes = [2]rec{none, none}, [2]rec{none, none}
			}
		}
		ownRead, ownWrite = own(ol.reads, gi), own(ol.writes, gi)
	}

	// update_commutative_flag, as §3.2.3 words it: a write sets the flag
	// when the goroutine's last read of the location was in the same
	// critical section and clears it otherwise; the first read in a
	// critical section, or a read outside any, clears it.
	var last *uint64 // the value word of the location's last write
	var known *bool  // whether it was written
	if bl != nil {
		last, known = &bl.last, &bl.known
	} else {
		last, known = &ol.last, &ol.known
	}
	if write {
		cur.flag = sec >= 0 && ownRead.ev >= 0 && ownRead.sec == sec
		cur.val = ev.Value
		cur.same = *known && *last == ev.Value
		cur.init = cur.flag && ev.Value != 0 && ownRead.zero && ownWrite.ev < ownRead.ev
		cur.zero = !*known || *last == 0
		*last, *known = ev.Value, true
	} else {
		cur.zero = !*known || *last == 0
		if sec >= 0 && ownRead.ev >= 0 && ownRead.sec == sec {
			cur.flag = flagIn(ownRead, ownWrite, sec)
		}
	}

	if sec >= 0 {
		// Step 1: the most recent writes of other goroutines; step 2,
		// for a write, their most recent reads.
		if bl != nil {
			for k := range bl.th {
				t := &bl.th[k]
				if t.g == gi {
					continue
				}
				c.pair(t.write, true, cur, write, loc)
				if write {
					c.pair(t.read, false, cur, write, loc)
				}
			}
		} else {
			for _, p := range ol.writes {
				if p.g != gi {
					c.pair(p, true, cur, write, loc)
				}
			}
			if write {
				for _, p := range ol.reads {
					if p.g != gi {
						c.pair(p, false, cur, write, loc)
					}
				}
			}
		}
	}

	// Step 3: update the history. The flag is the critical section's, so
	// the goroutine's other record in the same section follows it.
	if bl != nil {
		if write {
			th.write = cur
			if th.read.ev >= 0 && sec >= 0 && th.read.sec == sec {
				th.read.flag = cur.flag
			}
		} else {
			th.read = cur
			if th.write.ev >= 0 && sec >= 0 && th.write.sec == sec {
				th.write.flag = cur.flag
			}
		}
		return
	}
	if sec < 0 {
		return // Opt keeps accesses inside critical sections only
	}
	if write {
		put(&ol.writes, cur)
		setFlag(&ol.reads, gi, sec, cur.flag)
	} else {
		put(&ol.reads, cur)
		setFlag(&ol.writes, gi, sec, cur.flag)
	}
}

// gap notes that the hardware missed an access of goroutine gi to loc in
// critical section sec (Options.Hardware).
func (c *checker) gap(gi int32, loc hb.Loc, sec int32) {
	if c.gaps == nil {
		c.gaps = make([]map[hb.Loc]int32, len(c.g.Goroutines))
	}
	if c.gaps[gi] == nil {
		c.gaps[gi] = make(map[hb.Loc]int32)
	}
	c.gaps[gi][loc] = sec
}

// unsure reports whether the hardware's CSRWFlag of r's critical section
// for loc may be wrong: an access of that section to loc was not recorded,
// or the entry lost its slots since the section began. A missing read
// leaves the flag clear where software's is set, and OSCS-HW must not
// report a pair on that (§4.3: a miss only loses bugs).
func (c *checker) unsure(r rec, loc hb.Loc) bool {
	if c.opts.Hardware == nil || r.sec < 0 {
		return false
	}
	if c.gaps != nil {
		if sec, ok := c.gaps[r.g][loc]; ok && sec == r.sec {
			return true
		}
	}
	ol := c.opt[loc]
	return ol != nil && ol.resetAt >= 0 && int(ol.resetAt) >= c.g.Sections()[r.sec].Begin
}

// flagIn returns the goroutine's CSRWFlag in section sec: that of its
// latest record in sec.
func flagIn(read, write rec, sec int32) bool {
	latest := read
	if write.ev > latest.ev {
		latest = write
	}
	return latest.ev >= 0 && latest.sec == sec && latest.flag
}

func own(slots [2]rec, gi int32) rec {
	for _, r := range slots {
		if r.ev >= 0 && r.g == gi {
			return r
		}
	}
	return none
}

// put makes r the newest of two slots from different goroutines.
func put(slots *[2]rec, r rec) {
	if slots[0].g != r.g {
		slots[1] = slots[0]
	}
	slots[0] = r
}

func setFlag(slots *[2]rec, gi, sec int32, flag bool) {
	for k := range slots {
		if slots[k].ev >= 0 && slots[k].g == gi && slots[k].sec == sec {
			slots[k].flag = flag
		}
	}
}

// pair runs check_order and check_commutative (Fig. 8) on the earlier
// access p and the current one, with the redundant-write filter (§3.2.4).
func (c *checker) pair(p rec, pWrite bool, cur rec, cWrite bool, loc hb.Loc) {
	if p.ev < 0 || p.sec < 0 || !c.g.CommonLock(int(p.ev), int(cur.ev)) {
		return
	}
	c.stats.Pairs++
	if c.g.HappensBefore(int(p.ev), int(cur.ev)) || c.sectionsOrdered(p, cur) {
		c.stats.Ordered++
		return
	}
	if redundant(p, pWrite, cur, cWrite) || c.readsOwnWrite(p, pWrite, cur, cWrite, loc) || c.readsOwnValue(p, pWrite, cur, cWrite, loc) {
		c.stats.Redundant++
		return
	}
	if !c.opts.NoSwitched && c.switched(p, cur) {
		c.stats.Switched++
		return
	}
	if !c.opts.NoLazyInit && c.lazyInit(p, pWrite, cur, cWrite, loc) {
		c.stats.LazyInit++
		return
	}
	if !c.opts.NoNilGuard && c.nilGuarded(p, pWrite, cur, cWrite, loc) {
		c.stats.NilGuarded++
		return
	}
	if !c.opts.NoWholeOp && c.wholeOps(p, pWrite, cur, cWrite, loc) {
		c.stats.WholeOp++
		return
	}
	switch {
	case !p.flag && c.unsure(p, loc):
		c.stats.Forgotten++
	case !p.flag:
		c.report(p, pWrite, cur, cWrite, loc, p.g)
	case !cur.flag:
		d := pending{p: p, pWrite: pWrite, cur: cur, cWrite: cWrite, loc: loc}
		if l := c.opt[loc]; l != nil {
			d.gen = l.gen
		}
		c.detection[cur.g] = append(c.detection[cur.g], d)
	default:
		c.stats.Commutative++
	}
}

// redundant reports whether the pair's order cannot change the location's
// value: two writes of the same value, or a read against a write that
// stored the value the location already held.
func redundant(p rec, pWrite bool, cur rec, cWrite bool) bool {
	switch {
	case pWrite && cWrite:
		return p.val == cur.val
	case pWrite:
		return p.same
	default:
		return cur.same
	}
}

// release is update_release for the last mutex a goroutine held: the
// pairs of its DetectionList are checked again with the flag its critical
// section ended with, at event i. Under Options.Hardware a pair whose AHB
// entry was evicted since is dropped: the hardware no longer knows the
// flag, and a miss must not report.
func (c *checker) release(gi, i int) {
	list := c.detection[gi]
	if len(list) == 0 {
		return
	}
	c.detection[gi] = nil
	for _, d := range list {
		var flag bool
		if c.base != nil {
			if l := c.base[d.loc]; l != nil {
				for _, t := range l.th {
					if t.g == d.cur.g {
						flag = flagIn(t.read, t.write, d.cur.sec)
					}
				}
			}
		} else if l := c.opt[d.loc]; l != nil {
			if hw := c.opts.Hardware; hw != nil && (l.gen != d.gen || !hw.Alive(d.gen, i)) {
				c.stats.Forgotten++
				continue
			}
			flag = flagIn(own(l.reads, d.cur.g), own(l.writes, d.cur.g), d.cur.sec)
		}
		if c.opts.Hardware != nil && (!d.p.flag && c.unsure(d.p, d.loc) || !flag && c.unsure(d.cur, d.loc)) {
			c.stats.Forgotten++
			continue
		}
		if !d.p.flag || !flag {
			lacks := d.cur.g
			if !d.p.flag {
				lacks = d.p.g
			}
			c.report(d.p, d.pWrite, d.cur, d.cWrite, d.loc, lacks)
		} else {
			c.stats.Commutative++
		}
	}
}

// sectionsOrdered reports whether the critical section of one side, of a
// lock both hold in modes that exclude each other, began before the other
// side's access by order synchronization: that section then runs first in
// every execution, since the other side's section cannot have taken the
// lock before that section's Lock, which comes after its access, nor while
// the section holds it (a time.AfterFunc callback, or a goroutine, started
// inside its creator's critical section and locking the same lock:
// the creator's section always runs first). Only the order of the
// program's synchronization counts (plainGraph): an inferred edge (a
// flag's write before the read that saw it, a hand-off's take) holds in
// the executions where the read sees that value, and the other order of
// the sections is one where it does not (mozilla3x's Run, whose poll of
// the wake-up gives up before Shutdown's section posts it).
func (c *checker) sectionsOrdered(p, cur rec) bool {
	secs := c.g.Sections()
	for _, x := range c.g.Locks(int(p.ev)) {
		for _, y := range c.g.Locks(int(cur.ev)) {
			if x.Addr != y.Addr || x.Mode != hb.Write && y.Mode != hb.Write {
				continue
			}
			if k := c.sectionAt(p, x.Addr); k >= 0 && c.g.HappensBefore(secs[k].Begin, int(cur.ev)) &&
				c.plainGraph().HappensBefore(secs[k].Begin, int(cur.ev)) {
				return true
			}
			if k := c.sectionAt(cur, x.Addr); k >= 0 && c.g.HappensBefore(secs[k].Begin, int(p.ev)) &&
				c.plainGraph().HappensBefore(secs[k].Begin, int(p.ev)) {
				return true
			}
		}
	}
	return false
}

// plainGraph returns the trace's order without inferred edges: the
// checker's graph when it has none (no edges given, no hand-off found),
// the caller's when it has none (CheckStats), or the trace analyzed again
// without them (once, on first use).
func (c *checker) plainGraph() *hb.Graph {
	if c.plain != nil {
		return c.plain
	}
	o := c.g.Options()
	if plain(o) && c.g.Takes() == 0 {
		c.plain = c.g
		return c.plain
	}
	o.Edges, o.NoTakes = nil, true
	c.plain = analyze(c.g.Events, o)
	return c.plain
}

// plain reports whether a graph analyzed with o has no inferred edges but
// perhaps the hand-offs' (Graph.Takes says whether it found any).
func plain(o hb.Options) bool { return len(o.Edges) == 0 }

// readsOwnValue reports whether the pair is a write and a read of a
// scalar (trace.UseScalar: the value words are the values) whose
// goroutine itself last wrote the location, before the read, the value
// the pair's write stores: in either order of the two sections the read
// finds that value, the write's or its own (vault's Client: every
// goroutine calls SetCloneToken(true) and then Clone, which reads the
// flag; held-out rehearsal 44's H). A third write of another value is a
// pair of its own with the read.
func (c *checker) readsOwnValue(p rec, pWrite bool, cur rec, cWrite bool, loc hb.Loc) bool {
	if pWrite == cWrite {
		return false
	}
	r, w := cur, p
	if !pWrite {
		r, w = p, cur
	}
	if !c.scalarRead(c.g.Events[r.ev].Site) {
		return false
	}
	own := c.lastOwnWrite(r.g, loc, r.ev)
	return own >= 0 && c.g.Events[own].Value == c.g.Events[w.ev].Value
}

// scalarRead reports whether the read site's Uses has trace.UseScalar
// (the set of such sites is made on first use).
func (c *checker) scalarRead(site uint32) bool {
	if c.scalar == nil {
		c.scalar = make(map[uint32]bool)
		if c.sites != nil {
			for _, s := range c.sites.Sites {
				if slices.Contains(strings.Fields(s.Uses), trace.UseScalar) {
					c.scalar[s.ID] = true
				}
			}
		}
	}
	return c.scalar[site]
}

// An ownWriteKey names one goroutine's writes of an address through one
// name, in any GC epoch, in one generation (hb.Loc.Gen).
type ownWriteKey struct {
	g    int32
	addr uint64
	v    uint32
	gen  uint32
}

// lastOwnWrite returns goroutine g's last write of loc's address and name
// before event i, or -1. The writes are indexed on first use, once. In
// any GC epoch: the goroutine may notice a collection between its write
// and its read of one object (vault's Clone), and an object freed and
// another made at its address in between, written and read by one
// goroutine through one field name, is the rare case this misjudges
// (unless an instrumented allocation made the other: EvNew's generation).
func (c *checker) lastOwnWrite(g int32, loc hb.Loc, i int32) int32 {
	if c.ownWrites == nil {
		c.ownWrites = make(map[ownWriteKey][]int32)
		for x := range c.g.Events {
			if c.g.Events[x].Kind == trace.EvWrite {
				l := c.g.Loc(x)
				k := ownWriteKey{int32(c.g.Goroutine(x)), l.Addr, l.Var, l.Gen}
				c.ownWrites[k] = append(c.ownWrites[k], int32(x))
			}
		}
	}
	ws := c.ownWrites[ownWriteKey{g, loc.Addr, loc.Var, loc.Gen}]
	if k, _ := slices.BinarySearch(ws, i); k > 0 {
		return ws[k-1]
	}
	return -1
}

// readsOwnWrite reports whether the pair is a write and a read whose
// goroutine wrote the location before the read in the read's critical
// section of a lock common to both sides: the read sees that write in
// either order of the sections, never the other side's (`e.cur = s; use(e.cur)`
// under one lock). The sections' two writes are a pair of their own.
func (c *checker) readsOwnWrite(p rec, pWrite bool, cur rec, cWrite bool, loc hb.Loc) bool {
	if pWrite == cWrite {
		return false
	}
	r, w := cur, p
	if !pWrite {
		r, w = p, cur
	}
	secs := c.g.Sections()
	for _, x := range c.g.Locks(int(r.ev)) {
		for _, y := range c.g.Locks(int(w.ev)) {
			if x.Addr != y.Addr || x.Mode != hb.Write && y.Mode != hb.Write {
				continue
			}
			k := c.sectionAt(r, x.Addr)
			if k < 0 {
				continue
			}
			evs := c.g.Goroutines[r.g].Events
			j, _ := slices.BinarySearch(evs, int(r.ev))
			for j--; j >= 0 && evs[j] > secs[k].Begin; j-- {
				if c.g.Events[evs[j]].Kind == trace.EvWrite && c.g.Loc(evs[j]) == loc {
					return true
				}
			}
		}
	}
	return false
}

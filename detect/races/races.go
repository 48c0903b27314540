package races

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// Kind is the kind of the findings Check reports.
const Kind = finding.Race

// maxShadow bounds the accesses kept per location.
const maxShadow = 256

// Stats counts what one Check did.
type Stats struct {
	// Dropped counts the accesses dropped from a location's shadow state
	// because it held maxShadow already: races with them may be missed.
	Dropped int
	// CheckStream's: the events streamed, the accesses whose races were
	// withheld because their goroutine was unsettled (hb.Context), and
	// the locations dropped (with every access kept of them) because the
	// shadow state held Options.MaxLocations already.
	Events, Withheld, LocationsDropped int
}

// Options configures Check.
type Options struct {
	// Stats, if not nil, receives counts of what Check did.
	Stats *Stats
	// Window is CheckStream's hb.StreamOptions.Window (hb.DefaultWindow
	// if 0).
	Window int
	// MaxLocations bounds the locations CheckStream keeps shadow state
	// for (DefaultMaxLocations if 0; negative, no bound): past it the
	// location first seen longest ago is dropped, and counted.
	MaxLocations int
	// Visit, if not nil, is called with each step of CheckStream's walk
	// first: another checker that asks the same order of the trace
	// (conmem.TestLifetimeStream) rides on the walk instead of a walk
	// of its own.
	Visit func(*hb.Step)
}

// DefaultMaxLocations is Options.MaxLocations' default: about 100 MiB of
// shadow state at one access per location.
const DefaultMaxLocations = 1 << 20

// An access is one entry of a location's shadow state.
type access struct {
	ev     int
	g      int
	site   uint32
	write  bool
	atomic bool
	name   uint32 // hb.Loc.Var: the variable or field of a plain access
	// CheckStream's: what the walk knew of the access, and its
	// instance (hb.Step).
	ctx *hb.Context
	n   uint64
}

// key is a location: an address in a GC epoch and generation (hb.Loc.Gen:
// an object that EvNew made at the address is another location). Plain
// accesses through different names of one address are told apart by
// access.name.
type key struct {
	addr, epoch uint64
	gen         uint32
}

// Check reports the data races of the trace that g analyzed, which must
// have been built with hb.Options.LockOrder. sites is the trace's site
// table. Findings come one per pair of sites, in the order of their sites'
// positions, with IDs set.
func Check(g *hb.Graph, sites *trace.SiteTable, opts Options) []finding.Finding {
	c := &checker{g: g, sites: sites, shadow: make(map[key]int), best: make(map[[2]string]int)}
	c.hb = func(b, a access) bool { return g.HappensBefore(b.ev, a.ev) }
	for i, ev := range g.Events {
		a := access{ev: i, g: g.Goroutine(i), site: ev.Site}
		var ok bool
		if a.write, a.atomic, ok = accessKind(ev.Kind, ev.Site); !ok {
			continue
		}
		loc := g.Loc(i)
		a.name = loc.Var
		l, _ := c.state(key{loc.Addr, loc.Epoch, loc.Gen})
		c.access(l, a)
	}
	return c.finish(opts)
}

func (c *checker) finish(opts Options) []finding.Finding {
	for _, p := range c.pairs {
		c.report(p[0], p[1])
	}
	if opts.Stats != nil {
		opts.Stats.Dropped += c.dropped
	}
	slices.SortFunc(c.out, func(a, b finding.Finding) int {
		return cmp.Or(comparePos(a.Sites[0], b.Sites[0]), comparePos(a.Sites[1], b.Sites[1]), cmp.Compare(a.ID, b.ID))
	})
	return c.out
}

type checker struct {
	g     *hb.Graph // Check's; nil in CheckStream
	hb    func(b, a access) bool
	sites *trace.SiteTable
	// shadow maps a location to its shadow state, states[shadow[k]]: one
	// map lookup per access (a state is changed in place), where a map
	// to the states took three in CheckStream (bench/RESULTS.md,
	// freecache's TestRace). free are the indices of the states of
	// dropped locations, to reuse.
	shadow map[key]int
	states [][]access
	free   []int
	// pairs are the races to report, one per pair of lines (as
	// file:line), which best indexes.
	pairs   [][2]access
	best    map[[2]string]int
	out     []finding.Finding
	dropped int
	// withheld counts the accesses that found a race they did not
	// report: they were unsettled (CheckStream).
	withheld int
}

// access compares a with the shadow state of its location, reports the
// races, and updates the state: a write drops every access ordered before
// it (a later access that races with one of them races with the write,
// or is ordered after both); a read replaces the earlier read of its
// goroutine at its site.
//
// An access b earlier in the trace than a is unordered with it only if
// neither happens before the other: the trace's order is not always one
// of happens-before's. A send is recorded when it arrives, and the
// sender's events after it (on an unbuffered channel, ordered after the
// receive, which the send waits for) can come in the trace before the
// receiver's events that precede the receive (package hb's channel rule).
func (c *checker) access(l int, a access) {
	sh := c.states[l]
	keep := sh[:0]
	held := false
	for _, b := range sh {
		if b.g != a.g && (a.write || b.write) && !(a.atomic && b.atomic) &&
			(a.atomic || b.atomic || a.name == b.name) && !c.hb(b, a) && !c.hb(a, b) {
			if a.ctx != nil && a.ctx.Unsettled {
				held = true
			} else {
				c.race(b, a)
			}
		}
		switch {
		case a.write && c.hb(b, a):
			continue // ordered before the write
		case !a.write && !b.write && b.g == a.g && b.site == a.site && b.atomic == a.atomic:
			continue // the same goroutine's earlier read at the site
		}
		keep = append(keep, b)
	}
	if held {
		c.withheld++
	}
	if len(keep) >= maxShadow {
		c.dropped++
		keep = slices.Delete(keep, 0, 1)
	}
	c.states[l] = append(keep, a)
}

// state returns the index in states of location k's shadow state, added
// empty if k had none (added says so).
func (c *checker) state(k key) (l int, added bool) {
	if l, ok := c.shadow[k]; ok {
		return l, false
	}
	if n := len(c.free); n > 0 {
		l, c.free = c.free[n-1], c.free[:n-1]
	} else {
		l = len(c.states)
		c.states = append(c.states, nil)
	}
	c.shadow[k] = l
	return l, true
}

// drop forgets location k's shadow state; the next location added reuses
// it.
func (c *checker) drop(k key) {
	l := c.shadow[k]
	delete(c.shadow, k)
	clear(c.states[l])
	c.states[l] = c.states[l][:0]
	c.free = append(c.free, l)
}

// race notes the race of accesses a and b, one per pair of lines: the
// read and the write of x++ racing with another x++ are one race. Of the
// races of one pair of lines it keeps the same one whatever the
// interleaving (the first in the order of before, its accesses in that
// order too), so that a finding's sites, message and ID do not change from
// run to run with which access of the line pair the trace happened to pair
// first (functable's two handlers, total += n against total -= n, came out
// at line 25 in one run and at line 26 in another).
func (c *checker) race(a, b access) {
	if c.before(b, a) {
		a, b = b, a
	}
	la, lb := c.line(a.site), c.line(b.site)
	lines := [2]string{min(la, lb), max(la, lb)}
	i, ok := c.best[lines]
	if !ok {
		c.best[lines] = len(c.pairs)
		c.pairs = append(c.pairs, [2]access{a, b})
		return
	}
	p := c.pairs[i]
	if x := c.cmpAccess(a, p[0]); x < 0 || x == 0 && c.cmpAccess(b, p[1]) < 0 {
		c.pairs[i] = [2]access{a, b}
	}
}

// cmpAccess orders accesses by their sites' positions, a write before a
// read and an atomic access before a plain one at one site; 0 if the
// trace alone tells them apart.
func (c *checker) cmpAccess(x, y access) int {
	sx, okx := c.sites.Lookup(x.site)
	sy, oky := c.sites.Lookup(y.site)
	if okx && oky {
		if d := cmp.Or(cmp.Compare(sx.File, sy.File), cmp.Compare(sx.Line, sy.Line), cmp.Compare(sx.Col, sy.Col)); d != 0 {
			return d
		}
	} else if d := cmp.Compare(x.site, y.site); d != 0 {
		return d
	}
	rank := func(a access) int {
		r := 0
		if !a.write {
			r += 2
		}
		if !a.atomic {
			r++
		}
		return r
	}
	return cmp.Compare(rank(x), rank(y))
}

// before reports whether x comes before y in a race's report: by cmpAccess,
// then in the trace.
func (c *checker) before(x, y access) bool {
	if d := c.cmpAccess(x, y); d != 0 {
		return d < 0
	}
	return x.ev < y.ev
}

// report reports the race of accesses a and b (race's order).
func (c *checker) report(a, b access) {
	f := finding.Finding{Kind: Kind, Status: finding.Predicted}
	w := finding.Witness{}
	for _, x := range []access{a, b} {
		if c.g == nil {
			c.reportStreamed(&f, &w, x)
			continue
		}
		ev := c.g.Events[x.ev]
		role := roleOf(x)
		w.Events = append(w.Events, finding.Event{Role: role, G: ev.Goroutine, Site: ev.Site, N: c.g.Instance(x.ev), Kind: ev.Kind.String(), Index: x.ev})
		s := finding.SiteOf(c.sites, ev.Site, role)
		var spawn finding.Site
		if sp := c.g.Spawn(x.g); sp != 0 {
			spawn = finding.SiteOf(c.sites, sp, "go")
			s.Goroutine = spawn.Pos()
		} else if c.g.Adopted(x.g) {
			spawn = finding.UnseenSpawn(c.g.Goroutines[x.g].Creators)
		}
		f.Sites = append(f.Sites, s)
		f.Spawns = append(f.Spawns, spawn)
		var stack []finding.Site
		for _, j := range c.g.Stack(x.ev) {
			stack = append(stack, finding.SiteOf(c.sites, c.g.Events[j].Site, "call"))
		}
		f.Stacks = append(f.Stacks, stack)
		f.Evidence.Locks = append(f.Evidence.Locks, c.g.LockNames(x.ev, c.sites))
		f.Evidence.Clocks = append(f.Evidence.Clocks, c.g.Clock(x.ev).String())
	}
	f.Witnesses = []finding.Witness{w}
	sa, sb := f.Sites[0], f.Sites[1]
	f.Message = fmt.Sprintf("data race: %s %s in %s and %s %s in %s of another goroutine are not ordered by happens-before",
		verb(a), sa.Expr, fn(sa), verb(b), sb.Expr, fn(sb))
	if a.atomic != b.atomic {
		f.Evidence.Notes = append(f.Evidence.Notes, "one access is atomic and the other plain: every access of a word used atomically should be atomic")
	}
	f.Evidence.Notes = append(f.Evidence.Notes, "no go statement, channel operation, WaitGroup, lock or atomic orders the two accesses")
	f.SetID()
	c.out = append(c.out, f)
}

// line is the file:line of a site.
func (c *checker) line(site uint32) string {
	s, ok := c.sites.Lookup(site)
	if !ok {
		return fmt.Sprintf("site %d", site)
	}
	return fmt.Sprintf("%s:%d", s.File, s.Line)
}

func comparePos(a, b finding.Site) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
}

func roleOf(a access) string {
	r := "read"
	if a.write {
		r = "write"
	}
	if a.atomic {
		r = "atomic-" + r
	}
	return r
}

func verb(a access) string {
	v := "the read of"
	if a.write {
		v = "the write of"
	}
	if a.atomic {
		v = "the atomic" + v[3:]
	}
	return v
}

func fn(s finding.Site) string {
	if s.Function == "" {
		return "?"
	}
	return s.Function
}

// accessKind says whether an event of kind k at site is a memory access
// the checker pairs, and if so whether it writes and whether it is atomic.
// An atomic load at site 0 is the load of a successful compare-and-swap,
// which the shim records just before the swap's store at the swap's own
// site (shim's casEvent): it is not paired. Every access that races with
// it races with that store too (nothing comes between them on their
// goroutine), which is reported at the call's site; paired, it was a
// second report of the same race naming "site 0 (not in the site table)"
// in "?", whose forced run the shim rejects (site 0 is never a plan's
// point): cloudwego/netpoll's changeState against (*connection).init.
func accessKind(k trace.Kind, site uint32) (write, atomic, ok bool) {
	switch k {
	case trace.EvRead:
		return false, false, true
	case trace.EvWrite:
		return true, false, true
	case trace.EvAtomicLoad:
		return false, true, site != 0
	case trace.EvAtomicStore:
		return true, true, true
	}
	return false, false, false
}

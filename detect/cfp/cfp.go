package cfp

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// DefaultMaxChecks is the default Options.MaxChecks: about a second of
// comparisons.
const DefaultMaxChecks = 50_000_000

// Options configures Measure.
type Options struct {
	// MaxChecks bounds the comparisons of instance groups in one run; 0
	// means DefaultMaxChecks, negative no bound. Past it Measure stops
	// pairing and says so in Result.Limit: the pairs found so far are
	// kept, the others missed.
	MaxChecks int
}

// A Pair is two functions, by key, with A <= B.
type Pair struct{ A, B string }

// MakePair orders a and b into a Pair.
func MakePair(a, b string) Pair {
	if b < a {
		a, b = b, a
	}
	return Pair{a, b}
}

func comparePairs(x, y Pair) int { return cmp.Or(strings.Compare(x.A, y.A), strings.Compare(x.B, y.B)) }

// A Result is the CFP of one run.
type Result struct {
	Pairs []Pair // sorted
	// Funcs are the keys of the functions the run executed: those whose
	// entry was logged and those that inherit from one of them, sorted.
	Funcs []string
	// Names maps each key of Funcs to the function's name.
	Names     map[string]string
	Instances int // function instances (entry to exit) in the trace
	Groups    int // instances after grouping similar ones
	Limit     string
}

// instance is a function instance, or the representative of a group.
type instance struct {
	g        int
	ent, exi int   // event indices; exi -1 if the function never returned
	entExi   []int // sections open from entry to exit
}

// Measure computes the CFP of one run from its events, which must be in
// the global order (trace.ReadAll and trace.Sort give it). sites names
// the functions of the "func" sites; plan, if not nil, adds the pairs of
// the functions the cheap run skipped.
func Measure(events []trace.Event, sites *trace.SiteTable, plan *Plan, opts Options) *Result {
	g := hb.Analyze(events, hb.Options{Sites: sites})
	ix := plan.index()
	res := &Result{Names: make(map[string]string)}
	// Functions by number: fnKeys[id] is the key, byID[id] the instances.
	var fnKeys []string
	var byID [][]instance
	fnID := make(map[string]int32)
	idOf := make(map[uint32]int32) // site -> function
	key := func(site uint32) int32 {
		if id, ok := idOf[site]; ok {
			return id
		}
		k := fmt.Sprintf("site %d", site)
		if s, ok := sites.Lookup(site); ok {
			k = SiteKey(&s)
			res.Names[k] = s.Function
			if f := ix.byKey[k]; f != nil && f.Name != "" {
				res.Names[k] = f.Name
			}
		}
		id, ok := fnID[k]
		if !ok {
			id = int32(len(fnKeys))
			fnID[k] = id
			fnKeys = append(fnKeys, k)
			byID = append(byID, nil)
		}
		idOf[site] = id
		return id
	}
	sections := g.Sections()
	// secsOf[gi]: goroutine gi's sections, in the order of their Begin
	// (Analyze appends a section at its Lock, in the walk's order), which
	// the walk over gi's events below meets in turn. (A map from event to
	// sections was most of Measure's time on yamux's 27.7 M events: an
	// entry per critical section, looked up at every event.)
	secsOf := make([][]int, len(g.Goroutines))
	for si := range sections {
		gi := sections[si].G
		secsOf[gi] = append(secsOf[gi], si)
	}
	// Instances, grouped as they are found: a goroutine's instances of
	// one function with the same lock set at entry, sections held from
	// entry to exit and clocks at entry and exit are one. A goroutine's
	// instances are added at their exits, in its order, and its clock
	// keys never come back once they changed (its own component only
	// rises; at one own component, a new snapshot has a higher index):
	// so the instances of a group are added one after the other, at one
	// exit clock, and the set of groups holds only those of the current
	// exit clock. Its key is small integers (fn and the sections
	// interned). freecache's cheap runs, 3 M instances each in one or two
	// goroutines and about as many groups, spent a third of Measure in a
	// set of every group keyed by two strings, one made with Sprintf per
	// instance (bench/RESULTS.md).
	type groupKey struct {
		fn, entLocks, entExi int32
		entClock             uint64
	}
	exiID := map[string]int32{"": 0}
	var exiBuf []byte
	groups := make(map[groupKey]struct{})
	var lastExi uint64 // the exit clock of groups' instances
	resetGroups := func(exi uint64) {
		if len(groups) > 8 {
			groups = make(map[groupKey]struct{}) // clear costs its capacity
		} else {
			clear(groups)
		}
		lastExi = exi
	}
	add := func(f int32, in instance) {
		res.Instances++
		exiBuf = exiBuf[:0]
		for _, s := range in.entExi {
			exiBuf = strconv.AppendUint(exiBuf, sections[s].Lock.Addr, 16)
			exiBuf = append(exiBuf, '/')
			exiBuf = strconv.AppendInt(exiBuf, int64(sections[s].Lock.Mode), 10)
			exiBuf = append(exiBuf, ' ')
		}
		ex, ok := exiID[string(exiBuf)]
		if !ok {
			ex = int32(len(exiID))
			exiID[string(exiBuf)] = ex
		}
		exiClk := ^uint64(0)
		if in.exi >= 0 {
			exiClk = g.ClockKey(in.exi)
		}
		if exiClk != lastExi {
			resetGroups(exiClk)
		}
		k := groupKey{fn: f, entLocks: g.LocksKey(in.ent), entExi: ex, entClock: g.ClockKey(in.ent)}
		if _, ok := groups[k]; ok {
			return
		}
		groups[k] = struct{}{}
		res.Groups++
		byID[f] = append(byID[f], in)
	}
	for gi := range g.Goroutines {
		resetGroups(0)
		var open []int // sections open at the current event
		type frame struct {
			fn   int32
			ent  int
			secs []int
		}
		var stack []frame
		secs := secsOf[gi]
		for _, i := range g.Goroutines[gi].Events {
			ev := &g.Events[i]
			open = slices.DeleteFunc(open, func(s int) bool { return sections[s].End >= 0 && sections[s].End <= i })
			for len(secs) > 0 && sections[secs[0]].Begin <= i {
				if sections[secs[0]].Begin == i {
					open = append(open, secs[0])
				}
				secs = secs[1:]
			}
			switch ev.Kind {
			case trace.EvFuncEnter:
				var secs []int
				for _, s := range open {
					if sections[s].Begin < i {
						secs = append(secs, s)
					}
				}
				stack = append(stack, frame{fn: key(ev.Site), ent: i, secs: secs})
			case trace.EvFuncExit:
				if len(stack) == 0 {
					continue
				}
				f := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				add(f.fn, instance{g: gi, ent: f.ent, exi: i, entExi: heldUntil(sections, f.secs, i)})
			}
		}
		for _, f := range slices.Backward(stack) { // never returned
			add(f.fn, instance{g: gi, ent: f.ent, exi: -1, entExi: heldUntil(sections, f.secs, -1)})
		}
	}

	byFn := make(map[string][]instance, len(fnKeys))
	fns := make([]string, 0, len(fnKeys))
	for id, ins := range byID {
		if len(ins) > 0 {
			byFn[fnKeys[id]] = ins
			fns = append(fns, fnKeys[id])
		}
	}
	slices.Sort(fns)
	budget := opts.MaxChecks
	if budget == 0 {
		budget = DefaultMaxChecks
	}
	// held[fn]: the locks every instance of fn holds from its entry to
	// its exit. Two functions that hold one lock that way (not both for
	// reading) throughout every instance are never concurrent: each
	// entry's lock set has the lock the other instance holds across
	// its whole run, so startsWithin fails both ways without looking at
	// the instances, which may be tens of thousands each (a helper
	// called under the structure's mutex by every request).
	held := make(map[string][]hb.Lock, len(fns))
	for _, fn := range fns {
		held[fn] = heldThroughout(sections, byFn[fn])
	}
	checks := 0
	var measured []Pair
	sp := newSpans(g)
pairs:
	for x, fa := range fns {
		for _, fb := range fns[x:] {
			if excludes(held[fa], held[fb]) {
				continue
			}
			conc, stopped := sp.concurrentFuncs(fa, fb, byFn[fa], byFn[fb], &checks, budget)
			if stopped {
				res.Limit = fmt.Sprintf("stopped pairing after %d comparisons of function instances (%s and %s have %d and %d instances that the trace does not order); pairs not yet compared are missing", budget, res.Names[fa], res.Names[fb], len(byFn[fa]), len(byFn[fb]))
				break pairs
			}
			if conc {
				measured = append(measured, MakePair(fa, fb))
			}
		}
	}

	// Add back the functions and pairs inherited through skipped callees.
	executed := make(map[string]bool)
	expand := make(map[string][]string)
	for _, fn := range fns {
		d := ix.descendants(fn)
		expand[fn] = d
		for _, k := range d {
			executed[k] = true
			if _, ok := res.Names[k]; !ok {
				if f := ix.byKey[k]; f != nil {
					res.Names[k] = f.Name
				}
			}
		}
	}
	set := make(map[Pair]bool)
	for _, p := range measured {
		for _, a := range expand[p.A] {
			for _, b := range expand[p.B] {
				set[MakePair(a, b)] = true
			}
		}
	}
	for p := range set {
		res.Pairs = append(res.Pairs, p)
	}
	slices.SortFunc(res.Pairs, comparePairs)
	for k := range executed {
		res.Funcs = append(res.Funcs, k)
	}
	slices.Sort(res.Funcs)
	return res
}

// heldUntil returns the sections of secs still held at event exi (all of
// them that never end, if exi is -1).
func heldUntil(sections []hb.Section, secs []int, exi int) []int {
	var out []int
	for _, s := range secs {
		if end := sections[s].End; end < 0 || (exi >= 0 && end > exi) {
			out = append(out, s)
		}
	}
	return out
}

// heldThroughout returns the locks, sorted by address then mode, that
// every one of ins holds from its entry to its exit (in one section).
func heldThroughout(sections []hb.Section, ins []instance) []hb.Lock {
	var out []hb.Lock
	for i, in := range ins {
		var locks []hb.Lock
		for _, s := range in.entExi {
			locks = append(locks, sections[s].Lock)
		}
		if i == 0 {
			out = locks
		} else {
			out = slices.DeleteFunc(out, func(l hb.Lock) bool { return !slices.Contains(locks, l) })
		}
		if len(out) == 0 {
			return nil
		}
	}
	slices.SortFunc(out, func(x, y hb.Lock) int { return cmp.Or(cmp.Compare(x.Addr, y.Addr), cmp.Compare(x.Mode, y.Mode)) })
	return slices.Compact(out)
}

// excludes reports whether a lock of as and one of bs are the same lock in
// modes that exclude each other (not both Read).
func excludes(as, bs []hb.Lock) bool {
	for _, x := range as {
		for _, y := range bs {
			if x.Addr == y.Addr && (x.Mode == hb.Write || y.Mode == hb.Write) {
				return true
			}
		}
	}
	return false
}

// concurrentFuncs reports whether some instance of as and some of bs are
// concurrent, counting the comparisons in checks; stopped reports that
// checks went past budget (if positive) before it knew.
func concurrentFuncs(g *hb.Graph, as, bs []instance, checks *int, budget int) (conc, stopped bool) {
	conc, stopped, _ = compareEach(g, as, bs, checks, budget, -1)
	return conc, stopped
}

// compareEach is concurrentFuncs, comparing pairs one by one; when probe
// is not negative, it stops after probe comparisons with probed true and
// the answer undecided.
func compareEach(g *hb.Graph, as, bs []instance, checks *int, budget, probe int) (conc, stopped, probed bool) {
	rb := goroutineRuns(bs)
	for i := range as {
		for r := range len(rb) - 1 {
			if bs[rb[r]].g == as[i].g {
				continue // one goroutine: never concurrent
			}
			for j := rb[r]; j < rb[r+1]; j++ {
				if probe == 0 {
					return false, false, true
				}
				probe--
				if budget > 0 && *checks >= budget {
					return false, true, false
				}
				*checks++
				if startsWithin(g, &as[i], &bs[j]) || startsWithin(g, &bs[j], &as[i]) {
					return true, false, false
				}
			}
		}
	}
	return false, false, false
}

// goroutineRuns returns where ins' runs of one goroutine begin, and
// len(ins) last. Measure adds a function's instances goroutine by
// goroutine, so there is one run per goroutine: the comparisons skip a run
// of the other instance's goroutine at once (startsWithin fails on one
// goroutine) instead of comparing, and counting, each of its instances.
// theine's TestCache_Set calls SetWithTTL 20,000 times from the test's
// goroutine: the pair {SetWithTTL, SetWithTTL} spent the whole budget of
// comparisons on instances of one goroutine and left the pairs after it
// unmeasured (bench/RESULTS.md, cfpmem30).
func goroutineRuns(ins []instance) []int {
	var out []int
	for k := range ins {
		if k == 0 || ins[k].g != ins[k-1].g {
			out = append(out, k)
		}
	}
	return append(out, len(ins))
}

// minSweep is the product of two functions' instance counts from which
// spans.concurrentFuncs compares only the pairs whose spans overlap.
const minSweep = 1 << 12

// sweepProbe times the two functions' instance counts is how many pairs
// spans.concurrentFuncs compares one by one before it sweeps.
const sweepProbe = 8

// spans places function instances on the timeline of one goroutine, the
// hub (the one that forked the most goroutines: a test's, which starts
// workers and waits for them), by the hub's own component: an instance's
// span is from the hub's own component at its entry's latest hub event
// (the latest that happens before the entry) to the hub's own component at
// the first hub event that its exit happens before. If a's span ends below
// where b's begins, a's exit is ordered before b's entry: a copy of the
// hub's clock taken at that larger own component, which b's entry holds,
// holds the hub's clock at every hub event with a smaller one, and so a's
// exit. Then neither starts within the other (Fig. 3) and the two need no
// comparison. A test that runs a thousand workers of F, waits, then a
// thousand of G, has F's and G's spans disjoint, where comparing them one by
// one took tens of millions of comparisons (httprate's TestLocalCounter).
type spans struct {
	g    *hb.Graph
	hub  []int // the hub's events; nil if no goroutine forked
	hubG int
	byFn map[string][]span
}

// A span is an instance's place on the hub's own components: lo at the
// latest hub event that happens before its entry (-1 if none), hi at the
// first that its exit happens before (max if none, or if it never
// returned). An instance of the hub's own goroutine spans everything.
type span struct{ lo, hi int64 }

func newSpans(g *hb.Graph) *spans {
	sp := &spans{g: g, byFn: make(map[string][]span)}
	forks := make([]int, len(g.Goroutines))
	best := -1
	for i := range g.Events {
		if g.Events[i].Kind == trace.EvFork {
			gi := g.Goroutine(i)
			forks[gi]++
			if best < 0 || forks[gi] > forks[best] {
				best = gi
			}
		}
	}
	if best >= 0 {
		sp.hub, sp.hubG = g.Goroutines[best].Events, best
	}
	return sp
}

// spansOf returns the spans of fn's instances ins, computed once.
func (sp *spans) spansOf(fn string, ins []instance) []span {
	if s, ok := sp.byFn[fn]; ok {
		return s
	}
	out := make([]span, len(ins))
	for k, in := range ins {
		out[k] = span{-1, math.MaxInt64}
		if in.g == sp.hubG {
			continue
		}
		// The hub events that happen before the entry are a prefix of
		// them (their own components only rise), those that the exit
		// happens before a suffix (their clocks only rise).
		if h := sort.Search(len(sp.hub), func(h int) bool { return !sp.g.HappensBefore(sp.hub[h], in.ent) }) - 1; h >= 0 {
			out[k].lo = int64(sp.g.Own(sp.hub[h]))
		}
		if in.exi >= 0 {
			if h := sort.Search(len(sp.hub), func(h int) bool { return sp.g.HappensBefore(in.exi, sp.hub[h]) }); h < len(sp.hub) {
				out[k].hi = int64(sp.g.Own(sp.hub[h]))
			}
		}
	}
	sp.byFn[fn] = out
	return out
}

// concurrentFuncs is concurrentFuncs, comparing, when there are many
// pairs, the first sweepProbe times their count one by one and then only
// the pairs of instances whose spans overlap: the others are ordered (see
// spans). It counts only the comparisons made; its answer is
// concurrentFuncs', unless checks reaches budget.
func (sp *spans) concurrentFuncs(fa, fb string, as, bs []instance, checks *int, budget int) (conc, stopped bool) {
	if sp.hub == nil || len(as)*len(bs) < minSweep {
		return concurrentFuncs(sp.g, as, bs, checks, budget)
	}
	// Concurrent functions usually have a concurrent pair among the first
	// ones compared one by one; the sweep meets the pairs in another order
	// and could compare many before it (yamux's TestBacklogExceeded_Accept
	// went past the budget without this).
	conc, stopped, probed := compareEach(sp.g, as, bs, checks, budget, sweepProbe*(len(as)+len(bs)))
	if !probed {
		return conc, stopped
	}
	sa, sb := sp.spansOf(fa, as), sp.spansOf(fb, bs)
	// Sweep the spans by lo: when an instance's span begins, every span
	// of the other function that began before (or with) it and has not
	// ended below it overlaps it, and each overlapping pair is met once.
	type item struct {
		lo, hi int64
		b      bool // of bs
		k      int  // index in as or bs
	}
	items := make([]item, 0, len(as)+len(bs))
	for k, s := range sa {
		items = append(items, item{s.lo, s.hi, false, k})
	}
	for k, s := range sb {
		items = append(items, item{s.lo, s.hi, true, k})
	}
	slices.SortStableFunc(items, func(x, y item) int { return cmp.Compare(x.lo, y.lo) })
	var active [2][]item // of as, of bs
	for _, it := range items {
		other := 0
		if !it.b {
			other = 1
		}
		live := active[other][:0]
		for _, o := range active[other] {
			if o.hi < it.lo {
				continue // ended below it, and below every later item
			}
			live = append(live, o)
			if budget > 0 && *checks >= budget {
				return false, true
			}
			*checks++
			ka, kb := it.k, o.k
			if it.b {
				ka, kb = o.k, it.k
			}
			a, b := &as[ka], &bs[kb]
			if startsWithin(sp.g, a, b) || startsWithin(sp.g, b, a) {
				return true, false
			}
		}
		active[other] = live
		own := 1 - other
		active[own] = append(active[own], it)
	}
	return false, false
}

// startsWithin reports whether instance a can start between b's entry and
// exit (Fig. 3, one direction).
func startsWithin(g *hb.Graph, a, b *instance) bool {
	if a.g == b.g {
		return false
	}
	sections := g.Sections()
	for _, l := range g.Locks(a.ent) {
		for _, s := range b.entExi {
			if m := sections[s].Lock; m.Addr == l.Addr && (m.Mode == hb.Write || l.Mode == hb.Write) {
				return false
			}
		}
	}
	if g.HappensBefore(a.ent, b.ent) {
		return false
	}
	return b.exi < 0 || !g.HappensBefore(b.exi, a.ent)
}

package unicorn

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// Options configures Patterns and Rank. The zero value takes the paper's
// settings.
type Options struct {
	// AccessWindow is the size of each location's window of accesses
	// (Step 1); 0 means 5.
	AccessWindow int
	// PairWindow is how many pairs after a pair are tried as its partner
	// in a pattern (Step 2); 0 means 100.
	PairWindow int
	// KeepOrdered keeps pairs whose first access happens before the
	// second by order synchronization; the paper keeps every pair.
	KeepOrdered bool
	// TraceOrder takes the order of the trace for the order of two
	// memory accesses even where the trace does not know it (plain
	// accesses of two goroutines with no sync event between them); by
	// default such pairs are dropped.
	TraceOrder bool
	// MinScore is the lowest top score Rank reports; 0 means 0.5.
	MinScore float64
	// Forced are orders a run was forced into (targeted perturbation),
	// as pairs of event indices {x, y} of the run: x's goroutine passed
	// x before y's goroutine went on from y. An access of x's goroutine
	// at or before x then comes before an access of y's goroutine at or
	// after y, an order the trace alone does not know for plain
	// accesses. Patterns uses them; they describe one run only.
	Forced [][2]int
}

func (o Options) accessWindow() int { return cmp.Or(o.AccessWindow, 5) }
func (o Options) pairWindow() int   { return cmp.Or(o.PairWindow, 100) }
func (o Options) minScore() float64 { return cmp.Or(o.MinScore, 0.5) }

// An Access is one memory access of a pattern, as found in one run.
type Access struct {
	Site  uint32
	Write bool
	// Role is 1 for the goroutine of the pattern's first access, 2 for
	// the other.
	Role int
	// Var is 0 for the pattern's first location (x), 1 for the second (y).
	Var int
	// Spawn is the site of the go statement that started the access's
	// goroutine, 0 for a test's own goroutine or one no instrumented go
	// statement started.
	Spawn uint32
	// Stack lists the sites of the function entries open at the access,
	// outermost first (empty without function events).
	Stack []uint32
	// Event is the access's global access index: its event index in the
	// run's trace.
	Event int
	// Clock is the goroutine's vector clock at the access.
	Clock string
	// Locks are the locks held at the access.
	Locks []Held
}

// Held is a lock held at an access: the site of the Lock event that took
// it (0 if none was recorded), and whether it is a read lock.
type Held struct {
	Site uint32
	Addr uint64
	Read bool
}

// Label is the access in the paper's notation, such as "W1(x)".
func (a Access) Label() string {
	b := "R"
	if a.Write {
		b = "W"
	}
	return b + strconv.Itoa(a.Role) + "(" + string("xy"[a.Var]) + ")"
}

// A Pattern is one of Table I's patterns found in a run: P1 to P3 are
// pairs of two accesses, P4 to P8 have three, P9 to P17 four, in the
// global order of the run.
type Pattern struct {
	P        int
	Accesses []Access
}

// Key names the pattern by its kind and its accesses' sites, kinds,
// goroutine roles and locations: the same in every run that has it.
func (p Pattern) Key() string {
	var b strings.Builder
	b.WriteString("p")
	b.WriteString(strconv.Itoa(p.P))
	for _, a := range p.Accesses {
		b.WriteByte(' ')
		b.WriteString(a.Label())
		b.WriteByte('@')
		b.WriteString(strconv.FormatUint(uint64(a.Site), 10))
	}
	return b.String()
}

// RunPatterns is what Patterns found in one run.
type RunPatterns struct {
	// Patterns holds each pattern once (the first instance in the run),
	// sorted by Key.
	Patterns []Pattern
	// Accesses, Pairs and Combined count the run's memory accesses, its
	// pairs (before removing duplicates) and the patterns P4–P17 that
	// Step 2 combined (also before).
	Accesses, Pairs, Combined int
}

// A pair is two accesses to one location, by event index, with their
// goroutines and whether they write.
type pair struct {
	a, b   int
	pa, pb int // their positions in the run's order (runOrder)
	ga, gb int
	wa, wb bool
	loc    hb.Loc
}

// isAccess reports whether events of kind k access memory, and whether
// they write it.
func isAccess(k trace.Kind) (access, write bool) {
	switch k {
	case trace.EvRead, trace.EvMapRead, trace.EvMapIter, trace.EvAtomicLoad:
		return true, false
	case trace.EvWrite, trace.EvMapWrite, trace.EvAtomicStore:
		return true, true
	}
	return false, false
}

// Patterns finds the patterns of Table I in one run (Steps 1 and 2).
func Patterns(g *hb.Graph, opts Options) RunPatterns {
	var rp RunPatterns
	pairs := collectPairs(g, opts, &rp.Accesses)
	rp.Pairs = len(pairs)
	found := make(map[patKey]bool)
	var first []cand // the first instance of each pattern, in the order found
	add := func(c cand) {
		k := c.key(g)
		if !found[k] {
			found[k] = true
			first = append(first, c)
		}
	}
	for _, pr := range pairs {
		add(pairCand(g, pr))
	}
	// Step 2: combine pairs within the pair window (Algorithm 1, lines
	// 13–24). Pairs are in the order of their first access.
	w := opts.pairWindow()
	for j := range pairs {
		for k := j + 1; k < len(pairs) && k <= j+w; k++ {
			if c, ok := combine(&pairs[j], &pairs[k]); ok {
				rp.Combined++
				add(c)
			}
		}
	}
	rp.Patterns = make([]Pattern, len(first))
	for n, c := range first {
		rp.Patterns[n] = c.pattern(g)
	}
	fill(g, rp.Patterns)
	keys := make(map[*Access]string, len(rp.Patterns))
	for n := range rp.Patterns {
		keys[&rp.Patterns[n].Accesses[0]] = rp.Patterns[n].Key()
	}
	slices.SortFunc(rp.Patterns, func(a, b Pattern) int { return strings.Compare(keys[&a.Accesses[0]], keys[&b.Accesses[0]]) })
	return rp
}

// A cand is a pattern found in a run, by event index: n accesses, in the
// order of the run, with their goroutine roles and locations.
type cand struct {
	p, n int
	ev   [4]int
	role [4]uint8 // 1 or 2
	v    [4]uint8 // 0 x, 1 y
}

// patKey is Pattern.Key without the string: comparable, so that finding
// the first instance of each pattern allocates nothing.
type patKey struct {
	p    uint8
	site [4]uint32
	bits [4]uint8 // write<<2 | (role-1)<<1 | v
}

func (c *cand) key(g *hb.Graph) patKey {
	k := patKey{p: uint8(c.p)}
	for n := range c.n {
		ev := &g.Events[c.ev[n]]
		_, w := isAccess(ev.Kind)
		k.site[n] = ev.Site
		k.bits[n] = (c.role[n]-1)<<1 | c.v[n]
		if w {
			k.bits[n] |= 4
		}
	}
	return k
}

func (c *cand) pattern(g *hb.Graph) Pattern {
	p := Pattern{P: c.p, Accesses: make([]Access, c.n)}
	for n := range c.n {
		p.Accesses[n] = access(g, c.ev[n], int(c.role[n]), int(c.v[n]))
	}
	return p
}

// collectPairs is Step 1: the pairs of every location's sliding window, in
// the order of their first access, then of their second.
func collectPairs(g *hb.Graph, opts Options, accesses *int) []pair {
	size := opts.accessWindow()
	ord := newOrder(g)
	ord.forced = opts.Forced
	seq, pos := runOrder(g, opts.Forced)
	windows := make(map[hb.Loc][]int) // the location's last size accesses, oldest first
	var pairs []pair
	evict := func(loc hb.Loc, win []int) {
		// Pair the oldest access with the later ones in the window that
		// see its value or replace it: up to and including the first
		// write after it.
		a := win[0]
		ga := g.Goroutine(a)
		_, wa := isAccess(g.Events[a].Kind)
		for _, b := range win[1:] {
			_, wb := isAccess(g.Events[b].Kind)
			if (wa || wb) && g.Goroutine(b) != ga &&
				(opts.TraceOrder || ord.known(a, b)) &&
				(opts.KeepOrdered || !ord.synchronized(a, b)) {
				pairs = append(pairs, pair{a: a, b: b, pa: pos[a], pb: pos[b], ga: ga, gb: g.Goroutine(b), wa: wa, wb: wb, loc: loc})
			}
			if wb {
				break
			}
		}
	}
	for _, i := range seq {
		if ok, _ := isAccess(g.Events[i].Kind); !ok {
			continue
		}
		*accesses++
		loc := g.Loc(i)
		win := windows[loc]
		if len(win) == size {
			evict(loc, win)
			win = append(win[:0], win[1:]...)
		}
		windows[loc] = append(win, i)
	}
	for loc, win := range windows {
		for ; len(win) > 1; win = win[1:] {
			evict(loc, win)
		}
	}
	slices.SortFunc(pairs, func(x, y pair) int { return cmp.Or(cmp.Compare(x.pa, y.pa), cmp.Compare(x.pb, y.pb)) })
	return pairs
}

// runOrder returns the run's events in the order they happened, as far as
// the trace and the forced orders know it (seq), and each event's place
// in it (pos). That is the trace's order, except where a forced order
// {x, y} has y's goroutine's accesses from y to its next sync event
// before x in the trace (plain accesses carry the seq of their
// goroutine's last sync event, which puts them where that event was): the
// forced order says they came after x, so they move right after it.
func runOrder(g *hb.Graph, forced [][2]int) (seq, pos []int) {
	n := len(g.Events)
	pos = make([]int, n)
	after := make(map[int][]int) // x -> the events that move right after it
	moved := make(map[int]bool)
	for _, f := range forced {
		x, y := f[0], f[1]
		if y >= x || g.Events[y].Kind.IsSync() || moved[y] {
			continue
		}
		evs := g.Goroutines[g.Goroutine(y)].Events
		k, _ := slices.BinarySearch(evs, y)
		for ; k < len(evs) && !g.Events[evs[k]].Kind.IsSync(); k++ {
			if evs[k] == x {
				break
			}
			moved[evs[k]] = true
			after[x] = append(after[x], evs[k])
		}
	}
	seq = make([]int, 0, n)
	var emit func(i int)
	emit = func(i int) {
		pos[i] = len(seq)
		seq = append(seq, i)
		for _, j := range after[i] {
			emit(j)
		}
	}
	for i := range n {
		if !moved[i] {
			emit(i)
		}
	}
	return seq, pos
}

// order tells what a trace says about the real order of two events of
// different goroutines.
type order struct {
	g *hb.Graph
	// next is, per event, the seq of the first sync event of its goroutine
	// at or after it (noSeq if none); prev is the event before it in its
	// goroutine (-1 if none).
	next []uint64
	prev []int32
	// forced are Options.Forced.
	forced [][2]int
}

const noSeq = 1<<64 - 1

func newOrder(g *hb.Graph) *order {
	o := &order{g: g, next: make([]uint64, len(g.Events)), prev: make([]int32, len(g.Events))}
	for _, gr := range g.Goroutines {
		next := uint64(noSeq)
		for n := len(gr.Events) - 1; n >= 0; n-- {
			i := gr.Events[n]
			if g.Events[i].Kind.IsSync() {
				next = g.Events[i].Seq
			}
			o.next[i] = next
			o.prev[i] = -1
			if n > 0 {
				o.prev[i] = int32(gr.Events[n-1])
			}
		}
	}
	return o
}

// known reports whether the trace shows that event a happened before event
// b of another goroutine. Sync events take their seq from one counter as
// they happen; a memory access has no seq of its own and is known only to
// come after its goroutine's last sync event (ev.Seq) and before its next
// one. So a came first if a sync event of a's goroutine at or after a took
// a seq no larger than that of a sync event of b's goroutine at or before b.
func (o *order) known(a, b int) bool {
	// For an access, Seq is its goroutine's last sync event's seq; for an
	// atomic, its own (taken just after it: close enough, as for hb's
	// atomic edges).
	if o.next[a] < o.g.Events[b].Seq {
		return true
	}
	for _, f := range o.forced {
		if a <= f[0] && f[1] <= b && o.g.Goroutine(a) == o.g.Goroutine(f[0]) && o.g.Goroutine(b) == o.g.Goroutine(f[1]) {
			return true
		}
	}
	return false
}

// synchronized reports whether a happens before b through order
// synchronization that b's goroutine completed before b: a chain of edges
// into the event before b. An edge into b itself (an atomic load that read
// a's store) is the pair's own communication, not an order around it.
func (o *order) synchronized(a, b int) bool {
	p := o.prev[b]
	return p >= 0 && o.g.HappensBefore(a, int(p))
}

// pairCand returns the pair as a pattern P1, P2 or P3.
func pairCand(g *hb.Graph, pr pair) cand {
	c := cand{p: 3, n: 2, ev: [4]int{pr.a, pr.b}, role: [4]uint8{1, 2}}
	switch {
	case !pr.wa:
		c.p = 1
	case !pr.wb:
		c.p = 2
	}
	return c
}

func access(g *hb.Graph, i, role, v int) Access {
	_, w := isAccess(g.Events[i].Kind)
	return Access{Site: g.Events[i].Site, Write: w, Role: role, Var: v, Event: i}
}

// single are the single-variable patterns P4–P8 of Table I, indexed by
// the kinds of their three accesses, a bit each (1 for a write), the
// first access's the highest: R1 W2 R1 is 0b010.
var single = [8]int{0b010: 4, 0b110: 5, 0b101: 6, 0b011: 7, 0b111: 8}

// multiRows are the multi-variable patterns P9–P17 of Table I, each
// written with goroutine 1 the goroutine of its first access and x its
// location.
var multiRows = map[string]int{
	"W1x W2x W2y W1y": 9,
	"W1x W2y W2x W1y": 10,
	"W1x W2y W1y W2x": 11,
	"W1x R2x R2y W1y": 12,
	"W1x R2y R2x W1y": 13,
	"R1x W2x W2y R1y": 14,
	"R1x W2y W2x R1y": 15,
	"R1x W2y R1y W2x": 16,
	"W1x R2y W1y R2x": 17,
}

// multi is multiRows indexed by a 12-bit code: per access, in order, 3
// bits: write, role 2, location y.
var multi = func() (t [1 << 12]uint8) {
	for row, p := range multiRows {
		code := 0
		for _, tok := range strings.Fields(row) {
			code = code<<3 | accessBits(tok[0] == 'W', tok[1] == '2', tok[2] == 'y')
		}
		t[code] = uint8(p)
	}
	return t
}()

func accessBits(write, role2, y bool) int {
	b := 0
	if write {
		b |= 4
	}
	if role2 {
		b |= 2
	}
	if y {
		b |= 1
	}
	return b
}

// combine checks whether pairs p and q (p's first access before q's) make
// a pattern of P4–P17 (Step 2's isPattern and makePattern).
func combine(p, q *pair) (cand, bool) {
	if !(q.ga == p.ga && q.gb == p.gb || q.ga == p.gb && q.gb == p.ga) {
		return cand{}, false // not the same two goroutines
	}
	bit := func(w bool) int {
		if w {
			return 1
		}
		return 0
	}
	if p.loc == q.loc {
		if p.b != q.a || q.gb != p.ga {
			return cand{}, false
		}
		n := single[bit(p.wa)<<2|bit(p.wb)<<1|bit(q.wb)]
		if n == 0 {
			return cand{}, false
		}
		return cand{p: n, n: 3, ev: [4]int{p.a, p.b, q.b}, role: [4]uint8{1, 2, 1}}, true
	}
	if p.a == q.a || p.a == q.b || p.b == q.a || p.b == q.b {
		return cand{}, false
	}
	// The four accesses in the run's order; p.a is the first (pairs are
	// sorted by their first access, and the accesses differ).
	type acc struct {
		ev, pos int
		g       int
		w, y    bool
	}
	as := [4]acc{{p.a, p.pa, p.ga, p.wa, false}, {p.b, p.pb, p.gb, p.wb, false}, {q.a, q.pa, q.ga, q.wa, true}, {q.b, q.pb, q.gb, q.wb, true}}
	for i := 1; i < 4; i++ {
		for j := i; j > 0 && as[j].pos < as[j-1].pos; j-- {
			as[j], as[j-1] = as[j-1], as[j]
		}
	}
	c := cand{n: 4}
	code := 0
	for n, a := range as {
		c.ev[n] = a.ev
		c.role[n] = 1
		if a.g != p.ga {
			c.role[n] = 2
		}
		if a.y {
			c.v[n] = 1
		}
		code = code<<3 | accessBits(a.w, c.role[n] == 2, a.y)
	}
	c.p = int(multi[code])
	return c, c.p != 0
}

// fill adds the evidence of the patterns' accesses from the graph: spawn
// sites, stacks, clocks and locks held. Stacks come from one pass over the
// events, which keeps each goroutine's open function entries.
func fill(g *hb.Graph, ps []Pattern) {
	need := make(map[int][]uint32) // event -> stack, for the accesses of ps
	funcs := false
	for _, ev := range g.Events {
		if ev.Kind == trace.EvFuncEnter {
			funcs = true
			break
		}
	}
	if funcs {
		for _, p := range ps {
			for _, a := range p.Accesses {
				need[a.Event] = nil
			}
		}
		stacks := make(map[int][]uint32)
		for i := range g.Events {
			ev := &g.Events[i]
			switch ev.Kind {
			case trace.EvFuncEnter:
				stacks[g.Goroutine(i)] = append(stacks[g.Goroutine(i)], ev.Site)
			case trace.EvFuncExit:
				if st := stacks[g.Goroutine(i)]; len(st) > 0 {
					stacks[g.Goroutine(i)] = st[:len(st)-1]
				}
			}
			if _, ok := need[i]; ok {
				need[i] = slices.Clone(stacks[g.Goroutine(i)])
			}
		}
	}
	for _, p := range ps {
		for n := range p.Accesses {
			a := &p.Accesses[n]
			a.Spawn = g.Spawn(g.Goroutine(a.Event))
			a.Stack = need[a.Event]
			a.Clock = g.Clock(a.Event).String()
			for _, l := range g.Locks(a.Event) {
				a.Locks = append(a.Locks, Held{Addr: l.Addr, Read: l.Mode == hb.Read, Site: g.Acquired(a.Event, l.Addr)})
			}
		}
	}
}

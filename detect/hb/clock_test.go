package hb

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

// randomTrace makes a trace of n events over about gs goroutines, in the
// global order: goroutines fork and end, and every kind of sync event the
// walk has a rule for is drawn, on a few objects each, so that the rules
// meet each other. Events need not be possible in a real run (an Unlock of
// a lock not held, a receive no send matched): the two walks must agree on
// them too.
func randomTrace(r *rand.Rand, n, gs int) []trace.Event {
	var evs []trace.Event
	type gor struct {
		id    uint64
		ended bool
	}
	live := []gor{{id: 1}}
	next := uint64(2)
	seq := uint64(0)
	emit := func(g uint64, ev trace.Event) {
		seq++
		ev.Goroutine, ev.Seq = g, seq
		ev.Site = uint32(1 + r.IntN(40))
		evs = append(evs, ev)
	}
	emit(1, trace.Event{Kind: trace.EvBegin, Peer: trace.NoParent})
	emit(1, trace.Event{Kind: trace.EvTestStart, Name: "T"})
	pending := map[uint64]uint64{} // child -> parent: forked, not begun
	obj := func(base uint64, k int) uint64 { return base + uint64(r.IntN(k))*8 }
	for len(evs) < n {
		// Begin a forked child now and then.
		for c, p := range pending {
			if r.IntN(3) == 0 {
				delete(pending, c)
				emit(c, trace.Event{Kind: trace.EvBegin, Peer: p})
				live = append(live, gor{id: c})
				if r.IntN(4) == 0 {
					emit(c, trace.Event{Kind: trace.EvTestStart, Name: "T/" + string(rune('a'+r.IntN(4)))})
				}
			}
			break
		}
		k := r.IntN(len(live))
		g := live[k].id
		if live[k].ended {
			continue
		}
		switch x := r.IntN(100); {
		case x < 8 && int(next) < gs:
			kind := trace.EvFork
			var addr uint64
			if r.IntN(4) == 0 {
				kind, addr = trace.EvTaskGo, obj(0x7000, 2)
			}
			emit(g, trace.Event{Kind: kind, Peer: next, Addr: addr})
			pending[next] = g
			next++
		case x < 10 && len(live) > 1 && g != 1:
			emit(g, trace.Event{Kind: trace.EvEnd})
			live[k].ended = true
		case x < 14:
			emit(g, trace.Event{Kind: trace.EvLock, Addr: obj(0x1000, 3)})
		case x < 18:
			emit(g, trace.Event{Kind: trace.EvUnlock, Addr: obj(0x1000, 3)})
		case x < 20:
			emit(g, trace.Event{Kind: trace.EvRLock, Addr: obj(0x1000, 3)})
		case x < 22:
			emit(g, trace.Event{Kind: trace.EvRUnlock, Addr: obj(0x1000, 3)})
		case x < 23:
			emit(g, trace.Event{Kind: trace.EvTryLock, Addr: obj(0x1000, 3), Value: uint64(r.IntN(2))})
		case x < 25:
			emit(g, trace.Event{Kind: trace.EvWGAdd, Addr: obj(0x2000, 2), Arg: int64(r.IntN(3) - 1)})
		case x < 28:
			emit(g, trace.Event{Kind: trace.EvWGDone, Addr: obj(0x2000, 2)})
		case x < 30:
			emit(g, trace.Event{Kind: trace.EvWGWait, Addr: obj(0x2000, 2)})
		case x < 31:
			emit(g, trace.Event{Kind: trace.EvOnceDo, Addr: obj(0x3000, 2)})
		case x < 32:
			emit(g, trace.Event{Kind: trace.EvCondWait, Addr: obj(0x3800, 2)})
		case x < 33:
			emit(g, trace.Event{Kind: trace.EvCondSignal + trace.Kind(r.IntN(2)), Addr: obj(0x3800, 2)})
		case x < 36:
			emit(g, trace.Event{Kind: trace.EvAtomicStore, Addr: obj(0x4000, 2), Value: uint64(r.IntN(3))})
		case x < 39:
			emit(g, trace.Event{Kind: trace.EvAtomicLoad, Addr: obj(0x4000, 2), Value: uint64(r.IntN(3))})
		case x < 40:
			emit(g, trace.Event{Kind: trace.EvChanMake, Addr: obj(0x5000, 3), Value: uint64(r.IntN(3))})
		case x < 46:
			emit(g, trace.Event{Kind: trace.EvChanSend, Addr: obj(0x5000, 3)})
		case x < 52:
			emit(g, trace.Event{Kind: trace.EvChanRecv, Addr: obj(0x5000, 3), Value: uint64(min(1, r.IntN(8)))})
		case x < 53:
			emit(g, trace.Event{Kind: trace.EvChanClose, Addr: obj(0x5000, 3)})
		case x < 55:
			emit(g, trace.Event{Kind: trace.EvSelect, Addr: obj(0x5000, 3), Arg: int64(r.IntN(3) - 1), Value: uint64(min(1, r.IntN(8)))})
		case x < 56:
			emit(g, trace.Event{Kind: trace.EvCancel, Addr: 0x6000})
		case x < 57:
			emit(g, trace.Event{Kind: trace.EvTaskWait, Addr: obj(0x7000, 2)})
		case x < 58:
			emit(g, trace.Event{Kind: trace.EvTestEnd})
		case x < 59:
			emit(g, trace.Event{Kind: trace.EvGCEpoch, Value: uint64(len(evs))})
		case x < 60:
			emit(g, trace.Event{Kind: trace.EvMapMake, Addr: obj(0x8000, 2)})
		case x < 61:
			emit(g, trace.Event{Kind: trace.EvBubble})
		case x < 63:
			emit(g, trace.Event{Kind: trace.EvSleep, Value: uint64(len(evs) / 4)})
		case x < 65:
			kinds := []trace.Kind{trace.EvWake, trace.EvClock, trace.EvSyncWait}
			emit(g, trace.Event{Kind: kinds[r.IntN(len(kinds))], Value: uint64(len(evs) / 4)})
		case x < 80:
			emit(g, trace.Event{Kind: trace.EvRead, Addr: obj(0x9000, 4)})
		case x < 90:
			emit(g, trace.Event{Kind: trace.EvWrite, Addr: obj(0x9000, 4), Value: uint64(r.IntN(2))})
		case x < 92:
			// An object over some of the reads' and writes' words,
			// the WaitGroups' or the atomics'.
			base := []uint64{0x9000, 0x2000, 0x4000}[r.IntN(3)]
			emit(g, trace.Event{Kind: trace.EvNew, Addr: obj(base, 3) + uint64(r.IntN(2)), Value: uint64(r.IntN(24))})
		default:
			emit(g, trace.Event{Kind: trace.EvMapWrite + trace.Kind(r.IntN(2)), Addr: obj(0x8000, 2)})
		}
	}
	return evs
}

// trim drops v's trailing zeros.
func trim(v []uint32) []uint32 {
	for len(v) > 0 && v[len(v)-1] == 0 {
		v = v[:len(v)-1]
	}
	return v
}

// compareFlat checks that Analyze's graph of evs has the flat walk's
// order, clocks and snapshot keys.
func compareFlat(t *testing.T, evs []trace.Event, opts Options, pairs func(n int) [][2]int) {
	t.Helper()
	g, f := Analyze(evs, opts), flatAnalyze(evs, opts)
	if len(g.Goroutines) != len(f.Goroutines) {
		t.Fatalf("%d goroutines, the flat walk %d", len(g.Goroutines), len(f.Goroutines))
	}
	for i := range evs {
		if len(evs) > 1000 && i%97 != 0 {
			continue
		}
		if got, want := trim(g.Clock(i)), trim(f.Clock(i)); !slices.Equal(got, want) {
			t.Fatalf("event %d (%v): clock %v, the flat walk's %v", i, evs[i].Kind, VC(got), VC(want))
		}
		if g.ClockKey(i) != f.ClockKey(i) {
			t.Fatalf("event %d: clock key %x, the flat walk's %x", i, g.ClockKey(i), f.ClockKey(i))
		}
	}
	for _, p := range pairs(len(evs)) {
		if g.HappensBefore(p[0], p[1]) != f.HappensBefore(p[0], p[1]) {
			t.Fatalf("HappensBefore(%d, %d) = %v, the flat walk's %v", p[0], p[1], g.HappensBefore(p[0], p[1]), f.HappensBefore(p[0], p[1]))
		}
	}
}

// TestFlatDifferential: the persistent clocks give the walk the flat
// vector clocks gave, on random traces of few goroutines (one leaf), of
// hundreds (a tree two and three levels deep) and with and without
// LockOrder.
func TestFlatDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	all := func(n int) [][2]int {
		var ps [][2]int
		for a := range n {
			for b := range n {
				ps = append(ps, [2]int{a, b})
			}
		}
		return ps
	}
	sample := func(n int) [][2]int {
		ps := make([][2]int, 5000)
		for k := range ps {
			ps[k] = [2]int{r.IntN(n), r.IntN(n)}
		}
		return ps
	}
	for k := range 100 {
		evs := randomTrace(r, 20+r.IntN(200), 2+r.IntN(12))
		compareFlat(t, evs, Options{LockOrder: k%2 == 1}, all)
	}
	for k := range 2 {
		evs := randomTrace(r, 6000, 40+r.IntN(800))
		compareFlat(t, evs, Options{LockOrder: k%2 == 1, Edges: []Edge{{From: 10, To: 5000}, {From: 300, To: 301}}}, sample)
	}
}

// TestClockTree checks the tree's operations against flat vectors: joins
// of copies that share subtrees, trees of different depths, and the own
// component kept apart; with joins that walk the knowledge only, that
// join tree by tree only, and that do both.
func TestClockTree(t *testing.T) {
	for _, budget := range []int{0, visitBudget, 1 << 30} {
		testClockTree(t, budget)
	}
}

func testClockTree(t *testing.T, budget int) {
	r := rand.New(rand.NewPCG(3, 4))
	tk := &tokens{budget: budget}
	const n = 40
	type pair struct {
		c vclock
		v []uint32
	}
	cs := make([]pair, n)
	for i := range cs {
		cs[i] = pair{c: tk.newClock(vclock{}, i*37%5000, 1), v: make([]uint32, 5000)}
		cs[i].v[i*37%5000] = 1
	}
	var copies []pair
	check := func(p pair) {
		t.Helper()
		for x := range p.v {
			if got := p.c.get(x); got != p.v[x] {
				t.Fatalf("budget %d: component %d = %d, want %d", budget, x, got, p.v[x])
			}
		}
	}
	for step := range 3000 {
		i := r.IntN(n)
		p := &cs[i]
		switch r.IntN(3) {
		case 0:
			p.c.inc()
			p.v[p.c.g]++
		case 1:
			copies = append(copies, pair{c: p.c.copy(tk), v: slices.Clone(p.v)})
		default:
			if len(copies) == 0 {
				continue
			}
			w := copies[r.IntN(len(copies))]
			want := false
			for x := range p.v {
				if w.v[x] > p.v[x] && x != int(p.c.g) {
					p.v[x] = w.v[x]
					want = true
				}
			}
			if got := p.c.join(w.c, tk); got != want {
				t.Fatalf("budget %d, step %d: join reported %v, want %v", budget, step, got, want)
			}
		}
		if step%100 == 0 {
			check(*p)
			for range 5 {
				if len(copies) > 0 {
					check(copies[r.IntN(len(copies))]) // copies never change
				}
			}
		}
	}
}

// TestSetPartShared: a clock sets the levels it knows in part in the
// leaves it owns, in place (gocron's TestScheduler_ManyJobs: a join that
// learned thousands of goroutines in part cloned a map of them for each,
// 64 s of CPU in hb against 7 s; and the maps, one per clock version,
// took most of a 5.9 GB peak), and a copy taken before keeps the levels it
// had: the leaves are copied once after the copy, not changed under it.
func TestSetPartShared(t *testing.T) {
	tk := &tokens{budget: visitBudget}
	c := tk.newClock(vclock{}, 0, 1)
	const n = 1000
	for u := 1; u <= n; u++ {
		c.setTree(u, 5)
	}
	s := uint32(0)
	allocs := testing.AllocsPerRun(1, func() {
		s++ // each run sets new levels
		for u := 1; u <= n; u++ {
			c.setPart(u, 5, s)
		}
	})
	for u := 1; u <= n; u++ {
		c.setPart(u, 5, 3)
	}
	if allocs > 50 {
		t.Errorf("%v allocations for %d levels set in part, want the leaves changed in place (a clone each is %d)", allocs, n, n)
	}
	d := c.copy(tk)
	for u := 1; u <= n; u++ {
		c.setPart(u, 5, 4)
	}
	c.setPart(7, 5, full)
	for u := 1; u <= n; u++ {
		if x, s := d.level(u); x != 5 || s != 3 {
			t.Fatalf("copy's level of %d = %d, %d after the clock changed; want 5, 3", u, x, s)
		}
		want := uint32(4)
		if u == 7 {
			want = full
		}
		if x, s := c.level(u); x != 5 || s != want {
			t.Fatalf("clock's level of %d = %d, %d; want 5, %d", u, x, s, want)
		}
	}
	// A clock that took another's tree by a join of the zero clock copies
	// its leaves before changing them.
	var z vclock
	z.join(d, tk)
	z.setPart(2, 5, 9)
	if _, s := d.level(2); s != 3 {
		t.Errorf("copy's level of 2 is %d after a clock that joined it changed its own, want 3", s)
	}
}

// TestPartLevelsPerChange: a clock that knows a thousand goroutines in
// part and is copied before each change of one level (a release, then
// news of one goroutine) allocates for the path of that level, not for the
// thousand: the levels live in the tree's leaves, shared by the copies.
// (A map per clock version cost a clone of the thousand at each change:
// gocron's TestScheduler_ManyJobs peaked at 5.9 GB in hb's maps.)
func TestPartLevelsPerChange(t *testing.T) {
	tk := &tokens{budget: visitBudget}
	c := tk.newClock(vclock{}, 0, 1)
	const n, changes = 1000, 200
	for u := 1; u <= n; u++ {
		c.setTree(u, 5)
		c.setPart(u, 5, 3)
	}
	copies := make([]vclock, 0, changes)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for k := range changes {
		copies = append(copies, c.copy(tk))
		c.setPart(1+k%n, 5, 4)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / changes; per > 2000 {
		t.Errorf("%d bytes allocated per change of one level after a copy, want the path's few hundred (a copy of %d levels is over %d)", per, n, 8*n)
	}
	for k, d := range copies {
		for _, u := range []int{1 + k%n, 1 + (k+500)%n} {
			want := uint32(3)
			if u-1 < k {
				want = 4 // changed before copy k was taken
			}
			if x, s := d.level(u); x != 5 || s != want {
				t.Fatalf("copy %d: level of %d = %d, %d; want 5, %d", k, u, x, s, want)
			}
		}
	}
}

package conmem

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// uninitPlain is uninitLoc as it was before its tries and caches
// (bench/RESULTS.md, "con-uninit's pairing"): each read against every
// remote init in trace order. It checks one location's accesses: init events of kind initK
// (writes of a non-zero value; Adds of a positive delta) and use events
// of kind useK (reads; Dones and negative Adds).
func (c *checker) uninitPlain(list []int, initK, useK trace.Kind) {
	g := c.g
	isInit := func(i int) bool {
		ev := g.Events[i]
		if ev.Kind != initK {
			return false
		}
		if initK == trace.EvWGAdd {
			return ev.Arg > 0
		}
		return ev.Value != 0
	}
	isUse := func(i int) bool {
		ev := g.Events[i]
		return ev.Kind == useK || (useK == trace.EvWGDone && ev.Kind == trace.EvWGAdd && ev.Arg < 0)
	}
	if !slices.ContainsFunc(list, isInit) {
		return
	}
	// The Initializer table: each goroutine's first initializing write.
	// firstW is each goroutine's first write of any value; lastW its last.
	init := make(map[int]int)
	var inits []int
	firstW := make(map[int]int)
	lastW := make(map[int]int)
	for _, i := range list {
		gi := g.Goroutine(i)
		if g.Events[i].Kind == initK {
			if _, ok := firstW[gi]; !ok {
				firstW[gi] = i
			}
			lastW[gi] = i
		}
		if isInit(i) {
			if _, ok := init[gi]; !ok {
				init[gi] = i
				inits = append(inits, i)
			}
		}
	}
	if len(inits) == 0 {
		return
	}
	read := make(map[int]bool)
	for _, r := range list {
		gi := g.Goroutine(r)
		if !isUse(r) || read[gi] {
			continue
		}
		read[gi] = true // only the first read of each goroutine
		if w, ok := firstW[gi]; ok && (w < r || (initK == trace.EvWrite && lastW[gi] > r)) {
			// Its own write came first: the read sees its own goroutine's
			// value. Or it writes the location itself later: the
			// location is the goroutine's running state (a counter or
			// index it updates from what it read), whose zero value is
			// its start, not an uninitialized one.
			continue
		}
		var remote []int
		concurrent, related, locked := true, false, true
		for _, w := range inits {
			if g.Goroutine(w) == gi {
				continue
			}
			related = related || c.ancestor(g.Goroutine(w), gi) || c.ancestor(gi, g.Goroutine(w))
			remote = append(remote, w)
			locked = locked && g.CommonLock(r, w)
			if !g.Concurrent(r, w) {
				concurrent = false
				break
			}
		}
		if len(remote) == 0 || !concurrent || !related || (locked && initK == trace.EvWrite) {
			continue
		}
		// A first write of zero, by one of the first maxZeros goroutines
		// that wrote so, at an init's site, before the read.
		zeros := 0
		reinit := false
		for _, w := range list {
			if initK != trace.EvWrite || firstW[g.Goroutine(w)] != w || g.Events[w].Value != 0 {
				continue
			}
			if zeros++; zeros > maxZeros {
				break
			}
			atInit := slices.ContainsFunc(inits, func(i int) bool { return g.Events[i].Site == g.Events[w].Site })
			if w < r && g.Goroutine(w) != gi && atInit && g.HappensBefore(w, r) {
				reinit = true
			}
		}
		if reinit {
			continue
		}
		roles := []role{{ev: r, role: finding.RoleRead}}
		sites := make(map[uint32]bool)
		for _, w := range remote {
			if s := g.Events[w].Site; !sites[s] {
				sites[s] = true
				roles = append(roles, role{ev: w, role: finding.RoleInit})
			}
		}
		if initK == trace.EvWGAdd {
			roles[0].role = finding.RoleDone
			for i := range roles[1:] {
				roles[i+1].role = finding.RoleAdd
			}
			c.report(finding.ConUninit,
				fmt.Sprintf("%s.Done in %s may run before %s calls Add, making the counter negative; the Add should come before the go statement that starts %s",
					c.expr(r), c.fn(r), c.fn(remote[0]), c.fn(r)),
				roles, "the Done is concurrent with every other goroutine's Add")
			continue
		}
		c.report(finding.ConUninit,
			fmt.Sprintf("%s may be read by %s before %s initializes it; the initialization should happen before the go statement or be published to the reader",
				c.expr(r), c.fn(r), c.fn(remote[0])),
			roles, "the read is concurrent with every other goroutine's first write of a non-zero value, and its goroutine wrote none before it")
	}
}

// uninitOnly runs con-uninit alone on g, with uninitLoc or, if plain,
// uninitPlain, and returns its findings and the checker.
func uninitOnly(g *hb.Graph, tab *trace.SiteTable, plain bool, budget int) ([]finding.Finding, *checker) {
	c := newChecker(g, tab, nil)
	c.out, c.seen, c.maxUninit = nil, make(map[string]bool), budget
	for _, list := range c.mem {
		if plain {
			c.uninitPlain(list, trace.EvWrite, trace.EvRead)
		} else {
			c.uninitLoc(list, trace.EvWrite, trace.EvRead)
		}
	}
	for _, list := range c.wgs {
		if plain {
			c.uninitPlain(list, trace.EvWGAdd, trace.EvWGDone)
		} else {
			c.uninitLoc(list, trace.EvWGAdd, trace.EvWGDone)
		}
	}
	slices.SortFunc(c.out, finding.Compare)
	return c.out, c
}

// randomUninitTable is the site table of randomUninitTrace: sites 1 to 40
// on lines 1 to 40, and sites 41 to 50 on lines 1 to 10 again (two sites
// of one line are one finding's line).
func randomUninitTable() *trace.SiteTable {
	tab := &trace.SiteTable{}
	for id := uint32(1); id <= 50; id++ {
		line := int(id)
		if id > 40 {
			line = int(id) - 40
		}
		tab.Sites = append(tab.Sites, trace.Site{ID: id, File: "/src/k.go", Line: line, Col: int(id), Kind: "read", Function: fmt.Sprintf("f%d", id%7), Expr: "x"})
	}
	return tab
}

// randomUninitTrace makes a trace of about n events over at most gs
// goroutines that fork, end, lock, send and receive, use WaitGroups and
// read and write a few words (zero and non-zero values), at sites drawn
// from few enough that findings share sites and lines.
func randomUninitTrace(r *rand.Rand, n, gs int) []trace.Event {
	var evs []trace.Event
	live := []uint64{1}
	ended := map[uint64]bool{}
	pending := map[uint64]uint64{}
	next, seq := uint64(2), uint64(0)
	emit := func(g uint64, ev trace.Event) {
		seq++
		ev.Goroutine, ev.Seq = g, seq
		if ev.Site == 0 {
			ev.Site = uint32(1 + r.IntN(50))
		}
		evs = append(evs, ev)
	}
	emit(1, trace.Event{Kind: trace.EvBegin, Peer: trace.NoParent})
	obj := func(base uint64, k int) uint64 { return base + uint64(r.IntN(k))*8 }
	for len(evs) < n {
		for c, p := range pending {
			if r.IntN(2) == 0 {
				delete(pending, c)
				emit(c, trace.Event{Kind: trace.EvBegin, Peer: p})
				live = append(live, c)
			}
			break
		}
		g := live[r.IntN(len(live))]
		if ended[g] {
			continue
		}
		switch x := r.IntN(100); {
		case x < 10 && int(next) <= gs:
			emit(g, trace.Event{Kind: trace.EvFork, Peer: next})
			pending[next] = g
			next++
		case x < 12 && g != 1:
			emit(g, trace.Event{Kind: trace.EvEnd})
			ended[g] = true
		case x < 16:
			emit(g, trace.Event{Kind: trace.EvLock, Addr: obj(0x1000, 2)})
		case x < 20:
			emit(g, trace.Event{Kind: trace.EvUnlock, Addr: obj(0x1000, 2)})
		case x < 26:
			emit(g, trace.Event{Kind: trace.EvChanSend, Addr: obj(0x5000, 2)})
		case x < 32:
			emit(g, trace.Event{Kind: trace.EvChanRecv, Addr: obj(0x5000, 2), Value: 1})
		case x < 40:
			emit(g, trace.Event{Kind: trace.EvWGAdd, Addr: obj(0x2000, 2), Arg: int64(r.IntN(4) - 1), Site: uint32(1 + r.IntN(12))})
		case x < 47:
			emit(g, trace.Event{Kind: trace.EvWGDone, Addr: obj(0x2000, 2), Site: uint32(13 + r.IntN(8))})
		case x < 49:
			emit(g, trace.Event{Kind: trace.EvWGWait, Addr: obj(0x2000, 2)})
		case x < 70:
			emit(g, trace.Event{Kind: trace.EvWrite, Addr: obj(0x9000, 3), Value: uint64(r.IntN(3) / 2), Site: uint32(21 + r.IntN(12))})
		default:
			emit(g, trace.Event{Kind: trace.EvRead, Addr: obj(0x9000, 3), Site: uint32(33 + r.IntN(18))})
		}
	}
	return evs
}

// TestUninitDifferential: con-uninit with its tries, caches and the skip
// of reads whose finding was reported reports what the plain pairing of
// every read with every remote init did, byte for byte (witnesses
// included), on random traces of a few to a hundred goroutines.
func TestUninitDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tab := randomUninitTable()
	found := 0
	for k := range 400 {
		evs := randomUninitTrace(r, 50+r.IntN(600), 2+r.IntN(100))
		g := hb.Analyze(evs, hb.Options{Sites: tab})
		plain, _ := uninitOnly(g, tab, true, MaxUninitChecks)
		got, _ := uninitOnly(g, tab, false, MaxUninitChecks)
		a, _ := json.Marshal(plain)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Fatalf("trace %d: findings\n%s\nthe plain pairing's\n%s", k, b, a)
		}
		found += len(plain)
	}
	if found < 100 {
		t.Errorf("%d findings in all the traces: the traces do not exercise the check", found)
	}
}

// TestUninitStream: CheckStream's con-uninit findings are Check's, byte
// for byte in what streamedSummary compares (sites, messages, witness
// events), on random traces of a few to a hundred goroutines, whose reads
// are decided by inits before and after them, by locks, by parents and by
// WaitGroup lives.
func TestUninitStream(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	tab := randomUninitTable()
	found := 0
	for k := range 400 {
		evs := randomUninitTrace(r, 50+r.IntN(600), 2+r.IntN(100))
		// Without the locks a goroutine's Unlock of its parent's Lock
		// takes over at the fork (hb.Stream does not look for them).
		g := hb.Analyze(evs, hb.Options{Sites: tab, NoHandedLocks: true})
		want := uninitKind(Check(g, tab, Options{NoSpinLoops: true}))
		got, err := CheckStream(events(evs), tab, StreamOptions{Window: len(evs) + 1})
		if err != nil {
			t.Fatal(err)
		}
		if g, w := streamedSummary(uninitKind(got)), streamedSummary(want); !slices.Equal(g, w) {
			t.Fatalf("trace %d: CheckStream:\n\t%s\nCheck:\n\t%s", k, strings.Join(g, "\n\t"), strings.Join(w, "\n\t"))
		}
		found += len(want)
	}
	if found < 100 {
		t.Errorf("%d findings in all the traces: the traces do not exercise the check", found)
	}
}

// uninitKind returns the con-uninit findings of fs.
func uninitKind(fs []finding.Finding) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.Kind == finding.ConUninit {
			out = append(out, f)
		}
	}
	return out
}

// TestUninitChecksLinear: gocron's TestScheduler_ManyJobs shape, each of n
// starters adding to one WaitGroup and starting a job that calls Done,
// the jobs concurrent with the other starters' Adds, and the same shape
// with the value written and read instead: about one order check per read
// (the plain pairing made n*n/2: 118 M on the 10,849 jobs of the recorded
// run), and no finding.
func TestUninitChecksLinear(t *testing.T) {
	const n = 2000
	for _, kind := range []string{"waitgroup", "memory"} {
		var evs []trace.Event
		seq := uint64(0)
		emit := func(g uint64, ev trace.Event) {
			seq++
			ev.Goroutine, ev.Seq = g, seq
			evs = append(evs, ev)
		}
		emit(1, trace.Event{Kind: trace.EvBegin, Peer: trace.NoParent})
		for k := range uint64(n) {
			s, j := 2+2*k, 3+2*k // starter and job
			emit(1, trace.Event{Kind: trace.EvFork, Peer: s, Site: 1})
			emit(s, trace.Event{Kind: trace.EvBegin, Peer: 1})
			if kind == "waitgroup" {
				emit(s, trace.Event{Kind: trace.EvWGAdd, Addr: 0x200, Arg: 1, Site: 20})
			} else {
				emit(s, trace.Event{Kind: trace.EvWrite, Addr: 0x100, Value: 1, Site: 10})
			}
			emit(s, trace.Event{Kind: trace.EvFork, Peer: j, Site: 1})
			emit(j, trace.Event{Kind: trace.EvBegin, Peer: s})
			if kind == "waitgroup" {
				emit(j, trace.Event{Kind: trace.EvWGDone, Addr: 0x200, Site: 21})
			} else {
				emit(j, trace.Event{Kind: trace.EvRead, Addr: 0x100, Site: 11})
			}
		}
		tab := randomUninitTable()
		g := hb.Analyze(evs, hb.Options{Sites: tab})
		fs, c := uninitOnly(g, tab, false, MaxUninitChecks)
		if len(fs) != 0 || c.uninitUnchecked != 0 {
			t.Errorf("%s: %d findings, %d reads unchecked; want none", kind, len(fs), c.uninitUnchecked)
		}
		if c.uninitChecks > 2*n {
			t.Errorf("%s: %d order checks for %d reads, want at most %d", kind, c.uninitChecks, n, 2*n)
		}
		var st StreamStats
		if fs, err := CheckStream(events(evs), tab, StreamOptions{Stats: &st}); err != nil || len(fs) != 0 || st.UninitUnchecked != 0 {
			t.Errorf("%s: CheckStream: %d findings, %d reads unchecked, error %v; want none", kind, len(fs), st.UninitUnchecked, err)
		}
	}
}

// TestUninitBudget: a read left undecided when the run's order checks ran
// out is not reported but counted, and Check's Stats say so.
func TestUninitBudget(t *testing.T) {
	evs := []trace.Event{
		{Kind: trace.EvBegin, Goroutine: 1, Seq: 1, Peer: trace.NoParent},
		{Kind: trace.EvFork, Goroutine: 1, Seq: 2, Peer: 2, Site: 1},
		{Kind: trace.EvWrite, Goroutine: 1, Seq: 3, Addr: 0x100, Value: 1, Site: 10},
		{Kind: trace.EvBegin, Goroutine: 2, Seq: 4, Peer: 1},
		{Kind: trace.EvRead, Goroutine: 2, Seq: 5, Addr: 0x100, Site: 11},
	}
	tab := randomUninitTable()
	g := hb.Analyze(evs, hb.Options{Sites: tab})
	if fs, c := uninitOnly(g, tab, false, MaxUninitChecks); len(fs) != 1 || c.uninitUnchecked != 0 {
		t.Fatalf("%d findings, %d unchecked; want the con-uninit, none unchecked", len(fs), c.uninitUnchecked)
	}
	if fs, c := uninitOnly(g, tab, false, 0); len(fs) != 0 || c.uninitUnchecked != 1 {
		t.Errorf("no budget: %d findings, %d unchecked; want none, one", len(fs), c.uninitUnchecked)
	}
}

// dns's Server: the test's goroutine starts Shutdown's and then, under the
// server's lock, makes the shutdown channel (site 10) and marks the
// server started (14); Shutdown, under the lock, returns unless it is
// started (15) and marks it stopped, then past its Unlock reads the
// channel (11, switched by 15). Had the read come before the channel was
// made, the check would have come before the section that set started,
// found it false and returned: silent. The controls are reported: the
// check outside the lock (nothing keeps it out of the starting section);
// the server started already before that section (it changed nothing);
// the read switched by nothing.
func TestUninitSwitched(t *testing.T) {
	sites := []site{
		{id: 1, kind: "go"}, {id: 10, kind: "write"}, {id: 11, kind: "read", switches: "15"}, {id: 12, kind: "read"},
		{id: 13, kind: "read"}, {id: 14, kind: "write"}, {id: 15, kind: "read"}, {id: 16, kind: "write"},
		{id: 20, kind: "lock", expr: "mu"}, {id: 21, kind: "unlock", expr: "mu"},
	}
	const (
		start = `
1 g=1 Begin parent=none%s
2 g=1 Fork site=1 child=2
3 g=1 Lock site=20 addr=0x800
3.1 g=1 Read site=13 addr=0x200
3.2 g=1 Write site=10 addr=0x100 value=1
3.3 g=1 Write site=14 addr=0x200 value=1
4 g=1 Unlock site=21 addr=0x800
5 g=2 Begin parent=1`
		locked = `
6 g=2 Lock site=20 addr=0x800
6.1 g=2 Read site=15 addr=0x200
6.2 g=2 Write site=16 addr=0x200 value=0
7 g=2 Unlock site=21 addr=0x800
7.1 g=2 Read site=%s addr=0x100`
		unlocked = `
6 g=2 Lock site=20 addr=0x900
6.1 g=2 Read site=15 addr=0x200
6.2 g=2 Write site=16 addr=0x200 value=0
7 g=2 Unlock site=21 addr=0x900
7.1 g=2 Read site=11 addr=0x100`
		started = "\n1.1 g=1 Write site=14 addr=0x200 value=1"
	)
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"switched", fmt.Sprintf(start, "") + fmt.Sprintf(locked, "11"), nil},
		{"unlocked", fmt.Sprintf(start, "") + unlocked, []string{"con-uninit k.go:11(read) k.go:10(init)"}},
		{"unchanged", fmt.Sprintf(start, started) + fmt.Sprintf(locked, "11"), []string{"con-uninit k.go:11(read) k.go:10(init)"}},
		{"unswitched", fmt.Sprintf(start, "") + fmt.Sprintf(locked, "12"), []string{"con-uninit k.go:12(read) k.go:10(init)"}},
	} {
		t.Run(c.name, func(t *testing.T) { expect(t, check(t, c.text, sites, Options{}), c.want...) })
	}
}

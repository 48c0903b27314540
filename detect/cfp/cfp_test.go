package cfp

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

const header = `precog trace v1 test="T" package="p" start=2025-01-02T15:04:05Z pid=1` + "\n"

// sites gives each named function a "func" site: site 10+i at line 10+i
// of f.go.
func sites(names ...string) *trace.SiteTable {
	t := &trace.SiteTable{}
	for i, n := range names {
		t.Sites = append(t.Sites, trace.Site{ID: uint32(10 + i), File: "f.go", Line: 10 + i, Col: 1, Kind: "func", Function: n})
	}
	return t
}

func parse(t *testing.T, text string) []trace.Event {
	t.Helper()
	tr, err := trace.ParseText(strings.NewReader(header + text))
	if err != nil {
		t.Fatal(err)
	}
	trace.Sort(tr.Events)
	return tr.Events
}

// names turns a result's pairs into "a b" strings by function name.
func names(r *Result) []string {
	var out []string
	for _, p := range r.Pairs {
		a, b := r.Names[p.A], r.Names[p.B]
		if b < a {
			a, b = b, a
		}
		out = append(out, a+" "+b)
	}
	slices.Sort(out)
	return out
}

func key(line int) string { return FuncKey("f.go", line, 1) }

// TestFig2 is the paper's Fig. 2: foo1 takes L, calls foo2, releases L and
// goes on; bar runs under L on another goroutine. foo1 and bar are
// concurrent, foo2 and bar are not. after runs once the other goroutine
// is joined: concurrent with nothing.
func TestFig2(t *testing.T) {
	evs := parse(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
2.1 g=1 FuncEnter site=10
3 g=1 Lock site=2 addr=0x900
3.1 g=1 FuncEnter site=11
3.2 g=1 FuncExit site=11
4 g=1 Unlock site=3 addr=0x900
4.1 g=1 Write site=6 addr=0x100 value=1
4.2 g=1 FuncExit site=10
5 g=2 Begin parent=1
6 g=2 Lock site=4 addr=0x900
6.1 g=2 FuncEnter site=12
6.2 g=2 FuncExit site=12
7 g=2 Unlock site=5 addr=0x900
8 g=2 WGDone site=7 addr=0x800
9 g=1 WGWait site=8 addr=0x800
9.1 g=1 FuncEnter site=13
9.2 g=1 FuncExit site=13
`)
	r := Measure(evs, sites("foo1", "foo2", "bar", "after"), nil, Options{})
	if got, want := names(r), []string{"bar foo1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pairs = %v, want %v", got, want)
	}
	if r.Instances != 4 || r.Groups != 4 || len(r.Funcs) != 4 {
		t.Errorf("instances %d, groups %d, funcs %v; want 4, 4 and four functions", r.Instances, r.Groups, r.Funcs)
	}
}

// TestMainSlave is Fig. 6's shape: main starts SlaveStart and is still in
// main while it runs, so {main, SlaveStart} is a pair although main's
// entry happens before SlaveStart's. Two SlaveStart goroutines make the
// pair {SlaveStart, SlaveStart}.
func TestMainSlave(t *testing.T) {
	evs := parse(t, `
1 g=1 Begin parent=none
1.1 g=1 FuncEnter site=10
2 g=1 Fork site=1 child=2
3 g=1 Fork site=1 child=3
4 g=2 Begin parent=1
4.1 g=2 FuncEnter site=11
4.2 g=2 Write site=5 addr=0x100 value=7
4.3 g=2 FuncExit site=11
5 g=3 Begin parent=1
5.1 g=3 FuncEnter site=11
5.2 g=3 FuncExit site=11
6 g=2 End
3.1 g=1 Read site=6 addr=0x100
`)
	r := Measure(evs, sites("main", "SlaveStart"), nil, Options{})
	if got, want := names(r), []string{"SlaveStart SlaveStart", "SlaveStart main"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pairs = %v, want %v", got, want)
	}
}

// TestInherit is Fig. 4 with Optimization 2: daxpy was not logged, and
// inherits lu0's pairs: with lu0 on two goroutines, {lu0, lu0}, {lu0,
// daxpy} and {daxpy, daxpy}. idle never ran: none of its inheritors did
// either.
func TestInherit(t *testing.T) {
	evs := parse(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=1 child=3
4 g=2 Begin parent=1
4.1 g=2 FuncEnter site=10
4.2 g=2 FuncExit site=10
5 g=3 Begin parent=1
5.1 g=3 FuncEnter site=10
5.2 g=3 FuncExit site=10
`)
	plan := &Plan{Funcs: []PlanFunc{
		{Key: key(10), Name: "p.lu0", Spawned: true},
		{Key: key(90), Name: "p.daxpy", Skip: "opt2", Inherits: []string{key(10)}},
		{Key: key(91), Name: "p.idle"},
		{Key: key(92), Name: "p.idleHelper", Skip: "opt2", Inherits: []string{key(91)}},
	}}
	r := Measure(evs, sites("lu0"), plan, Options{})
	if got, want := names(r), []string{"p.daxpy p.daxpy", "p.daxpy p.lu0", "p.lu0 p.lu0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pairs = %v, want %v", got, want)
	}
	if got, want := r.Funcs, []string{key(10), key(90)}; !reflect.DeepEqual(got, want) {
		t.Errorf("funcs = %v, want %v", got, want)
	}
}

// TestGrouping: a hundred calls between two sync events are one group;
// a function that never returned is open to the end of the trace.
func TestGrouping(t *testing.T) {
	var b strings.Builder
	b.WriteString("1 g=1 Begin parent=none\n1.1 g=1 FuncEnter site=11\n2 g=1 Fork site=1 child=2\n3 g=2 Begin parent=1\n")
	for i := range 100 {
		fmt.Fprintf(&b, "3.%d g=2 FuncEnter site=10\n3.%d g=2 FuncExit site=10\n", 2*i+1, 2*i+2)
	}
	r := Measure(parse(t, b.String()), sites("leaf", "forever"), nil, Options{})
	if r.Instances != 101 || r.Groups != 2 {
		t.Errorf("instances %d, groups %d; want 101 and 2", r.Instances, r.Groups)
	}
	if got, want := names(r), []string{"forever leaf"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pairs = %v, want %v", got, want)
	}
	// One comparison is enough: {leaf, leaf} and {forever, forever} are
	// each on one goroutine and cost none (the budget's stop is
	// TestBudgetWithinPair's).
	r = Measure(parse(t, b.String()), sites("leaf", "forever"), nil, Options{MaxChecks: 1})
	if got, want := names(r), []string{"forever leaf"}; r.Limit != "" || !reflect.DeepEqual(got, want) {
		t.Errorf("MaxChecks 1: limit %q, pairs %v; want no limit, %v", r.Limit, got, want)
	}
}

// TestRWMutex: two readers of one RWMutex do not exclude each other.
func TestRWMutex(t *testing.T) {
	evs := parse(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 RLock site=2 addr=0x900
3.1 g=1 FuncEnter site=10
3.2 g=1 FuncExit site=10
4 g=1 RUnlock site=3 addr=0x900
5 g=2 Begin parent=1
6 g=2 RLock site=4 addr=0x900
6.1 g=2 FuncEnter site=11
6.2 g=2 FuncExit site=11
7 g=2 RUnlock site=5 addr=0x900
`)
	r := Measure(evs, sites("readA", "readB"), nil, Options{})
	if got, want := names(r), []string{"readA readB"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pairs = %v, want %v", got, want)
	}
}

// TestSelectFig8 is the paper's Fig. 8, with its exact outcome: input 1
// with all five functions, then input 2 with f3, f4 and f5; input 3 adds
// nothing.
func TestSelectFig8(t *testing.T) {
	p := MakePair
	tests := []Test{
		{Name: "input1", Pairs: []Pair{p("f1", "f2"), p("f2", "f3"), p("f2", "f4"), p("f4", "f5")}},
		{Name: "input2", Pairs: []Pair{p("f1", "f2"), p("f3", "f4"), p("f3", "f5")}},
		{Name: "input3", Pairs: []Pair{p("f2", "f3"), p("f3", "f4")}},
	}
	got := Select(tests)
	want := []Step{
		{Test: "input1", New: tests[0].Pairs, Funcs: []string{"f1", "f2", "f3", "f4", "f5"}},
		{Test: "input2", New: []Pair{p("f3", "f4"), p("f3", "f5")}, Funcs: []string{"f3", "f4", "f5"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Select = %+v\nwant %+v", got, want)
	}
	if n := len(Union(tests)); n != 6 {
		t.Errorf("aggregated CFP has %d pairs, want 6", n)
	}
}

// TestSelectTies: equal counts go to the earlier test; tests without
// pairs are never chosen.
func TestSelectTies(t *testing.T) {
	p := MakePair
	got := Select([]Test{{Name: "none"}, {Name: "a", Pairs: []Pair{p("x", "y")}}, {Name: "b", Pairs: []Pair{p("x", "y")}}})
	if len(got) != 1 || got[0].Test != "a" {
		t.Errorf("Select = %+v, want only a", got)
	}
}

func TestFluctuation(t *testing.T) {
	p := MakePair
	stable := [][]Pair{{p("a", "b")}, {p("a", "b")}}
	if f := Fluctuation(stable); f != 0 {
		t.Errorf("stable runs: %v, want 0", f)
	}
	runs := [][]Pair{{p("a", "b"), p("a", "c")}, {p("a", "b")}, {p("a", "b"), p("b", "c")}}
	if f, want := Fluctuation(runs), 2.0/3; f != want {
		t.Errorf("Fluctuation = %v, want %v", f, want)
	}
}

// traceText writes events in the text form: a sync event gets the next
// sequence number, any other event a sub-number of the last.
type traceText struct {
	b        strings.Builder
	seq, sub int
}

func (w *traceText) sync(format string, args ...any) {
	w.seq++
	w.sub = 0
	fmt.Fprintf(&w.b, "%d "+format+"\n", append([]any{w.seq}, args...)...)
}

func (w *traceText) plain(format string, args ...any) {
	w.sub++
	fmt.Fprintf(&w.b, "%d.%d "+format+"\n", append([]any{w.seq, w.sub}, args...)...)
}

// lockedHelperTrace: two workers each call helper n times under the mutex
// 0x900 and send on a channel after each call, which the first goroutine
// receives, so every instance has a clock of its own and none groups with
// another (gobreaker's requests: a helper called under the breaker's
// mutex, then a send). Each worker also calls free once, unlocked; after
// the last receive the first goroutine calls after, concurrent with
// nothing, whose pairs are compared after helper's.
func lockedHelperTrace(n int) string {
	var w traceText
	w.sync("g=1 Begin parent=none")
	w.sync("g=1 Fork site=1 child=2")
	w.sync("g=1 Fork site=1 child=3")
	w.sync("g=2 Begin parent=1")
	w.sync("g=3 Begin parent=1")
	for _, g := range []int{2, 3} {
		w.plain("g=%d FuncEnter site=10", g)
		w.plain("g=%d FuncExit site=10", g)
	}
	for range n {
		for _, g := range []int{2, 3} {
			w.sync("g=%d Lock site=2 addr=0x900", g)
			w.plain("g=%d FuncEnter site=11", g)
			w.plain("g=%d FuncExit site=11", g)
			w.sync("g=%d Unlock site=3 addr=0x900", g)
			w.sync("g=%d ChanSend site=4 addr=0xa00", g)
			w.sync("g=1 ChanRecv site=5 addr=0xa00 ok=true")
		}
	}
	w.plain("g=1 FuncEnter site=12")
	w.plain("g=1 FuncExit site=12")
	return w.b.String()
}

// TestLockedHelper: a function that every instance runs under one mutex
// pairs with nothing that holds it too, whatever the number of its
// instances, without comparing them one by one: two thousand instances
// are four million comparisons, past a budget of ten thousand (free
// against helper takes up to 2001).
func TestLockedHelper(t *testing.T) {
	r := Measure(parse(t, lockedHelperTrace(1000)), sites("free", "helper", "after"), nil, Options{MaxChecks: 10000})
	if r.Limit != "" {
		t.Errorf("Limit %q: the locked helper's instances were compared one by one", r.Limit)
	}
	if r.Groups < 2000 {
		t.Errorf("%d groups, want each helper instance in its own (the trace lost its clocks)", r.Groups)
	}
	if got, want := names(r), []string{"free free", "free helper"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pairs = %v, want %v", got, want)
	}
}

// TestBudgetWithinPair: the budget stops the comparisons within one pair
// of functions too, not only between pairs. Two goroutines call f in
// turn, handing a channel's token back and forth, so no two instances are
// concurrent and all 200*200 comparisons run without the budget.
func TestBudgetWithinPair(t *testing.T) {
	var w traceText
	w.sync("g=1 Begin parent=none")
	w.sync("g=1 Fork site=1 child=2")
	w.sync("g=2 Begin parent=1")
	for i := range 200 {
		from, to := 1, 2
		if i%2 == 1 {
			from, to = 2, 1
		}
		w.plain("g=%d FuncEnter site=10", from)
		w.plain("g=%d FuncExit site=10", from)
		w.sync("g=%d ChanSend site=2 addr=0xa00", from)
		w.sync("g=%d ChanRecv site=3 addr=0xa00 ok=true", to)
	}
	evs := parse(t, w.b.String())
	r := Measure(evs, sites("f"), nil, Options{MaxChecks: -1})
	if r.Limit != "" || len(r.Pairs) != 0 || r.Groups != 200 {
		t.Fatalf("unbounded: limit %q, pairs %v, %d groups; want no limit, no pairs, 200 groups", r.Limit, names(r), r.Groups)
	}
	r = Measure(evs, sites("f"), nil, Options{MaxChecks: 1000})
	if !strings.Contains(r.Limit, "after 1000 comparisons") {
		t.Errorf("Limit = %q, want the pairing stopped after 1000 comparisons", r.Limit)
	}
}

// TestOneGoroutine: goroutine 1 calls f a thousand times, each followed by
// a send that goroutine 2 receives inside its one call of g, so every f
// instance has a clock of its own and none groups with another (theine's
// TestCache_Set and its 20,000 calls of SetWithTTL). {f, f} is a million
// pairs of instances of one goroutine, compared first: they must cost no
// comparison, or the budget of ten thousand ends the pairing before {f, g}.
func TestOneGoroutine(t *testing.T) {
	var w traceText
	w.sync("g=1 Begin parent=none")
	w.sync("g=1 Fork site=1 child=2")
	w.sync("g=2 Begin parent=1")
	w.plain("g=2 FuncEnter site=11")
	for range 1000 {
		w.plain("g=1 FuncEnter site=10")
		w.plain("g=1 FuncExit site=10")
		w.sync("g=1 ChanSend site=2 addr=0xa00")
		w.sync("g=2 ChanRecv site=3 addr=0xa00 ok=true")
	}
	w.plain("g=2 FuncExit site=11")
	r := Measure(parse(t, w.b.String()), sites("f", "g"), nil, Options{MaxChecks: 10000})
	if r.Limit != "" {
		t.Errorf("Limit %q: instances of one goroutine were compared", r.Limit)
	}
	if r.Groups != 1001 {
		t.Errorf("%d groups, want 1001 (each f instance in its own)", r.Groups)
	}
	if got, want := names(r), []string{"f g"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pairs = %v, want %v", got, want)
	}
}

// phasedTrace: goroutine 1 runs rounds; in each it forks n workers that
// call f (site 10), and n that call g (site 11), each worker once, and
// joins them with a WaitGroup: the g workers after the f workers' Wait, or,
// when overlap says so for the round, before it (so that round's f and g
// instances are concurrent). Workers with odd numbers also send on a
// channel that goroutine 1 receives before its Wait, for order through
// another path. overlap nil: no round overlaps.
func phasedTrace(rounds, n int, overlap func(round int) bool) string {
	var w traceText
	w.sync("g=1 Begin parent=none")
	next := 2
	worker := func(site int) {
		c := next
		next++
		w.sync("g=1 WGAdd site=6 addr=0x800 delta=1")
		w.sync("g=1 Fork site=1 child=%d", c)
		w.sync("g=%d Begin parent=1", c)
		w.plain("g=%d FuncEnter site=%d", c, site)
		w.plain("g=%d FuncExit site=%d", c, site)
		if c%2 == 1 {
			w.sync("g=%d ChanSend site=4 addr=0xa00", c)
			w.sync("g=1 ChanRecv site=5 addr=0xa00 ok=true")
		}
		w.sync("g=%d WGDone site=7 addr=0x800", c)
	}
	for r := range rounds {
		for range n {
			worker(10)
		}
		both := overlap != nil && overlap(r)
		if !both {
			w.sync("g=1 WGWait site=8 addr=0x800")
		}
		for range n {
			worker(11)
		}
		w.sync("g=1 WGWait site=8 addr=0x800")
	}
	return w.b.String()
}

// TestPhasedWorkers: a test that runs workers of f, waits for them, then
// workers of g, round after round (httprate's TestLocalCounter: 7,000 and
// 11,000 instances), has no f and g instance concurrent; the pairs are
// found without comparing the instances one by one (before, 40,000
// comparisons of f against g, past the budget). When a round's g workers
// start before its Wait, f and g are concurrent.
func TestPhasedWorkers(t *testing.T) {
	evs := parse(t, phasedTrace(4, 50, nil))
	r := Measure(evs, sites("f", "g"), nil, Options{MaxChecks: 10000})
	if r.Limit != "" {
		t.Errorf("Limit %q: the phases' instances were compared one by one", r.Limit)
	}
	if got, want := names(r), []string{"f f", "g g"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pairs = %v, want %v", got, want)
	}
	evs = parse(t, phasedTrace(4, 50, func(r int) bool { return r == 2 }))
	r = Measure(evs, sites("f", "g"), nil, Options{MaxChecks: 10000})
	if got, want := names(r), []string{"f f", "f g", "g g"}; r.Limit != "" || !reflect.DeepEqual(got, want) {
		t.Errorf("one round overlapping: pairs = %v (limit %q), want %v", got, r.Limit, want)
	}
}

// TestSpansDifferential: spans.concurrentFuncs answers as concurrentFuncs
// does, on phased traces with random rounds overlapping, for every pair of
// functions, with the hub and with each other goroutine as the hub.
func TestSpansDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := range 10 {
		evs := parse(t, phasedTrace(1+r.IntN(4), 1+r.IntN(20), func(int) bool { return r.IntN(3) == 0 }))
		g := hb.Analyze(evs, hb.Options{})
		fns := []string{"f", "g"}
		byFn := map[string][]instance{}
		for gi := range g.Goroutines {
			var open []int
			for _, i := range g.Goroutines[gi].Events {
				switch evs[i].Kind {
				case trace.EvFuncEnter:
					open = append(open, i)
				case trace.EvFuncExit:
					fn := fns[evs[i].Site-10]
					byFn[fn] = append(byFn[fn], instance{g: gi, ent: open[len(open)-1], exi: i})
					open = open[:len(open)-1]
				}
			}
		}
		for hub := -1; hub < len(g.Goroutines); hub += 1 + r.IntN(7) {
			sp := newSpans(g)
			if hub >= 0 {
				sp.hub, sp.hubG = g.Goroutines[hub].Events, hub
			}
			for _, fa := range fns {
				for _, fb := range fns {
					var c1, c2 int
					want, _ := concurrentFuncs(g, byFn[fa], byFn[fb], &c1, -1)
					got, _ := sp.concurrentFuncs(fa, fb, byFn[fa], byFn[fb], &c2, -1)
					if got != want {
						t.Fatalf("trace %d, hub %d: %s %s concurrent %v, one by one %v", k, hub, fa, fb, got, want)
					}
					if !want && c2 > c1 {
						t.Errorf("trace %d, hub %d: %s %s: %d comparisons, one by one %d", k, hub, fa, fb, c2, c1)
					}
				}
			}
		}
	}
}

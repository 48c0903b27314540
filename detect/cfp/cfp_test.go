package cfp

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

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
	// One comparison allowed: the pairing stops and says so.
	r = Measure(parse(t, b.String()), sites("leaf", "forever"), nil, Options{MaxChecks: 1})
	if r.Limit == "" {
		t.Error("no Limit with MaxChecks 1")
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

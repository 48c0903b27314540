package oscs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

const header = `precog trace v1 test="T" package="p" start=2025-01-02T15:04:05Z pid=1` + "\n"

// sites is the tests' site table: site n is k.go line n; sites 50-59 are
// loop-exit reads, 60-69 reads dereferenced without a nil check, 70-79
// reads of a scalar.
var sites = func() *trace.SiteTable {
	t := new(trace.SiteTable)
	for id := uint32(1); id < 100; id++ {
		s := trace.Site{ID: id, File: "/k/k.go", Line: int(id), Col: 2, Expr: "x" + strconv.Itoa(int(id)), Function: "f" + strconv.Itoa(int(id))}
		if id >= 50 && id < 60 {
			s.Uses = trace.UseLoopExit
		}
		if id >= 60 && id < 70 {
			s.Uses = trace.UseDeref
		}
		if id >= 70 && id < 80 {
			s.Uses = trace.UseScalar
		}
		t.Sites = append(t.Sites, s)
	}
	return t
}()

func graph(t *testing.T, text string) *hb.Graph {
	t.Helper()
	tr, err := trace.ParseText(strings.NewReader(header + text))
	if err != nil {
		t.Fatal(err)
	}
	trace.Sort(tr.Events)
	return hb.Analyze(tr.Events, hb.Options{Sites: sites})
}

// lines names a finding by its sites' lines, sorted: "3 4 10 11".
func lines(f finding.Finding) string {
	var ls []int
	for _, s := range f.Sites {
		ls = append(ls, s.Line)
	}
	slices.Sort(ls)
	return strings.Trim(fmt.Sprint(ls), "[]")
}

func check(t *testing.T, text string, opts Options) []string {
	t.Helper()
	var out []string
	for _, f := range Check(graph(t, text), sites, opts) {
		out = append(out, lines(f))
	}
	slices.Sort(out)
	return out
}

// both runs a case under Base and Opt.
func both(t *testing.T, text string, want ...string) {
	t.Helper()
	slices.Sort(want)
	for _, alg := range []Algorithm{Base, Opt} {
		if got := check(t, text, Options{Algorithm: alg, NoCondFlags: true, NoSpinFlags: true}); !slices.Equal(got, want) {
			t.Errorf("%s: findings %q, want %q", alg, got, want)
		}
	}
}

// start is a test goroutine g1 starting g2 and g3, which nothing orders.
const start = `
1 g=1 Begin parent=none
2 g=1 Fork site=90 child=2
3 g=1 Fork site=91 child=3
4 g=2 Begin parent=1
5 g=3 Begin parent=1
`

// Fig. 3c (Mozilla-1): g2 sets the script (S1) and later reads it (S3) in
// two critical sections; g3 stores nil (S2) between. Both pairs are
// reported; two reads of g2 alone and an access without the lock are not.
func TestMozilla1(t *testing.T) {
	both(t, start+`
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Write site=11 addr=0x100 value=1
11 g=2 Unlock site=12 addr=0x900
12 g=2 Lock site=13 addr=0x900
12.1 g=2 Read site=14 addr=0x100
13 g=2 Unlock site=15 addr=0x900
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Write site=21 addr=0x100 value=0
15 g=3 Unlock site=22 addr=0x900
15.1 g=3 Read site=23 addr=0x100
`, "10 11 20 21", "13 14 20 21")
}

// Fig. 3a: a channel orders the two critical sections.
func TestOrdered(t *testing.T) {
	both(t, start+`
6 g=1 ChanMake site=80 addr=0x500 cap=1
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Write site=11 addr=0x100 value=1
11 g=2 Unlock site=12 addr=0x900
12 g=2 ChanSend site=81 addr=0x500
13 g=3 ChanRecv site=82 addr=0x500 ok=true
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Write site=21 addr=0x100 value=0
15 g=3 Unlock site=22 addr=0x900
`)
}

// A goroutine started inside its creator's critical section (a
// time.AfterFunc callback armed under the lock) that takes the same lock:
// the creator's section began before the fork, so it runs first in every
// execution, though its write comes after the fork. Started after the
// creator's Unlock, the two sections can run in either order.
func TestSectionOrdered(t *testing.T) {
	both(t, `
1 g=1 Begin parent=none
2 g=1 Lock site=10 addr=0x900
3 g=1 Fork site=90 child=2
3.1 g=1 Write site=11 addr=0x100 value=1
4 g=1 Unlock site=12 addr=0x900
5 g=2 Begin parent=1
6 g=2 Lock site=20 addr=0x900
6.1 g=2 Read site=21 addr=0x100
7 g=2 Unlock site=22 addr=0x900
`)
	both(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=90 child=2
3 g=1 Lock site=10 addr=0x900
3.1 g=1 Write site=11 addr=0x100 value=1
4 g=1 Unlock site=12 addr=0x900
5 g=2 Begin parent=1
6 g=2 Lock site=20 addr=0x900
6.1 g=2 Read site=21 addr=0x100
7 g=2 Unlock site=22 addr=0x900
`, "10 11 20 21")
}

// sectionsOrdered asks the trace's order without inferred edges; the
// caller's graph is that order when it found no hand-off, and the trace
// is not analyzed again for it (a third graph held at once on a large
// trace). With a hand-off in the trace, it is.
func TestPlainGraphReused(t *testing.T) {
	const pair = `
1 g=1 Begin parent=none
2 g=1 Lock site=10 addr=0x900
3 g=1 Fork site=90 child=2
3.1 g=1 Write site=11 addr=0x100 value=1
4 g=1 Unlock site=12 addr=0x900
5 g=2 Begin parent=1
6 g=2 Lock site=20 addr=0x900
6.1 g=2 Read site=21 addr=0x100
7 g=2 Unlock site=22 addr=0x900
`
	calls := 0
	defer func(f func([]trace.Event, hb.Options) *hb.Graph) { analyze = f }(analyze)
	analyze = func(evs []trace.Event, o hb.Options) *hb.Graph {
		calls++
		return hb.Analyze(evs, o)
	}
	// A take: g3 reads a pointer-shaped slot (site 40) and clears it in
	// one section of 0x900, after g1 stored it there.
	take := `
8 g=1 Lock site=30 addr=0x900
8.1 g=1 Write site=31 addr=0x500 value=1
9 g=1 Unlock site=32 addr=0x900
10 g=1 Fork site=91 child=3
11 g=3 Begin parent=1
12 g=3 Lock site=33 addr=0x900
12.1 g=3 Read site=40 addr=0x500
12.2 g=3 Write site=34 addr=0x500 value=0
13 g=3 Unlock site=35 addr=0x900
`
	ts := &trace.SiteTable{Sites: slices.Clone(sites.Sites)}
	for i := range ts.Sites {
		switch s := &ts.Sites[i]; s.ID {
		case 40:
			s.Kind, s.Uses = "read", trace.UsePointer
		case 31, 34:
			s.Kind, s.Expr = "write", "x40"
		}
	}
	for _, tc := range []struct {
		text  string
		takes int
	}{{pair, 0}, {pair + take, 1}} {
		tr, err := trace.ParseText(strings.NewReader(header + tc.text))
		if err != nil {
			t.Fatal(err)
		}
		trace.Sort(tr.Events)
		g := hb.Analyze(tr.Events, hb.Options{Sites: ts})
		if g.Takes() != tc.takes {
			t.Fatalf("%d takes, want %d", g.Takes(), tc.takes)
		}
		calls = 0
		Check(g, ts, Options{NoCondFlags: true, NoSpinFlags: true})
		if calls != tc.takes {
			t.Errorf("with %d takes: %d more analyses of the trace, want %d", tc.takes, calls, tc.takes)
		}
	}
}

// A section that sets a location and reads it back under the lock reads
// its own write in either order of the sections, never g3's: the read
// does not pair with g3's nil store (the two writes still do, a lost
// update). Without the write before it, the read pairs.
func TestReadsOwnWrite(t *testing.T) {
	both(t, start+`
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Write site=11 addr=0x100 value=1
10.2 g=2 Read site=13 addr=0x100
11 g=2 Unlock site=12 addr=0x900
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Write site=21 addr=0x100 value=0
15 g=3 Unlock site=22 addr=0x900
`, "10 11 20 21")
	both(t, start+`
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=13 addr=0x100
11 g=2 Unlock site=12 addr=0x900
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Write site=21 addr=0x100 value=0
15 g=3 Unlock site=22 addr=0x900
`, "10 13 20 21")
}

// Each goroutine sets a flag to one value in a section of its own, then
// reads it in another: whichever goroutine's write comes between, the
// read finds the value its own goroutine wrote (vault's SetCloneToken and
// Clone). g3's write, the first, changes the value (not redundant), but
// g2's read pairs with it no more than the two writes of one value pair.
// Reported: g3 writes another value, the read is not of a scalar, or the
// reader wrote none before its read.
func TestReadsOwnValue(t *testing.T) {
	const text = start + `
10 g=3 Lock site=20 addr=0x900
10.1 g=3 Write site=21 addr=0x100 value=%d
11 g=3 Unlock site=22 addr=0x900
12 g=2 Lock site=10 addr=0x900
12.1 g=2 Write site=11 addr=0x100 value=1
13 g=2 Unlock site=12 addr=0x900
14 g=2 Lock site=30 addr=0x900
14.1 g=2 Read site=%d addr=0x100
15 g=2 Unlock site=32 addr=0x900
`
	both(t, fmt.Sprintf(text, 1, 71))
	both(t, fmt.Sprintf(text, 2, 71), "10 11 20 21", "20 21 30 71")
	// A read whose value word is not its value (a pointer's: nil or
	// not) is not known to find what its goroutine wrote.
	both(t, fmt.Sprintf(text, 1, 31), "20 21 30 31")
	// The reader noticed a collection between its write and its read,
	// and pairs with g3's write in the new epoch: its own write counts.
	both(t, start+`
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Write site=11 addr=0x100 value=1
11 g=2 Unlock site=12 addr=0x900
12 g=2 GCEpoch epoch=1
13 g=3 GCEpoch epoch=1
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Write site=21 addr=0x100 value=1
15 g=3 Unlock site=22 addr=0x900
16 g=2 Lock site=30 addr=0x900
16.1 g=2 Read site=71 addr=0x100
17 g=2 Unlock site=32 addr=0x900
`)
	both(t, start+`
12 g=3 Lock site=20 addr=0x900
12.1 g=3 Write site=21 addr=0x100 value=1
13 g=3 Unlock site=22 addr=0x900
14 g=2 Lock site=30 addr=0x900
14.1 g=2 Read site=71 addr=0x100
15 g=2 Unlock site=32 addr=0x900
`, "20 21 30 71")
}

// Different locks, read locks on both sides, two reads, and disjoint
// locations never pair; a write under a read lock against a write lock
// does.
func TestNoCommonLockOrConflict(t *testing.T) {
	both(t, start+`
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Write site=11 addr=0x100 value=1
10.2 g=2 Read site=12 addr=0x200
10.3 g=2 Write site=13 addr=0x300 value=1
11 g=2 Unlock site=14 addr=0x900
12 g=3 Lock site=20 addr=0x901
12.1 g=3 Write site=21 addr=0x100 value=2
13 g=3 Unlock site=22 addr=0x901
14 g=3 Lock site=23 addr=0x900
14.1 g=3 Read site=24 addr=0x200
14.2 g=3 Write site=25 addr=0x400 value=2
15 g=3 Unlock site=26 addr=0x900
16 g=2 RLock site=30 addr=0x902
16.1 g=2 Read site=31 addr=0x500
17 g=2 RUnlock site=32 addr=0x902
18 g=3 RLock site=40 addr=0x902
18.1 g=3 Read site=41 addr=0x500
19 g=3 RUnlock site=42 addr=0x902
20 g=3 Lock site=43 addr=0x902
20.1 g=3 Write site=44 addr=0x500 value=7
21 g=3 Unlock site=45 addr=0x902
`, "30 31 43 44")
}

// Fig. 3b: read-write sequences on both sides commute, also when the
// second side's write comes after its read (the DetectionList case) and
// when the goroutine reads the sum again in a later critical section.
// Fig. 5: a side that only reads does not.
func TestCommutative(t *testing.T) {
	sum := start + `
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=11 addr=0x100
10.2 g=2 Write site=12 addr=0x100 value=5
11 g=2 Unlock site=13 addr=0x900
12 g=2 Lock site=14 addr=0x900
12.1 g=2 Read site=15 addr=0x200
13 g=2 Unlock site=16 addr=0x900
14 g=3 Lock site=10 addr=0x900
14.1 g=3 Read site=11 addr=0x100
14.2 g=3 Write site=12 addr=0x100 value=9
15 g=3 Unlock site=13 addr=0x900
`
	both(t, sum)
	max := start + `
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=11 addr=0x100
10.2 g=2 Write site=12 addr=0x100 value=9
11 g=2 Unlock site=13 addr=0x900
14 g=3 Lock site=10 addr=0x900
14.1 g=3 Read site=11 addr=0x100
15 g=3 Unlock site=13 addr=0x900
`
	both(t, max, "10 10 11 12")
}

// kb2: g2's read-write of the counter and its read of it in a later
// critical section; g3 does the same. The additions commute (the flag is
// kept per critical section, so g2's read-only section does not clear the
// flag of its addition); each read for the log pairs with the other's
// addition.
func TestFlagPerSection(t *testing.T) {
	both(t, start+`
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=11 addr=0x100
10.2 g=2 Write site=12 addr=0x100 value=1
11 g=2 Unlock site=13 addr=0x900
12 g=2 Lock site=14 addr=0x900
12.1 g=2 Read site=15 addr=0x100
13 g=2 Unlock site=16 addr=0x900
20 g=3 Lock site=10 addr=0x900
20.1 g=3 Read site=11 addr=0x100
20.2 g=3 Write site=12 addr=0x100 value=3
21 g=3 Unlock site=13 addr=0x900
22 g=3 Lock site=14 addr=0x900
22.1 g=3 Read site=15 addr=0x100
23 g=3 Unlock site=16 addr=0x900
`, "10 12 14 15")
}

// Redundant writes: two writes of one value, and a read against a write
// that did not change the value, are order-insensitive; a write that
// changed it is not.
func TestRedundant(t *testing.T) {
	both(t, start+`
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Write site=11 addr=0x100 value=3
11 g=2 Unlock site=12 addr=0x900
12 g=3 Lock site=20 addr=0x900
12.1 g=3 Write site=21 addr=0x100 value=3
13 g=3 Unlock site=23 addr=0x900
14 g=2 Lock site=30 addr=0x900
14.1 g=2 Write site=31 addr=0x100 value=3
14.2 g=2 Write site=32 addr=0x200 value=1
15 g=2 Unlock site=33 addr=0x900
16 g=3 Lock site=40 addr=0x900
16.1 g=3 Read site=41 addr=0x200
16.2 g=3 Read site=42 addr=0x100
17 g=3 Unlock site=43 addr=0x900
`, "30 32 40 41")
}

// Nested critical sections: the common lock is the outer one, and the
// DetectionList is checked when the goroutine leaves the outer section,
// after its write in the inner one made the pair commutative.
func TestNested(t *testing.T) {
	both(t, start+`
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=11 addr=0x100
10.2 g=2 Write site=12 addr=0x100 value=1
11 g=2 Unlock site=13 addr=0x900
20 g=3 Lock site=20 addr=0x900
20.1 g=3 Read site=21 addr=0x100
21 g=3 Lock site=22 addr=0x901
21.1 g=3 Write site=23 addr=0x100 value=2
22 g=3 Unlock site=24 addr=0x901
23 g=3 Unlock site=25 addr=0x900
30 g=2 Lock site=30 addr=0x900
31 g=2 Lock site=31 addr=0x901
31.1 g=2 Write site=32 addr=0x200 value=1
32 g=2 Unlock site=33 addr=0x901
33 g=2 Unlock site=34 addr=0x900
40 g=3 Lock site=40 addr=0x901
40.1 g=3 Read site=41 addr=0x200
41 g=3 Unlock site=42 addr=0x901
`, "31 32 40 41")
}

// Opt keeps two goroutines per location: with three writers before the
// read, it forgets the first, which Base still pairs.
func TestOptForgets(t *testing.T) {
	text := `
1 g=1 Begin parent=none
2 g=1 Fork site=90 child=2
3 g=1 Fork site=91 child=3
4 g=1 Fork site=92 child=4
5 g=2 Begin parent=1
6 g=3 Begin parent=1
7 g=4 Begin parent=1
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Write site=11 addr=0x100 value=1
11 g=2 Unlock site=12 addr=0x900
12 g=3 Lock site=20 addr=0x900
12.1 g=3 Write site=21 addr=0x100 value=2
13 g=3 Unlock site=22 addr=0x900
14 g=4 Lock site=30 addr=0x900
14.1 g=4 Write site=31 addr=0x100 value=3
15 g=4 Unlock site=32 addr=0x900
16 g=1 Lock site=40 addr=0x900
16.1 g=1 Read site=41 addr=0x100
17 g=1 Unlock site=42 addr=0x900
`
	ww := []string{"10 11 20 21", "10 11 30 31", "20 21 30 31"}
	base := append(slices.Clone(ww), "10 11 40 41", "20 21 40 41", "30 31 40 41")
	opt := append(slices.Clone(ww), "20 21 40 41", "30 31 40 41")
	slices.Sort(base)
	slices.Sort(opt)
	if got := check(t, text, Options{Algorithm: Base, NoCondFlags: true, NoSpinFlags: true}); !slices.Equal(got, base) {
		t.Errorf("base: %q, want %q", got, base)
	}
	if got := check(t, text, Options{Algorithm: Opt, NoCondFlags: true, NoSpinFlags: true}); !slices.Equal(got, opt) {
		t.Errorf("opt: %q, want %q", got, opt)
	}
}

// One finding per site set: the same pair of sites met again is not
// reported twice, in either order.
func TestDedup(t *testing.T) {
	var b strings.Builder
	b.WriteString(start)
	seq := 10
	for k := 0; k < 3; k++ {
		for _, g := range []int{2, 3} {
			site := 10 * (g - 1)
			fmt.Fprintf(&b, "%d g=%d Lock site=%d addr=0x900\n%d.1 g=%d Write site=%d addr=0x100 value=%d\n%d g=%d Unlock site=%d addr=0x900\n",
				seq, g, site, seq, g, site+1, seq, seq+1, g, site+2)
			seq += 2
		}
	}
	both(t, b.String(), "10 11 20 21")
}

// Fig. 12: the waiter checks the flag, waits, checks it again and reads
// the sum; the publisher stores the sum, sets the flag and broadcasts.
// With NoCondFlags the first check pairs with the set; by default the flag
// is synchronization and the sum is ordered.
func TestCondFlags(t *testing.T) {
	text := start + `
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=11 addr=0x100
20 g=3 Lock site=20 addr=0x900
20.1 g=3 Write site=21 addr=0x200 value=42
20.2 g=3 Write site=22 addr=0x100 value=1
21 g=3 CondBroadcast site=23 addr=0x800
22 g=3 Unlock site=24 addr=0x900
23 g=2 CondWait site=12 addr=0x800
23.1 g=2 Read site=11 addr=0x100
23.2 g=2 Read site=13 addr=0x200
24 g=2 Unlock site=14 addr=0x900
`
	for _, alg := range []Algorithm{Base, Opt} {
		if got := check(t, text, Options{Algorithm: alg, NoCondFlags: true}); !slices.Equal(got, []string{"10 11 20 22"}) {
			t.Errorf("%s: %q, want the flag's pair", alg, got)
		}
		fs, st := CheckStats(graph(t, text), sites, Options{Algorithm: alg})
		if len(fs) != 0 || st.FlagLocations != 1 || st.Edges != 1 {
			t.Errorf("%s with cond flags: %d findings, stats %+v; want none, one flag, one edge", alg, len(fs), st)
		}
	}
	// A publisher that ran first: nobody waited, so nothing is a flag.
	first := start + `
20 g=3 Lock site=20 addr=0x900
20.1 g=3 Write site=22 addr=0x100 value=1
21 g=3 CondBroadcast site=23 addr=0x800
22 g=3 Unlock site=24 addr=0x900
30 g=2 Lock site=10 addr=0x900
30.1 g=2 Read site=11 addr=0x100
31 g=2 Unlock site=14 addr=0x900
`
	if edges, flags := CondFlagEdges(graph(t, first)); len(edges) != 0 || len(flags) != 0 {
		t.Errorf("no wait: edges %v, flags %v; want none", edges, flags)
	}
}

// ConMem Fig. 10(b): a locked polling loop (site 50 decides the loop's
// exit) waits for g3's flag, then reads what g3 stored before it. With
// NoSpinFlags the poll that saw the old value pairs with the set and the
// data pairs with its read; by default the flag is synchronization.
func TestSpinFlags(t *testing.T) {
	text := start + `
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=50 addr=0x100
11 g=2 Unlock site=11 addr=0x900
20 g=3 Lock site=20 addr=0x900
20.1 g=3 Write site=21 addr=0x200 value=42
20.2 g=3 Write site=22 addr=0x100 value=1
21 g=3 Unlock site=23 addr=0x900
30 g=2 Lock site=10 addr=0x900
30.1 g=2 Read site=50 addr=0x100
30.2 g=2 Read site=31 addr=0x200
31 g=2 Unlock site=11 addr=0x900
`
	want := []string{"10 20 21 31", "10 20 22 50"}
	if got := check(t, text, Options{NoSpinFlags: true}); !slices.Equal(got, want) {
		t.Errorf("NoSpinFlags: %q, want %q", got, want)
	}
	fs, st := CheckStats(graph(t, text), sites, Options{})
	if len(fs) != 0 || st.FlagLocations != 1 || st.Edges != 1 {
		t.Errorf("spin flags: %d findings, stats %+v; want none, one flag, one edge", len(fs), st)
	}
}

// The finding carries the kind, status, roles, spawns, clocks and an ID,
// and its sites do not depend on which side the trace recorded first.
func TestFindingShape(t *testing.T) {
	a := start + `
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Write site=11 addr=0x100 value=1
11 g=2 Unlock site=12 addr=0x900
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Read site=21 addr=0x100
15 g=3 Unlock site=22 addr=0x900
`
	b := start + `
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Read site=21 addr=0x100
15 g=3 Unlock site=22 addr=0x900
16 g=2 Lock site=10 addr=0x900
16.1 g=2 Write site=11 addr=0x100 value=1
17 g=2 Unlock site=12 addr=0x900
`
	fa := Check(graph(t, a), sites, Options{})
	fb := Check(graph(t, b), sites, Options{})
	if len(fa) != 1 || len(fb) != 1 {
		t.Fatalf("findings %d and %d, want 1 each", len(fa), len(fb))
	}
	f := fa[0]
	if f.Kind != "oscs" || f.Status != finding.Predicted || f.ID == "" || f.ID != fb[0].ID {
		t.Errorf("kind %q status %q ids %q %q", f.Kind, f.Status, f.ID, fb[0].ID)
	}
	var roles []string
	for _, s := range f.Sites {
		roles = append(roles, fmt.Sprintf("%s@%d", s.Role, s.Line))
	}
	if want := []string{"write@11", "read@21", "lock@10", "lock@20"}; !slices.Equal(roles, want) {
		t.Errorf("sites %v, want %v", roles, want)
	}
	if len(f.Spawns) != 4 || f.Spawns[0].Line != 90 || f.Spawns[1].Line != 91 || f.Sites[1].Goroutine != "k.go:91:2" {
		t.Errorf("spawns %+v", f.Spawns)
	}
	// The lock sites list the locks held when Lock was called: here none
	// (not the lock each takes).
	if len(f.Evidence.Clocks) != 4 || len(f.Evidence.Locks) != 4 || f.Evidence.Locks[0][0] != "x10@k.go:10" || len(f.Evidence.Locks[2]) != 0 || len(f.Evidence.Locks[3]) != 0 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	if want := "write of x11 in f11 and read in f21 hold x10 in critical sections that can run in either order, which decides whether the read sees the write: should they be one critical section, or ordered?"; f.Message != want {
		t.Errorf("message %q\nwant    %q", f.Message, want)
	}
}

// Opt keeps less history than Base: only locations shared in critical
// sections.
func TestStats(t *testing.T) {
	var b strings.Builder
	b.WriteString(start)
	seq := 10
	for _, g := range []int{2, 3} {
		for k := 0; k < 20; k++ {
			fmt.Fprintf(&b, "%d g=%d Lock site=10 addr=0x900\n%d.1 g=%d Read site=11 addr=0x100\n%d.2 g=%d Write site=12 addr=0x100 value=%d\n%d.3 g=%d Write site=13 addr=%#x value=1\n%d g=%d Unlock site=14 addr=0x900\n",
				seq, g, seq, g, seq, g, seq, seq, g, 0x10000*g+8*k, seq+1, g)
			seq += 2
		}
	}
	g := graph(t, b.String())
	_, base := CheckStats(g, sites, Options{Algorithm: Base})
	_, opt := CheckStats(g, sites, Options{Algorithm: Opt})
	if base.PeakEntries != 42 || opt.PeakEntries != 1 || opt.PeakBytes*4 > base.PeakBytes || opt.SharedBytes == 0 {
		t.Errorf("base %+v\nopt %+v", base, opt)
	}
}

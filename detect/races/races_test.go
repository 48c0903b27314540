package races

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/shim/trace"
)

const header = `precog trace v1 test="T" package="p" start=2025-01-02T15:04:05Z pid=1` + "\n"

// check runs Check on a text-form trace whose sites are its read, write
// and atomic events (site N at line N of k.go, expression x.f unless
// exprs names another) and returns its findings as "k.go:line(role)
// k.go:line(role)".
func check(t *testing.T, text string, exprs map[uint32]string) []string {
	t.Helper()
	var out []string
	for _, f := range checkFindings(t, text, exprs) {
		if f.Kind != Kind || f.ID == "" || f.Status != finding.Predicted || len(f.Witnesses) != 1 || len(f.Witnesses[0].Events) != 2 {
			t.Errorf("finding %+v: want kind race, an ID, status predicted and a witness of two events", f)
		}
		var s []string
		for _, site := range f.Sites {
			s = append(s, fmt.Sprintf("k.go:%d(%s)", site.Line, site.Role))
		}
		out = append(out, strings.Join(s, " "))
	}
	return out
}

// checkFindings is check's run: Check's findings, after sameStreamed
// compared CheckStream's with them.
func checkFindings(t *testing.T, text string, exprs map[uint32]string) []finding.Finding {
	t.Helper()
	tr, err := trace.ParseText(strings.NewReader(header + text))
	if err != nil {
		t.Fatal(err)
	}
	trace.Sort(tr.Events)
	tab := &trace.SiteTable{}
	seen := map[uint32]bool{}
	for _, ev := range tr.Events {
		if ev.Site == 0 || seen[ev.Site] {
			continue
		}
		seen[ev.Site] = true
		kind := map[trace.Kind]string{trace.EvRead: "read", trace.EvWrite: "write"}[ev.Kind]
		expr := exprs[ev.Site]
		if expr == "" {
			expr = "x.f"
		}
		tab.Sites = append(tab.Sites, trace.Site{ID: ev.Site, File: "/src/k.go", Line: int(ev.Site), Col: 1, Kind: kind, Function: "f", Expr: expr})
	}
	slices.SortFunc(tab.Sites, func(a, b trace.Site) int { return int(a.ID) - int(b.ID) })
	g := hb.Analyze(tr.Events, hb.Options{Sites: tab, LockOrder: true})
	fs := Check(g, tab, Options{})
	sameStreamed(t, tr.Events, tab, g, fs)
	return fs
}

func same(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestFarApart is a race whose two accesses did not run close together:
// many synchronized events separate them, and the go test -race history
// could have lost the first; the vector clocks keep it.
func TestFarApart(t *testing.T) {
	var b strings.Builder
	b.WriteString(`1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
2.1 g=1 Write site=10 addr=0x100 value=1
3 g=2 Begin parent=1
`)
	for i := range 1000 {
		fmt.Fprintf(&b, "%d g=1 Lock site=11 addr=0x900\n%d g=1 Unlock site=12 addr=0x900\n", 4+2*i, 5+2*i)
	}
	b.WriteString("3000 g=2 Lock site=21 addr=0x980\n3000.1 g=2 Read site=20 addr=0x100\n")
	same(t, check(t, b.String(), nil), "k.go:10(write) k.go:20(read)")
}

// TestOrdered is the negative control: accesses ordered by a go statement,
// a channel, a WaitGroup, a mutex's Unlock before the next Lock, and an
// atomic flag's store before the load that saw it report nothing.
func TestOrdered(t *testing.T) {
	same(t, check(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=10 addr=0x100 value=1
2 g=1 ChanMake site=1 addr=0xc0 cap=0
3 g=1 Fork site=2 child=2
4 g=2 Begin parent=1
4.1 g=2 Read site=20 addr=0x100
4.2 g=2 Write site=21 addr=0x200 value=1
5 g=2 ChanSend site=22 addr=0xc0
6 g=1 ChanRecv site=11 addr=0xc0 ok=true
6.1 g=1 Read site=12 addr=0x200
7 g=2 Lock site=23 addr=0x900
7.1 g=2 Write site=24 addr=0x300 value=1
8 g=2 Unlock site=25 addr=0x900
9 g=1 Lock site=13 addr=0x900
9.1 g=1 Read site=14 addr=0x300
10 g=1 Unlock site=15 addr=0x900
10.1 g=2 Write site=26 addr=0x400 value=7
11 g=2 AtomicStore site=27 addr=0x408 value=1
12 g=1 AtomicLoad site=16 addr=0x408 value=1
12.1 g=1 Read site=17 addr=0x400
13 g=2 WGDone site=28 addr=0x500
14 g=2 End
15 g=1 WGWait site=18 addr=0x500
15.1 g=1 Write site=19 addr=0x100 value=2
`, nil))
}

// TestUnbufferedCompletion: a send on an unbuffered channel completes
// only after its receive, so what the receiver did before the receive is
// ordered before what the sender does after the send returns (the Go
// memory model). The shim records the send when it arrives, so the
// sender's read after the send (5.1) comes in the trace before the
// receiver's write (6.1) that is ordered before it: the checker must not
// take the trace's order for happens-before's (a sampler goroutine
// stopped by `stopCh <- struct{}{}`, whose stop function then reads
// count; the printed clocks had the read after the write). The twin with
// a buffered channel, whose send returns without waiting, races with
// both writes.
func TestUnbufferedCompletion(t *testing.T) {
	const text = `
1 g=1 Begin parent=none
2 g=1 ChanMake site=1 addr=0xc0 cap=%d
3 g=1 Fork site=2 child=2
4 g=2 Begin parent=1
4.1 g=2 Write site=20 addr=0x100 value=1
5 g=1 ChanSend site=3 addr=0xc0 elem=7
5.1 g=1 Read site=10 addr=0x100
6 g=2 ChanRecv site=21 addr=0xd0 ok=true elem=9
6.1 g=2 Write site=22 addr=0x100 value=2
7 g=2 ChanRecv site=23 addr=0xc0 ok=true elem=7
8 g=2 End
`
	same(t, check(t, fmt.Sprintf(text, 0), nil))
	same(t, check(t, fmt.Sprintf(text, 1), nil), "k.go:10(read) k.go:20(write)", "k.go:10(read) k.go:22(write)")
}

// TestKinds covers write-write, read-write and write-read races, reads
// that never race, atomic pairs that never race, a plain and an atomic
// access of one word that do, and accesses through different names of
// one address, which are not compared.
func TestKinds(t *testing.T) {
	same(t, check(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
3.1 g=1 Write site=10 addr=0x100 value=1
3.2 g=1 Read site=11 addr=0x200
3.3 g=1 Write site=12 addr=0x400 value=1
4 g=1 AtomicStore site=13 addr=0x300 value=1
4.1 g=2 Write site=20 addr=0x100 value=2
4.2 g=2 Read site=21 addr=0x200
4.3 g=2 Read site=25 addr=0x400
5 g=2 AtomicLoad site=22 addr=0x300 value=0
5.1 g=2 Write site=23 addr=0x300 value=2
5.2 g=2 Write site=24 addr=0x200 value=1
`, map[uint32]string{25: "y.g"}),
		"k.go:10(write) k.go:20(write)",
		"k.go:11(read) k.go:24(write)",
		"k.go:13(atomic-write) k.go:23(write)")
}

// TestCompareAndSwapLoad: a successful CompareAndSwap is recorded as an
// atomic load at site 0 and then its store at the call's site (shim's
// casEvent). A plain write of the word on another goroutine races with
// the swap once, reported at the swap's site, not a second time at "site
// 0" (cloudwego/netpoll: c.state written in (*connection).init, swapped
// in changeState). The control: an atomic load at its own site still
// races with the plain write.
func TestCompareAndSwapLoad(t *testing.T) {
	same(t, check(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
3.1 g=1 Write site=10 addr=0x100 value=0
3.2 g=1 Write site=11 addr=0x200 value=0
4 g=2 AtomicLoad site=0 addr=0x100 value=0
5 g=2 AtomicStore site=20 addr=0x100 value=1
6 g=2 AtomicLoad site=21 addr=0x200 value=0
`, nil),
		"k.go:10(write) k.go:20(atomic-write)",
		"k.go:11(write) k.go:21(atomic-read)")
}

// TestLockSet: two writes under a common lock are ordered by LockOrder
// whichever goroutine came first; a write outside the lock races with
// both.
func TestLockSet(t *testing.T) {
	same(t, check(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
4 g=1 Lock site=2 addr=0x900
4.1 g=1 Write site=10 addr=0x100 value=1
5 g=1 Unlock site=3 addr=0x900
6 g=2 Lock site=4 addr=0x900
6.1 g=2 Write site=20 addr=0x100 value=2
7 g=2 Unlock site=5 addr=0x900
7.1 g=2 Write site=21 addr=0x100 value=3
5.1 g=1 Read site=11 addr=0x100
`, nil),
		"k.go:11(read) k.go:20(write)",
		"k.go:11(read) k.go:21(write)")
}

// TestLockNames: a race's evidence names the locks each side held by the
// Lock call that took them (expression and position), as OSCS and ConMem
// do, not by address; in Check and in CheckStream alike (sameStreamed).
func TestLockNames(t *testing.T) {
	fs := checkFindings(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
4 g=1 Lock site=2 addr=0x900
4.1 g=1 Write site=10 addr=0x100 value=1
5 g=2 RLock site=4 addr=0x980
5.1 g=2 Read site=20 addr=0x100
6 g=2 RUnlock site=5 addr=0x980
7 g=1 Unlock site=3 addr=0x900
`, map[uint32]string{2: "s.mu", 4: "s.rw"})
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1: %+v", len(fs), fs)
	}
	if got, want := fmt.Sprint(fs[0].Evidence.Locks), "[[s.mu@k.go:2] [s.rw@k.go:4 (read)]]"; got != want {
		t.Errorf("locks %s, want %s", got, want)
	}
}

// TestCondWait is the radix kernel's shape: the waiter reads the flag
// under the lock, waits (Wait unlocks the mutex, which the trace does not
// record), and the publisher's write under the same lock comes in
// between. No race.
func TestCondWait(t *testing.T) {
	same(t, check(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
4 g=1 Lock site=2 addr=0x900
4.1 g=1 Read site=10 addr=0x100
5 g=2 Lock site=3 addr=0x900
5.1 g=2 Write site=20 addr=0x100 value=1
6 g=2 CondBroadcast site=4 addr=0x800
7 g=2 Unlock site=5 addr=0x900
8 g=1 CondWait site=6 addr=0x800
8.1 g=1 Read site=11 addr=0x100
9 g=1 Unlock site=7 addr=0x900
`, nil))
}

// TestCondWaitParked is TestCondWait with a waiter that never returns
// from its Wait (parked when the test ended: centrifuge's queues, held-out
// 30's condpark): no EvCondWait says it unlocked the mutex, but the other
// goroutine's Lock while the waiter held it does. No race; and the
// waiter's write after its Lock is ordered before the other's read.
func TestCondWaitParked(t *testing.T) {
	same(t, check(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
4 g=1 Lock site=2 addr=0x900
4.1 g=1 Write site=10 addr=0x100 value=1
5 g=2 Lock site=3 addr=0x900
5.1 g=2 Read site=20 addr=0x100
5.2 g=2 Write site=21 addr=0x100 value=2
7 g=2 Unlock site=5 addr=0x900
`, nil))
}

// TestCondWaitParkedUnlocked is its control: the other goroutine's write
// takes no lock, so nothing says the waiter released anything before it:
// a race.
func TestCondWaitParkedUnlocked(t *testing.T) {
	same(t, check(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
4 g=1 Lock site=2 addr=0x900
4.1 g=1 Write site=10 addr=0x100 value=1
5 g=2 CondSignal site=4 addr=0x800
5.1 g=2 Write site=21 addr=0x100 value=2
`, nil), "k.go:10(write) k.go:21(write)")
}

// TestAtomicCounter is x/sync's TestPanicDo shape: each goroutine adds to
// a counter atomically and then to a second one; the one whose add brings
// the second to zero closes a channel, after which the test reads the
// first counter plainly. The adds are read-modify-writes, which order
// each goroutine's earlier accesses before the last add: no race.
func TestAtomicCounter(t *testing.T) {
	same(t, check(t, `
1 g=1 Begin parent=none
2 g=1 ChanMake site=1 addr=0xc0 cap=0
3 g=1 Fork site=2 child=2
4 g=1 Fork site=3 child=3
5 g=2 Begin parent=1
6 g=3 Begin parent=1
7 g=2 AtomicStore site=20 addr=0x100 value=1
8 g=2 AtomicStore site=21 addr=0x200 value=1
9 g=3 AtomicStore site=30 addr=0x100 value=2
10 g=3 AtomicStore site=31 addr=0x200 value=0
11 g=3 ChanClose site=32 addr=0xc0
12 g=1 ChanRecv site=4 addr=0xc0 ok=false
12.1 g=1 Read site=5 addr=0x100
`, nil))
}

// TestSameRaceEitherInterleaving: x += 1 on one line and x -= 1 on the
// next, on two goroutines (functable's handlers). Each interleaving pairs
// other accesses of the two lines first; the report, one for the pair of
// lines, is the same in all of them: its sites, their order and its ID.
func TestSameRaceEitherInterleaving(t *testing.T) {
	tab := &trace.SiteTable{Sites: []trace.Site{
		{ID: 10, File: "/src/k.go", Line: 25, Col: 30, Kind: "read", Function: "add", Expr: "total"},
		{ID: 11, File: "/src/k.go", Line: 25, Col: 24, Kind: "write", Function: "add", Expr: "total"},
		{ID: 20, File: "/src/k.go", Line: 26, Col: 30, Kind: "read", Function: "sub", Expr: "total"},
		{ID: 21, File: "/src/k.go", Line: 26, Col: 24, Kind: "write", Function: "sub", Expr: "total"},
	}}
	const start = `1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=2 Begin parent=1
5 g=3 Begin parent=1
`
	add := []string{"g=2 Read site=10 addr=0x100", "g=2 Write site=11 addr=0x100 value=1"}
	sub := []string{"g=3 Read site=20 addr=0x100", "g=3 Write site=21 addr=0x100 value=2"}
	var want []string
	for _, order := range [][]string{
		{add[0], add[1], sub[0], sub[1]},
		{sub[0], sub[1], add[0], add[1]},
		{add[0], sub[0], add[1], sub[1]},
		{sub[0], add[0], sub[1], add[1]},
	} {
		text := start
		for i, e := range order {
			text += fmt.Sprintf("5.%d %s\n", i+1, e)
		}
		tr, err := trace.ParseText(strings.NewReader(header + text))
		if err != nil {
			t.Fatal(err)
		}
		trace.Sort(tr.Events)
		g := hb.Analyze(tr.Events, hb.Options{Sites: tab, LockOrder: true})
		var got []string
		for _, f := range Check(g, tab, Options{}) {
			got = append(got, fmt.Sprintf("%s %d:%d(%s) %d:%d(%s)", f.ID, f.Sites[0].Line, f.Sites[0].Col, f.Sites[0].Role,
				f.Sites[1].Line, f.Sites[1].Col, f.Sites[1].Role))
		}
		if want == nil {
			want = got
			if len(got) != 1 || !strings.Contains(got[0], " 25:24(write) 26:24(write)") {
				t.Errorf("order %q: %q, want one race between the writes of lines 25 and 26", order, got)
			}
			continue
		}
		same(t, got, want...)
	}
}

// sameStreamed checks CheckStream against Check's findings fs on events
// (with g their graph): with a window longer than the trace, the same
// findings, byte for byte, once the witnesses' Locks are named as
// pipeline/predict names them; with windows of 1 to 64 events, races
// whose two accesses g leaves unordered only.
func sameStreamed(t *testing.T, events []trace.Event, sites *trace.SiteTable, g *hb.Graph, fs []finding.Finding) {
	t.Helper()
	fs = slices.Clone(fs)
	pts := control.Points(events)
	for i := range fs {
		fs[i].Witnesses = slices.Clone(fs[i].Witnesses)
		for j := range fs[i].Witnesses {
			w := &fs[i].Witnesses[j]
			w.Events = slices.Clone(w.Events)
			control.NameLocks(events, pts, w)
		}
	}
	want, _ := json.Marshal(fs)
	for _, window := range []int{len(events) + 1, 64, 8, 1} {
		k := 0
		next := func() (trace.Event, error) {
			if k == len(events) {
				return trace.Event{}, io.EOF
			}
			k++
			return events[k-1], nil
		}
		var st Stats
		got, err := CheckStream(next, sites, Options{Window: window, Stats: &st})
		if err != nil {
			t.Fatal(err)
		}
		if st.Events != len(events) {
			t.Errorf("window %d: CheckStream walked %d events of %d", window, st.Events, len(events))
		}
		if window > len(events) {
			if gotJSON, _ := json.Marshal(got); string(gotJSON) != string(want) || st.Withheld != 0 {
				t.Errorf("CheckStream's findings (%d withheld):\n%s\nCheck's:\n%s", st.Withheld, gotJSON, want)
			}
			continue
		}
		for _, f := range got {
			ev := f.Witnesses[0].Events
			if !g.Concurrent(ev[0].Index, ev[1].Index) {
				t.Errorf("window %d: %s: its accesses %d and %d are ordered", window, f.Message, ev[0].Index, ev[1].Index)
			}
		}
	}
}

// TestDroppedLocations checks CheckStream's bound on the locations with
// shadow state: the oldest is dropped, its accesses forgotten, and its
// state reused empty for the next new location.
func TestDroppedLocations(t *testing.T) {
	tr, err := trace.ParseText(strings.NewReader(header + `1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
2.1 g=1 Write site=10 addr=0x100 value=1
2.2 g=1 Write site=11 addr=0x200 value=1
2.3 g=1 Write site=12 addr=0x300 value=1
3.1 g=2 Write site=20 addr=0x300 value=2
3.2 g=2 Write site=21 addr=0x100 value=2
`))
	if err != nil {
		t.Fatal(err)
	}
	trace.Sort(tr.Events)
	tab := &trace.SiteTable{}
	for _, id := range []uint32{10, 11, 12, 20, 21} {
		tab.Sites = append(tab.Sites, trace.Site{ID: id, File: "/src/k.go", Line: int(id), Col: 1, Kind: "write", Function: "f", Expr: "x.f"})
	}
	for _, tc := range []struct {
		max     int
		want    []string
		dropped int
	}{
		{0, []string{"k.go:10 k.go:21", "k.go:12 k.go:20"}, 0},
		// 0x100 is dropped at 0x300's first write, 0x200 at 0x100's
		// second, which reuses 0x200's state: no race at 0x100, and
		// none between site 11's write and site 21's.
		{2, []string{"k.go:12 k.go:20"}, 2},
	} {
		k := 0
		next := func() (trace.Event, error) {
			if k == len(tr.Events) {
				return trace.Event{}, io.EOF
			}
			k++
			return tr.Events[k-1], nil
		}
		var st Stats
		fs, err := CheckStream(next, tab, Options{MaxLocations: tc.max, Stats: &st})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fs {
			got = append(got, fmt.Sprintf("k.go:%d k.go:%d", f.Sites[0].Line, f.Sites[1].Line))
		}
		if !slices.Equal(got, tc.want) || st.LocationsDropped != tc.dropped {
			t.Errorf("MaxLocations %d: races %q, %d locations dropped; want %q, %d", tc.max, got, st.LocationsDropped, tc.want, tc.dropped)
		}
	}
}

// TestCondWaitAcrossGC is TestCondWait with a collection during the
// waiter's Wait: the shim records the waiter's EvGCEpoch at its next
// event, after Wait returned and before its EvCondWait, and the unlock
// Wait made belongs before it (fasthttp's streamPipe, whose writer waits
// for room while the reader's section runs: races on p.count and p.head
// were reported, and confirmed by forcing, when it was placed after the
// EvGCEpoch). No race.
func TestCondWaitAcrossGC(t *testing.T) {
	same(t, check(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
4 g=1 Lock site=2 addr=0x900
4.1 g=1 Read site=10 addr=0x100
5 g=2 Lock site=3 addr=0x900
5.1 g=2 Write site=20 addr=0x100 value=1
6 g=2 CondBroadcast site=4 addr=0x800
7 g=2 Unlock site=5 addr=0x900
8 g=1 GCEpoch epoch=1
9 g=1 CondWait site=6 addr=0x800
9.1 g=1 Read site=11 addr=0x100
10 g=1 Unlock site=7 addr=0x900
`, nil))
}

// TestCondWaitAcrossGCUnlocked is its control: the other goroutine's
// write takes no lock, so the waiter's read before its Wait and the write
// are unordered whatever the Wait unlocked: a race.
func TestCondWaitAcrossGCUnlocked(t *testing.T) {
	same(t, check(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
4 g=1 Lock site=2 addr=0x900
4.1 g=1 Read site=10 addr=0x100
5 g=2 CondBroadcast site=4 addr=0x800
5.1 g=2 Write site=20 addr=0x100 value=1
8 g=1 GCEpoch epoch=1
9 g=1 CondWait site=6 addr=0x800
9.1 g=1 Read site=11 addr=0x100
10 g=1 Unlock site=7 addr=0x900
`, nil), "k.go:10(read) k.go:20(write)")
}

// TestUnseenSpawnCreators: the side of a race on a goroutine that code
// precog does not instrument started has an UnseenSpawn naming its
// creators (its EvCreator events): net/http's go statement, reached from
// the dependency's call; in a stream as in the graph (checkFindings). The
// test's own side has none.
func TestUnseenSpawnCreators(t *testing.T) {
	fs := checkFindings(t, `
1 g=1 Begin parent=none
2 g=1 TestStart name="TestProxy"
2.1 g=1 Write site=10 addr=0x100 value=1
3 g=3 Begin parent=none
4 g=3 Creator name="net/http.(*Server).Serve"
5 g=3 Creator name="github.com/stripe/goproxy.(*Proxy).Listen"
5.1 g=3 Read site=20 addr=0x100
`, nil)
	if len(fs) != 1 || len(fs[0].Spawns) != 2 {
		t.Fatalf("findings %+v, want one race with two spawns", fs)
	}
	for _, s := range fs[0].Spawns {
		if s.IsUnseenSpawn() && (s.Function != "net/http.(*Server).Serve" || s.From != "github.com/stripe/goproxy.(*Proxy).Listen") ||
			!s.IsUnseenSpawn() && s != (finding.Site{}) {
			t.Errorf("spawn %+v, want the test's zero one and an unseen one naming net/http's Serve from goproxy's Listen", s)
		}
	}
	if !slices.ContainsFunc(fs[0].Spawns, finding.Site.IsUnseenSpawn) {
		t.Errorf("spawns %+v, want an unseen one", fs[0].Spawns)
	}
}

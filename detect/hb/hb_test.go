package hb

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

const header = `precog trace v1 test="T" package="p" start=2025-01-02T15:04:05Z pid=1` + "\n"

// parse parses a text-form trace and returns its events in the global
// order, and a function that finds an event by its site.
func parse(t *testing.T, text string) ([]trace.Event, func(site uint32) int) {
	t.Helper()
	tr, err := trace.ParseText(strings.NewReader(header + text))
	if err != nil {
		t.Fatal(err)
	}
	trace.Sort(tr.Events)
	return tr.Events, func(site uint32) int {
		t.Helper()
		for i, ev := range tr.Events {
			if ev.Site == site {
				return i
			}
		}
		t.Fatalf("no event at site %d", site)
		return -1
	}
}

type order struct {
	a, b uint32 // sites
	hb   bool   // a happens before b
}

func checkOrder(t *testing.T, g *Graph, at func(uint32) int, want []order) {
	t.Helper()
	for _, w := range want {
		a, b := at(w.a), at(w.b)
		if got := g.HappensBefore(a, b); got != w.hb {
			t.Errorf("HappensBefore(site %d, site %d) = %v, want %v", w.a, w.b, got, w.hb)
		}
		if w.hb && g.HappensBefore(b, a) {
			t.Errorf("HappensBefore(site %d, site %d) and the reverse", w.a, w.b)
		}
	}
}

func TestForkJoinAndMutex(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=1 addr=0x100 value=1
2 g=1 Fork site=2 child=2
2.1 g=1 Write site=3 addr=0x100 value=2
3 g=2 Begin parent=1
3.1 g=2 Read site=4 addr=0x100
4 g=2 Lock site=5 addr=0x900
4.1 g=2 Write site=6 addr=0x200 value=1
5 g=2 Unlock site=7 addr=0x900
6 g=1 Lock site=8 addr=0x900
6.1 g=1 Read site=9 addr=0x200
7 g=1 Unlock site=10 addr=0x900
8 g=2 WGDone site=11 addr=0x500
9 g=2 End
10 g=1 WGWait site=12 addr=0x500
10.1 g=1 Read site=13 addr=0x100
`)
	g := Analyze(evs, Options{})
	checkOrder(t, g, at, []order{
		{1, 4, true},   // before the go statement
		{3, 4, false},  // after it: concurrent with the child
		{4, 3, false},  //
		{6, 9, false},  // a mutex orders nothing
		{9, 6, false},  //
		{6, 13, true},  // WaitGroup Done before Wait
		{4, 13, true},  //
		{13, 4, false}, //
	})
	if !g.CommonLock(at(6), at(9)) {
		t.Errorf("no common lock at sites 6 and 9")
	}
	if g.CommonLock(at(4), at(9)) {
		t.Errorf("common lock at sites 4 and 9")
	}
	if got := g.Locks(at(7)); len(got) != 1 {
		t.Errorf("Unlock holds %v, want the lock it releases", got)
	}
	if got := g.Locks(at(11)); len(got) != 0 {
		t.Errorf("after Unlock: locks %v", got)
	}
	if len(g.Goroutines) != 2 || g.Goroutines[1].Parent != 0 || g.Spawn(1) != 2 || g.Spawn(0) != 0 {
		t.Errorf("goroutines %+v, spawn %d", g.Goroutines, g.Spawn(1))
	}
	if c := g.Clock(at(13)).String(); c != "g0:2 g1:1" {
		t.Errorf("Clock at site 13 = %q", c)
	}
}

func TestChannels(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 ChanMake site=1 addr=0xc0 cap=0
3 g=1 ChanMake site=2 addr=0xc8 cap=1
4 g=1 Fork site=3 child=2
5 g=2 Begin parent=1
5.1 g=1 Write site=10 addr=0x100 value=1
6 g=1 ChanSend site=11 addr=0xc0
6.1 g=2 Write site=20 addr=0x200 value=1
7 g=2 ChanRecv site=21 addr=0xc0 ok=true
7.1 g=2 Read site=22 addr=0x100
7.2 g=1 Read site=12 addr=0x200
8 g=1 ChanSend site=13 addr=0xc8
8.1 g=1 Write site=14 addr=0x300 value=1
9 g=1 ChanSend site=15 addr=0xc8
9.1 g=1 Read site=16 addr=0x400
10 g=2 ChanRecv site=23 addr=0xc8 ok=true
10.1 g=2 Write site=24 addr=0x400 value=1
11 g=2 ChanRecv site=25 addr=0xc8 ok=true
12 g=1 ChanClose site=17 addr=0xc0
13 g=2 ChanRecv site=26 addr=0xc0 ok=false
13.1 g=2 Read site=27 addr=0x300
`)
	g := Analyze(evs, Options{})
	checkOrder(t, g, at, []order{
		{10, 22, true},  // send before its receive
		{20, 12, true},  // unbuffered: the receive before the send completes
		{22, 12, false}, // but not what the receiver does after it
		{14, 25, true},  // buffered: the 2nd send before the 2nd receive
		{23, 16, true},  // cap 1: the 1st receive before the 2nd send completes
		{24, 16, false}, // but not what the receiver does after it
		{14, 27, true},  // close before the receive that saw it
	})
}

// TestSendBeforeReceiverBegan: the shim records a send when it arrives,
// and the sender's accesses after it with the send's seq, so on an
// unbuffered channel the sender's next events can come in the trace's
// order before the receiver even began (cron's Stop: send, write a field,
// unlock). The completion is acquired again at the sender's later events
// until the walk has passed the receive: the unlock, after the receive,
// is ordered after what the receiver did before it, and so, by the lock's
// order, is the next critical section.
func TestSendBeforeReceiverBegan(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 ChanMake site=1 addr=0xc0 cap=0
3 g=1 Fork site=2 child=2
4 g=1 Fork site=3 child=3
5 g=1 Lock site=4 addr=0x900
6 g=1 ChanSend site=5 addr=0xc0
6.1 g=1 Write site=6 addr=0x300 value=0
7 g=2 Begin parent=1
7.1 g=2 Read site=7 addr=0x100
8 g=2 ChanRecv site=8 addr=0xc0 ok=true
9 g=1 Unlock site=9 addr=0x900
10 g=3 Begin parent=1
11 g=3 Lock site=10 addr=0x900
11.1 g=3 Write site=11 addr=0x100 value=1
12 g=3 Unlock site=12 addr=0x900
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{7, 9, true},   // the receiver's read before the sender's unlock
		{8, 9, true},   // the receive before the send completes
		{9, 7, false},  //
		{7, 11, false}, // a mutex orders nothing without LockOrder
	})
	checkOrder(t, Analyze(evs, Options{LockOrder: true}), at, []order{
		{7, 11, true}, // receive, completion, unlock, lock
	})
}

func TestSelectCases(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 ChanMake site=1 addr=0xc0 cap=1
3 g=1 Fork site=2 child=2
4 g=2 Begin parent=1
4.1 g=1 Write site=10 addr=0x100 value=1
5 g=1 Select site=11 case=1 addr=0xc0 ok=true
6 g=2 Select site=21 case=0 addr=0xc0 ok=true
6.1 g=2 Read site=22 addr=0x100
`)
	sites := &trace.SiteTable{Sites: []trace.Site{{ID: 11, Kind: "select", Cases: "rs"}, {ID: 21, Kind: "select", Cases: "r"}}}
	checkOrder(t, Analyze(evs, Options{Sites: sites}), at, []order{{10, 22, true}})
	// Without the site table both cases are receives: no edge.
	checkOrder(t, Analyze(evs, Options{}), at, []order{{10, 22, false}})
}

// TestSelectSendsPairedByElement: two goroutines send in a select on a
// buffered channel; the second's element went in first but its case was
// recorded after the first's (a select records its case after the send),
// and a third goroutine receives both, plainly and in a select. Each
// receive is ordered after the write of the goroutine whose element it
// got (elem), not after the k-th send recorded, even when the k-th is a
// send whose element the shim did not see (elem 0).
func TestSelectSendsPairedByElement(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 ChanMake site=1 addr=0xc0 cap=4
3 g=1 Fork site=2 child=2
4 g=1 Fork site=3 child=3
5 g=1 Fork site=4 child=4
6 g=2 Begin parent=1
6.1 g=2 Write site=20 addr=0x200 value=1
7 g=3 Begin parent=1
7.1 g=3 Write site=30 addr=0x300 value=1
8 g=2 Select site=21 case=0 addr=0xc0 ok=true elem=22
9 g=4 Begin parent=1
10 g=4 ChanRecv site=41 addr=0xc0 ok=true elem=33
10.1 g=4 Read site=42 addr=0x300
11 g=3 Select site=31 case=0 addr=0xc0 ok=true elem=33
12 g=4 Select site=43 case=0 addr=0xc0 ok=true elem=22
12.1 g=4 Read site=44 addr=0x200
13 g=1 ChanSend site=5 addr=0xc0
13.1 g=1 Write site=6 addr=0x100 value=1
14 g=1 ChanSend site=7 addr=0xc0 elem=5
14.1 g=4 Read site=45 addr=0x100
15 g=4 ChanRecv site=46 addr=0xc0 ok=true elem=5
15.1 g=4 Read site=47 addr=0x100
`)
	sites := &trace.SiteTable{Sites: []trace.Site{{ID: 21, Kind: "select", Cases: "s"}, {ID: 31, Kind: "select", Cases: "s"}, {ID: 43, Kind: "select", Cases: "r"}}}
	want := []order{
		{30, 42, true},  // g3's element was received first
		{20, 44, true},  // g2's second
		{20, 42, false}, // not g2's write before the first receive
		{6, 47, true},   // the third receive got the element of the fourth send recorded
	}
	g := Analyze(evs, Options{Sites: sites})
	checkOrder(t, g, at, want)
	for _, w := range []int{1, len(evs) + 1} {
		steps, _ := streamAll(t, evs, StreamOptions{Options: Options{Sites: sites}, Window: w})
		for _, o := range want {
			a, b := at(o.a), at(o.b)
			if s := steps[b]; !s.Ctx.Unsettled && Before(steps[a].Ctx, a, s.Ctx, b) != o.hb {
				t.Errorf("window %d: Before(site %d, site %d) = %v, want %v", w, o.a, o.b, !o.hb, o.hb)
			}
		}
	}
}

func TestOnceAtomicCondAndEdges(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
3.1 g=1 Write site=10 addr=0x100 value=1
4 g=1 OnceDo site=11 addr=0xa0
4.1 g=2 Write site=20 addr=0x200 value=1
5 g=2 OnceDo site=21 addr=0xa0
5.1 g=2 Read site=22 addr=0x100
5.2 g=1 Write site=12 addr=0x300 value=7
6 g=1 AtomicStore site=13 addr=0xb0 value=1
7 g=2 AtomicLoad site=23 addr=0xb0 value=0
7.1 g=2 Read site=24 addr=0x300
8 g=2 AtomicLoad site=25 addr=0xb0 value=1
8.1 g=2 Read site=26 addr=0x300
8.2 g=1 Write site=14 addr=0x400 value=7
9 g=1 CondSignal site=15 addr=0xd0
10 g=2 CondWait site=27 addr=0xd0
10.1 g=2 Read site=28 addr=0x400
10.2 g=2 Write site=29 addr=0x500 value=1
11 g=1 Lock site=16 addr=0x900
11.1 g=1 Read site=17 addr=0x500
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{10, 22, true},  // the first Do before a later one
		{12, 24, false}, // the load read a value no store wrote
		{12, 26, true},  // the load read the store's value
		{14, 28, true},  // Signal before Wait returns
		{29, 17, false},
	})
	// An inferred edge from site 29 to site 17.
	g := Analyze(evs, Options{Edges: []Edge{{From: at(29), To: at(17)}}})
	checkOrder(t, g, at, []order{{29, 17, true}, {28, 17, true}})
}

func TestSections(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 Lock site=1 addr=0x10
3 g=1 RLock site=2 addr=0x20
3.1 g=1 Read site=3 addr=0x100
4 g=1 RUnlock site=4 addr=0x20
5 g=1 Unlock site=5 addr=0x10
6 g=1 TryLock site=6 addr=0x20 ok=true
7 g=1 TryLock site=7 addr=0x30 ok=false
7.1 g=1 Read site=8 addr=0x100
8 g=1 Fork site=9 child=2
9 g=2 Begin parent=1
10 g=2 Unlock site=10 addr=0x20
10.1 g=1 Read site=11 addr=0x100
`)
	sites := &trace.SiteTable{Sites: []trace.Site{{ID: 6, Kind: "tryrlock"}}}
	g := Analyze(evs, Options{Sites: sites})
	want := []Section{
		{G: 0, Lock: Lock{0x10, Write}, Begin: at(1), End: at(5), Parent: -1},
		{G: 0, Lock: Lock{0x20, Read}, Begin: at(2), End: at(4), Parent: 0},
		{G: 0, Lock: Lock{0x20, Read}, Begin: at(6), End: -1, Parent: -1},
	}
	if got := g.Sections(); !slices.Equal(got, want) {
		t.Errorf("Sections() = %+v\nwant %+v", got, want)
	}
	if got := g.Locks(at(3)); !slices.Equal(got, []Lock{{0x10, Write}, {0x20, Read}}) {
		t.Errorf("locks at site 3: %v", got)
	}
	if got := g.Locks(at(8)); !slices.Equal(got, []Lock{{0x20, Read}}) {
		t.Errorf("locks at site 8: %v", got)
	}
	// A read-mode Unlock of another mode does not close the read section.
	if got := g.Locks(at(11)); !slices.Equal(got, []Lock{{0x20, Read}}) {
		t.Errorf("locks at site 11: %v", got)
	}
}

// A lock handed to a goroutine: g1 locks 0x10 and starts g2, which
// writes under it and unlocks it (watermill's Subscribe); g1's section
// ends at the fork and g2's runs from its first event (a GC epoch event,
// which may come before its Begin) to its Unlock. g3 unlocks
// a lock g1 took after starting it: no hand-off, g1 keeps its section
// until that Unlock, and g3's access holds nothing.
func TestHandedLock(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 Lock site=1 addr=0x10
3 g=1 Fork site=2 child=2
3.1 g=1 Read site=3 addr=0x100
4 g=2 GCEpoch epoch=0
5 g=2 Begin parent=1
5.1 g=2 Write site=5 addr=0x100 value=1
6 g=2 Unlock site=6 addr=0x10
7 g=1 Fork site=7 child=3
8 g=1 Lock site=8 addr=0x10
9 g=3 Begin parent=1
9.1 g=3 Write site=10 addr=0x100 value=1
10 g=3 Unlock site=11 addr=0x10
`)
	g := Analyze(evs, Options{})
	begin2 := slices.IndexFunc(evs, func(e trace.Event) bool { return e.Goroutine == 2 })
	want := []Section{
		{G: 0, Lock: Lock{0x10, Write}, Begin: at(1), End: at(2), Parent: -1},
		{G: 1, Lock: Lock{0x10, Write}, Begin: begin2, End: at(6), Parent: -1, Handed: true},
		{G: 0, Lock: Lock{0x10, Write}, Begin: at(8), End: at(11), Parent: -1},
	}
	if got := g.Sections(); !slices.Equal(got, want) {
		t.Errorf("Sections() = %+v\nwant %+v", got, want)
	}
	for _, c := range []struct {
		site uint32
		want []Lock
	}{{3, nil}, {5, []Lock{{0x10, Write}}}, {10, nil}} {
		if got := g.Locks(at(c.site)); !slices.Equal(got, c.want) {
			t.Errorf("locks at site %d: %v, want %v", c.site, got, c.want)
		}
	}
}

// A lock adopted by another goroutine than the one that took it
// (otlptracegrpc's client.Stop): g2 locks 0x10 and closes a channel, g1
// receives from it, writes, and unlocks. g1's write before the receive
// holds nothing; from the receive, ordered after g2's Lock, to the Unlock
// g1 holds the lock, and g2's section ends there, so g2's write after it
// holds nothing either. g3 unlocks a lock g1 took (0x20) having learned
// nothing of it (no recorded sync between them): no section opens, g3's
// write holds nothing, and g1's section ends at that Unlock.
func TestAdoptedLock(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 ChanMake site=1 addr=0xc0 cap=0
3 g=1 Fork site=2 child=2
4 g=2 Begin parent=1
5 g=2 Lock site=3 addr=0x10
5.1 g=1 Write site=4 addr=0x100 value=1
6 g=2 ChanClose site=5 addr=0xc0
7 g=1 ChanRecv site=6 addr=0xc0 ok=false
7.1 g=1 Write site=7 addr=0x100 value=0
7.2 g=2 Write site=8 addr=0x108 value=1
8 g=1 Unlock site=9 addr=0x10
9 g=1 Fork site=11 child=3
10 g=1 Lock site=10 addr=0x20
11 g=3 Begin parent=1
11.1 g=3 Write site=12 addr=0x110 value=1
12 g=3 Unlock site=13 addr=0x20
`)
	g := Analyze(evs, Options{})
	want := []Section{
		{G: 1, Lock: Lock{0x10, Write}, Begin: at(3), End: at(6), Parent: -1, Handed: true},
		{G: 0, Lock: Lock{0x10, Write}, Begin: at(6), End: at(9), Parent: -1, Handed: true},
		{G: 0, Lock: Lock{0x20, Write}, Begin: at(10), End: at(13), Parent: -1},
	}
	if got := g.Sections(); !slices.Equal(got, want) {
		t.Errorf("Sections() = %+v\nwant %+v", got, want)
	}
	for _, c := range []struct {
		site uint32
		want []Lock
	}{{4, nil}, {6, []Lock{{0x10, Write}}}, {7, []Lock{{0x10, Write}}}, {8, nil}, {12, nil}} {
		if got := g.Locks(at(c.site)); !slices.Equal(got, c.want) {
			t.Errorf("locks at site %d: %v, want %v", c.site, got, c.want)
		}
	}
	if got := Analyze(evs, Options{NoHandedLocks: true}).Locks(at(7)); got != nil {
		t.Errorf("NoHandedLocks: locks at site 7: %v, want none", got)
	}
}

func TestGoroutineReuseAndEpochs(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=1 addr=0x100 value=1
2 g=1 End
3 g=1 Begin parent=none
4 g=1 GCEpoch epoch=1
4.1 g=1 Read site=2 addr=0x100
`)
	g := Analyze(evs, Options{})
	if len(g.Goroutines) != 2 {
		t.Fatalf("%d goroutines, want 2", len(g.Goroutines))
	}
	if g.HappensBefore(at(1), at(2)) {
		t.Errorf("a goroutine started again under the same id is ordered after the first")
	}
	if g.Loc(at(1)) == g.Loc(at(2)) {
		t.Errorf("same location across a GC: %v", g.Loc(at(1)))
	}
}

func TestStack(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
1.1 g=1 FuncEnter site=1
1.2 g=1 FuncEnter site=2
1.3 g=1 FuncExit site=2
1.4 g=1 FuncEnter site=3
1.5 g=1 Read site=4 addr=0x100
`)
	g := Analyze(evs, Options{})
	if got := g.Stack(at(4)); !slices.Equal(got, []int{at(1), at(3)}) {
		t.Errorf("Stack = %v", got)
	}
}

// TestSubtests: a subtest comes after its parent's events before t.Run
// and after the subtests that ended before it; one that ended while its
// parent recorded nothing (the parent waited in t.Run) comes before the
// parent's next event. Subtest two lets the parent go on (parallel, or
// started by another goroutine's t.Run): the parent's Lock comes while it
// runs, and its end orders nothing of the parent's.
func TestSubtests(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 TestStart name="TestA"
2.1 g=1 Write site=1 addr=0x100 value=1
3 g=2 Begin parent=none
4 g=2 TestStart name="TestA/one"
4.1 g=2 Read site=2 addr=0x100
4.2 g=2 Write site=3 addr=0x200 value=1
5 g=2 TestEnd outcome=pass
6 g=3 Begin parent=none
7 g=3 TestStart name="TestA/two"
7.1 g=3 Read site=4 addr=0x200
7.2 g=3 Write site=7 addr=0x300 value=1
8 g=1 Lock site=5 addr=0x900
8.1 g=1 Write site=6 addr=0x100 value=2
9 g=3 TestEnd outcome=pass
10 g=1 Unlock site=8 addr=0x900
10.1 g=1 Read site=9 addr=0x300
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{1, 2, true},  // the parent before t.Run
		{3, 4, true},  // one subtest before the next
		{2, 6, true},  // a subtest before the parent's next event after t.Run
		{3, 9, true},  //
		{7, 9, false}, // a subtest while the parent went on
		{4, 6, false}, //
	})
}

// TestRan: the parent's accesses after t.Run returned carry the seq of
// its EvRan (shim.Ran), its next event after the subtest ended, and come
// after the subtest's events, those of a goroutine the subtest joined
// included (gotestsum's Cleanup restoring a variable that a goroutine of
// the test read before the subtest received what it sent). A goroutine
// the subtest started and did not join stays unordered with them.
func TestRan(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 TestStart name="TestA"
3 g=2 Begin parent=none
4 g=2 TestStart name="TestA/one"
5 g=2 Fork site=10 child=3
6 g=3 Begin parent=2
6.1 g=3 Read site=1 addr=0x100
7 g=3 ChanSend site=11 addr=0x500 elem=1
8 g=2 ChanRecv site=12 addr=0x500 ok=true elem=1
9 g=2 Fork site=13 child=4
10 g=4 Begin parent=2
10.1 g=4 Read site=3 addr=0x200
11 g=2 TestEnd outcome=pass
12 g=1 Ran site=14 addr=0x0
12.1 g=1 Write site=2 addr=0x100 value=1
12.2 g=1 Write site=4 addr=0x200 value=1
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{1, 2, true},  // the joined goroutine's read before the parent's write after t.Run
		{3, 4, false}, // the goroutine the subtest left running
	})
}

// TestSubtestSlashName: a subtest whose t.Run name holds '/' (TestA/udp/
// INVITE, run by TestA; sipgo's table tests) is TestA's: after TestMain's
// write before m.Run (runtime.main's goroutine, id 0) and TestA's before
// t.Run, and after its ended sibling TestA/tcp/INVITE. A live test whose
// name is the longer prefix is the parent (TestA/one's own subtest x).
// Controls: the parent's write after a subtest it let go on, and a
// goroutine with no parent, stay unordered.
func TestSubtestSlashName(t *testing.T) {
	evs, at := parse(t, `
1 g=0 Begin parent=none
1.1 g=0 Write site=1 addr=0x100 value=1
2 g=1 Begin parent=none
3 g=1 TestStart name="TestA"
3.1 g=1 Write site=2 addr=0x200 value=1
4 g=2 Begin parent=none
5 g=2 TestStart name="TestA/tcp/INVITE"
5.1 g=2 Write site=11 addr=0x500 value=1
6 g=2 TestEnd outcome=pass
7 g=3 Begin parent=none
8 g=3 TestStart name="TestA/udp/INVITE"
8.1 g=3 Read site=3 addr=0x100
8.2 g=3 Read site=4 addr=0x200
8.3 g=3 Read site=12 addr=0x500
9 g=1 Lock site=5 addr=0x900
9.1 g=1 Write site=6 addr=0x300 value=1
10 g=4 Begin parent=none
11 g=4 TestStart name="TestA/one"
11.1 g=4 Write site=7 addr=0x400 value=1
12 g=5 Begin parent=none
13 g=5 TestStart name="TestA/one/x"
13.1 g=5 Read site=8 addr=0x400
13.2 g=5 Read site=9 addr=0x300
14 g=6 Begin parent=none
14.1 g=6 Read site=10 addr=0x100
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{1, 3, true},   // TestMain before m.Run, before the subtest
		{2, 4, true},   // the parent before t.Run
		{11, 12, true}, // a sibling that ended before
		{7, 8, true},   // a live test whose name is the longer prefix
		{6, 3, false},  // the parent went on after t.Run
		{1, 10, false}, // a goroutine with no parent
	})
}

// TestRunSubtests: subtests that testing.T.Run started for code that is
// not instrumented begin with their parent named and no Fork (testify's
// suite methods name no test). The parent, blocked in Run, is before each;
// each is before the next and before the parent's next event; what a
// subtest's own goroutines do stays unordered with what comes after, and
// so does a goroutine that begins with no parent.
func TestRunSubtests(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 TestStart name="TestA"
2.1 g=1 Write site=1 addr=0x100 value=1
3 g=2 Begin parent=1
3.1 g=2 Read site=2 addr=0x100
3.2 g=2 Write site=3 addr=0x200 value=1
4 g=2 Fork site=4 child=4
5 g=4 Begin parent=2
5.1 g=4 Write site=5 addr=0x300 value=1
6 g=3 Begin parent=1
6.1 g=3 Read site=6 addr=0x200
6.2 g=3 Read site=7 addr=0x300
7 g=1 Lock site=8 addr=0x900
7.1 g=1 Read site=9 addr=0x200
8 g=5 Begin parent=none
8.1 g=5 Read site=10 addr=0x100
`)
	g := Analyze(evs, Options{})
	checkOrder(t, g, at, []order{
		{1, 2, true},   // the parent before Run
		{3, 6, true},   // one subtest before the next
		{6, 9, true},   // the last subtest before the parent's next event
		{3, 9, true},   //
		{5, 7, false},  // a goroutine the first subtest started, not joined
		{5, 9, false},  //
		{1, 10, false}, // a goroutine with no parent
	})
	for _, gr := range g.Goroutines {
		want := -1
		switch gr.ID {
		case 2, 3:
			want = 0
		case 4:
			want = 1
		}
		if gr.Parent != want {
			t.Errorf("goroutine %d: parent %d, want %d", gr.ID, gr.Parent, want)
		}
	}
}

// TestRunSubtestsAfterGC: a subtest that begins after a garbage collection
// has the GC epoch recorded before its EvBegin (go-commons-pool's testify
// suite, whose methods ran after one that started 10,000 goroutines); it
// is still ordered after its parent and the subtest before it.
func TestRunSubtestsAfterGC(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 TestStart name="TestA"
2.1 g=1 Write site=1 addr=0x100 value=1
3 g=2 Begin parent=1
3.1 g=2 Write site=2 addr=0x200 value=1
4 g=2 Fork site=6 child=5
5 g=5 GCEpoch epoch=1
6 g=5 Begin parent=2
6.1 g=5 Write site=7 addr=0x300 value=1
7 g=3 GCEpoch epoch=1
8 g=3 Begin parent=1
8.1 g=3 Read site=3 addr=0x100
8.2 g=3 Read site=4 addr=0x200
8.3 g=3 Read site=8 addr=0x300
9 g=4 GCEpoch epoch=1
9.1 g=4 Read site=5 addr=0x200
`)
	g := Analyze(evs, Options{})
	checkOrder(t, g, at, []order{
		{1, 3, true},  // the parent before Run
		{2, 4, true},  // one subtest before the next
		{7, 8, false}, // a goroutine the first subtest started, not joined
		{2, 5, false}, // a goroutine with no Begin: no parent
	})
	for _, gr := range g.Goroutines {
		want := map[uint64]int{2: 0, 3: 0, 5: 1}[gr.ID]
		if gr.ID != 2 && gr.ID != 3 && gr.ID != 5 {
			want = -1
		}
		if gr.Parent != want {
			t.Errorf("goroutine %d: parent %d, want %d", gr.ID, gr.Parent, want)
		}
	}
}

// TestInitBeforeTest: runtime.main's goroutine (logical id 0) runs
// package initialization (pond's package-level default pool, its fields
// set by the constructor) and then starts the top-level test, whose
// goroutine begins with no parent. What a goroutine that initialization
// started does stays unordered with the test.
func TestInitBeforeTest(t *testing.T) {
	evs, at := parse(t, `
1 g=0 Begin parent=none
1.1 g=0 Write site=1 addr=0x100 value=1
2 g=0 Fork site=2 child=5
3 g=5 Begin parent=0
3.1 g=5 Write site=3 addr=0x200 value=1
4 g=7 Begin parent=none
5 g=7 TestStart name="TestA"
5.1 g=7 Read site=4 addr=0x100
5.2 g=7 Read site=5 addr=0x200
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{1, 4, true},  // initialization before the test
		{3, 5, false}, // the refresher initialization started, not
	})
}

func TestSiteVar(t *testing.T) {
	for expr, want := range map[string]string{
		"thd.procInfo":             "procInfo",
		"gEnd":                     "gEnd",
		"r.trk.Progress":           "Progress",
		"*thd.procInfo":            "",
		"b.outbuf[b.outcnt:]":      "",
		"incoming(cfg.Voters)[id]": "",
		"f().x":                    "x",
		"s.größe":                  "größe",
		"":                         "",
		"x.":                       "",
	} {
		if got := siteVar(expr); got != want {
			t.Errorf("siteVar(%q) = %q, want %q", expr, got, want)
		}
	}
}

// TestLocNames checks that two accesses to one address through different
// names are different locations: an address the epochs missed reusing.
func TestLocNames(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=1 addr=0x100 value=0
1.2 g=1 Read site=2 addr=0x100
1.3 g=1 Read site=3 addr=0x100
1.4 g=1 Read site=4 addr=0x100
`)
	sites := &trace.SiteTable{Sites: []trace.Site{
		{ID: 1, Kind: "write", Expr: "env.Messages"},
		{ID: 2, Kind: "read", Expr: "x.To"},
		{ID: 3, Kind: "read", Expr: "e.Messages"},
		{ID: 4, Kind: "read", Expr: "m[k]"},
	}}
	g := Analyze(evs, Options{Sites: sites})
	if g.Loc(at(1)) == g.Loc(at(2)) {
		t.Errorf("env.Messages and x.To at one address are one location")
	}
	if g.Loc(at(1)) != g.Loc(at(3)) {
		t.Errorf("env.Messages and e.Messages at one address are different locations")
	}
	if g.Loc(at(4)).Var != 0 || g.Vars[g.Loc(at(1)).Var] != "Messages" {
		t.Errorf("Var of m[k] = %d, of env.Messages %q", g.Loc(at(4)).Var, g.Vars[g.Loc(at(1)).Var])
	}
}

// TestCASTryLock: a successful CompareAndSwap(0, 1) records its load of
// 0 (at site 0) before its store of 1, and comes after the Store(0) that
// released the try-lock before it (palm's ptree.running): the second
// holder's read is ordered after the first holder's write. A holder that
// released before its write (the bug of this form), and a failed swap,
// order nothing after the write.
func TestCASTryLock(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 AtomicLoad site=0 addr=0xb0 value=0
3 g=1 AtomicStore site=1 addr=0xb0 value=1
3.1 g=1 Write site=2 addr=0x100 value=1
4 g=1 AtomicStore site=3 addr=0xb0 value=0
5 g=2 Begin parent=none
6 g=2 AtomicLoad site=0 addr=0xb0 value=0
7 g=2 AtomicStore site=4 addr=0xb0 value=1
7.1 g=2 Read site=5 addr=0x100
8 g=2 AtomicStore site=6 addr=0xb0 value=0
8.1 g=2 Write site=7 addr=0x200 value=1
9 g=3 Begin parent=none
10 g=3 AtomicLoad site=0 addr=0xb0 value=0
11 g=3 AtomicStore site=8 addr=0xb0 value=1
11.1 g=3 Read site=9 addr=0x200
12 g=4 Begin parent=none
13 g=4 AtomicLoad site=10 addr=0xb0 value=1
13.1 g=4 Read site=11 addr=0x200
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{2, 5, true},   // the next holder after the holder's write
		{7, 9, false},  // written after the release
		{7, 11, false}, // a failed swap takes nothing
	})
}

// TestLateAtomicStore checks a load that read a store whose seq came after
// the load's: the shim takes an atomic's seq after the operation.
func TestLateAtomicStore(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
3.1 g=1 Write site=10 addr=0x100 value=1
4 g=2 AtomicLoad site=20 addr=0xb0 value=1
4.1 g=2 Read site=21 addr=0x100
5 g=1 AtomicStore site=11 addr=0xb0 value=1
5.1 g=1 Write site=12 addr=0x200 value=1
6 g=2 AtomicLoad site=22 addr=0xb0 value=1
6.1 g=2 Read site=23 addr=0x200
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{10, 21, true},  // before the store, which the load read
		{12, 21, false}, // after the store
		{12, 23, false}, // the second load read the same store: no order with what followed it
	})
}

// TestContextCancel checks that a receive finding a channel closed where no
// close was recorded (a context's Done) is ordered after the cancel calls
// before it, and a receive of a channel whose close was recorded is not.
func TestContextCancel(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 ChanMake site=1 addr=0xc8 cap=0
3 g=1 Fork site=2 child=2
4 g=2 Begin parent=1
4.1 g=1 Write site=10 addr=0x100 value=1
5 g=1 Cancel site=11 addr=0xe0
5.1 g=1 Write site=12 addr=0x200 value=1
6 g=2 ChanRecv site=20 addr=0xd0 ok=false
6.1 g=2 Read site=21 addr=0x100
6.2 g=2 Read site=22 addr=0x200
7 g=2 ChanRecv site=23 addr=0xc8 ok=false
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{10, 21, true},  // before the cancel
		{12, 22, false}, // after it
	})
}

// TestTasks checks errgroup/conc tasks: the TaskGo before the task, the
// task's end before the group's Wait, and another group's task not.
func TestTasks(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=1 addr=0x100 value=1
2 g=1 TaskGo site=2 addr=0xa0 child=2
3 g=1 TaskGo site=3 addr=0xb0 child=3
4 g=2 Begin parent=1
4.1 g=2 Read site=20 addr=0x100
4.2 g=2 Write site=21 addr=0x200 value=1
5 g=2 End
6 g=3 Begin parent=1
6.1 g=3 Write site=30 addr=0x300 value=1
7 g=1 TaskWait site=4 addr=0xa0
7.1 g=1 Read site=5 addr=0x200
7.2 g=1 Read site=6 addr=0x300
8 g=3 End
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{1, 20, true},  // before the TaskGo
		{21, 5, true},  // the task ended before its group's Wait
		{30, 6, false}, // a task of another group
	})
}

// TestLockOrder checks Options.LockOrder: an Unlock before the next Lock of
// the mutex, RUnlocks before a later Lock but not before a later RLock.
func TestLockOrder(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=2 Begin parent=1
5 g=3 Begin parent=1
6 g=2 Lock site=10 addr=0x900
6.1 g=2 Write site=11 addr=0x100 value=1
7 g=2 Unlock site=12 addr=0x900
7.1 g=2 Write site=13 addr=0x108 value=1
8 g=3 Lock site=20 addr=0x900
8.1 g=3 Read site=21 addr=0x100
9 g=3 Unlock site=22 addr=0x900
10 g=2 RLock site=14 addr=0x980
10.1 g=2 Read site=15 addr=0x200
11 g=2 RUnlock site=16 addr=0x980
12 g=3 RLock site=23 addr=0x980
12.1 g=3 Read site=24 addr=0x208
13 g=3 RUnlock site=25 addr=0x980
14 g=1 Lock site=3 addr=0x980
14.1 g=1 Write site=4 addr=0x200 value=1
15 g=1 Unlock site=5 addr=0x980
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{11, 21, false}, // without LockOrder, a mutex orders nothing
	})
	checkOrder(t, Analyze(evs, Options{LockOrder: true}), at, []order{
		{11, 21, true},  // Unlock before the next Lock
		{13, 21, false}, // but not what came after the Unlock
		{15, 24, false}, // readers do not order each other
		{15, 4, true},   // an RUnlock before a later Lock
		{24, 4, true},   //
	})
}

// TestBubbles checks the synctest rule (issue 15): a wake at virtual time T
// is ordered after what each bubble goroutine did before a sleep it called
// before T; two goroutines woken at the same T stay unordered, and outside
// a bubble a sleep orders nothing.
func TestBubbles(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 Bubble site=1 addr=0x0 value=0
3 g=1 Fork site=2 child=2
4 g=1 Fork site=3 child=3
5 g=2 Begin parent=1
6 g=3 Begin parent=1
6.1 g=1 Read site=10 addr=0x100
7 g=1 Sleep site=4 addr=0x0 value=0
8 g=2 Sleep site=5 addr=0x0 value=0
9 g=3 Sleep site=6 addr=0x0 value=0
10 g=2 Wake site=7 addr=0x0 value=1000
10.1 g=2 Write site=11 addr=0x100 value=0
11 g=3 Wake site=8 addr=0x0 value=1000
11.1 g=3 Read site=12 addr=0x100
12 g=1 Wake site=9 addr=0x0 value=2000
13 g=4 Begin parent=none
14 g=5 Begin parent=none
14.1 g=4 Read site=20 addr=0x200
15 g=4 Sleep site=21 addr=0x0 value=0
16 g=5 Wake site=22 addr=0x0 value=1000
16.1 g=5 Write site=23 addr=0x200 value=0
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{10, 11, true},  // read at time 0, store after a wake at 1000
		{11, 12, false}, // both at 1000
		{12, 11, false},
		{11, 9, false}, // done at 1000 but followed by no sleep: its time is not known (see the doc)
		{10, 9, true},
		{20, 23, false}, // no bubble: real time orders nothing
	})
}

// TestBubbleClocks checks EvClock, the clock read around blocking
// operations in a bubble: a goroutine that stores, reads the clock at 0 and
// blocks is ordered before one whose receive returned at 1000 (a timer's
// channel); a store after the goroutine's last reading is not, nor are two
// readings of one time.
func TestBubbleClocks(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 Bubble site=1 addr=0x0 value=0
3 g=1 Fork site=2 child=2
4 g=1 Fork site=3 child=3
5 g=2 Begin parent=1
6 g=3 Begin parent=1
6.1 g=2 Write site=10 addr=0x100 value=0
7 g=2 Clock site=11 addr=0x0 value=0
7.1 g=3 Write site=20 addr=0x200 value=0
8 g=3 Clock site=21 addr=0x0 value=0
8.1 g=1 Write site=30 addr=0x300 value=0
9 g=1 Clock site=31 addr=0x0 value=0
10 g=1 Clock site=32 addr=0x0 value=1000
11 g=1 ChanRecv site=33 addr=0x500 ok=true
11.1 g=1 Read site=34 addr=0x100
12 g=2 Clock site=12 addr=0x0 value=1000
12.1 g=2 Read site=13 addr=0x300
12.2 g=2 Write site=14 addr=0x400 value=0
13 g=3 Clock site=22 addr=0x0 value=1000
13.1 g=3 Read site=23 addr=0x400
14 g=3 Clock site=24 addr=0x0 value=1000
15 g=1 Clock site=35 addr=0x0 value=1000
16 g=1 Clock site=36 addr=0x0 value=2000
16.1 g=1 Read site=37 addr=0x400
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{10, 34, true},  // stored at 0 before a reading of 0; read after 1000
		{20, 34, true},  //
		{30, 13, true},  // the root's store at 0, read by g=2 at 1000
		{14, 23, false}, // both at 1000
		{23, 14, false}, //
		{14, 37, false}, // after g=2's last reading: its time is not known
		{23, 37, true},  // g=3 read the clock at 1000 after it
	})
}

// TestSyncWait checks synctest.Wait: its return is after everything the
// other goroutines of the bubble recorded before it, and before nothing
// they do after; a goroutine of another bubble stays unordered.
func TestSyncWait(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 Bubble site=1 addr=0x0 value=0
3 g=1 Fork site=2 child=2
4 g=2 Begin parent=1
4.1 g=2 Write site=10 addr=0x100 value=0
5 g=2 ChanRecv site=11 addr=0x500 ok=true
5.1 g=2 Write site=12 addr=0x108 value=0
6 g=4 Begin parent=none
7 g=4 Bubble site=40 addr=0x0 value=0
7.1 g=4 Write site=41 addr=0x200 value=0
8 g=1 SyncWait site=3 addr=0x0 value=0
8.1 g=1 Read site=4 addr=0x100
8.2 g=1 Read site=5 addr=0x200
9 g=2 ChanRecv site=13 addr=0x500 ok=true
9.1 g=2 Write site=14 addr=0x110 value=0
9.2 g=1 Read site=6 addr=0x110
`)
	checkOrder(t, Analyze(evs, Options{}), at, []order{
		{10, 4, true},  // blocked after the store: Wait returned after it
		{12, 4, true},  //
		{4, 14, false}, // after the Wait: not ordered by it
		{14, 6, false}, //
		{41, 5, false}, // another bubble
	})
}

func TestPool(t *testing.T) {
	// g1 uses an object and puts it back in pool 0x900; g2 gets it and
	// resets it. g3 gets another object, and g4 gets g1's object from
	// another pool, or after a collection: neither is ordered.
	evs, at := parse(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=1 addr=0xa00 value=1
2 g=1 PoolPut site=2 addr=0xa00 value=2304
2.1 g=1 Write site=3 addr=0xa08 value=1
3 g=2 Begin parent=none
4 g=2 PoolGet site=4 addr=0xa00 value=2304
4.1 g=2 Write site=5 addr=0xa00 value=0
5 g=3 Begin parent=none
6 g=3 PoolGet site=6 addr=0xb00 value=2304
6.1 g=3 Read site=7 addr=0xa00
7 g=1 PoolPut site=8 addr=0xa00 value=2304
8 g=4 Begin parent=none
9 g=4 GCEpoch epoch=1
10 g=4 PoolGet site=9 addr=0xa00 value=2304
10.1 g=4 Read site=10 addr=0xa00
11 g=1 PoolPut site=11 addr=0xc00 value=2304
12 g=2 PoolGet site=12 addr=0xc00 value=4096
12.1 g=2 Read site=13 addr=0xc00
`)
	g := Analyze(evs, Options{})
	checkOrder(t, g, at, []order{
		{1, 5, true},    // the owner's use before the next owner's reset
		{3, 5, false},   // after the Put: concurrent
		{1, 7, false},   // another object's Get
		{8, 10, false},  // across a collection
		{11, 13, false}, // another pool's Get
	})
}

func TestTakes(t *testing.T) {
	// g1 fills a task (0x300) and stores it in a slot (0x100) under the
	// lock 0x900; g2 gets it: reads the slot in a section of the same
	// lock, then uses the task. A take (the slot cleared in the same
	// section) is ordered from the clearing write on; a read that leaves
	// the slot as it was, from the first event after its section. Site
	// 20 reads a pointer-shaped slot, site 21 a counter (an int: state,
	// not a hand-off).
	sites := &trace.SiteTable{Sites: []trace.Site{
		{ID: 20, Kind: "read", Expr: "q.slots[i]", Uses: trace.UsePointer},
		{ID: 21, Kind: "read", Expr: "c.n"},
	}}
	const fill = `
1 g=1 Begin parent=none
1.1 g=1 Write site=1 addr=0x300 value=7
2 g=1 Lock site=2 addr=0x900
2.1 g=1 Write site=3 addr=0x100 value=1
2.2 g=1 Write site=4 addr=0x108 value=5
3 g=1 Unlock site=5 addr=0x900
3.1 g=1 Write site=6 addr=0x300 value=8
4 g=2 Begin parent=none
`
	for _, tc := range []struct {
		name  string
		take  string
		takes int
		want  []order
	}{
		{"take", `
5 g=2 Lock site=7 addr=0x900
5.1 g=2 Read site=20 addr=0x100
5.2 g=2 Write site=8 addr=0x100 value=0
6 g=2 Unlock site=9 addr=0x900
6.1 g=2 Read site=10 addr=0x300
`, 1, []order{
			{1, 10, true},  // filled before the push: ordered before the use
			{3, 8, true},   // the slot's store before its clear
			{3, 20, false}, // but not before the read that found it
			{6, 10, false}, // written after the push: not ordered
		}},
		{"no clear", `
5 g=2 Lock site=7 addr=0x900
5.1 g=2 Read site=20 addr=0x100
5.2 g=2 Read site=14 addr=0x300
6 g=2 Unlock site=9 addr=0x900
6.1 g=2 Read site=10 addr=0x300
`, 1, []order{
			{1, 10, true},  // ordered after the getter's section
			{3, 20, false}, // not the read that got it
			{1, 14, false}, // nor the rest of the getter's section
			{3, 9, false},  // its Unlock included
			{6, 10, false}, // written after the push: not ordered
		}},
		{"read lock", `
5 g=2 RLock site=7 addr=0x900
5.1 g=2 Read site=20 addr=0x100
6 g=2 RUnlock site=9 addr=0x900
6.1 g=2 Read site=10 addr=0x300
`, 1, []order{{1, 10, true}, {6, 10, false}}},
		{"cleared in another section", `
5 g=2 Lock site=7 addr=0x900
5.1 g=2 Read site=20 addr=0x100
6 g=2 Unlock site=9 addr=0x900
7 g=2 Lock site=11 addr=0x900
7.1 g=2 Write site=8 addr=0x100 value=0
8 g=2 Unlock site=12 addr=0x900
8.1 g=2 Read site=10 addr=0x300
`, 1, []order{{1, 10, true}, {6, 10, false}}},
		{"read without the lock", `
5 g=2 Lock site=7 addr=0x908
5.1 g=2 Read site=20 addr=0x100
6 g=2 Unlock site=9 addr=0x908
6.1 g=2 Read site=10 addr=0x300
`, 0, []order{{1, 10, false}}},
		{"read of another value", `
5 g=3 Begin parent=none
5.1 g=3 Write site=13 addr=0x100 value=1
6 g=2 Lock site=7 addr=0x900
6.1 g=2 Read site=20 addr=0x100
7 g=2 Unlock site=9 addr=0x900
7.1 g=2 Read site=10 addr=0x300
`, 0, []order{{1, 10, false}}},
		{"counter reset", `
5 g=2 Lock site=7 addr=0x900
5.1 g=2 Read site=21 addr=0x108
5.2 g=2 Write site=8 addr=0x108 value=0
6 g=2 Unlock site=9 addr=0x900
6.1 g=2 Read site=10 addr=0x300
`, 0, []order{{1, 10, false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, at := parse(t, fill+tc.take)
			g := Analyze(evs, Options{Sites: sites})
			checkOrder(t, g, at, tc.want)
			if g.Takes() != tc.takes {
				t.Errorf("Takes() = %d, want %d", g.Takes(), tc.takes)
			}
			// Off, and with LockOrder (where the mutex orders it), no
			// take edge is added.
			for _, o := range tc.want {
				if o.hb && o.a == 1 {
					if g := Analyze(evs, Options{Sites: sites, NoTakes: true}); g.HappensBefore(at(o.a), at(o.b)) {
						t.Errorf("NoTakes: site %d before site %d", o.a, o.b)
					}
				}
			}
		})
	}
}

// TestLockName: a lock is named by its Lock call's expression and
// position when the site table has it, by its address otherwise.
func TestLockName(t *testing.T) {
	sites := &trace.SiteTable{Sites: []trace.Site{{ID: 7, File: "/src/p/cache.go", Line: 120, Expr: "c.mu"}}}
	for _, tc := range []struct {
		site uint32
		read bool
		want string
	}{
		{7, false, "c.mu@cache.go:120"},
		{7, true, "c.mu@cache.go:120 (read)"},
		{0, false, "lock@0xc000012345"},
		{8, true, "lock@0xc000012345 (read)"},
	} {
		if got := LockName(sites, tc.site, 0xc000012345, tc.read); got != tc.want {
			t.Errorf("LockName(site %d, read %v) = %q, want %q", tc.site, tc.read, got, tc.want)
		}
	}
}

// TestBelow: g2 is a server's goroutine that g1 started with a go
// statement (`go srv.Serve(l)`); g3, a connection's handler, was started
// by code precog does not instrument below g2 (its EvBegin has no parent,
// its EvBelow names g2); g4 below g3 the same way. g3 and g4 come after
// what g1 did before the go statement, not after what g1 did after it (a
// request's write racing with the handler) nor what g2 did itself; g5,
// with no EvBelow, after nothing.
func TestBelow(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=1 addr=0x100 value=1
2 g=1 Fork site=9 child=2
2.1 g=1 Write site=2 addr=0x200 value=1
3 g=2 Begin parent=1
3.1 g=2 Write site=3 addr=0x300 value=1
4 g=3 Begin parent=none
5 g=3 Below parent=2
5.1 g=3 Read site=4 addr=0x100
5.2 g=3 Read site=5 addr=0x200
5.3 g=3 Read site=6 addr=0x300
6 g=4 GCEpoch epoch=1
7 g=4 Begin parent=none
8 g=4 Below parent=3
8.1 g=4 Read site=7 addr=0x100
9 g=5 Begin parent=none
9.1 g=5 Read site=8 addr=0x100
`)
	g := Analyze(evs, Options{})
	checkOrder(t, g, at, []order{
		{1, 4, true},  // before the ancestor's go statement
		{2, 5, false}, // the test after it
		{3, 6, false}, // the ancestor's own
		{1, 7, true},  // below a goroutine that is below
		{1, 8, false}, // no EvBelow
	})
	for _, gr := range g.Goroutines {
		if gr.ID >= 3 && (gr.Parent != -1 || gr.Fork != -1) {
			t.Errorf("goroutine %d: parent %d, fork %d: want none (no go statement of its was recorded)", gr.ID, gr.Parent, gr.Fork)
		}
	}
}

// TestCreators: an adopted goroutine's EvCreator events give its
// Creators, in order, and a Stream's contexts of its later events; they
// order nothing (the write before them and the read after them stay
// unordered). A goroutine without them has none.
func TestCreators(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=1 addr=0x100 value=1
2 g=3 Begin parent=none
3 g=3 Below parent=1
4 g=3 Creator name="net/http.(*Server).Serve"
5 g=3 Creator name="example.com/dep.Start"
5.1 g=3 Read site=2 addr=0x100
6 g=4 Begin parent=none
6.1 g=4 Read site=3 addr=0x100
`)
	g := Analyze(evs, Options{})
	want := []string{"net/http.(*Server).Serve", "example.com/dep.Start"}
	if gi := g.Goroutine(at(2)); !slices.Equal(g.Goroutines[gi].Creators, want) || !g.Adopted(gi) {
		t.Errorf("creators %q (adopted %v), want %q", g.Goroutines[gi].Creators, g.Adopted(gi), want)
	}
	if gi := g.Goroutine(at(3)); g.Goroutines[gi].Creators != nil {
		t.Errorf("creators of a goroutine with no EvCreator: %q", g.Goroutines[gi].Creators)
	}
	checkOrder(t, g, at, []order{{1, 2, false}})
	next := 0
	_, err := Stream(func() (trace.Event, error) {
		if next == len(evs) {
			return trace.Event{}, io.EOF
		}
		next++
		return evs[next-1], nil
	}, StreamOptions{}, func(s *Step) {
		if s.Event.Site == 2 && !slices.Equal(s.Ctx.Creators, want) {
			t.Errorf("stream: creators %q at the read, want %q", s.Ctx.Creators, want)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAfter: a goroutine that code precog does not instrument created
// during a call from the line of its creator's mark (EvAfter) comes after
// what the creator did before its first mark at that site, not after what
// it did after the mark (the call runs on, and a goroutine created in an
// earlier call from that line may read late), nor after a mark at another
// site; with no EvAfter, only after the creator's start (EvBelow).
func TestAfter(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=1 addr=0x100 value=1
2 g=1 Mark site=20
2.1 g=1 Write site=2 addr=0x200 value=1
3 g=1 Mark site=21
3.1 g=1 Write site=3 addr=0x300 value=1
4 g=3 Begin parent=none
5 g=3 Below parent=1
6 g=3 After site=20 parent=1
6.1 g=3 Read site=4 addr=0x100
6.2 g=3 Read site=5 addr=0x200
6.3 g=3 Read site=6 addr=0x300
7 g=4 Begin parent=none
8 g=4 Below parent=1
9 g=4 After site=21 parent=1
9.1 g=4 Read site=7 addr=0x200
9.2 g=4 Read site=8 addr=0x300
10 g=5 Begin parent=none
11 g=5 Below parent=1
11.1 g=5 Read site=9 addr=0x100
12 g=6 Begin parent=none
13 g=6 After site=22 parent=1
13.1 g=6 Read site=10 addr=0x100
`)
	g := Analyze(evs, Options{})
	checkOrder(t, g, at, []order{
		{1, 4, true},   // before the mark
		{2, 5, false},  // after it
		{3, 6, false},  // after it and a later mark
		{2, 7, true},   // before the second mark
		{3, 8, false},  // after it
		{1, 9, false},  // no EvAfter: the creator's start only
		{1, 10, false}, // a site the creator never marked
	})
}

// TestHandedAfter: an EvAfter in the middle of a goroutine's events (a
// goroutine that code precog does not instrument started before the
// handing, running a literal handed to that code: shim/hand.go) orders
// what the goroutine does from there after what the hander did before its
// first handing at the site (EvMark), not what the goroutine did before
// it, nor what the hander did after that handing (a later handing at the
// site records no mark: the run may be of the first one's literal); an
// EvAfter naming a site the hander never marked orders nothing.
func TestHandedAfter(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=3 Begin parent=none
3 g=3 Below parent=1
3.1 g=1 Write site=1 addr=0x100 value=1
5 g=1 Mark site=20
5.1 g=1 Write site=2 addr=0x200 value=1
5.2 g=3 Read site=3 addr=0x100
8 g=3 After site=20 parent=1
8.1 g=3 Read site=4 addr=0x100
8.2 g=3 Read site=5 addr=0x200
9 g=4 Begin parent=none
10 g=4 Below parent=1
11 g=4 After site=21 parent=1
11.1 g=4 Read site=6 addr=0x100
`)
	g := Analyze(evs, Options{})
	checkOrder(t, g, at, []order{
		{1, 3, false}, // the runner before its EvAfter
		{1, 4, true},  // after it: the hander's write before the handing
		{2, 5, false}, // the hander's write after the handing
		{1, 6, false}, // a site the hander never marked
	})
}

// TestBubbleJoin: the goroutine that runs synctest.Test's function begins
// with the goroutine that called Test as parent and no Fork (the shim
// reads it off the stack), as a subtest of T.Run does: it comes after
// what the caller did before, and the caller's next event comes after
// every goroutine of the bubble, which Test waited for, not only after
// the function's own goroutine, and one that uninstrumented code started
// below a goroutine of the bubble (EvBelow) is of the bubble. A goroutine
// that began with no parent, outside the bubble, stays unordered with both.
func TestBubbleJoin(t *testing.T) {
	evs, at := parse(t, `
1 g=1 Begin parent=none
2 g=1 TestStart name="TestA"
2.1 g=1 Write site=1 addr=0x100 value=1
3 g=2 Begin parent=1
4 g=2 Bubble site=2 addr=0x0 value=0
4.1 g=2 Read site=3 addr=0x100
5 g=2 Fork site=4 child=3
6 g=3 Begin parent=2
6.1 g=3 Write site=5 addr=0x200 value=1
7 g=2 End
8 g=4 Begin parent=none
8.1 g=4 Write site=6 addr=0x300 value=1
9 g=5 Begin parent=none
10 g=5 Below parent=3
10.1 g=5 Write site=10 addr=0x400 value=1
11 g=3 End
12 g=1 Lock site=7 addr=0x900
12.1 g=1 Read site=8 addr=0x200
12.2 g=1 Read site=9 addr=0x300
12.3 g=1 Read site=11 addr=0x400
`)
	g := Analyze(evs, Options{})
	checkOrder(t, g, at, []order{
		{1, 3, true},   // the caller before the bubble's function
		{3, 8, true},   // the function before the caller's next event
		{5, 8, true},   // a goroutine of the bubble that outlived the function, too
		{6, 9, false},  // a goroutine outside the bubble
		{1, 6, false},  //
		{10, 11, true}, // one that uninstrumented code started in the bubble
	})
}

// TestUnrecordedReceive: a send on an unbuffered channel that its sender
// got past, whose receive is not in the trace (the shim records a select
// after it returned, and the process exited before the receiver did:
// fgprof's stop function and its sampler). The receiver is one of the
// goroutines that have no End and recorded nothing after the send, and
// what it recorded came before its receive: the sender's events after
// the send (after a select's send case, recorded after the send
// completed) are ordered after the last events of each such goroutine. A
// goroutine that ended, or recorded an event after the send, is no
// candidate: unchanged.
func TestUnrecordedReceive(t *testing.T) {
	const shape = `
1 g=1 Begin parent=none
2 g=1 ChanMake site=1 addr=0xc0 cap=0
3 g=1 Fork site=2 child=2
4 g=2 Begin parent=1
4.1 g=2 Write site=3 addr=0x100 value=1
%s
6 g=1 ChanSend site=4 addr=0xc0
6.1 g=1 Read site=5 addr=0x100
7 g=1 Select site=6 case=1 addr=0xc0 ok=true
7.1 g=1 Read site=7 addr=0x100
%s
`
	sites := &trace.SiteTable{Sites: []trace.Site{{ID: 6, Kind: "select", Cases: "rs"}}}
	for _, c := range []struct {
		name          string
		before, after string
		hb            bool
	}{
		{"candidate", "", "", true},
		{"ended", "5 g=2 End", "", false},
		{"later", "", "7.2 g=2 Write site=8 addr=0x200 value=1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, at := parse(t, strings.Replace(strings.Replace(shape, "%s", c.before, 1), "%s", c.after, 1))
			opts := Options{Sites: sites}
			g := Analyze(evs, opts)
			checkOrder(t, g, at, []order{
				{3, 5, c.hb}, // the receiver's write before the sender's read after the send
				{3, 7, c.hb}, // and after a select's send case
				{3, 4, false},
			})
			// Stream, with a window longer than the trace, is
			// Analyze; with a short one, a settled event is ordered
			// at least as Analyze orders it.
			for _, w := range []int{len(evs) + 1, 1, 2, 4} {
				steps, _ := streamAll(t, evs, StreamOptions{Options: opts, Window: w})
				for i, s := range steps {
					for j := range i {
						before := Before(steps[j].Ctx, j, s.Ctx, i)
						if w > len(evs) && before != g.HappensBefore(j, i) || !s.Ctx.Unsettled && !before && g.HappensBefore(j, i) {
							t.Errorf("window %d: Before(%d, %d) = %v, graph's %v", w, j, i, before, g.HappensBefore(j, i))
						}
					}
				}
			}
		})
	}
}

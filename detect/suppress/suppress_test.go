package suppress

import (
	"fmt"
	"strings"
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

// fig4 is a trace of the paper's Fig. 4 shape: goroutines 2 and 3 both
// read the cursor (0x100, line 1 of Reserve); 3 writes it back (4);
// 2, later and with the stale pad, writes 7 (line 2), then under the lock
// stores the slot (0x200, line 3) and reads it as an index (line 4), where
// it crashes.
const fig4 = `precog trace v1 test="T" package="p" start=2026-01-01T00:00:00Z pid=1
1 g=1 Begin parent=none
2 g=1 Fork site=10 child=2
3 g=1 Fork site=10 child=3
4 g=2 Begin parent=1
4.1 g=2 Read site=1 addr=0x100
5 g=3 Begin parent=1
5.1 g=3 Read site=1 addr=0x100
5.2 g=3 Read site=3 addr=0x100
5.3 g=3 Write site=2 addr=0x100 value=4
6 g=3 End
7 g=2 Sleep site=11 addr=0x0 value=0
8 g=2 Wake site=11 addr=0x0 value=1
8.1 g=2 Read site=3 addr=0x100
8.2 g=2 Write site=2 addr=0x100 value=7
9 g=2 Lock site=4 addr=0x900
9.1 g=2 Read site=7 addr=0x100
9.2 g=2 Write site=5 addr=0x200 value=7
9.3 g=2 Read site=6 addr=0x200
`

func fig4Sites() *trace.SiteTable {
	return &trace.SiteTable{Sites: []trace.Site{
		{ID: 1, File: "/m/p/t.go", Line: 70, Col: 11, Kind: "read", Expr: "t.next"},
		{ID: 2, File: "/m/p/t.go", Line: 72, Col: 4, Kind: "write", Expr: "t.next"},
		{ID: 3, File: "/m/p/t.go", Line: 72, Col: 13, Kind: "read", Expr: "t.next"},
		{ID: 4, File: "/m/p/t.go", Line: 73, Col: 2, Kind: "lock", Expr: "t.mu.Lock()"},
		{ID: 5, File: "/m/p/t.go", Line: 74, Col: 4, Kind: "write", Expr: "t.last"},
		{ID: 6, File: "/m/p/t.go", Line: 75, Col: 17, Kind: "read", Expr: "t.last"},
		{ID: 7, File: "/m/p/t.go", Line: 74, Col: 13, Kind: "read", Expr: "t.next"},
		{ID: 10, File: "/m/p/t_test.go", Line: 9, Col: 3, Kind: "go", Expr: "go func()"},
		{ID: 11, File: "/m/p/t.go", Line: 71, Col: 2, Kind: "sleep", Expr: "time.Sleep(d)"},
	}}
}

func parse(t *testing.T, text string) []trace.Event {
	t.Helper()
	tr, err := trace.ParseText(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return tr.Events
}

func TestFailurePointAndRaces(t *testing.T) {
	evs := parse(t, fig4)
	a := Analyze(evs, fig4Sites(), nil)
	f := Failure{Frames: []Frame{{File: "/m/p/t.go", Line: 75}, {File: "/m/p/t_test.go", Line: 9}},
		Message: "runtime error: index out of range [7] with length 5"}
	pt := a.FailurePoint(f)
	if pt == nil || pt.Def == nil {
		t.Fatalf("failure point %+v, want the read of t.last with its definition", pt)
	}
	if pt.Use.Site != 6 || pt.Def.Site != 5 || pt.Def.G != 2 || pt.Def.Value != 7 || pt.Suppressed != nil {
		t.Errorf("failure point use %+v def %+v, want the read at site 6 defined by goroutine 2 at site 5 (7)", pt.Use, pt.Def)
	}
	if rs := a.Races(pt.Def.Index); len(rs) != 0 {
		t.Errorf("races at the slot's definition %+v, want none (only goroutine 2 touches it)", rs)
	}
	// The cursor's definition by goroutine 2: a WAW race with goroutine 3's
	// write, which nothing orders before it.
	w := a.Find(Instance{G: 2, Site: 2, N: 0})
	if w < 0 {
		t.Fatal("goroutine 2's write of the cursor not found")
	}
	rs := a.Races(w)
	if len(rs) == 0 || rs[0].Shape != "WAW" || rs[0].First.G != 3 || rs[0].Second.G != 2 {
		t.Fatalf("races at the cursor's definition %+v, want WAW with goroutine 3's write first", rs)
	}
	// After the slot's definition is suppressed, the failing read keeps
	// the location's zero value: the failure is the suppression's.
	s := Analyze(evs, fig4Sites(), map[Instance]bool{{G: 2, Site: 5, N: 0}: true})
	if pt := s.FailurePoint(f); pt == nil || pt.Suppressed == nil || pt.Suppressed.Site != 5 {
		t.Errorf("with the slot's definition suppressed, failure point %+v, want it marked suppressed", pt)
	}
	// A stack with no instrumented line: no failure point.
	if pt := a.FailurePoint(Failure{Frames: []Frame{{File: "/m/p/other.go", Line: 3}}}); pt != nil {
		t.Errorf("failure point on an uninstrumented line: %+v", pt)
	}
}

// TestViolations: goroutine 1 reads x, goroutine 2 writes it, goroutine 1
// writes it (R1 W2 W1), all under a lock, so no race; and the
// two-access order violations are only for ordered pairs.
func TestViolations(t *testing.T) {
	const text = `precog trace v1 test="T" package="p" start=2026-01-01T00:00:00Z pid=1
1 g=1 Begin parent=none
2 g=1 Fork site=10 child=2
3 g=1 Lock site=4 addr=0x900
3.1 g=1 Read site=1 addr=0x100
4 g=1 Unlock site=5 addr=0x900
5 g=2 Begin parent=1
6 g=2 Lock site=4 addr=0x900
6.1 g=2 Write site=2 addr=0x100 value=1
7 g=2 Unlock site=5 addr=0x900
8 g=1 Lock site=4 addr=0x900
8.1 g=1 Write site=3 addr=0x100 value=5
9 g=1 Unlock site=5 addr=0x900
`
	sites := &trace.SiteTable{Sites: []trace.Site{
		{ID: 1, File: "a.go", Line: 10, Kind: "read", Expr: "x"},
		{ID: 2, File: "a.go", Line: 20, Kind: "write", Expr: "x"},
		{ID: 3, File: "a.go", Line: 11, Kind: "write", Expr: "x"},
		{ID: 4, File: "a.go", Line: 9, Kind: "lock", Expr: "mu.Lock()"},
		{ID: 5, File: "a.go", Line: 12, Kind: "unlock", Expr: "mu.Unlock()"},
		{ID: 10, File: "a.go", Line: 5, Kind: "go", Expr: "go f()"},
	}}
	a := Analyze(parse(t, text), sites, nil)
	def := a.Find(Instance{G: 1, Site: 3, N: 0})
	if rs := a.Races(def); len(rs) != 0 {
		t.Errorf("races %+v, want none: the lock orders every access", rs)
	}
	vs := a.Violations(def)
	if len(vs) == 0 || vs[0].Shape != "R1W2W1" || vs[0].Middle.G != 2 || vs[0].Third == nil {
		t.Fatalf("violations %+v, want R1W2W1 with goroutine 2 in the middle first", vs)
	}
	if last := vs[len(vs)-1]; last.Third != nil || last.Shape != "WW" {
		t.Errorf("last violation %+v, want the two-access WW order (goroutine 2's write is ordered before)", last)
	}
}

// TestInterpositions: mozilla2x's shape, the load goroutine (2) setting
// the prototype (site 1) and later compiling it (site 2), each in a
// critical section, and the abort goroutine (3) clearing it (site 3).
// Whether the abort ran first or last, the one interleaving to force is
// the nil store between the load's two accesses. Remote reads between two
// reads, writes between two writes and an abort started after the load
// ended give none.
func TestInterpositions(t *testing.T) {
	const head = `precog trace v1 test="T" package="p" start=2026-01-01T00:00:00Z pid=1
1 g=1 Begin parent=none
2 g=1 Fork site=10 child=2
3 g=1 Fork site=10 child=3
`
	const abort = `20 g=3 Begin parent=1
21 g=3 Lock site=4 addr=0x900
21.1 g=3 Write site=3 addr=0x100 value=0
22 g=3 Unlock site=5 addr=0x900
`
	const load = `10 g=2 Begin parent=1
11 g=2 Lock site=4 addr=0x900
11.1 g=2 Write site=1 addr=0x100 value=4096
12 g=2 Unlock site=5 addr=0x900
13 g=2 Lock site=4 addr=0x900
13.1 g=2 Read site=2 addr=0x100
14 g=2 Unlock site=5 addr=0x900
`
	sites := &trace.SiteTable{Sites: []trace.Site{
		{ID: 1, File: "a.go", Line: 59, Kind: "write", Expr: "d.p"},
		{ID: 2, File: "a.go", Line: 67, Kind: "read", Expr: "d.p"},
		{ID: 3, File: "a.go", Line: 74, Kind: "write", Expr: "d.p"},
		{ID: 4, File: "a.go", Line: 9, Kind: "lock", Expr: "d.mu.Lock()"},
		{ID: 5, File: "a.go", Line: 12, Kind: "unlock", Expr: "d.mu.Unlock()"},
		{ID: 6, File: "a.go", Line: 80, Kind: "read", Expr: "d.p"},
		{ID: 7, File: "a.go", Line: 81, Kind: "write", Expr: "d.p"},
		{ID: 10, File: "a.go", Line: 5, Kind: "go", Expr: "go f()"},
	}}
	for _, order := range []string{"abort first", "abort last"} {
		text := head + abort + load
		if order == "abort last" {
			text = head + load + abort
		}
		vs := Interpositions(parse(t, text), sites, 10)
		if len(vs) != 1 || vs[0].Shape != "W1W2R1" || vs[0].First.Site != 1 || vs[0].Middle.Site != 3 || vs[0].Third.Site != 2 {
			t.Errorf("%s: interpositions %+v, want the nil store (site 3) between sites 1 and 2 (W1W2R1)", order, vs)
		}
	}
	serial := map[string]string{
		// A remote read between two reads.
		"RRR": strings.NewReplacer("Write site=1 addr=0x100 value=4096", "Read site=6 addr=0x100", "Write site=3 addr=0x100 value=0", "Read site=6 addr=0x100").Replace(head + load + abort),
		// A remote write between two writes.
		"WWW": strings.NewReplacer("Read site=2 addr=0x100", "Write site=7 addr=0x100 value=1").Replace(head + load + abort),
		// The abort goroutine started by the load goroutine after its
		// second access: happens-before keeps it out.
		"ordered": strings.NewReplacer("3 g=1 Fork site=10 child=3\n", "", "14 g=2 Unlock site=5 addr=0x900\n", "14 g=2 Unlock site=5 addr=0x900\n15 g=2 Fork site=10 child=3\n", "20 g=3 Begin parent=1", "20 g=3 Begin parent=2").Replace(head + load + abort),
	}
	for name, text := range serial {
		if vs := Interpositions(parse(t, text), sites, 10); len(vs) != 0 {
			t.Errorf("%s: interpositions %+v, want none", name, vs)
		}
	}
	// A ring's position: goroutine 2 bumps it (site 1), checks it (site
	// 6) and wraps it (site 7) in one section; goroutine 3 reads it
	// (site 2) before. The read between the two writes, past the check,
	// sees the value about to be wrapped; no pair of goroutine 2's
	// consecutive accesses has it between.
	ring := head + `20 g=3 Begin parent=1
20.1 g=3 Read site=2 addr=0x100
` + `10 g=2 Begin parent=1
11 g=2 Lock site=4 addr=0x900
11.1 g=2 Write site=1 addr=0x100 value=2
11.2 g=2 Read site=6 addr=0x100
11.3 g=2 Write site=7 addr=0x100 value=0
12 g=2 Unlock site=5 addr=0x900
`
	vs := Interpositions(parse(t, ring), sites, 10)
	if len(vs) != 1 || vs[0].Shape != "W1R2W1" || vs[0].First.Site != 1 || vs[0].Middle.Site != 2 || vs[0].Third.Site != 7 {
		t.Errorf("ring: interpositions %+v, want the read (site 2) between the writes at sites 1 and 7 (W1R2W1)", vs)
	}
}

// TestDefinitionBeforeGC is axel's shape with a garbage collection between
// the definition of the header length (line 75) and the slice that fails
// on it (line 91), called from the test (line 11, which reads its own
// reply, defined at line 10): the failing line's reads are of an object
// that lived through the collection, so their definitions are before the
// epoch changed, and the failure point stays on the failing line instead of
// going out to the test's.
func TestDefinitionBeforeGC(t *testing.T) {
	const text = `precog trace v1 test="T" package="p" start=2026-01-01T00:00:00Z pid=1
1 g=1 Begin parent=none
1.1 g=1 Write site=1 addr=0x50 value=24
1.2 g=1 Read site=2 addr=0x50
1.3 g=1 Write site=3 addr=0x100 value=100
2 g=1 GCEpoch epoch=1
2.1 g=1 Read site=4 addr=0x108
2.2 g=1 Read site=5 addr=0x100
`
	sites := &trace.SiteTable{Sites: []trace.Site{
		{ID: 1, File: "/m/p/a_test.go", Line: 10, Kind: "write", Expr: "reply"},
		{ID: 2, File: "/m/p/a_test.go", Line: 11, Kind: "read", Expr: "reply"},
		{ID: 3, File: "/m/p/a.go", Line: 75, Kind: "write", Expr: "c.hdrLen"},
		{ID: 4, File: "/m/p/a.go", Line: 91, Kind: "read", Expr: "c.buf"},
		{ID: 5, File: "/m/p/a.go", Line: 91, Kind: "read", Expr: "c.hdrLen"},
	}}
	a := Analyze(parse(t, text), sites, nil)
	f := Failure{Frames: []Frame{{File: "/m/p/a.go", Line: 91}, {File: "/m/p/a_test.go", Line: 11}},
		Message: "runtime error: slice bounds out of range [:100] with capacity 32"}
	pt := a.FailurePoint(f)
	if pt == nil || pt.Def == nil || pt.Use.Site != 5 || pt.Def.Site != 3 {
		t.Fatalf("failure point %+v, want the read of c.hdrLen on line 91 defined on line 75 before the collection", pt)
	}
	// In one epoch, a definition of the read's epoch is preferred.
	b := Analyze(parse(t, text+"2.3 g=1 Write site=3 addr=0x100 value=7\n2.4 g=1 Read site=5 addr=0x100\n"), sites, nil)
	if d := b.lastDef(len(b.Events) - 1); d < 0 || b.Events[d].Value != 7 {
		t.Errorf("last definition %d, want the write of the read's epoch (7)", d)
	}
}

// TestHangPoint: goroutine 2 polls x (0x100) under a lock, reading its own
// local (0x300) in the loop too, after goroutine 3 stored nil to x; the run
// was killed. The failure point is the poll's read of x, defined by
// goroutine 3's store, not the local's read, which has no definition; a
// goroutine that ended polls nothing.
func TestHangPoint(t *testing.T) {
	text := `precog trace v1 test="T" package="p" start=2026-01-01T00:00:00Z pid=1
1 g=1 Begin parent=none
2 g=1 Fork site=10 child=2
3 g=1 Fork site=10 child=3
4 g=3 Begin parent=1
5 g=3 Lock site=4 addr=0x900
5.1 g=3 Write site=2 addr=0x100 value=0
6 g=3 Unlock site=5 addr=0x900
7 g=3 End
8 g=2 Begin parent=1
`
	seq := 9
	for range 5 {
		text += fmt.Sprintf("%d g=2 Lock site=4 addr=0x900\n%d.1 g=2 Read site=3 addr=0x300\n%d.2 g=2 Read site=1 addr=0x100\n%d g=2 Unlock site=5 addr=0x900\n", seq, seq, seq, seq+1)
		seq += 2
	}
	sites := &trace.SiteTable{Sites: []trace.Site{
		{ID: 1, File: "a.go", Line: 20, Kind: "read", Expr: "t.wakeup", Uses: trace.UseLoopExit + " " + trace.UsePointer},
		{ID: 2, File: "a.go", Line: 30, Kind: "write", Expr: "t.wakeup"},
		{ID: 3, File: "a.go", Line: 21, Kind: "read", Expr: "t"},
		{ID: 4, File: "a.go", Line: 19, Kind: "lock", Expr: "t.mu.Lock()"},
		{ID: 5, File: "a.go", Line: 22, Kind: "unlock", Expr: "t.mu.Unlock()"},
		{ID: 10, File: "a.go", Line: 5, Kind: "go", Expr: "go f()"},
	}}
	evs := parse(t, text)
	a := Analyze(evs, sites, nil)
	pt := a.FailurePoint(Failure{Hang: true})
	if pt == nil || pt.Use.Site != 1 || pt.Use.G != 2 || pt.Def == nil || pt.Def.Site != 2 || pt.Def.G != 3 {
		t.Fatalf("failure point %+v, want goroutine 2's poll of t.wakeup defined by goroutine 3", pt)
	}
	if pt.Use.N != 4 {
		t.Errorf("use %+v, want the poll's last read (instance 4)", pt.Use)
	}
	// Not a hang: no failing line, no failure point.
	if pt := a.FailurePoint(Failure{}); pt != nil {
		t.Errorf("failure point of a failure with no frames %+v, want none", pt)
	}
	// With the nil store suppressed, the poll waits on a suppressed
	// definition: not a new failure.
	s := Analyze(evs, sites, map[Instance]bool{{G: 3, Site: 2, N: 0}: true})
	if pt := s.FailurePoint(Failure{Hang: true}); pt == nil || pt.Suppressed == nil {
		t.Errorf("with the store suppressed, failure point %+v, want it marked suppressed", pt)
	}
}

// TestRepeats: two goroutines store the cursor 8 (fig6's t.next, both
// running line 2), then goroutine 3 indexes with it and fails on 8. The
// definition is goroutine 3's store; goroutine 2's store of the same value
// is a repeat (with the definition suppressed, the read would see it and
// fail the same way). A store of another value before them ends the
// repeats, and a failure that names no value has none.
func TestRepeats(t *testing.T) {
	const text = `precog trace v1 test="T" package="p" start=2026-01-01T00:00:00Z pid=1
1 g=1 Begin parent=none
2 g=1 Fork site=10 child=2
3 g=1 Fork site=10 child=3
3.1 g=1 Write site=3 addr=0x100 value=5
4 g=2 Begin parent=1
4.1 g=2 Write site=2 addr=0x100 value=8
5 g=3 Begin parent=1
5.1 g=3 Write site=2 addr=0x100 value=8
5.2 g=3 Read site=1 addr=0x100
`
	sites := &trace.SiteTable{Sites: []trace.Site{
		{ID: 1, File: "a.go", Line: 20, Kind: "read", Expr: "t.next", Uses: trace.UseIndex},
		{ID: 2, File: "a.go", Line: 10, Kind: "write", Expr: "t.next"},
		{ID: 3, File: "a.go", Line: 5, Kind: "write", Expr: "t.next"},
		{ID: 10, File: "a.go", Line: 30, Kind: "go", Expr: "go f()"},
	}}
	a := Analyze(parse(t, text), sites, nil)
	pt := a.FailurePoint(Failure{Frames: []Frame{{File: "a.go", Line: 20}}, Message: "runtime error: index out of range [8] with length 5"})
	if pt == nil || pt.Def == nil || pt.Def.G != 3 || pt.Def.Site != 2 {
		t.Fatalf("failure point %+v, want goroutine 3's store", pt)
	}
	if len(pt.Repeats) != 1 || pt.Repeats[0].G != 2 || pt.Repeats[0].Value != 8 {
		t.Errorf("repeats %+v, want goroutine 2's store of 8 only", pt.Repeats)
	}
	pt = a.FailurePoint(Failure{Frames: []Frame{{File: "a.go", Line: 20}}, Message: "something failed"})
	if pt == nil || len(pt.Repeats) != 0 {
		t.Errorf("failure point %+v of a failure that names no value, want no repeats", pt)
	}
}

// timeout is a trace of a test that waits in a select for a worker's
// result or a timer (time.After: its channel has no send in the trace),
// takes the timer's case, and fails reading a result the worker had not
// written yet (0x300, never written). Goroutine 3 receives from a channel
// that goroutine 1 sends on (0xa00), then from one that is closed in the
// trace (0xb00), and reads 0x300 after each.
const timeout = `precog trace v1 test="T" package="p" start=2026-01-01T00:00:00Z pid=1
1 g=1 Begin parent=none
2 g=1 Fork site=10 child=2
3 g=1 Fork site=10 child=3
4 g=2 Begin parent=1
5 g=2 Select site=20 case=-1 addr=0x0 ok=0 elem=0
6 g=2 Select site=20 case=1 addr=0xc00 ok=1 elem=0
7 g=2 Select site=20 case=-1 addr=0x0 ok=0 elem=0
7.1 g=2 Read site=21 addr=0x300
8 g=3 Begin parent=1
9 g=1 ChanSend site=22 addr=0xa00 elem=0
10 g=3 ChanRecv site=23 addr=0xa00 ok=1 elem=0
10.1 g=3 Read site=21 addr=0x300
11 g=1 ChanClose site=24 addr=0xb00
12 g=3 Select site=20 case=0 addr=0xb00 ok=0 elem=0
12.1 g=3 Read site=21 addr=0x300
13 g=3 Select site=25 case=0 addr=0xd00 ok=1 elem=0
13.1 g=3 Read site=21 addr=0x300
14 g=1 Select site=25 case=1 addr=0xd00 ok=1 elem=0
`

// TestUnsentReceive: the last receive before a read, by its goroutine,
// from a channel with no send or close in the trace is found (a select's
// default cases before the read are passed over); a receive whose
// channel another goroutine sent on (a send statement, or a select's send
// case) or closed is not, and neither is an earlier one behind it.
func TestUnsentReceive(t *testing.T) {
	evs := parse(t, timeout)
	sites := &trace.SiteTable{Sites: []trace.Site{
		{ID: 10, File: "/m/p/t_test.go", Line: 9, Kind: "go"},
		{ID: 20, File: "/m/p/t_test.go", Line: 12, Kind: "select", Cases: "rrd"},
		{ID: 21, File: "/m/p/t_test.go", Line: 20, Kind: "read", Expr: "w.result"},
		{ID: 22, File: "/m/p/t.go", Line: 5, Kind: "send"},
		{ID: 23, File: "/m/p/t_test.go", Line: 14, Kind: "recv"},
		{ID: 24, File: "/m/p/t.go", Line: 6, Kind: "close"},
		{ID: 25, File: "/m/p/t.go", Line: 7, Kind: "select", Cases: "rs"},
	}}
	a := Analyze(evs, sites, nil)
	read := func(g uint64, n int) int {
		for i, e := range evs {
			if e.Kind == trace.EvRead && e.Goroutine == g {
				if n == 0 {
					return i
				}
				n--
			}
		}
		t.Fatalf("no read %d of goroutine %d", n, g)
		return -1
	}
	if r := a.UnsentReceive(read(2, 0)); r == nil || r.Site != 20 || r.Addr != 0xc00 {
		t.Errorf("goroutine 2's read after the timer's case: %+v, want the select at site 20 on 0xc00", r)
	}
	for n, why := range []string{"a receive of a sent value", "a receive that found its channel closed", "a select's receive whose value a select's send case sent"} {
		if r := a.UnsentReceive(read(3, n)); r != nil {
			t.Errorf("goroutine 3's read after %s: %+v, want nil", why, r)
		}
	}
	if r := a.UnsentReceive(1); r != nil {
		t.Errorf("a goroutine's first event: %+v, want nil", r)
	}
}

package hwmodel

import (
	"testing"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/oscs"
	"github.com/precog-dev/precog/hwmodel/cache"
	"github.com/precog-dev/precog/shim/trace"
)

// builder makes traces in the order the test writes them: every step of a
// goroutine starts with a sync event, which places the accesses after it.
type builder struct {
	evs  []trace.Event
	seq  uint64
	last map[uint64]uint64
	sub  map[uint64]uint64
}

func newBuilder() *builder {
	return &builder{last: make(map[uint64]uint64), sub: make(map[uint64]uint64)}
}

func (b *builder) sync(g uint64, k trace.Kind, site uint32, addr, peer uint64) {
	b.seq++
	b.evs = append(b.evs, trace.Event{Kind: k, Goroutine: g, Seq: b.seq, Site: site, Addr: addr, Peer: peer})
	b.last[g], b.sub[g] = b.seq, 0
}

func (b *builder) access(g uint64, k trace.Kind, site uint32, addr, value uint64) {
	b.sub[g]++
	b.evs = append(b.evs, trace.Event{Kind: k, Goroutine: g, Seq: b.last[g], Sub: b.sub[g], Site: site, Addr: addr, Value: value})
}

const (
	mu = 0x1000 // the mutex; x and y share its line
	x  = 0x1008
	y  = 0x1010 // y, y+8, ...: the statistics
)

// Sites: 1, 2 go statements; per goroutine g (1 or 2): 10g lock, 10g+1
// write x, 10g+2 unlock, 10g+3 read y, 10g+4 write y, 10g+5 read x.
func sites() *trace.SiteTable {
	t := &trace.SiteTable{}
	t.Sites = append(t.Sites,
		trace.Site{ID: 1, File: "/k/k_test.go", Line: 1, Col: 1, Kind: "go"},
		trace.Site{ID: 2, File: "/k/k_test.go", Line: 2, Col: 1, Kind: "go"})
	for g := 1; g <= 2; g++ {
		base := uint32(10 * g)
		line := 10 * g
		t.Sites = append(t.Sites,
			trace.Site{ID: base, File: "/k/k.go", Line: line, Col: 2, Kind: "lock", Expr: "c.mu"},
			trace.Site{ID: base + 1, File: "/k/k.go", Line: line + 1, Col: 2, Kind: "write", Expr: "c.x"},
			trace.Site{ID: base + 2, File: "/k/k.go", Line: line + 2, Col: 2, Kind: "unlock", Expr: "c.mu"},
			trace.Site{ID: base + 3, File: "/k/k.go", Line: line + 3, Col: 2, Kind: "read", Expr: "c.y[k]"},
			trace.Site{ID: base + 4, File: "/k/k.go", Line: line + 3, Col: 3, Kind: "write", Expr: "c.y[k]"},
			trace.Site{ID: base + 5, File: "/k/k.go", Line: line + 4, Col: 2, Kind: "read", Expr: "c.x"})
	}
	return t
}

// rounds builds the OSCS pair of oscsloop: goroutines 1 and 2 write x in
// critical sections of mu, rounds times each, alternating; after the write
// each section increments stats statistics. between runs after each round
// on the test's goroutine 0.
func rounds(n, stats int, between func(b *builder)) []trace.Event {
	b := newBuilder()
	b.sync(0, trace.EvBegin, 0, 0, trace.NoParent)
	b.sync(0, trace.EvFork, 1, 0, 1)
	b.sync(0, trace.EvFork, 2, 0, 2)
	b.sync(1, trace.EvBegin, 0, 0, 0)
	b.sync(2, trace.EvBegin, 0, 0, 0)
	for r := range n {
		for g := uint64(1); g <= 2; g++ {
			base := uint32(10 * g)
			b.sync(g, trace.EvLock, base, mu, 0)
			v := uint64(r + 1)
			if g == 2 {
				v = 0
			}
			b.access(g, trace.EvWrite, base+1, x, v)
			for k := range stats {
				b.access(g, trace.EvRead, base+3, y+8*uint64(k), 0)
				b.access(g, trace.EvWrite, base+4, y+8*uint64(k), uint64(r+1))
			}
			b.sync(g, trace.EvUnlock, base+2, mu, 0)
		}
		if between != nil {
			between(b)
		}
	}
	return b.evs
}

// strict is Default without InitByParent: a line is shared only once two
// cores touched it in the trace.
func strict() Config {
	c := Default()
	c.InitByParent = false
	return c
}

func run(t *testing.T, evs []trace.Event, cfg Config) *Result {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	s := sites()
	return Run(hb.Analyze(evs, hb.Options{Sites: s}), s, cfg, oscs.Options{})
}

// only returns the verdict of the one finding of res.
func only(t *testing.T, res *Result) HW {
	t.Helper()
	if len(res.Findings) != 1 {
		for _, f := range res.Findings {
			t.Logf("%s %s", f.ID, f.Message)
		}
		t.Fatalf("%d findings, want 1 (the writes of x)", len(res.Findings))
	}
	return res.HW[res.Findings[0].ID]
}

func TestKeptOnceTheLineIsShared(t *testing.T) {
	res := run(t, rounds(3, 0, nil), strict())
	if v := only(t, res); v.Verdict != Kept {
		t.Errorf("verdict %+v, want kept", v)
	}
	// The first write of goroutine 1 ran on a line no other core had
	// touched: not recorded.
	m := res.Machine
	first := -1
	for i, ev := range m.g.Events {
		if ev.Kind == trace.EvWrite && ev.Goroutine == 1 {
			first = i
			break
		}
	}
	if st := m.Status(first); st != NotShared {
		t.Errorf("first write: %v, want not shared", st)
	}
	if m.Core(first) == 0 {
		t.Error("goroutine 1 shares core 0 with the test's goroutine; the policy spreads them")
	}
}

func TestLostOnlyOnce(t *testing.T) {
	// One round: every access of goroutine 1 comes before goroutine 2
	// touches the line.
	v := only(t, run(t, rounds(1, 0, nil), strict()))
	if v.Verdict != Lost || v.Reason != ReasonNotShared {
		t.Errorf("verdict %+v, want lost, not-shared", v)
	}
}

// TestInitByParent: with the objects taken to be made by the goroutine
// that started their users (the default), the line is shared from its
// first use, and the one-round pair that strict() loses is kept.
func TestInitByParent(t *testing.T) {
	res := run(t, rounds(1, 0, nil), Default())
	if v := only(t, res); v.Verdict != Kept {
		t.Errorf("verdict %+v, want kept", v)
	}
	for i, ev := range res.Machine.g.Events {
		if ev.Kind == trace.EvWrite && res.Machine.Status(i) != Recorded {
			t.Errorf("event %d (%v): %v, want recorded", i, ev, res.Machine.Status(i))
		}
	}
}

func TestAHBEviction(t *testing.T) {
	evs := rounds(3, 8, nil)
	if v := only(t, run(t, evs, Default())); v.Verdict != Kept {
		t.Fatalf("256 entries: %+v, want kept", v)
	}
	res := run(t, evs, Default().WithAHBEntries(4))
	if v := only(t, res); v.Verdict != Lost || v.Reason != ReasonEvicted {
		t.Errorf("4 entries: %+v, want lost, ahb-evicted", v)
	}
	if res.Hardware.Reported != 0 {
		t.Errorf("OSCS-HW reported %d pairs with 4 entries; an evicted entry must not report", res.Hardware.Reported)
	}
	if res.Machine.AHB.Evictions == 0 {
		t.Error("no AHB evictions counted")
	}
}

func TestSameCore(t *testing.T) {
	cfg := Default()
	cfg.Cache.Cores = 1
	v := only(t, run(t, rounds(3, 0, nil), cfg))
	if v.Verdict != Lost || v.Reason != ReasonSameCore {
		t.Errorf("one core: %+v, want lost, same-core", v)
	}
}

func TestTagLostWithTheLine(t *testing.T) {
	cfg := strict()
	cfg.Cache = cache.Config{
		Cores: 4, LineBytes: 64,
		L1:        cache.Level{Bytes: 128, Ways: 2, Latency: 3},
		L2:        cache.Level{Bytes: 256, Ways: 2, Latency: 15},
		L3:        cache.Level{Bytes: 512, Ways: 2, Latency: 40},
		DRAMNanos: 50, GHz: 2,
	}
	// After each round the test's goroutine reads two lines of the L3
	// set of mu's line (4 sets), which pushes it off the chip.
	evict := func(b *builder) {
		b.sync(0, trace.EvAtomicLoad, 0, 0x7000, 0) // a step of goroutine 0
		for k := uint64(1); k <= 2; k++ {
			b.access(0, trace.EvRead, 0, mu+4*64*k+0x10000, 0)
		}
	}
	res := run(t, rounds(2, 0, evict), cfg)
	v := only(t, res)
	if v.Verdict != Lost || v.Reason != ReasonTagLost {
		t.Errorf("%+v, want lost, tag-lost", v)
	}
	if res.Machine.Cache.LeavesShared == 0 {
		t.Error("no tagged line left the chip")
	}
}

// TestMissedReadDoesNotReport: goroutine 1's read of x comes before the
// line is shared, its write after, so the hardware records the write
// without the read before it, and its CSRWFlag is clear where software's
// is set. Goroutine 2's read-modify-write of x must not be reported
// against it: software finds the two commutative, and a miss may only lose
// a pair, never make one.
func TestMissedReadDoesNotReport(t *testing.T) {
	b := newBuilder()
	b.sync(0, trace.EvBegin, 0, 0, trace.NoParent)
	b.sync(0, trace.EvFork, 1, 0, 1)
	b.sync(0, trace.EvFork, 2, 0, 2)
	b.sync(0, trace.EvFork, 2, 0, 3)
	for g := uint64(1); g <= 3; g++ {
		b.sync(g, trace.EvBegin, 0, 0, 0)
	}
	b.sync(1, trace.EvLock, 10, mu, 0)
	b.access(1, trace.EvRead, 15, x, 0)
	b.sync(3, trace.EvAtomicLoad, 0, 0x7000, 0)
	b.access(3, trace.EvWrite, 24, y+0x20, 1) // another variable of the line, on another core
	b.sync(1, trace.EvAtomicLoad, 0, 0x7008, 0)
	b.access(1, trace.EvWrite, 11, x, 1)
	b.sync(1, trace.EvUnlock, 12, mu, 0)
	b.sync(2, trace.EvLock, 20, mu, 0)
	b.access(2, trace.EvRead, 25, x, 0)
	b.access(2, trace.EvWrite, 21, x, 2)
	b.sync(2, trace.EvUnlock, 22, mu, 0)

	res := run(t, b.evs, strict())
	m := res.Machine
	var read, write int
	for i, ev := range m.g.Events {
		if ev.Goroutine == 1 && ev.Kind == trace.EvRead {
			read = i
		}
		if ev.Goroutine == 1 && ev.Kind == trace.EvWrite {
			write = i
		}
	}
	if m.Status(read) != NotShared || m.Status(write) != Recorded {
		t.Fatalf("goroutine 1: read %v, write %v; the scenario needs the read missed and the write recorded", m.Status(read), m.Status(write))
	}
	if len(res.Findings) != 0 {
		for _, f := range res.Findings {
			t.Errorf("reported %s (%s): %s", f.Message, res.HW[f.ID].Verdict, res.HW[f.ID].Detail)
		}
	}
	if res.Hardware.Forgotten == 0 {
		t.Error("the pair was not counted as forgotten")
	}
}

func TestScheduler(t *testing.T) {
	s := newScheduler(2, 4)
	if c, from := s.place(0, 1); c != 0 || from != -1 {
		t.Fatalf("g0 on %d (from %d), want core 0", c, from)
	}
	if c, _ := s.place(1, 2); c != 1 {
		t.Fatalf("g1 on %d, want the free core 1", c)
	}
	// No free core: g2 preempts the core idle longest (g0's, used at 1).
	if c, from := s.place(2, 3); c != 0 || from != 0 {
		t.Fatalf("g2 on %d from %d, want core 0 from g0", c, from)
	}
	// g1 blocks on a receive and frees core 1; g0 comes back there.
	s.after(1, &trace.Event{Kind: trace.EvChanRecv})
	if c, from := s.place(0, 4); c != 1 || from != 1 {
		t.Fatalf("g0 on %d from %d, want the freed core 1 after g1", c, from)
	}
	// A select with a default case does not block.
	s.after(0, &trace.Event{Kind: trace.EvSelect, Arg: -1})
	if c, from := s.place(0, 5); c != 1 || from != -1 {
		t.Fatalf("g0 moved to %d after a default select", c)
	}
	// g1 wants core 1 back, which g0 holds; it preempts the idler.
	s.after(2, &trace.Event{Kind: trace.EvEnd})
	if c, _ := s.place(1, 6); c != 0 {
		t.Fatalf("g1 on %d, want core 0 that g2's end freed", c)
	}
}

// TestTiming checks the cost model's accounting: every recorded access
// is one AHB lookup of at least the AHB's latency, a goroutine alone pays
// nothing but the clocks of its ordering operations, and the base counts
// one cycle per event plus each access's latency.
func TestTiming(t *testing.T) {
	b := newBuilder()
	b.sync(0, trace.EvBegin, 0, 0, trace.NoParent)
	for range 10 {
		b.sync(0, trace.EvLock, 10, mu, 0)
		b.access(0, trace.EvWrite, 11, x, 1)
		b.sync(0, trace.EvUnlock, 12, mu, 0)
	}
	alone := run(t, b.evs, Default()).Machine.Timing
	if alone.AHBLookups != 0 || alone.Switches != 0 || alone.Extra() != alone.ClockCycles || alone.ClockLines != 1 {
		t.Errorf("one goroutine: %+v; want no lookups or switches, and one clock line read (its Begin)", alone)
	}
	// 31 events, 30 accesses: the first Lock from DRAM, the rest L1 hits.
	c := Default().Cache
	want := int64(31) + int64(c.L1.Latency+c.L2.Latency+c.L3.Latency+c.DRAMCycles()) + 29*int64(c.L1.Latency)
	if alone.Events != 31 || alone.Accesses != 30 || alone.Base != want {
		t.Errorf("one goroutine: %d events, %d accesses, base %d cycles; want 31, 30, %d", alone.Events, alone.Accesses, alone.Base, want)
	}

	res := run(t, rounds(3, 2, nil), Default())
	m := res.Machine
	recorded := 0
	for i := range m.g.Events {
		if m.Status(i) == Recorded {
			recorded++
		}
	}
	tm := m.Timing
	if recorded == 0 || tm.AHBLookups != recorded || tm.AHBCycles < int64(3*recorded) || m.AHB.Lookups != recorded {
		t.Errorf("%d recorded accesses, %d lookups (%d by the AHBs) in %d cycles", recorded, tm.AHBLookups, m.AHB.Lookups, tm.AHBCycles)
	}
	if tm.Overhead() <= 0 || tm.Overhead() != float64(tm.Extra())/float64(tm.Base) {
		t.Errorf("overhead %v of %+v", tm.Overhead(), tm)
	}
}

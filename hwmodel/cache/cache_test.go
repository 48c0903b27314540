package cache

import "testing"

// tiny is a two-core hierarchy small enough to evict from: L1 2 lines,
// L2 4 lines, L3 8 lines, all direct-mapped or 2-way.
func tiny() Config {
	return Config{
		Cores:     2,
		LineBytes: 64,
		L1:        Level{Bytes: 128, Ways: 2, Latency: 1},
		L2:        Level{Bytes: 256, Ways: 2, Latency: 10},
		L3:        Level{Bytes: 512, Ways: 2, Latency: 100},
		DRAMNanos: 500,
		GHz:       2,
	}
}

const x = 0x1000 // a line address

func TestMESITransitions(t *testing.T) {
	type step struct {
		core  int
		write bool
		// want: the states of core 0 and core 1 after the step, and the tag.
		want0, want1 State
		tag          bool
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"read miss alone is E; write is a silent E→M", []step{
			{0, false, Exclusive, Invalid, false},
			{0, true, Modified, Invalid, false},
		}},
		{"write miss alone is M", []step{
			{0, true, Modified, Invalid, false},
			{0, false, Modified, Invalid, false},
		}},
		{"M→S: a remote read of a Modified line", []step{
			{0, true, Modified, Invalid, false},
			{1, false, Shared, Shared, true},
		}},
		{"M→I: a remote write of a Modified line", []step{
			{0, true, Modified, Invalid, false},
			{1, true, Invalid, Modified, true},
		}},
		{"E→S: a remote read of an Exclusive line", []step{
			{0, false, Exclusive, Invalid, false},
			{1, false, Shared, Shared, true},
		}},
		{"E→I: a remote write of an Exclusive line", []step{
			{0, false, Exclusive, Invalid, false},
			{1, true, Invalid, Modified, true},
		}},
		{"S→I: an upgrade invalidates the other reader", []step{
			{0, false, Exclusive, Invalid, false},
			{1, false, Shared, Shared, true},
			{0, true, Modified, Invalid, true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := New(tiny())
			for i, s := range tc.steps {
				r := h.Access(s.core, x, s.write)
				if got0, got1 := h.State(0, x), h.State(1, x); got0 != s.want0 || got1 != s.want1 {
					t.Errorf("step %d: states %v %v, want %v %v", i, got0, got1, s.want0, s.want1)
				}
				if r.Shared != s.tag || h.SharedTag(x) != s.tag {
					t.Errorf("step %d: shared tag %v (hierarchy %v), want %v", i, r.Shared, h.SharedTag(x), s.tag)
				}
			}
		})
	}
}

// TestSharedTagOnlyOnDowngrade checks each rule of §4.1 apart: the tag is
// set by S→I alone (two cores whose copies were both Shared from the
// start), and by nothing that is not a downgrade of another core's copy.
func TestSharedTagOnlyOnDowngrade(t *testing.T) {
	// Under MESI two copies only become Shared through an E→S, which
	// sets the tag already; clear it by hand to see S→I set it alone.
	h := New(tiny())
	h.Access(0, x, false)
	h.Access(1, x, false)
	e := h.l3.find(h.Line(x))
	e.shared = false // as if the line had come back on chip with both copies Shared
	r := h.Access(1, x, true)
	if !r.Shared || !r.Downgraded || h.State(0, x) != Invalid {
		t.Errorf("S→I: tag %v, downgraded %v, core 0 %v; want tag set and core 0 invalid", r.Shared, r.Downgraded, h.State(0, x))
	}

	// Nothing else sets it: a core's own reads and writes, hits and
	// upgrades from E, and capacity evictions of private copies.
	h = New(tiny())
	for _, w := range []bool{false, true, false, true} {
		if r := h.Access(0, x, w); r.Shared || r.Downgraded {
			t.Fatalf("own access (write %v) set the tag", w)
		}
	}
	// Evict x from core 0's L1 and L2 (same sets: lines 8 apart in L3's
	// 4 sets, 2 apart in L2's 2 sets, 1 apart in L1's single set).
	for _, a := range []uint64{x + 2*64, x + 4*64} {
		h.Access(0, a, true)
	}
	if h.State(0, x) != Invalid {
		t.Fatalf("x still in core 0's L2: %v", h.State(0, x))
	}
	if h.SharedTag(x) {
		t.Error("a capacity eviction from the private levels set the tag")
	}
	if r := h.Access(1, x, true); r.Shared || r.FromDRAM {
		t.Errorf("core 1's write of a line no core holds: tag %v, from DRAM %v; want untagged, on chip", r.Shared, r.FromDRAM)
	}
}

// TestSharedTagLeavesWithTheLine: the tag survives private evictions (it
// is written back with the line) and is cleared when the line leaves the
// chip, and a line read again from DRAM comes back untagged.
func TestSharedTagLeavesWithTheLine(t *testing.T) {
	h := New(tiny())
	var left []uint64
	h.OnLeave = func(line uint64, shared bool) {
		if shared {
			left = append(left, line)
		}
	}
	h.Access(0, x, true)
	h.Access(1, x, true) // M→I: tagged
	if !h.SharedTag(x) {
		t.Fatal("not tagged after M→I")
	}
	// Evict x from core 1's private levels only: L2 has 2 sets of 2
	// ways, L3 4 sets of 2 ways; x+2 lines maps to x's L2 set but
	// another L3 set.
	h.Access(1, x+2*64, true)
	h.Access(1, x+6*64, true)
	if h.State(1, x) != Invalid {
		t.Fatalf("x still in core 1's L2")
	}
	if !h.SharedTag(x) {
		t.Fatal("the tag was lost with a private eviction; it must be written back to the L3")
	}
	if r := h.Access(0, x, false); !r.Shared || r.FromDRAM {
		t.Errorf("read back from the L3: tag %v, from DRAM %v; want the tag read with the data", r.Shared, r.FromDRAM)
	}
	// Now push x off the chip: two more lines in x's L3 set (4 sets).
	h.Access(0, x+4*64, false)
	h.Access(0, x+8*64, false)
	if len(left) != 1 || left[0] != h.Line(x) {
		t.Fatalf("lines that left the chip tagged: %v, want x's", left)
	}
	if h.SharedTag(x) || h.State(0, x) != Invalid {
		t.Fatal("x is still on chip (inclusion: the L3 eviction drops private copies)")
	}
	r := h.Access(0, x, false)
	if r.Shared || !r.FromDRAM {
		t.Errorf("x back from DRAM: tag %v, from DRAM %v; want untagged", r.Shared, r.FromDRAM)
	}
}

func TestLatencies(t *testing.T) {
	c := tiny()
	h := New(c)
	dram := c.DRAMCycles()
	for i, tc := range []struct {
		core  int
		write bool
		want  int
	}{
		{0, false, 1 + 10 + 100 + dram}, // from DRAM
		{0, false, 1},                   // L1 hit
		{0, true, 1},                    // E→M in the L1
		{1, false, 1 + 10 + 100 + 10},   // core 0's Modified copy supplies it
		{1, true, 1 + 10 + 100},         // upgrade S→M through the L3
	} {
		if r := h.Access(tc.core, x, tc.write); r.Cycles != tc.want {
			t.Errorf("access %d: %d cycles, want %d", i, r.Cycles, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []float64{0.25, 0.5, 2} {
		if err := Default().Scale(f).Validate(); err != nil {
			t.Errorf("scale %v: %v", f, err)
		}
	}
	bad := Default()
	bad.L1.Bytes = 3000
	if bad.Validate() == nil {
		t.Error("a non-power-of-two set count was accepted")
	}
}

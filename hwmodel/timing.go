package hwmodel

// Timing is the cost model of §5.4, over the replayed events: a core runs
// one instruction per cycle and waits for its memory accesses (the
// in-order, single-issue cores of Table 1). Base is the program's own
// time: one cycle per recorded event plus the latency of the access it
// makes (the variable, the map header, the synchronization object's word).
// OSCS-HW adds the AHB lookups of the shared accesses in critical sections
// (and the transfers of entries between cores), the vector-clock accesses
// of ordering operations, and the clocks saved and restored at context
// switches. Times are summed over cores (CPU time, not the parallel
// program's elapsed time).
//
// The trace holds the shared locations' accesses and the synchronization,
// not the program's other instructions and private data: Base is the time
// of the recorded operations only, a small part of the run, so Overhead is
// an upper bound of the slowdown the hardware would cause (with -all
// recordings, closer). The paper's other two measures, AHB lookups and
// clock accesses per memory access, have the same bias.
type Timing struct {
	Events   int   // replayed
	Accesses int   // the program's memory accesses (recorded reads and writes, maps, sync words)
	Base     int64 // cycles
	// AHBLookups counts lookups (shared accesses in critical sections);
	// AHBCycles their latency and the transfers'.
	AHBLookups int
	AHBCycles  int64
	// ClockLines counts the line accesses to vector clocks of ordering
	// operations; ClockCycles their latency.
	ClockLines  int
	ClockCycles int64
	// Switches counts context switches; SwitchCycles the latency of
	// saving and restoring the goroutines' clocks.
	Switches     int
	SwitchCycles int64
}

// Extra returns the cycles OSCS-HW adds.
func (t Timing) Extra() int64 { return t.AHBCycles + t.ClockCycles + t.SwitchCycles }

// Overhead is Extra over Base: the estimated slowdown, as a fraction.
func (t Timing) Overhead() float64 {
	if t.Base == 0 {
		return 0
	}
	return float64(t.Extra()) / float64(t.Base)
}

// Add sums two timings (for several traces).
func (t *Timing) Add(u Timing) {
	t.Events += u.Events
	t.Accesses += u.Accesses
	t.Base += u.Base
	t.AHBLookups += u.AHBLookups
	t.AHBCycles += u.AHBCycles
	t.ClockLines += u.ClockLines
	t.ClockCycles += u.ClockCycles
	t.Switches += u.Switches
	t.SwitchCycles += u.SwitchCycles
}

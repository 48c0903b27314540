package predict

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// TestLowGC checks that the collector's headroom is lowered for a large
// run only, kept when it is already lower, and restored after.
func TestLowGC(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: lowGC leaves the collector alone")
	}
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	current := func() int {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p
	}

	tc := testChecks{gcPercent: -1}
	tc.lowGC(bigTrace - 1)
	if got := current(); got != 100 {
		t.Errorf("after a small run: GOGC %d, want 100", got)
	}
	tc.lowGC(bigTrace)
	if got := current(); got != bigTraceGC {
		t.Errorf("after a large run: GOGC %d, want %d", got, bigTraceGC)
	}
	tc.lowGC(bigTrace) // a second large run of the test
	tc.restoreGC()
	if got := current(); got != 100 {
		t.Errorf("restored: GOGC %d, want 100", got)
	}

	debug.SetGCPercent(10)
	tc.lowGC(bigTrace)
	if got := current(); got != 10 {
		t.Errorf("already lower: GOGC %d, want 10 kept", got)
	}
	tc.restoreGC()
	if got := current(); got != 10 {
		t.Errorf("already lower, restored: GOGC %d, want 10", got)
	}
}

// sink holds TestRestoreGCCollects's stand-in for a run's data where the
// compiler cannot see whether it is used.
var sink []byte

// TestRestoreGCCollects checks that a large test's garbage does not set
// the collector's goal once GOGC is restored (restoreGC): the goal after
// it is below the size of a run's data freed before it, and at least
// twice that size when the data is still live (the control).
func TestRestoreGCCollects(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: lowGC leaves the collector alone")
	}
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	const size = 64 << 20
	goal := func(free bool) uint64 {
		tc := testChecks{gcPercent: -1}
		tc.lowGC(bigTrace)
		sink = make([]byte, size)
		for i := range sink {
			sink[i] = 1
		}
		runtime.GC() // the collection during the run marks it live
		if free {
			sink = nil
		}
		tc.restoreGC()
		s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
		metrics.Read(s)
		sink = nil
		return s[0].Value.Uint64()
	}
	if g := goal(true); g >= size {
		t.Errorf("goal after a freed run of %d MiB: %d MiB, want less", size>>20, g>>20)
	}
	if g := goal(false); g < 2*size {
		t.Errorf("goal with the run's %d MiB still live: %d MiB, want at least twice that", size>>20, g>>20)
	}
}

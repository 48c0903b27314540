package predict

import (
	"os"
	"runtime/debug"
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

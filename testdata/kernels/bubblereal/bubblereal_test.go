package bubblereal

import (
	"testing"
	"time"
)

// TestFresh reads the entry right after New, 50ms before the expiry
// goroutine's nil store in a run that is not descheduled. The detection
// wants the store in the recorded run: the test waits 150 ms past it
// (20 ms, once, was not enough under TestKernels' load).
func TestFresh(t *testing.T) {
	c := New("v", 50*time.Millisecond)
	if got := c.Get(); got != "v" {
		t.Fatalf("Get() = %q, want v", got)
	}
	time.Sleep(200 * time.Millisecond) // the expiry goroutine runs at 50ms and exits
}

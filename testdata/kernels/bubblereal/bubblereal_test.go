package bubblereal

import (
	"testing"
	"time"
)

// TestFresh reads the entry right after New, 200 ms before the expiry
// goroutine's nil store in a run that is not descheduled (50 ms, once, was
// not: a loaded machine held the reader past the store, and the recorded
// run crashed). The detection wants the store in the recorded run: the
// test waits 200 ms past it (20 ms, once, was not enough either).
func TestFresh(t *testing.T) {
	c := New("v", 200*time.Millisecond)
	if got := c.Get(); got != "v" {
		t.Fatalf("Get() = %q, want v", got)
	}
	time.Sleep(400 * time.Millisecond) // the expiry goroutine runs at 200ms and exits
}

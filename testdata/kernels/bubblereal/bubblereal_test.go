package bubblereal

import (
	"testing"
	"time"
)

// TestFresh reads the entry right after New, 20ms before the expiry
// goroutine's nil store in a run that is not descheduled.
func TestFresh(t *testing.T) {
	c := New("v", 20*time.Millisecond)
	if got := c.Get(); got != "v" {
		t.Fatalf("Get() = %q, want v", got)
	}
	time.Sleep(40 * time.Millisecond) // the expiry goroutine runs at 20ms and exits
}

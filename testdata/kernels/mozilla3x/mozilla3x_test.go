package mozilla3x

import (
	"testing"
	"time"
)

// TestShutdown runs the timer thread and shuts it down 50 ms later, when the
// thread normally sleeps already. Run's sleep is bounded: a lost wake-up
// fails the test after half a second instead of hanging it. (Run's return
// value is checked too, and Run may rightly return "stopped".)
func TestShutdown(t *testing.T) {
	tt := NewTimerThread()
	result := make(chan string)
	go func() { result <- tt.Run(500 * time.Millisecond) }()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		time.Sleep(50 * time.Millisecond)
		tt.Shutdown()
	}()
	reason := <-result
	<-stopped
	// "stopped": Shutdown came before Run started to wait, which is fine.
	if reason != "shutdown" && reason != "stopped" {
		t.Errorf("the timer thread woke for %q, want shutdown or stopped", reason)
	}
}

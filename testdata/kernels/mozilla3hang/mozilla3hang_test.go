package mozilla3hang

import (
	"testing"
	"time"
)

// TestShutdown runs the timer thread and shuts it down 5 ms later, when the
// thread normally sleeps already. A lost wake-up hangs the test.
func TestShutdown(t *testing.T) {
	tt := NewTimerThread()
	result := make(chan string)
	go func() { result <- tt.Run() }()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		time.Sleep(5 * time.Millisecond)
		tt.Shutdown()
	}()
	reason := <-result
	<-stopped
	// "stopped": Shutdown came before Run started to wait, which is fine.
	if reason != "shutdown" && reason != "stopped" {
		t.Errorf("the timer thread woke for %q, want shutdown or stopped", reason)
	}
}

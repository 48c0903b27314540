package mozilla3

import (
	"testing"
	"time"
)

// TestShutdown runs the timer thread and shuts it down 2 ms later, when the
// thread normally waits already. Run's wait is bounded: a lost notification
// fails the test after a second instead of hanging it.
func TestShutdown(t *testing.T) {
	tt := NewTimerThread()
	result := make(chan error)
	go func() { result <- tt.Run(time.Second) }()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		time.Sleep(2 * time.Millisecond)
		tt.Shutdown()
	}()
	err := <-result
	<-stopped
	if err != nil {
		t.Fatal(err)
	}
}

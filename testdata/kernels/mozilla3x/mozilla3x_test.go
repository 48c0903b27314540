package mozilla3x

import (
	"testing"
	"time"
)

// TestShutdown runs the timer thread and shuts it down 5 ms later, when the
// thread normally sleeps already. Run's sleep is bounded: a lost
// notification fails the test after half a second instead of hanging it.
func TestShutdown(t *testing.T) {
	tt := NewTimerThread()
	result := make(chan error)
	go func() { result <- tt.Run(500 * time.Millisecond) }()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		time.Sleep(5 * time.Millisecond)
		tt.Shutdown()
	}()
	err := <-result
	<-stopped
	if err != nil {
		t.Fatal(err)
	}
}

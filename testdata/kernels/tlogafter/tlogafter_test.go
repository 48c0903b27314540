package tlogafter

import (
	"testing"
	"time"
)

// TestWatch logs the watcher's events from a goroutine it does not wait for.
// It touches one file and sleeps 20 ms before it returns; the
// goroutine normally logs the event within microseconds.
func TestWatch(t *testing.T) {
	w := NewWatcher()
	go func() {
		for ev := range w.Events() {
			t.Logf("event %s", ev) // S2 // want `may outlive the test`
		}
	}()
	w.Touch("a.txt")
	w.Close()
	time.Sleep(20 * time.Millisecond) // give the logger time to catch up
} // S1

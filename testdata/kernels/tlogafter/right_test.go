package tlogafter

import "testing"

// TestWatchWaits is the RIGHT version of TestWatch, which neither precog
// vet nor precog test may report: the test waits for the goroutine that
// logs before it returns.
func TestWatchWaits(t *testing.T) {
	w := NewWatcher()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.Events() {
			t.Logf("event %s", ev)
		}
	}()
	w.Touch("a.txt")
	w.Touch("b.txt")
	w.Close()
	<-done
}

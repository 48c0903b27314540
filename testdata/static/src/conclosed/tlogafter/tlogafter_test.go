package tlogafter

import "testing"

func TestWatch(t *testing.T) {
	w := NewWatcher()
	go func() {
		for ev := range w.Events() {
			t.Logf("event %s", ev) // want `may outlive the test`
		}
	}()
	w.Touch("a.txt")
	w.Touch("b.txt")
	w.Close()
}

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

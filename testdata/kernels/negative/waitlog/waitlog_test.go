package waitlog

import "testing"

func TestWatchWaits(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range Events("a.txt", "b.txt") {
			t.Logf("event %s", ev)
		}
	}()
	<-done
}

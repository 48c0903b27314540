//go:build go1.25

package bubbleclosure

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestAnnounce sets the configuration, starts a goroutine outside the
// bubble that clears it 200 ms later, starts the server in a bubble, and
// waits for the clearing goroutine after Test returned.
func TestAnnounce(t *testing.T) {
	s := &Server{}
	s.Cfg = &Config{Name: "a"} // S0: before synctest.Test
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(200 * time.Millisecond) // real time: orders nothing
		s.Cfg = nil                        // S1: not in the bubble, which Test does not wait for
	}()
	synctest.Test(t, func(*testing.T) {
		s.Start(func(name string) { t.Logf("announced %s", name) })
	})
	<-done
}

//go:build go1.25

package bubbletimerinstant

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestAtExpiry reads the entry when time.After of the TTL fires, the
// instant the expiry goroutine's timer fires too.
func TestAtExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New("v", time.Second)
		<-time.After(time.Second)
		if got := c.Get(); got != "v" {
			t.Fatalf("Get() = %q, want v", got)
		}
		time.Sleep(time.Second) // the expiry goroutine has stored and exited
	})
}

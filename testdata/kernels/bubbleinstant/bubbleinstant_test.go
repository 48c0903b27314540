//go:build go1.25

package bubbleinstant

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestAtExpiry reads the entry at the very instant it expires: the reader
// and the expiry goroutine both wake at one second of virtual time.
func TestAtExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New("v", time.Second)
		time.Sleep(time.Second)
		if got := c.Get(); got != "v" {
			t.Fatalf("Get() = %q, want v", got)
		}
		time.Sleep(time.Second) // the expiry goroutine has stored and exited
	})
}

//go:build go1.25

package bubblecache

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestFresh reads the entry at virtual time zero, one second of virtual
// time before the expiry goroutine's nil store.
func TestFresh(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New("v", time.Second)
		if got := c.Get(); got != "v" {
			t.Fatalf("Get() = %q, want v", got)
		}
		time.Sleep(2 * time.Second) // the expiry goroutine runs at 1s and exits
	})
}

//go:build go1.25

package bubblewait

import (
	"testing"
	"testing/synctest"
)

// TestAfterWait reads the connection once the server's goroutine is
// blocked on its requests: synctest.Wait orders its connect before the read.
func TestAfterWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := Start("a:1")
		synctest.Wait()
		if got := s.Addr(); got != "a:1" {
			t.Fatalf("Addr() = %q, want a:1", got)
		}
		s.Stop()
	})
}

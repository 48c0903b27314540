package loopvar

import (
	"sync"
	"testing"
)

// TestNotify counts the calls only: which address each goroutine sees
// depends on the interleaving.
func TestNotify(t *testing.T) {
	var mu sync.Mutex
	n := 0
	Notify([]string{"a", "b", "c"}, func(string) {
		mu.Lock()
		n++
		mu.Unlock()
	})
	if n != 3 {
		t.Errorf("%d calls, want 3", n)
	}
}

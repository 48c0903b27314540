package fig4

import (
	"testing"
	"time"
)

// TestReserve reserves slots for a request slow to encode and, 5 ms later,
// one slow to commit. The second updates the cursor while the first
// encodes, and commits after the first has updated it too.
func TestReserve(t *testing.T) {
	tab := NewTable(5)
	done := make(chan int)
	go func() { done <- tab.Reserve(30*time.Millisecond, 0) }()
	go func() {
		time.Sleep(5 * time.Millisecond)
		done <- tab.Reserve(0, 50*time.Millisecond)
	}()
	<-done
	<-done
	if tab.next != 4 {
		t.Errorf("cursor at %d, want 4", tab.next)
	}
}

package fig4

import (
	"testing"
	"time"
)

// TestReserve reserves slots for a slow request and, 5 ms later, a fast
// one. The fast one updates the cursor while the slow one encodes.
func TestReserve(t *testing.T) {
	tab := NewTable(5)
	done := make(chan int)
	go func() { done <- tab.Reserve(30 * time.Millisecond) }()
	go func() {
		time.Sleep(5 * time.Millisecond)
		done <- tab.Reserve(0)
	}()
	<-done
	<-done
	if tab.next != 4 {
		t.Errorf("cursor at %d, want 4", tab.next)
	}
}

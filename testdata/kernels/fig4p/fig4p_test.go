package fig4p

import (
	"testing"
	"time"
)

// TestReserve reserves a slot, and another 50 ms later.
func TestReserve(t *testing.T) {
	tab := NewTable(5)
	done := make(chan int)
	go func() { done <- tab.Reserve() }()
	go func() {
		time.Sleep(50 * time.Millisecond)
		done <- tab.Reserve()
	}()
	<-done
	<-done
	if tab.next != 4 {
		t.Errorf("cursor at %d, want 4", tab.next)
	}
}

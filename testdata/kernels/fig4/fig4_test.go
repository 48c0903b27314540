package fig4

import (
	"testing"
	"time"
)

// TestReserve reserves slots for a request slow to encode and, 50 ms later,
// one slow to commit. The second updates the cursor while the first
// encodes, and commits after the first has updated it too. The sleeps
// leave 50 ms either way for a goroutine that a loaded machine starts or
// wakes late: with the second 5 ms after the first, a first started 8 ms
// late passed, and its trace gave another schedule's findings.
func TestReserve(t *testing.T) {
	tab := NewTable(5)
	done := make(chan int)
	go func() { done <- tab.Reserve(100*time.Millisecond, 0) }()
	go func() {
		time.Sleep(50 * time.Millisecond)
		done <- tab.Reserve(0, 150*time.Millisecond)
	}()
	<-done
	<-done
	if tab.next != 4 {
		t.Errorf("cursor at %d, want 4", tab.next)
	}
}

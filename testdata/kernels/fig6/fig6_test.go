package fig6

import (
	"testing"
	"time"
)

// TestReserve reserves two slots from two goroutines, for requests that
// take 20 ms to encode.
func TestReserve(t *testing.T) {
	tab := NewTable(5)
	done := make(chan int)
	for range 2 {
		go func() { done <- tab.Reserve(20 * time.Millisecond) }()
	}
	<-done
	<-done
	if tab.next != 2*maxStride {
		t.Errorf("cursor at %d, want %d", tab.next, 2*maxStride)
	}
}

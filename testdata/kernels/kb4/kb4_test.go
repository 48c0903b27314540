package kb4

import (
	"testing"
	"time"
)

// TestGrowLast grows the buffer while another goroutine reads its last
// element, normally 2 ms later.
func TestGrowLast(t *testing.T) {
	b := NewBuffer(1)
	grown := make(chan struct{})
	last := make(chan int)
	go func() {
		defer close(grown)
		b.Grow([]int{1, 2, 3})
	}()
	go func() {
		time.Sleep(2 * time.Millisecond)
		last <- b.Last()
	}()
	got := <-last
	<-grown
	if got != 3 {
		t.Errorf("last element %d, want 3", got)
	}
}

package radix

import (
	"testing"
	"time"
)

// TestWaitPublish waits for a node on one goroutine while another publishes
// it, normally 20 ms later, when the waiter is already waiting.
func TestWaitPublish(t *testing.T) {
	tree := NewTree()
	got := make(chan int)
	published := make(chan struct{})
	go func() { got <- tree.Wait() }()
	go func() {
		defer close(published)
		time.Sleep(20 * time.Millisecond)
		tree.Publish(42)
	}()
	sum := <-got
	<-published
	if sum != 42 {
		t.Errorf("sum %d, want 42", sum)
	}
}

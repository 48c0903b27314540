package kb1

import (
	"testing"
	"time"
)

// TestInsertFlush inserts into the cache while another goroutine flushes
// it, normally 2 ms later.
func TestInsertFlush(t *testing.T) {
	c := &QueryCache{}
	avg := make(chan int)
	flushed := make(chan struct{})
	go func() { avg <- c.Insert(4, 100) }()
	go func() {
		defer close(flushed)
		time.Sleep(2 * time.Millisecond)
		c.Flush()
	}()
	got := <-avg
	<-flushed
	if got != 100 {
		t.Errorf("average size %d, want 100", got)
	}
}

package mozilla2

import (
	"testing"
	"time"
)

// TestInitClear initializes the cache on one goroutine while another clears
// it. Clear normally runs 2 ms later, after Init.
func TestInitClear(t *testing.T) {
	c := NewCache()
	done := make(chan bool)
	go func() {
		c.Init([]string{"null", "true", "false"})
		done <- true
	}()
	go func() {
		time.Sleep(2 * time.Millisecond)
		c.Clear()
		done <- true
	}()
	<-done
	<-done
	if !c.Consistent() {
		t.Errorf("cache says it is not empty but has no table")
	}
}

package apache1

import (
	"sync"
	"testing"
	"time"
)

// TestPurge serves one request for a cached page while a purge removes
// the page 20 ms later; the request normally finishes within microseconds.
func TestPurge(t *testing.T) {
	c := NewCache()
	logged := c.Store("/index.html")
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // request
		defer wg.Done()
		if !c.Serve("/index.html") {
			t.Error("cache miss")
		}
	}()
	go func() { // purge
		defer wg.Done()
		time.Sleep(20 * time.Millisecond)
		c.Remove("/index.html")
	}()
	wg.Wait()
	if n := <-logged; n != 1 {
		t.Errorf("logged %d hits, want 1", n)
	}
}

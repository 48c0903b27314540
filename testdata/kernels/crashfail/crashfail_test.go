package crashfail

import "testing"

// TestCount adds 1 three times.
func TestCount(t *testing.T) {
	var c Counter
	done := make(chan bool)
	go func() {
		for range 3 {
			c.Add(1)
		}
		done <- true
	}()
	<-done
	if c.N() != 3 {
		t.Fatalf("count = %d, want 3", c.N())
	}
}

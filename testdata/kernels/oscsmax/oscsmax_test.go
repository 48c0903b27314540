package oscsmax

import (
	"testing"
	"time"
)

func TestParallel(t *testing.T) {
	if got := Parallel([]int{3, 9, 9}); got != 9 {
		t.Errorf("max %d, want 9", got)
	}
}

// TestPercentiles asks for a percentile on a goroutine and for another
// on the test's, after it recorded one more value, so that the two
// calls' sums differ.
func TestPercentiles(t *testing.T) {
	d := &Dist{}
	d.Record(2)
	done := make(chan int)
	go func() {
		done <- d.Percentile(0.5)
	}()
	time.Sleep(2 * time.Millisecond)
	d.Record(7)
	if v := d.Percentile(0.99); v != 7 {
		t.Errorf("99th percentile %d, want 7", v)
	}
	if v := <-done; v != 2 && v != 7 {
		t.Errorf("median %d, want 2 or 7", v)
	}
}

package initrefresh

import (
	"testing"
	"time"
)

// TestLimit reads the limit while the refresher runs, then gives the
// refresher time to finish.
func TestLimit(t *testing.T) {
	time.Sleep(5 * time.Millisecond)
	if l := Limit(); l < 1 || l > 21 {
		t.Errorf("limit %d, want 1 to 21", l)
	}
	time.Sleep(100 * time.Millisecond)
}

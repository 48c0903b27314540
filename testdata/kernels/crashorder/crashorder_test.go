package crashorder

import (
	"testing"
	"time"
)

// TestLast resizes the pool on a goroutine of its own and reads it later:
// only timing orders the two.
func TestLast(t *testing.T) {
	p := New(4)
	go p.Resize(8)
	time.Sleep(10 * time.Millisecond)
	if got := p.Last(); got != 0 {
		t.Errorf("Last() = %d, want 0", got)
	}
}

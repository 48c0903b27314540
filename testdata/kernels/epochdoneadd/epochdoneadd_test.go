package epochdoneadd

import (
	"testing"
	"time"
)

// TestCollect submits a worker that runs through two collections, and a
// second one 450 ms later, after the first is done.
func TestCollect(t *testing.T) {
	var p Pool
	p.Submit(Collect)
	time.Sleep(450 * time.Millisecond)
	p.Submit(func() int { return 2 })
	if got := p.Wait(); len(got) != 2 {
		t.Errorf("results %v, want two", got)
	}
}

package expireloop

import (
	"testing"
	"time"
)

// TestPurge sets entries that expire while the loop sleeps and purges
// the cache between the loop's two sections, three times over.
func TestPurge(t *testing.T) {
	c := New()
	defer c.Close()
	for range 3 {
		c.Set("a", time.Millisecond)
		c.Set("b", 2*time.Millisecond)
		time.Sleep(500 * time.Microsecond)
		c.Purge()
		c.Set("c", time.Millisecond)
		time.Sleep(5 * time.Millisecond)
		// The loop runs late on a loaded machine: wait for it, within
		// a bound.
		for end := time.Now().Add(2 * time.Second); c.Len() != 0 && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
		}
		if n := c.Len(); n != 0 {
			t.Errorf("%d entries left 2s after their deadlines, want 0", n)
		}
	}
}

package lockhandoff

import (
	"context"
	"sync"
	"testing"
	"time"
)

// race uploads on a goroutine of its own while stop runs 20 ms later.
func race(t *testing.T, stop func(*Client)) {
	c := New(10)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if n, err := c.Upload(20); err != nil || n != 10 {
			t.Errorf("Upload(20) = %d, %v; want 10, nil", n, err)
		}
	}()
	time.Sleep(20 * time.Millisecond)
	stop(c)
	wg.Wait()
}

// TestStop: the nil store is under the lock Stop's goroutine adopted.
func TestStop(t *testing.T) {
	race(t, func(c *Client) {
		if err := c.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
}

// TestStopEarly: the nil store comes before the lock.
func TestStopEarly(t *testing.T) { race(t, (*Client).StopEarly) }

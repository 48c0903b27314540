package oscsloop

import (
	"sync"
	"testing"
	"time"
)

// TestSetReset runs Set and Reset on two goroutines, twenty rounds each,
// a little apart so that their critical sections alternate.
func TestSetReset(t *testing.T) {
	const rounds = 20
	c := &QueryCache{}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range rounds {
			c.Set(i + 1)
			time.Sleep(200 * time.Microsecond)
		}
	}()
	go func() {
		defer wg.Done()
		for range rounds {
			time.Sleep(100 * time.Microsecond)
			c.Reset()
			time.Sleep(100 * time.Microsecond)
		}
	}()
	wg.Wait()
	for k := range Shards {
		if n := c.Ops(k); n != 2*rounds {
			t.Errorf("shard %d counted %d operations, want %d", k, n, 2*rounds)
		}
	}
}

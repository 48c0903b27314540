package vector

import (
	"sync"
	"testing"
	"time"
)

// rounds is how many AddAll calls the test runs; gap is how long after
// AddAll starts the removal comes.
const (
	rounds = 5
	gap    = 150 * time.Microsecond
)

// spin busy-waits for d: work that takes time without instrumented
// accesses or synchronization.
func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// TestAddAllRemove adds all of one vector's elements to another while a
// second goroutine removes the source's last element a little later,
// rounds times. AddAll must copy the source before or after the removal.
// The removal starts its gap once the AddAll goroutine runs (started), an
// order that ends before AddAll's first access.
func TestAddAllRemove(t *testing.T) {
	for round := range rounds {
		v := New(&Element{"a"})
		src := New(&Element{"b"}, &Element{"c"}, &Element{"d"})
		started := make(chan struct{})
		var wg sync.WaitGroup
		var addErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			close(started)
			addErr = v.AddAll(src)
		}()
		go func() {
			defer wg.Done()
			<-started
			spin(gap)
			src.RemoveLast()
		}()
		wg.Wait()
		if addErr != nil {
			t.Fatalf("round %d: %v", round, addErr)
		}
		if n := v.Len(); n != 4 && n != 3 {
			t.Fatalf("round %d: vector has %d elements after AddAll, want 4 or 3", round, n)
		}
	}
}

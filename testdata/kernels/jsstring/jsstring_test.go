package jsstring

import (
	"sync"
	"testing"
	"time"
)

// rounds is how many concatenations the test runs; gap is how long after
// the concatenation starts the read comes.
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

// TestConcatRead concatenates to a string while another goroutine reads
// it a little later, rounds times. The reader must see a consistent
// string, old or new. The reader starts its gap once the concatenating
// goroutine runs (started), an order that ends before the concatenation's
// first access.
func TestConcatRead(t *testing.T) {
	for round := range rounds {
		s := NewString("hello")
		started := make(chan struct{})
		var wg sync.WaitGroup
		var got string
		var readErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			close(started)
			s.Concat(", world")
		}()
		go func() {
			defer wg.Done()
			<-started
			spin(gap)
			got, readErr = s.Chars()
		}()
		wg.Wait()
		if readErr != nil {
			t.Fatalf("round %d: %v", round, readErr)
		}
		if got != "hello" && got != "hello, world" {
			t.Fatalf("round %d: read %q, want the string before or after the concatenation", round, got)
		}
	}
}

package stringbuffer

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// rounds is how many appends the test runs; gap is how long after the
// append starts the truncation comes.
const (
	rounds = 5
	gap    = 500 * time.Microsecond
)

// spin busy-waits for d: work that takes time without instrumented
// accesses or synchronization.
func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// TestAppendTruncate appends one buffer to another while a second
// goroutine empties the appended buffer a little later, rounds times. The
// append must copy the buffer before or after the truncation, never fail.
// The truncation starts its gap once the append goroutine runs (started),
// an order that ends before the append's first access.
func TestAppendTruncate(t *testing.T) {
	for round := range rounds {
		sb, other := New("abc"), New("defgh")
		started := make(chan struct{})
		var wg sync.WaitGroup
		var appendErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					appendErr = fmt.Errorf("append panicked: %v", r)
				}
			}()
			close(started)
			sb.Append(other)
		}()
		go func() {
			defer wg.Done()
			<-started
			spin(gap)
			other.SetLength(0)
		}()
		wg.Wait()
		if appendErr != nil {
			t.Fatalf("round %d: %v", round, appendErr)
		}
		if got := sb.String(); got != "abcdefgh" && got != "abc" {
			t.Fatalf("round %d: appended %q, want abcdefgh or abc", round, got)
		}
	}
}

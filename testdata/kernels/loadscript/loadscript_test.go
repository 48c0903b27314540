package loadscript

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// rounds is how many loads the test runs; gap is how long after the load
// starts the cancel comes.
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

// TestLoadScript loads a script and, a little later, cancels the loader's
// current script, rounds times. The load must evaluate its own script.
// The cancel side starts its gap once the load goroutine runs (started),
// an order that ends before the load's first access.
func TestLoadScript(t *testing.T) {
	for round := range rounds {
		l := new(Loader)
		s := &Script{src: fmt.Sprint("script", round)}
		started := make(chan struct{})
		var wg sync.WaitGroup
		var loadErr error
		wg.Add(2)
		go func() { // the parser, loading a script
			defer wg.Done()
			close(started)
			loadErr = l.LoadScript(s)
		}()
		go func() { // the user, navigating away
			defer wg.Done()
			<-started
			spin(gap)
			l.Cancel()
		}()
		wg.Wait()
		if loadErr != nil {
			t.Fatalf("round %d: %v", round, loadErr)
		}
		if got := l.Evaluated(); len(got) != 1 || got[0] != s.src {
			t.Fatalf("round %d: evaluated %q, want [%q]", round, got, s.src)
		}
	}
}

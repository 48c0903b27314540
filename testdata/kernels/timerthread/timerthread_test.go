package timerthread

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// rounds is how many timer threads the test starts and shuts down; gap is
// how long after the timer goroutine starts Shutdown comes.
const (
	rounds = 10
	gap    = 150 * time.Microsecond
)

// spin busy-waits for d: work that takes time without instrumented
// accesses or synchronization.
func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// TestTimerShutdown starts a timer thread and shuts it down a little later,
// rounds times. The timer must have posted its event to the thread. The
// shutdown side starts its gap once the timer goroutine runs (started), an
// order that ends before the timer reads tt.target.
func TestTimerShutdown(t *testing.T) {
	for round := range rounds {
		th := new(Thread)
		tt := NewTimerThread(fmt.Sprint("timer", round), th)
		started := make(chan struct{})
		var wg sync.WaitGroup
		var fireErr error
		wg.Add(2)
		go func() { // the timer goroutine
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					fireErr = fmt.Errorf("timer fired after Shutdown: %v", r)
				}
			}()
			close(started)
			tt.Run()
		}()
		go func() { // the rest of the program, which shuts the timer thread down
			defer wg.Done()
			<-started
			spin(gap)
			tt.Shutdown()
		}()
		wg.Wait()
		if fireErr != nil {
			t.Fatalf("round %d: %v", round, fireErr)
		}
		if got := th.Events(); len(got) != 1 {
			t.Fatalf("round %d: thread got events %q, want the timer's one", round, got)
		}
	}
}

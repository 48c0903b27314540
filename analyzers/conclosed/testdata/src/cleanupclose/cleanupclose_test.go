// Package cleanupclose is gue's TestShutdown: a Cleanup closes the channel
// on which the test's goroutine sends its one result, after a t.Error on
// failure, and the test receives that send before it returns. The Cleanup
// runs after the test returned, so after the receive, which only the send
// can satisfy: silent. Reported: a goroutine the test never waits for, a
// receive that a timeout may skip, and a Cleanup registered by a goroutine
// (it runs on the test's goroutine, not on the one that registered it,
// which may still be sending then). A goroutine's t.Error is silent when a
// Cleanup on the test's T waits for it (testing marks the test done only
// after its Cleanups), reported when the Cleanup waits for nothing or is
// registered on one path only.
package cleanupclose

import (
	"errors"
	"sync"
	"testing"
	"time"
)

func run(n int) error {
	if n < 0 {
		return errors.New("negative")
	}
	return nil
}

func TestShutdown(t *testing.T) {
	done := make(chan bool)
	t.Cleanup(func() {
		close(done)
	})
	go func() {
		if err := run(1); err != nil {
			t.Error(err)
		}
		done <- true
	}()
	<-done
	if t.Failed() {
		t.Fatal("failed")
	}
}

func TestNeverWaits(t *testing.T) {
	done := make(chan bool)
	t.Cleanup(func() {
		close(done)
	})
	go func() {
		done <- true // want `send on closed channel: done may be closed concurrently by func literal in TestNeverWaits`
	}()
}

func TestTimeout(t *testing.T) {
	done := make(chan bool)
	t.Cleanup(func() {
		close(done)
	})
	go func() {
		if err := run(2); err != nil {
			t.Error(err) // want `t.Error\(err\) called from a goroutine that may outlive the test`
		}
		done <- true // want `send on closed channel: done may be closed concurrently by func literal in TestTimeout`
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
	}
}

func TestRegisteredByGoroutine(t *testing.T) {
	done := make(chan bool)
	go func() {
		t.Cleanup(func() {
			close(done)
		})
	}()
	go func() {
		done <- true // want `send on closed channel: done may be closed concurrently by func literal in TestRegisteredByGoroutine`
	}()
}

func TestRegistersAndSends(t *testing.T) {
	done := make(chan bool)
	go func() {
		t.Cleanup(func() {
			close(done)
		})
		done <- true // want `send on closed channel: done may be closed concurrently by func literal in TestRegistersAndSends`
	}()
}

func TestJoinedInCleanup(t *testing.T) {
	var wg sync.WaitGroup
	t.Cleanup(func() {
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := run(3); err != nil {
			t.Error(err)
		}
	}()
}

func TestCleanupWaitsForNothing(t *testing.T) {
	stop := make(chan bool, 1)
	t.Cleanup(func() {
		stop <- true
	})
	go func() {
		if err := run(4); err != nil {
			t.Error(err) // want `t.Error\(err\) called from a goroutine that may outlive the test`
		}
	}()
}

func TestJoinedInCleanupSometimes(t *testing.T) {
	var wg sync.WaitGroup
	if testing.Short() {
		t.Cleanup(func() {
			wg.Wait()
		})
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := run(5); err != nil {
			t.Error(err) // want `t.Error\(err\) called from a goroutine that may outlive the test`
		}
	}()
}

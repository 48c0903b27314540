// Package waitfunc: a helper runs the test's function on a goroutine that
// closes a done channel after it, and returns a wait function that
// receives from done on every path (cmd/go's lockedfile tests). A test
// that calls the wait function before it can end waits for the
// goroutine's testing calls: silent. Reported beside it: a test that may
// stop (a Fatal, or a helper handed t) before its wait, one that returns
// before it on one path, a goroutine that closes done before it calls the
// function, and a wait function that may return without receiving.
package waitfunc

import (
	"testing"
	"time"
)

func mustBlock(t *testing.T, f func()) (wait func(*testing.T)) {
	done := make(chan struct{})
	go func() {
		f()
		close(done)
	}()
	timer := time.NewTimer(time.Millisecond)
	defer timer.Stop()
	select {
	case <-done:
		t.Fatalf("did not block")
	case <-timer.C:
	}
	return func(t *testing.T) {
		select {
		case <-time.After(time.Millisecond):
			t.Logf("still blocked")
			<-done
		case <-done:
		}
	}
}

func TestWaits(t *testing.T) {
	block := make(chan struct{})
	wait := mustBlock(t, func() {
		<-block
		t.Errorf("unblocked")
	})
	t.Logf("unblocking")
	close(block)
	wait(t)
}

func TestFatalFirst(t *testing.T) {
	block := make(chan struct{})
	wait := mustBlock(t, func() {
		<-block
		t.Errorf("unblocked") // want `t.Errorf\("unblocked"\) called from a goroutine that may outlive the test`
	})
	if testing.Short() {
		t.Fatal("short")
	}
	close(block)
	wait(t)
}

func TestReturnsFirst(t *testing.T) {
	block := make(chan struct{})
	wait := mustBlock(t, func() {
		<-block
		t.Errorf("unblocked") // want `t.Errorf\("unblocked"\) called from a goroutine that may outlive the test`
	})
	close(block)
	if testing.Short() {
		return
	}
	wait(t)
}

func signalFirst(t *testing.T, f func()) func(*testing.T) {
	done := make(chan struct{})
	go func() {
		close(done)
		f()
	}()
	return func(t *testing.T) { <-done }
}

func TestSignalFirst(t *testing.T) {
	wait := signalFirst(t, func() {
		t.Errorf("after the signal") // want `t.Errorf\("after the signal"\) called from a goroutine that may outlive the test`
	})
	wait(t)
}

func mayNotWait(t *testing.T, f func()) func(*testing.T) {
	done := make(chan struct{})
	go func() {
		f()
		close(done)
	}()
	return func(t *testing.T) {
		select {
		case <-time.After(time.Millisecond):
			t.Logf("gave up")
		case <-done:
		}
	}
}

func TestMayNotWait(t *testing.T) {
	wait := mayNotWait(t, func() {
		t.Errorf("late") // want `t.Errorf\("late"\) called from a goroutine that may outlive the test`
	})
	wait(t)
}

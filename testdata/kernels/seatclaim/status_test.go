package seatclaim

import (
	"testing"
	"time"
)

// TestUpdates makes the board ready and, normally 20 ms later, not ready
// again, while a goroutine polls the status until it sees ready or the
// test ends. The board's status must say what its readiness is.
func TestUpdates(t *testing.T) {
	b := &Board{ready: make(map[string]bool)}
	stop := make(chan struct{})
	polled := make(chan bool)
	go func() {
		for !b.Status() {
			select {
			case <-stop:
				polled <- false
				return
			case <-time.After(time.Millisecond):
			}
		}
		polled <- true
	}()
	done := make(chan bool)
	go func() {
		b.Update(true)
		done <- true
	}()
	time.Sleep(20 * time.Millisecond)
	b.Update(false)
	<-done
	b.mu.Lock()
	want := b.ready["a"]
	b.mu.Unlock()
	if got := b.Status(); got != want {
		t.Errorf("status %v, want %v: the updates' check-then-acts interleaved", got, want)
	}
	close(stop)
	<-polled
}

// TestStaleUpdate resets the board, not ready already, and, normally 20
// ms later, makes it ready. The board's status must say what its
// readiness is.
func TestStaleUpdate(t *testing.T) { staleUpdate(t, (*Board).Reset) }

// TestClearStale is TestStaleUpdate with Clear, which compares through
// the second getter Ready, for Reset.
func TestClearStale(t *testing.T) { staleUpdate(t, (*Board).Clear) }

// staleUpdate runs reset on a goroutine and Update(true) 20 ms later,
// and checks that the board's status says what its readiness is.
func staleUpdate(t *testing.T, reset func(*Board)) {
	b := &Board{ready: make(map[string]bool)}
	done := make(chan bool)
	go func() {
		reset(b)
		done <- true
	}()
	time.Sleep(20 * time.Millisecond)
	b.Update(true)
	<-done
	b.mu.Lock()
	want := b.ready["a"]
	b.mu.Unlock()
	if got := b.Status(); got != want {
		t.Errorf("status %v, want %v: the updates' check-then-acts interleaved", got, want)
	}
}

// TestFlagStale updates the flag to not ready (as it is already) and,
// normally 20 ms later, to ready. The flag's status must say what its
// member is.
func TestFlagStale(t *testing.T) {
	f := new(Flag)
	done := make(chan bool)
	go func() {
		f.Update(false)
		done <- true
	}()
	time.Sleep(20 * time.Millisecond)
	f.Update(true)
	<-done
	if got, want := f.Status(), f.ready.Load(); got != want {
		t.Errorf("status %v, want %v: the updates' check-then-acts interleaved", got, want)
	}
}

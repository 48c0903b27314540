package lockwrap

import (
	"io"
	"testing"
	"time"
)

// TestClaimAssign claims seat 2 of a Seats for a guest while the box
// office assigns it, normally 2 ms later. The assignment must stand.
func TestClaimAssign(t *testing.T) {
	s := NewSeats(4)
	s.Set(0, "") // the mutex, allocated before the goroutines start
	claimed := make(chan bool)
	assigned := make(chan struct{})
	go func() { claimed <- s.Claim(2, "guest") }()
	go func() {
		defer close(assigned)
		time.Sleep(2 * time.Millisecond)
		s.Set(2, "box office")
	}()
	<-claimed
	<-assigned
	if got := s.Get(2); got != "box office" {
		t.Errorf("seat 2 is %q's, want the box office's: the claim overwrote the assignment", got)
	}
}

// TestSpinner updates a spinner's text while it draws, and stops it.
func TestSpinner(t *testing.T) {
	s := StartSpinner(io.Discard, "loading")
	done := make(chan bool)
	go func() {
		time.Sleep(3 * time.Millisecond)
		s.UpdateText("still loading")
		done <- true
	}()
	<-done
	time.Sleep(3 * time.Millisecond)
	s.Stop()
}

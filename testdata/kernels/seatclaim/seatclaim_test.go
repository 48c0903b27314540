package seatclaim

import (
	"testing"
	"time"
)

// TestClaimAssign claims seat 2 for a guest while the box office assigns
// it, normally 2 ms later. The assignment must stand.
func TestClaimAssign(t *testing.T) {
	s := NewSeats(4)
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

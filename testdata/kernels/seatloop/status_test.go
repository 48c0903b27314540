package seatloop

import "testing"

// TestPollStatus polls the board's status while two members become
// ready, as open-feature's multi-provider test does: the board must not
// say Ready before both are.
func TestPollStatus(t *testing.T) {
	b := NewBoard("a", "b")
	done := make(chan bool)
	go func() {
		for b.Status() != Ready {
		}
		done <- true
	}()
	b.Update("a", true)
	b.Update("b", true)
	<-done
}

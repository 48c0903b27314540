package lockorder

import (
	"testing"
	"time"
)

// TestTransfers runs two transfers in opposite directions and fails if they
// do not finish within 500 ms.
func TestTransfers(t *testing.T) {
	a, b := &Account{balance: 100}, &Account{balance: 100}
	done := make(chan bool)
	go func() { Transfer(a, b, 10, 20*time.Millisecond); done <- true }()
	go func() { Transfer(b, a, 20, 20*time.Millisecond); done <- true }()
	watchdog := time.After(500 * time.Millisecond)
	for range 2 {
		select {
		case <-done:
		case <-watchdog:
			t.Fatal("the transfers did not finish: deadlock")
		}
	}
}

package seatclaim

import (
	"testing"
	"time"
)

// TestKeepAlive receives on one goroutine while the test checks the
// stream's health: each response counted must have its time.
func TestKeepAlive(t *testing.T) {
	k := &KeepAlive{}
	done := make(chan bool)
	go func() {
		for i := range 5 {
			k.Received(int64(i + 1))
			time.Sleep(100 * time.Microsecond)
		}
		done <- true
	}()
	for range 5 {
		if n, last := k.Healthy(); last != int64(n) {
			t.Errorf("%d responses counted, the last at %v", n, last)
		}
		time.Sleep(100 * time.Microsecond)
	}
	<-done
}

package seatloop

import (
	"testing"
	"time"
)

// TestKeepAlive receives on one goroutine while the test pings and checks
// the stream's health, as pubsub's keep-alive loop does.
func TestKeepAlive(t *testing.T) {
	k := &KeepAlive{}
	k.SetExactlyOnce(true)
	done := make(chan bool)
	go func() {
		on := true
		for i := range 5 {
			on = k.Received(int64(2*i+1)) && on
			time.Sleep(100 * time.Microsecond)
		}
		done <- on
	}()
	for i := range 5 {
		k.Pinged(int64(2 * i))
		k.Healthy()
		time.Sleep(100 * time.Microsecond)
	}
	if !<-done {
		t.Error("exactly-once delivery seen off")
	}
}

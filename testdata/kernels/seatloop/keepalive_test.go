package seatloop

import (
	"sync"
	"testing"
	"time"
)

// TestKeepAlive receives on one goroutine, turning exactly-once delivery
// on at the third response, while the test pings and checks the
// stream's health on a goroutine for each tick, as pubsub's keep-alive
// handler does (a tick's goroutines are done before the next tick's
// start: pubsub's ticks are seconds apart).
func TestKeepAlive(t *testing.T) {
	k := &KeepAlive{}
	done := make(chan bool)
	go func() {
		for i := range 5 {
			k.Received(int64(2*i+1), i >= 2)
			time.Sleep(100 * time.Microsecond)
		}
		done <- true
	}()
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			k.Pinged(int64(2 * i))
		}()
		go func() {
			defer wg.Done()
			k.Healthy()
		}()
		if d := k.Deadline(); d != time.Minute && d != 10*time.Second {
			t.Errorf("deadline %v", d)
		}
		wg.Wait()
		time.Sleep(100 * time.Microsecond)
	}
	<-done
	if d := k.Deadline(); d != time.Minute {
		t.Errorf("deadline %v after exactly-once delivery was turned on", d)
	}
}

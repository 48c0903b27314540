package golden

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestBubbleLiteral(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done := make(chan int)
		go func() {
			time.Sleep(time.Second)
			done <- 1
		}()
		synctest.Wait()
		<-done
	})
}

func bubbleBody(t *testing.T) {
	timer := time.NewTimer(time.Second)
	<-timer.C
	n := 0
	time.AfterFunc(time.Second, func() { n++ })
}

type retransmit struct{ timer *time.Timer }

// rearm resets and stops an AfterFunc timer (TimerReset, TimerStop) and
// a NewTimer one, through a field and a variable.
func (r *retransmit) rearm(d time.Duration) bool {
	r.timer.Reset(d)
	var t time.Timer
	defer t.Stop()
	return r.timer.Stop()
}

func TestBubbleValue(t *testing.T) {
	synctest.Test(t, bubbleBody)
	f := bubbleBody
	synctest.Test(t, (f))
}

// watch registers a callback that the context package runs in a
// goroutine of its own (shim.ContextAfterFunc: a fork) and stops it.
func watch(ctx context.Context, n *int) bool {
	stop := context.AfterFunc(ctx, func() { *n = 1 })
	return stop()
}

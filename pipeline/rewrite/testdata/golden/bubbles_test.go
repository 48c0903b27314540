package golden

import (
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

func TestBubbleValue(t *testing.T) {
	synctest.Test(t, bubbleBody)
	f := bubbleBody
	synctest.Test(t, (f))
}

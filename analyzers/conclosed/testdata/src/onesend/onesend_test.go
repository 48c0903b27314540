package onesend

import "testing"

func TestOne(t *testing.T) {
	ch := make(chan int, 1)
	go func() {
		ch <- Take()
	}()
	v := <-ch
	close(ch)
	if v != 1 {
		t.Error(v)
	}
}

func TestTwice(t *testing.T) {
	ch := make(chan int, 1)
	go func() {
		for i := 0; i < 2; i++ {
			ch <- Take() // want `send on closed channel: ch may be closed concurrently by TestTwice`
		}
	}()
	<-ch
	close(ch)
}

func TestTwoSenders(t *testing.T) {
	ch := make(chan int, 2)
	go func() {
		ch <- Take() // want `send on closed channel: ch may be closed concurrently by TestTwoSenders`
	}()
	go func() {
		ch <- Take() // want `send on closed channel: ch may be closed concurrently by TestTwoSenders`
	}()
	<-ch
	close(ch)
}

func TestCloseFirst(t *testing.T) {
	ch := make(chan int, 1)
	go func() {
		ch <- Take() // want `send on closed channel: ch may be closed concurrently by TestCloseFirst`
	}()
	close(ch)
	<-ch
}

// Package countjoin: a test that starts n goroutines, each sending once
// on a channel, and then receives n times in a loop with a constant bound
// has every goroutine's send behind it once the loop ends (the loop runs
// at least once, and the receives in a loop are taken to collect them
// all): the close after the loop is silent, as is a t.Error made before
// the send. A loop that may run no turn (a bound the test is handed) or
// that may break before its receive leaves the close reported.
package countjoin

import "testing"

const workers = 4

func TestCount(t *testing.T) {
	done := make(chan bool)
	for i := 0; i < workers; i++ {
		go func() {
			if i < 0 {
				t.Error("never")
			}
			done <- true
		}()
	}
	for i := 0; i < workers; i++ {
		<-done
	}
	close(done)
}

func TestRange(t *testing.T) {
	done := make(chan int)
	for i := range workers {
		go func() { done <- i }()
	}
	for range workers {
		<-done
	}
	close(done)
}

func helper(t *testing.T, n int) {
	done := make(chan bool)
	for i := 0; i < n; i++ {
		go func() { done <- true }() // want `send on closed channel: done may be closed concurrently by helper`
	}
	for i := 0; i < n; i++ {
		<-done
	}
	close(done)
}

func TestHanded(t *testing.T) { helper(t, workers) }

func TestBreak(t *testing.T) {
	done := make(chan bool)
	for i := 0; i < workers; i++ {
		go func() { done <- true }() // want `send on closed channel: done may be closed concurrently by TestBreak`
	}
	for i := 0; i < workers; i++ {
		if testing.Short() {
			break
		}
		<-done
	}
	close(done)
}

package deferdone

import (
	"sync"
	"testing"
)

func TestWorkers(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go func() {
			t.Log("start")
			defer func() {
				t.Log("leaving")
				wg.Done()
				t.Log("stop") // want `t.Log\("stop"\) called from a goroutine that may outlive the test`
			}()
			work(t)
		}()
	}
	wg.Wait()
}

func work(t *testing.T) { t.Log("working") }

// TestWaitDeferredFirst defers the Wait before it starts the goroutine
// (hashicorp/serf's query tests): the Wait still runs when the test
// returns, after the goroutine started, and waits for its Done.
func TestWaitDeferredFirst(t *testing.T) {
	var wg sync.WaitGroup
	defer wg.Wait()
	done := make(chan struct{})
	defer close(done)
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-done
		t.Log("stopping")
	}()
	work(t)
}

// TestWaitDeferredFirstOther defers the Wait of a WaitGroup the goroutine
// does not count down: it joins nothing.
func TestWaitDeferredFirstOther(t *testing.T) {
	var wg, other sync.WaitGroup
	defer other.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		t.Log("stopping") // want `t.Log\("stopping"\) called from a goroutine that may outlive the test`
	}()
	work(t)
}

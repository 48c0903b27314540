package heapreuse

import (
	"runtime"
	"testing"
	"time"
)

// holdFinalizers runs a finalizer that waits until stop is closed: the
// runtime runs finalizers one at a time, so no other finalizer runs
// meanwhile (a slow finalizer does the same, for as long as it takes).
func holdFinalizers(t *testing.T) (stop chan struct{}) {
	stop = make(chan struct{})
	started := make(chan struct{})
	type object struct{ _ *int } // has a pointer: not a tiny allocation
	runtime.SetFinalizer(&object{}, func(*object) {
		close(started)
		<-stop
	})
	runtime.GC()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the finalizer did not start")
	}
	return stop
}

// TestWorkers starts Fill workers one after another, each after the last
// has had time to end and a collection has freed its buffer, so that the
// next one's buffer may be allocated at the same address, and collects
// their results only at the end: nothing orders one worker's write before
// the next one's. Then two Share workers race on one buffer.
func TestWorkers(t *testing.T) {
	stop := holdFinalizers(t)
	defer close(stop)
	const workers = 6
	done := make(chan int, workers+2)
	for range workers {
		go Fill(done)
		time.Sleep(time.Millisecond)
		runtime.GC()
	}
	for range workers {
		<-done
	}
	shared := newBuf()
	for range 2 {
		go Share(shared, done)
	}
	<-done
	<-done
}

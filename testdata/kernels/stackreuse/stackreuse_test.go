package stackreuse

import (
	"testing"
	"time"
)

// TestWorkers starts the workers one after another, each after the last
// has had time to end, so that the runtime reuses their goroutines, and
// collects their results only at the end: nothing orders one worker's
// counting before the next one's.
func TestWorkers(t *testing.T) {
	const workers = 20
	done := make(chan int, 2*workers)
	for range workers {
		go Count(done)
		time.Sleep(200 * time.Microsecond)
	}
	for range workers {
		if n := <-done; n != 2 {
			t.Errorf("a worker counted %d on its own counter, want 2", n)
		}
	}
	shared := new(counter)
	for range 2 {
		go Tally(shared, done)
	}
	<-done
	<-done
}

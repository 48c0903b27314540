package stats

import (
	"sync"
	"testing"
	"time"
)

// bucketing is how long Add takes between its two writes; later is when
// the snapshot comes.
const (
	bucketing = time.Millisecond
	later     = 15 * time.Millisecond
)

type histogram interface {
	Add(v int, bucketing time.Duration)
	Snapshot() (count, sum int)
}

// snapshot adds a sample of 10 to h and takes a snapshot a little later.
func snapshot(h histogram) (count, sum int) {
	started := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		close(started)
		h.Add(10, bucketing)
	}()
	go func() {
		defer wg.Done()
		<-started
		time.Sleep(later)
		count, sum = h.Snapshot()
	}()
	wg.Wait()
	return count, sum
}

// TestSnapshot checks that a snapshot's count and sum go together.
func TestSnapshot(t *testing.T) {
	if count, sum := snapshot(new(Histogram)); sum != 10*count {
		t.Fatalf("snapshot: %d samples summing to %d, which no sequence of samples of 10 gives", count, sum)
	}
}

// TestSnapshotPublished is the same with the RIGHT version: silent.
func TestSnapshotPublished(t *testing.T) {
	if count, sum := snapshot(NewPublished()); count != 1 || sum != 10 {
		t.Fatalf("snapshot: %d samples summing to %d, want 1 and 10", count, sum)
	}
}

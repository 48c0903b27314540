package mysqllog

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// rounds is how many rotations the test runs; gap is how long after the
// rotation starts the insert comes.
const (
	rounds = 5
	gap    = 150 * time.Microsecond
)

// spin busy-waits for d: work that takes time without instrumented
// accesses or synchronization.
func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// TestInsertDuringRotation rotates the binary log while a transaction is
// inserted a little later, rounds times. The transaction must be in the
// log. The insert side starts its gap once the rotation goroutine runs
// (started), an order that ends before the rotation's first access.
func TestInsertDuringRotation(t *testing.T) {
	for round := range rounds {
		l := NewBinLog()
		tx := fmt.Sprint("INSERT ", round)
		started := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { // FLUSH LOGS
			defer wg.Done()
			close(started)
			l.NewFile()
		}()
		go func() { // a client's INSERT
			defer wg.Done()
			<-started
			spin(gap)
			l.Insert(tx)
		}()
		wg.Wait()
		if got := l.Logged(); len(got) != 1 || got[0] != tx {
			t.Fatalf("round %d: binary log holds %q, want [%q]", round, got, tx)
		}
	}
}

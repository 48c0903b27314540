package mysqlslave

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// rounds is how many rotations the test runs; gap is how long after the
// status read starts the rotation comes.
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

// TestStatusDuringRotate reads the slave status while the SQL thread
// rotates its relay log a little later, rounds times. The status must
// show a position that existed: the old file's or the new one's. The
// rotation starts its gap once the status goroutine runs (started), an
// order that ends before the status read's first access.
func TestStatusDuringRotate(t *testing.T) {
	for round := range rounds {
		rli := NewRelayLogInfo("relay.000001", 1017)
		started := make(chan struct{})
		var wg sync.WaitGroup
		var got string
		wg.Add(2)
		go func() { // SHOW SLAVE STATUS
			defer wg.Done()
			close(started)
			got = rli.Status()
		}()
		go func() { // the slave SQL thread
			defer wg.Done()
			<-started
			spin(gap)
			rli.Rotate("relay.000002")
		}()
		wg.Wait()
		before := fmt.Sprintf("Relay_Log_File: %s Relay_Log_Pos: %d Slave_SQL_Running: Yes", "relay.000001", 1017)
		after := fmt.Sprintf("Relay_Log_File: %s Relay_Log_Pos: %d Slave_SQL_Running: Yes", "relay.000002", 4)
		if got != before && got != after {
			t.Fatalf("round %d: status %q, want the position before or after the rotation", round, got)
		}
	}
}

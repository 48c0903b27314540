package mysqldelete

import (
	"maps"
	"sync"
	"testing"
	"time"
)

// rounds is how many delete and insert pairs the test runs; gap is how
// long after the delete starts the insert comes.
const (
	rounds = 10
	gap    = 150 * time.Microsecond
)

// spin busy-waits for d: work that takes time without instrumented
// accesses or synchronization.
func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// TestDeleteInsert deletes row 1 while another client inserts it again a
// little later, rounds times. Replaying the binary log must give the
// table. The insert side starts its gap once the delete goroutine runs
// (started), an order that ends before the delete's first access.
func TestDeleteInsert(t *testing.T) {
	initial := map[int]string{1: "a", 2: "b"}
	for round := range rounds {
		db := NewDB(initial)
		started := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			close(started)
			db.Delete(1)
		}()
		go func() {
			defer wg.Done()
			<-started
			spin(gap)
			db.Insert(1, "c")
		}()
		wg.Wait()
		if table, replica := db.Table(), db.Replay(initial); !maps.Equal(table, replica) {
			t.Fatalf("round %d: table %v, but replaying the binary log gives %v", round, table, replica)
		}
	}
}

package logswitch

import (
	"sync"
	"testing"
	"time"
)

// rounds is how many switches the test runs; opening is how long a switch
// takes to open the new file, later how long after it began the
// transaction comes.
const (
	rounds  = 2
	opening = time.Millisecond
	later   = 15 * time.Millisecond
)

// TestInsertDuringSwitch inserts a transaction while the log switches
// files: it must be logged.
func TestInsertDuringSwitch(t *testing.T) {
	for round := range rounds {
		l := NewLog()
		started := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { // FLUSH LOGS
			defer wg.Done()
			close(started)
			l.Switch(opening)
		}()
		go func() { // INSERT
			defer wg.Done()
			<-started
			time.Sleep(later)
			l.Insert("tx1")
		}()
		wg.Wait()
		if got := l.Entries(); len(got) != 1 {
			t.Fatalf("round %d: log holds %q, want the transaction", round, got)
		}
	}
}

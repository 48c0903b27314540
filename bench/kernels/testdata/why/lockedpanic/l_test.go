package lockedpanic

import (
	"sync"
	"testing"
	"time"
)

// rounds is how many reloads the test runs; check is how long Reload
// checks the new endpoint, and later how long after the reload began the
// client asks for the address.
const (
	rounds = 2
	check  = time.Millisecond
	later  = 1600 * time.Microsecond
)

type reloader interface {
	Reload(host string, port int, check time.Duration)
	Addr() string
}

// run reloads c while a client asks for its address later, and returns
// the address the client got.
func run(c reloader) string {
	started := make(chan struct{})
	var wg sync.WaitGroup
	var got string
	wg.Add(2)
	go func() { // the reload
		defer wg.Done()
		close(started)
		c.Reload("db2.internal", 6543, check)
	}()
	go func() { // a client
		defer wg.Done()
		<-started
		time.Sleep(later)
		got = c.Addr()
		if got != "db1.internal:5432" && got != "db2.internal:6543" {
			panic("client got " + got + ", a host and port that never went together")
		}
	}()
	wg.Wait()
	return got
}

// TestReload checks that the client sees the old endpoint or the new one,
// never the new host with the old port.
func TestReload(t *testing.T) {
	for round := range rounds {
		got := run(NewClient("db1.internal", 5432))
		if got != "db1.internal:5432" && got != "db2.internal:6543" {
			t.Fatalf("round %d: client got %s, a host and port that never went together", round, got)
		}
	}
}

// Package raceglobal is the data race kernel of a global: a request
// counter that handlers bump with no synchronization (issue 10, item 2).
// The test's handlers run one after the other in time (each waits for a
// tick before it starts) but nothing orders them, so no run loses an
// update; go test -race reports the race all the same, and so must
// precog test.
package raceglobal

import (
	"sync"
	"time"
)

// requests counts the requests served.
var requests int

// Serve handles n requests on n goroutines, each started 2 ms after the
// last.
func Serve(n int) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 2 * time.Millisecond)
			requests++ // races with the other handlers' increments
		}()
	}
	wg.Wait()
}

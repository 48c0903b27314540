// Package subtestpar is subtestadd's WRONG twin (issue 18 item 2): a test
// waits for a Group after t.Run of a subtest that called t.Parallel. t.Run
// returns as soon as the subtest calls t.Parallel, and a paused parallel
// subtest resumes only after its parent's function has returned, so the
// Wait always runs before the subtest's Add: it finds the counter at zero
// and returns before the work it should wait for. Go's rule is that an
// Add that starts the count must happen before the Wait. The test passes
// (nothing reads the sum); precog test reports the Wait and the Add
// (con-uninit, predicted: the witness has no read event to force).
package subtestpar

import "sync"

// Group runs functions on goroutines and sums what they return.
type Group struct {
	wg  sync.WaitGroup
	mu  sync.Mutex
	sum int
}

// Go runs f on a goroutine of its own.
func (g *Group) Go(f func() int) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		v := f()
		g.mu.Lock()
		g.sum += v
		g.mu.Unlock()
	}()
}

// Wait waits for the functions Go started.
func (g *Group) Wait() {
	g.wg.Wait()
}

// Package subtestadd is a negative control (issue 18 item 2): a Group
// whose Go adds to its WaitGroup before its go statement, called from a
// subtest's function and from a fuzz target's function (once per seed
// input), and waited for after t.Run (F.Fuzz) returned. t.Run returns only
// once a subtest that is not parallel has ended, and F.Fuzz once its last
// seed input's run has (testing's tRunner signals its caller after the
// function returned): every Add happens before the Wait. precog test
// reports nothing; before detect/conmem counted the subtests that hb joins
// at the Wait itself as before it (hb's Graph.Joined), it reported "the
// Add that starts the count is concurrent with the Wait" at both Waits.
package subtestadd

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

// Wait waits for the functions Go started and returns their sum.
func (g *Group) Wait() int {
	g.wg.Wait()
	return g.sum
}

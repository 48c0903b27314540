// Package oscsbarrier is a negative control for OSCS (oscs.txt Fig. 3a): an
// ordered critical-section pair.
//
// One goroutine clears the table and sets t.empty under t.mu before a
// barrier; the other adds an entry under t.mu after the barrier. Both
// critical sections touch t.size and t.empty, but the barrier (a WaitGroup
// that both goroutines count down and then wait on) orders the first before
// the second in every run, so the final state never depends on their order.
// A checker must report nothing here.
package oscsbarrier

import "sync"

// Table is a small table guarded by a mutex.
type Table struct {
	mu      sync.Mutex
	entries []string
	size    int
	empty   bool
}

// Clear empties the table.
func (t *Table) Clear() {
	t.mu.Lock()
	t.entries = t.entries[:0]
	t.size = 0
	t.empty = true
	t.mu.Unlock()
}

// Add adds an entry.
func (t *Table) Add(e string) {
	t.mu.Lock()
	t.entries = append(t.entries, e)
	t.size++
	t.empty = false
	t.mu.Unlock()
}

// Phases runs clear on one goroutine and add on another, with a barrier
// between the two phases, and waits for both.
func Phases(t *Table, e string) {
	var barrier, done sync.WaitGroup
	barrier.Add(2)
	done.Add(2)
	go func() {
		defer done.Done()
		t.Clear()
		barrier.Done()
		barrier.Wait()
	}()
	go func() {
		defer done.Done()
		barrier.Done()
		barrier.Wait()
		t.Add(e)
	}()
	done.Wait()
}

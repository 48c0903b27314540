// Package fig4p is the execution-suppression paper's Fig. 4
// (execution-suppression.txt §2.2) with a test that passes as written: the
// same harmful data race as package fig4, which precog explain must first
// make fail by itself, from what precog test predicts.
//
// A slot table hands out aligned slots: Reserve reads the cursor t.next
// (line 1), pads it to the alignment and writes it back (line 2), without
// the lock; then, under the lock, it derives the slot t.last from the
// cursor (line 3) and reads that slot (line 4); after the lock it reads the
// slot at the cursor again (line 5).
//
// Crashing interleaving (line 1 of one goroutine before line 2 of the
// other):
//
//	goroutine 1                          goroutine 2
//	1: a := pad(t.next)   (next 1, a 3)
//	                                     1: a := pad(t.next)   (next 1, a 3)
//	2: t.next = t.next + a   (next 4)
//	                                     2: t.next = t.next + a   (next 7)
//	                                     3: t.last = t.next   (7)
//	                                     4: t.slots[t.last]
//	panic: runtime error: index out of range [7] with length 5
//
// The test's normal schedule hides the bug: the second reservation comes
// 50 ms after the first, which takes microseconds, so the second pads 4 by
// 0 (go test -count=50 passes 50 of 50 runs). precog test predicts the race
// on t.next and its forced run of a line 1 between the other goroutine's
// lines 1 and 2 fails the test: the failing run precog explain must find.
//
// Root cause (explain file): a harmful race at line 2, as in fig4: the
// crash's index goes back through line 3 (under the lock, suppressed) to
// the later goroutine's write at line 2, which races with the other
// goroutine's line 2 (WAW: reversed, the value written second changes) and
// with its read at line 1 (the stale read: reversed, nothing crashes).
package fig4p

import "sync"

const align = 4

// Table is a table of aligned slots.
type Table struct {
	mu    sync.Mutex
	next  int // the cursor (the paper's *x), read and written without mu
	last  int // the slot last reserved (the paper's *y), under mu
	slots []Slot
}

// A Slot is one slot of the table.
type Slot struct{ data int }

// NewTable returns a table of n slots with its cursor at 1.
func NewTable(n int) *Table {
	t := &Table{next: 1, slots: make([]Slot, n)}
	for i := range t.slots {
		t.slots[i].data = i
	}
	return t
}

// Reserve moves the cursor to the next aligned slot and returns the data of
// the slot reserved.
func (t *Table) Reserve() int {
	a := pad(t.next)    // 1
	t.next = t.next + a // 2: the race
	t.mu.Lock()
	t.last = t.next      // 3
	b := t.slots[t.last] // 4: the crash
	t.mu.Unlock()
	c := t.slots[t.next] // 5 // want `may be out of range`
	return b.data + c.data
}

// pad is how far v is from the next multiple of align.
func pad(v int) int { return (align - v%align) % align }

// Package fig4 is the execution-suppression paper's Fig. 4
// (execution-suppression.txt §2.2, Figs. 4 and 5): a crash whose root cause
// is a harmful data race two statements upstream.
//
// A slot table hands out aligned slots: Reserve reads the cursor t.next
// (line 1), pads it to the alignment and writes it back (line 2), without
// the lock; then, under the lock, it derives the slot t.last from the
// cursor (line 3) and reads that slot (line 4); after the lock it reads the
// slot at the cursor again (line 5). The paper's x is t.next, its y is
// t.last, structArray is t.slots.
//
// Crashing interleaving (the paper's Fig. 5(A)):
//
//	goroutine 1 (slow to encode)         goroutine 2 (slow to commit)
//	1: a := pad(t.next)   (next 1, a 3)
//	                                     1: a := pad(t.next)   (next 1, a 3)
//	                                     2: t.next = t.next + a   (next 4)
//	2: t.next = t.next + a   (next 7: the stale a)
//	3: t.last = t.next   (7)
//	4: t.slots[t.last]
//	panic: runtime error: index out of range [7] with length 5
//
// Serially the second pad is pad(4) = 0 and the cursor stays at 4. The
// test runs the interleaving as written: a request's work sleeps, encoding
// between lines 1 and 2, committing between lines 2 and 3, as the paper's
// authors inserted sleeps to trigger their bugs. 20 of 20 runs of go test
// -count=1 fail.
//
// Root cause (explain file): the write-after-write race on t.next at line 2
// between the two goroutines. Execution suppression walks back as in
// Fig. 5: the index t.last at line 4 was defined at line 3 under the lock
// (no race, no violation there: suppress it, and line 4 with it); the next
// failure is line 5's index t.next, last defined at line 2 by goroutine 1;
// goroutine 2's line 2 wrote t.next before it with no synchronization
// between them (a WAW race, also a RAW one), and reversing the two writes
// changes the value written second (4 instead of 7): potentially harmful,
// so it is reported. Both sites are line 2.
package fig4

import (
	"sync"
	"time"
)

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
// the slot reserved; encode and commit stand for the request's own work.
func (t *Table) Reserve(encode, commit time.Duration) int {
	a := pad(t.next) // 1
	work(encode)
	t.next = t.next + a // 2: the race
	work(commit)
	t.mu.Lock()
	t.last = t.next      // 3
	b := t.slots[t.last] // 4: the crash
	t.mu.Unlock()
	c := t.slots[t.next] // 5 // want `may be out of range`
	return b.data + c.data
}

// pad is how far v is from the next multiple of align.
func pad(v int) int { return (align - v%align) % align }

// work stands for a request's work.
func work(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
}

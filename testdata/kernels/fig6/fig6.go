// Package fig6 is the execution-suppression paper's Fig. 6
// (execution-suppression.txt §2.2, Figs. 6 and 7): a crash next to a data
// race whose root cause is a wrong constant three hops upstream, in code
// that would crash on one goroutine too.
//
// Fig. 4's slot table (package fig4) with lines -1, 0 and 6 added: each
// Reserve first sets the table's stride t.stride to the default (line -1:
// the paper's *z, set to a wrong constant, 4 where the table's five slots
// allow at most 2) and starts the cursor t.next at twice the stride (line
// 0); line 1 pads the cursor to the alignment, line 2 writes it back
// without the lock, line 3 derives t.last from it under the lock and line
// 4 reads that slot; line 5 reads the slot at the cursor and line 6 checks
// the stride (the paper's assert_correct_value(*z)).
//
// Every run crashes, whatever the interleaving. The test's requests
// encode for 20 ms between lines 2 and 3, so both goroutines have run lines
// -1 to 2 when the first crashes (the paper's Fig. 7 too):
//
//	goroutine 1                          goroutine 2
//	-1: t.stride = defaultStride   (4)
//	 0: t.next = 2 * t.stride      (8)
//	 1: a := pad(t.next)           (0)
//	 2: t.next = t.next + a        (8)
//	                                     -1, 0, 1, 2 (the same values)
//	 3: t.last = t.next            (8)
//	 4: t.slots[t.last]
//	panic: runtime error: index out of range [8] with length 5
//
// 20 of 20 runs of go test -count=1 fail (a panic ends -count=N at once).
//
// Root cause (explain file): the definition of the stride at line -1. The
// crash is next to a real data race on t.next (lines 0 to 2 and 5 of the
// two goroutines, no lock), but the race is harmless: pad(8) is 0 and
// every write of t.next writes 8, so reversing any two of them changes no
// value. Execution suppression (Fig. 7): line 4's index t.last goes back to
// line 3 (under the lock: no race, suppressed); line 5's index t.next goes
// back to line 2, whose races are harmless (suppressed, and everything that
// reads t.next after it); line 6's check fails on t.stride, which goes back
// to line -1: a write-after-write race with the other goroutine's line -1,
// harmless too (both write 4). Suppressing it leaves no failure, so line -1
// is the answer, three definitions upstream of the crash.
package fig6

import (
	"fmt"
	"sync"
	"time"
)

const (
	align         = 4
	maxStride     = 2
	defaultStride = 4 // the bug: the table's slots allow at most maxStride
)

// Table is a table of aligned slots.
type Table struct {
	mu     sync.Mutex
	stride int // the paper's *z
	next   int // the cursor (the paper's *x), read and written without mu
	last   int // the slot last reserved (the paper's *y), under mu
	slots  []Slot
}

// A Slot is one slot of the table.
type Slot struct{ data int }

// NewTable returns a table of n slots.
func NewTable(n int) *Table {
	t := &Table{slots: make([]Slot, n)}
	for i := range t.slots {
		t.slots[i].data = i
	}
	return t
}

// Reserve resets the table to its default stride, moves the cursor to the
// next aligned slot and returns the data of the slot reserved; encode
// stands for the request's own work.
func (t *Table) Reserve(encode time.Duration) int {
	t.stride = defaultStride // -1: the root cause
	t.next = 2 * t.stride    // 0
	a := pad(t.next)         // 1
	t.next = t.next + a      // 2
	work(encode)
	t.mu.Lock()
	t.last = t.next      // 3
	b := t.slots[t.last] // 4: the crash
	t.mu.Unlock()
	c := t.slots[t.next] // 5 // want `may be out of range`
	// 6: the paper's assert_correct_value(*z)
	if t.stride < 1 || t.stride > maxStride {
		panic(fmt.Sprintf("stride %d out of [1, %d]", t.stride, maxStride))
	}
	return b.data + c.data
}

// pad is how far v is from the next multiple of align.
func pad(v int) int { return (align - v%align) % align }

// work stands for encoding a request.
func work(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
}

// Package lockhelpers holds the lock helpers' cases of TestLockStepHelpers
// and TestSealedHelpers: the rewriter records a helper's lock operation at
// the helper's call, so the two-steps name the calls' lines (marked
// lock:NAME) and a section between a lock helper's call and an unlock
// helper's is judged sealed or kept as one between Lock and Unlock calls.
package lockhelpers

import "sync"

// Table is a lock-per-operation structure whose mutex its helpers take.
type Table struct {
	mu sync.Mutex
	n  int
}

func (t *Table) lock() { // want lock:`lockhelpers.go:\d+$`
	t.mu.Lock()
}

func (t *Table) unlock() { t.mu.Unlock() }

func (t *Table) Get() int { // want Get:`lockhelpers.go:\d+$`
	t.lock() // lock:get
	defer t.unlock()
	return t.n
}

func (t *Table) Set(n int) { // want Set:`lockhelpers.go:\d+$`
	t.lock() // lock:set
	t.n = n
	t.unlock() // sealed: the section stores the argument only
}

// SetIfZero is a check-then-act over two calls: get, then set.
func (t *Table) SetIfZero(n int) { // want SetIfZero:`lockhelpers.go:\d+ .*lockhelpers.go:\d+$`
	if t.Get() == 0 {
		t.Set(n)
	}
}

// Bump updates in place: sealed.
func (t *Table) Bump() { // want Bump:`lockhelpers.go:\d+$`
	t.lock() // lock:bump
	t.n++
	t.unlock() // sealed
}

// Peek carries the value past the unlock: kept.
func (t *Table) Peek() int { // want Peek:`lockhelpers.go:\d+$`
	t.lock() // lock:peek
	n := t.n
	t.unlock() // kept: n is returned
	return n
}

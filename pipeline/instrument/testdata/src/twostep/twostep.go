// Package twostep holds the shapes of the two-step analysis
// (pipeline/instrument twostep.go): each Lock line is marked with the
// operation's name, and the test lists the pairs it must find.
package twostep

import "sync"

// Table is a lock-per-operation structure.
type Table struct {
	mu sync.Mutex
	n  int
}

func (t *Table) Get() int { // want Get:`twostep.go:\d+$`
	t.mu.Lock() // lock:get
	defer t.mu.Unlock()
	return t.n
}

func (t *Table) Set(n int) { // want Set:`twostep.go:\d+$`
	t.mu.Lock() // lock:set
	t.n = n
	t.mu.Unlock()
}

// SetIfZero is a check-then-act over two calls: get, then set.
func (t *Table) SetIfZero(n int) { // want SetIfZero:`twostep.go:\d+ .*twostep.go:\d+$`
	if t.Get() == 0 {
		t.Set(n)
	}
}

// Cache locks the tables it holds: its Get is an operation of its own.
type Cache struct {
	tabs [4]Table
}

func (c *Cache) Get(i int) int { // want Get:`twostep.go:\d+$`
	return c.tabs[i%4].Get()
}

// Sum calls Cache.Get in a loop: get, then get again.
func (c *Cache) Sum() int { // want Sum:`twostep.go:\d+$`
	s := 0
	for i := range 4 {
		s += c.Get(i)
	}
	return s
}

var global Table

// Reset reads and then writes the package-level table: get, then set.
func Reset() { // want Reset:`twostep.go:\d+@twostep.global .*twostep.go:\d+@twostep.global$`
	if global.Get() != 0 {
		global.Set(0)
	}
}

// Copy works on two tables: no two-step.
func Copy(dst, src *Table) { // want Copy:`twostep.go:\d+$`
	dst.Set(src.Get())
}

// Holder reaches its table through a field, loaded twice: set, then get.
type Holder struct {
	t *Table
}

func (h *Holder) Bump() int { // want Bump:`twostep.go:\d+ .*twostep.go:\d+$`
	h.t.Set(1)
	return h.t.Get()
}

// Swap takes its own lock between two others: not the same object.
func Swap(a *Table, b Holder) { // want Swap:`twostep.go:\d+$`
	b.t.Set(a.Get())
}

// Package lockunlock: Lock adds a mutex to the set and Unlock removes it,
// for fields, package variables and mutexes used through sync.Locker.
package lockunlock

import "sync"

func mark() {}

type T struct {
	mu sync.Mutex
	x  int
}

var global sync.Mutex

func (t *T) Field() {
	mark() // want `^held: none$`
	t.mu.Lock()
	mark() // want `^held: T.mu\(w\)$`
	t.x++
	t.mu.Unlock()
	mark() // want `^held: none$`
}

func Global() {
	global.Lock()
	mark() // want `^held: global\(w\)$`
	global.Unlock()
	mark() // want `^held: none$`
}

func (t *T) Nested() {
	global.Lock()
	t.mu.Lock()
	mark() // want `^held: T.mu\(w\), global\(w\)$`
	global.Unlock()
	mark() // want `^held: T.mu\(w\)$`
	t.mu.Unlock()
}

func (t *T) Locker() {
	var l sync.Locker = &t.mu
	l.Lock()
	mark() // want `^held: T.mu\(w\)$`
	l.Unlock()
	mark() // want `^held: none$`
}

func (t *T) Loop(n int) {
	for i := 0; i < n; i++ {
		t.mu.Lock()
		mark() // want `^held: T.mu\(w\)$`
		if i > 3 {
			t.mu.Unlock()
			continue
		}
		mark() // want `^held: T.mu\(w\)$`
		t.mu.Unlock()
	}
	mark() // want `^held: none$`
}

// Package ctxbudget: a goroutine context whose solution holds a lock
// several calls up (InContext), for TestInContextBudget.
package ctxbudget

import "sync"

type T struct {
	mu sync.Mutex
	n  int
}

func New() *T {
	t := &T{}
	go t.loop()
	return t
}

func (t *T) loop() {
	t.mu.Lock()
	t.a()
	t.mu.Unlock()
}

func (t *T) a() { t.Helper() }

// Helper is exported: it holds nothing in the solution over every
// context, and t.mu on loop's goroutines.
func (t *T) Helper() { t.n++ }

// Package callerctx: the lock sets of each goroutine context (InContext).
// An exported method holds nothing in the solution over every context,
// since code importing the package may call it; on the goroutines the
// package starts it holds what every call chain there holds, several
// calls up, through an interface call, a deferred call and recursion. A
// goroutine that starts in the method holds nothing, nor does a method
// whose value is stored, on any goroutine.
package callerctx

import "sync"

func mark() {}

type Handler interface{ Handle() }

type T struct {
	mu sync.Mutex
	h  Handler
}

func New() *T {
	t := &T{}
	t.h = t
	go t.loop()
	go t.bare()
	go t.deferred()
	go t.Helper()
	go t.viaValue()
	return t
}

// Helper is exported: every context's own.
func (t *T) Helper() {
	mark() // want `^held: \(\*T\).Helper none; \(\*T\).bare none; \(\*T\).deferred T.mu\(w\); \(\*T\).loop T.mu\(w\)$`
}

func (t *T) loop() {
	t.mu.Lock()
	t.a()
	t.h.Handle()
	t.Rec(3)
	t.mu.Unlock()
}

func (t *T) a() { t.b() }

func (t *T) b() { t.Helper() }

func (t *T) bare() { t.Helper() }

func (t *T) deferred() {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.Helper()
}

// Handle runs through the Handler interface, under t.mu in loop.
func (t *T) Handle() {
	mark() // want `^held: \(\*T\).loop T.mu\(w\)$`
}

// Rec calls itself, under the lock its caller holds.
func (t *T) Rec(n int) {
	mark() // want `^held: \(\*T\).loop T.mu\(w\)$`
	if n > 0 {
		t.Rec(n - 1)
	}
}

// Hook is set by code importing the package, which may keep what it is
// given and call it later.
var Hook = func(f func()) {}

// Stored's method value goes to Hook: held locks do not carry over, even
// on the goroutine that also calls it directly under t.mu.
func (t *T) Stored() {
	mark() // want `^held: \(\*T\).viaValue none$`
}

func (t *T) viaValue() {
	t.mu.Lock()
	Hook(t.Stored)
	t.Stored()
	t.mu.Unlock()
}

// On the goroutine of code importing the package, an unexported method
// takes the call sites there: Locked calls it under t.mu; only the
// goroutine of leak calls it without.
func (t *T) Locked() {
	t.mu.Lock()
	t.inner()
	t.mu.Unlock()
}

func (t *T) inner() {
	mark() // want `^held: \(\*T\).leak none; caller T.mu\(w\)$`
}

func (t *T) leak() { t.inner() }

// Unlocked is exported: on that goroutine it holds nothing, although the
// package calls it only under t.mu.
func (t *T) Unlocked() {
	mark() // want `^held: caller none$`
}

func Start(t *T) {
	go t.leak()
	t.mu.Lock()
	t.Unlocked()
	t.mu.Unlock()
}

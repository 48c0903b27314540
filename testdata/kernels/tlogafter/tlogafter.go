// Package tlogafter is the t.Log-after-the-test kernel: the Go form
// of a Con-Dangling bug whose released object is a test (precog DESIGN.md,
// "Go's crash shapes", Con-Dangling: t.Log after test end).
//
// A *testing.T is released when its test function returns. TestWatch starts
// a goroutine that logs every event a Watcher reports and returns without
// waiting for it; it sleeps 20 ms instead, which is usually enough
// for the goroutine to log the one event.
//
// Crashing interleaving:
//
//	test goroutine                event goroutine
//	w.Touch("a.txt"); w.Close()
//	time.Sleep(20 * time.Millisecond)
//	S1 return (test completed)
//	                              ev := <-w.Events()
//	                              S2 t.Logf("event %s", ev)
//	                              panic: Log in goroutine after TestWatch
//	                              has completed: event a.txt
//
// The testing package panics only when the test and all its parents are done:
// a late t.Logf that runs while the binary's root test is still running (it
// is done once every selected test has finished) goes to the parent's output
// instead. With TestWatch run alone (go test -run '^TestWatch$', as precog
// record runs it), the root is done microseconds after TestWatch returns, and
// a t.Logf from then until the process exits panics.
package tlogafter

import "sync"

// Watcher reports file change events.
type Watcher struct {
	mu     sync.Mutex
	events chan string
	closed bool
}

// NewWatcher returns a watcher with a small event buffer.
func NewWatcher() *Watcher {
	return &Watcher{events: make(chan string, 4)}
}

// Events returns the channel of change events; it is closed by Close.
func (w *Watcher) Events() <-chan string { return w.events }

// Touch reports a change to name. It must not be called after Close.
func (w *Watcher) Touch(name string) {
	w.events <- name
}

// Close stops the watcher.
func (w *Watcher) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed = true
		close(w.events)
	}
}

// Package tlogafter is the t.Log-after-the-test kernel: the Go form of a
// Con-Dangling bug whose released object is a test (precog DESIGN.md, "Go's
// crash shapes", Con-Dangling: t.Log after test end).
//
// A *testing.T lives until its test function returns. tlogafter_test.go
// starts a goroutine that logs every event a Watcher reports and returns
// without waiting for it: the last events can be logged after the test has
// completed.
//
// Crashing interleaving:
//
//	test goroutine                event goroutine
//	w.Close()                     ev := <-w.Events()  (the last event)
//	return (test completed)
//	                              t.Logf("event %s", ev)
//	                              panic: Log in goroutine after TestWatch
//	                              has completed
//
// The normal schedule usually hides the bug: the event goroutine logs the last
// event before the test function returns.
//
// RIGHT version: TestWatchWaits closes done from the goroutine and receives
// from it before returning.
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

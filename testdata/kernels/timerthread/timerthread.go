// Package timerthread is the Unicorn TimerThread kernel (unicorn.txt Table
// III, extracted from Mozilla): an order violation, pattern P2 of Table I,
// W1(x) R2(x), "an unexpected value is read".
//
// A TimerThread fires its timer on a goroutine of its own (Run), which
// posts the timer's event to the thread the timer belongs to (S2 reads
// tt.target). Shutdown clears tt.target (S1) but does not join the timer
// goroutine first: it assumes the timer fired long ago. The same shape as
// the paper's Fig. 1 (PBZip2: main frees the mutex without
// pthread_join(worker)). Every access to tt.target is locked, so go test
// -race has nothing to say: the bug is the order of two critical sections.
//
// Failing interleaving:
//
//	timer goroutine                  shutdown goroutine
//	                                 S1 tt.target = nil
//	S2 tt.target.Post(ev)   (each access in a critical section of tt.mu)
//	panic: invalid memory address or nil pointer dereference
//
// In the usual schedule the timer fires as soon as it starts, and Shutdown
// comes a while later (the rest of the test's work), so S2 reads the
// thread before S1 clears it (R2 W1: a pair that passing runs have too).
// Perturbation that delays the timer goroutine by more than that gap
// makes Shutdown win.
package timerthread

import "sync"

// Thread is the thread a timer posts its events to.
type Thread struct {
	mu     sync.Mutex
	events []string
}

// Post queues ev on the thread.
func (th *Thread) Post(ev string) {
	th.mu.Lock()
	th.events = append(th.events, ev)
	th.mu.Unlock()
}

// Events returns the events posted so far.
func (th *Thread) Events() []string {
	th.mu.Lock()
	defer th.mu.Unlock()
	return append([]string(nil), th.events...)
}

// TimerThread fires one timer for the thread it was made for.
type TimerThread struct {
	name   string
	mu     sync.Mutex
	target *Thread // nil after Shutdown
}

// NewTimerThread returns a timer thread whose timer posts to target.
func NewTimerThread(name string, target *Thread) *TimerThread {
	return &TimerThread{name: name, target: target}
}

// Run is the timer goroutine: the timer fires and posts its event.
func (tt *TimerThread) Run() {
	ev := tt.name + " fired"
	tt.mu.Lock()
	target := tt.target // S2
	tt.mu.Unlock()
	target.Post(ev) // want `may be nil when`
}

// Shutdown releases the timer thread's target. It should first wait for
// the timer goroutine to finish; it does not.
func (tt *TimerThread) Shutdown() {
	tt.mu.Lock()
	tt.target = nil // S1
	tt.mu.Unlock()
}

// Package mozilla3x is the execution-suppression paper's mozilla-3
// (execution-suppression.txt §4, Tables I and II: XPCOM 0.9.9,
// TimerThread::Shutdown against TimerThread::Run): an order violation
// without a data race whose failure is a hang. (The corpus's mozilla3 is
// the same bug as OSCS's Mozilla-3-O, with the wake-up on a channel; here
// the wake-up is a value, as the paper's condition variable was memory its
// tool traced.)
//
// Run checks that the thread is processing (S1), then, in a later critical
// section, sets t.waiting (S2) and sleeps until t.notified is set: it
// polls the flag under the lock, as a condition variable would be waited
// on, for at most limit (the watchdog: the real thread hung forever, the
// test fails in a bounded time). Shutdown, on another goroutine, clears
// t.processing (S3) and notifies the thread by setting t.notified to
// whether it waits (S4: the real code signals the condition variable only
// if mWaiting). Every access holds t.mu: no data race. The programmer
// assumed Run is asleep before Shutdown comes.
//
// Hanging interleaving (S4 before S2):
//
//	run goroutine                        shutdown goroutine
//	S1 processing := t.processing  (true)
//	                                     S3 t.processing = false
//	                                     S4 t.notified = t.waiting  (false)
//	S2 t.waiting = true
//	R  for !t.notified { ... }     (never set: the watchdog fires)
//	--- FAIL: timer thread never notified
//
// The test's normal schedule hides the bug: Shutdown comes 5 ms after Run
// started, when Run is long asleep (go test -count=50 passes 50 of 50 runs).
// precog test predicts the other order of the critical sections and its
// forced run fails the test, by the watchdog, after the limit (500 ms):
// the failing run precog explain must find by itself.
//
// Root cause (explain file): an order violation between S4 and R. The
// failure is a hang: the run goroutine executes R again and again until
// the watchdog gives up, and R's value, t.notified, is what it waits on
// (the paper's tool, too, took the read a hung thread repeats as the
// failure point). t.notified was last defined at S4 by the shutdown
// goroutine; S4 and R are ordered by t.mu (no race), and the
// run goroutine has no access to t.notified before S4 (no three-access
// pattern), so the paper's check of a two-access order violation applies:
// with S4 after R (Run already asleep), S4 reads t.waiting true and R's next
// poll sees the notification: the failure is avoided. Reversing S4 before
// R's reads is what failed; only the one order works, which makes it an
// order violation, not an atomicity violation.
package mozilla3x

import (
	"errors"
	"sync"
	"time"
)

// ErrHang is what Run returns when no notification came in time: the hang.
var ErrHang = errors.New("timer thread never notified")

// TimerThread is XPCOM's nsTimerThread, reduced to its flags.
type TimerThread struct {
	mu         sync.Mutex
	processing bool
	waiting    bool
	notified   bool // the condition variable's signal (mCondVar)
}

// NewTimerThread returns a thread that is processing.
func NewTimerThread() *TimerThread { return &TimerThread{processing: true} }

// Run processes timers, then sleeps until Shutdown notifies it, for at most
// limit: it returns ErrHang if no notification came by then.
func (t *TimerThread) Run(limit time.Duration) error {
	t.mu.Lock()
	processing := t.processing // S1
	t.mu.Unlock()
	if !processing {
		return nil
	}

	t.mu.Lock()
	t.waiting = true // S2
	t.mu.Unlock()

	deadline := time.Now().Add(limit)
	for {
		t.mu.Lock()
		notified := t.notified // R
		t.mu.Unlock()
		if notified {
			return nil
		}
		if time.Now().After(deadline) {
			return ErrHang
		}
		time.Sleep(time.Millisecond)
	}
}

// Shutdown stops the thread and notifies it if it waits.
func (t *TimerThread) Shutdown() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.processing = false   // S3
	t.notified = t.waiting // S4
}

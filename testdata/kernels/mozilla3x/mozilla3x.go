// Package mozilla3x is the execution-suppression paper's mozilla-3
// (execution-suppression.txt §4, Tables I and II: XPCOM 0.9.9,
// TimerThread::Shutdown against TimerThread::Run): an order violation
// without a data race whose failure is a hang. (The corpus's mozilla3 is
// OSCS's Mozilla-3-O, the same bug with the wake-up on a channel; here the
// wake-up is a pointer in memory, as the paper's condition variable was
// memory its tool traced.)
//
// Run checks that the thread is processing (S1), then, in a later critical
// section, registers the wake-up it waits for in t.waiter (S2: mWaiting)
// and sleeps until Shutdown posts it to t.wakeup (P: it polls under the
// lock, as a condition variable is waited on). Shutdown, on another
// goroutine, clears t.processing (S3) and posts the registered wake-up,
// none if no one waits (S4: the real code signals the condition variable
// only if mWaiting). Every access holds t.mu: no data race. The programmer
// assumed Run is asleep before Shutdown comes.
//
// Hanging interleaving (S4 before S2):
//
//	run goroutine                        shutdown goroutine
//	S1 processing := t.processing  (true)
//	                                     S3 t.processing = false
//	                                     S4 t.wakeup = t.waiter  (nil)
//	S2 t.waiter = &Wakeup{}
//	P  for t.wakeup == nil ...     (the hang: never posted)
//	R  t.wakeup.reason             (the watchdog gave up)
//	panic: runtime error: invalid memory address or nil pointer dereference
//
// The real thread hung forever at P; here the wait is bounded (the
// watchdog: limit, 500 ms in the test) and Run then reads the wake-up it
// assumes came, so the hang ends in a failure at the location it waited
// on, in bounded time. The test's normal schedule hides the bug: Shutdown
// comes 50 ms after Run started, when Run is long asleep (go test -count=50
// passes 50 of 50 runs). precog test predicts the other order of the
// critical sections and its forced run fails the test after the watchdog:
// the failing run precog explain must find by itself.
//
// Root cause (explain file): an order violation between S4 and Run's
// reads of t.wakeup. The nil read at R was last defined at S4 by the
// shutdown goroutine; S4 and Run's reads are ordered by t.mu (no race),
// and the run goroutine has no access to t.wakeup before S4 (no
// three-access pattern), so the paper's check of a two-access order
// violation applies: with S4 after Run's first read at P (Run asleep),
// Shutdown posts the registered wake-up, P sees it and R reads it: the
// failure is avoided. Only that one order works: an order violation, not an
// atomicity violation.
package mozilla3x

import (
	"sync"
	"time"
)

// A Wakeup is the notification that ends Run's sleep.
type Wakeup struct {
	reason string
}

// TimerThread is XPCOM's nsTimerThread, reduced to what Run and Shutdown
// share.
type TimerThread struct {
	mu         sync.Mutex
	processing bool
	waiter     *Wakeup // the wake-up Run waits for (mWaiting)
	wakeup     *Wakeup // the wake-up posted (mCondVar's signal)
}

// NewTimerThread returns a thread that is processing.
func NewTimerThread() *TimerThread { return &TimerThread{processing: true} }

// Run processes timers, then sleeps until Shutdown wakes it, for at most
// limit, and returns why it woke.
func (t *TimerThread) Run(limit time.Duration) string {
	t.mu.Lock()
	processing := t.processing // S1
	t.mu.Unlock()
	if !processing {
		return "stopped"
	}

	t.mu.Lock()
	defer t.mu.Unlock()
	t.waiter = &Wakeup{} // S2
	deadline := time.Now().Add(limit)
	for t.wakeup == nil && time.Now().Before(deadline) { // P
		t.mu.Unlock()
		time.Sleep(time.Millisecond)
		t.mu.Lock()
	}
	return t.wakeup.reason // R: nil if the wake-up never came
}

// Shutdown stops the thread and wakes it if it waits.
func (t *TimerThread) Shutdown() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.processing = false // S3
	t.wakeup = t.waiter  // S4
	if t.wakeup != nil {
		t.wakeup.reason = "shutdown"
	}
}

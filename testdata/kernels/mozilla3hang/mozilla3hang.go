// Package mozilla3hang is the execution-suppression paper's mozilla-3
// (execution-suppression.txt §4, Tables I and II: XPCOM 0.9.9,
// TimerThread::Shutdown against TimerThread::Run) as the paper ran it: an
// order violation without a data race whose failure is a hang, with no
// watchdog. (Package mozilla3x is the same bug with a watchdog that turns
// the hang into a nil dereference.)
//
// Run checks that the thread is processing (S1), then, in a later critical
// section, registers the wake-up it waits for in t.waiter (S2: mWaiting)
// and polls under the lock until Shutdown posts it to t.wakeup (P).
// Shutdown, on another goroutine, clears t.processing (S3) and posts the
// registered wake-up, none if no one waits (S4). Every access holds t.mu:
// no data race. The programmer assumed Run is asleep before Shutdown comes.
//
// Hanging interleaving (S4 before S2):
//
//	run goroutine                        shutdown goroutine
//	S1 processing := t.processing  (true)
//	                                     S3 t.processing = false
//	                                     S4 t.wakeup = t.waiter  (nil)
//	S2 t.waiter = &Wakeup{}
//	P  for t.wakeup == nil ...     (forever)
//
// The test's normal schedule hides the bug: Shutdown comes 5 ms after Run
// started, when Run is long asleep (go test -count=50 passes 50 of 50
// runs). precog test predicts the other order of the critical sections and
// its forced run hangs until the run's time bound.
//
// Root cause (explain file): an order violation between S4 and Run's poll
// of t.wakeup at P. The run is killed at its time bound, with no failing
// statement: the failure point is the read the hung goroutine repeats, P's
// of t.wakeup (the paper's tool, too, killed a run in which one instruction
// executed again and again), last defined at S4 by the shutdown goroutine.
// S4 and P are ordered by t.mu (no race), and the run goroutine has no
// access to t.wakeup before S4 (no three-access pattern); suppressed, S4
// leaves P polling the same location, which is no new failure, so the
// two-access order violation is checked: with S4 after P's first read,
// Shutdown posts the registered wake-up and Run returns.
package mozilla3hang

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

// Run processes timers, then sleeps until Shutdown wakes it, and returns
// why it woke.
func (t *TimerThread) Run() string {
	t.mu.Lock()
	processing := t.processing // S1
	t.mu.Unlock()
	if !processing {
		return "stopped"
	}

	t.mu.Lock()
	defer t.mu.Unlock()
	t.waiter = &Wakeup{}  // S2
	for t.wakeup == nil { // P: forever if the wake-up was posted before S2
		t.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
		t.mu.Lock()
	}
	return t.wakeup.reason
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

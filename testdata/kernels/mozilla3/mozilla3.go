// Package mozilla3 is the Mozilla-3-O / KB3-O kernel (OSCS, oscs.txt Fig. 4
// and Table 2; execution-suppression.txt mozilla-3, TimerThread Shutdown
// against Run): a non-race order violation that hangs.
//
// The timer thread's Run checks that it is still processing, then, in a
// later critical section, sets t.waiting and waits for a notification.
// Shutdown, on another goroutine, clears t.processing and notifies the
// thread only if t.waiting is set. Both flags are only touched under t.mu,
// so there is no data race; but the waiting flag may be checked before it
// is set.
//
// Hanging interleaving (2.3 before 1.4 in the paper):
//
//	timer goroutine (Run)                shutdown goroutine (Shutdown)
//	S1 if !t.processing { return }
//	                                     S3 t.processing = false
//	                                     S4 if t.waiting { notify }  (false: no notification)
//	S2 t.waiting = true
//	wait for the notification: never comes (Run gives up after a timeout
//	and reports ErrHang, where the real thread hung forever)
//
// The test's normal schedule hides the bug: Shutdown runs 2 ms after Run has
// started to wait.
package mozilla3

import (
	"errors"
	"sync"
	"time"
)

// ErrHang is what Run returns when no notification came: the hang.
var ErrHang = errors.New("timer thread never notified")

// TimerThread is Mozilla's nsTimerThread, reduced to its two flags.
type TimerThread struct {
	mu         sync.Mutex
	processing bool
	waiting    bool
	wake       chan struct{}
}

// NewTimerThread returns a thread that is processing.
func NewTimerThread() *TimerThread {
	return &TimerThread{processing: true, wake: make(chan struct{})}
}

// Run waits for the next timer or for Shutdown. limit bounds the wait, so a
// lost notification returns ErrHang instead of hanging the test.
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

	select {
	case <-t.wake:
		return nil
	case <-time.After(limit):
		return ErrHang
	}
}

// Shutdown stops the thread and wakes it if it waits.
func (t *TimerThread) Shutdown() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.processing = false // S3
	if t.waiting {       // S4
		close(t.wake)
	}
}

package shim

import (
	"runtime"
	_ "unsafe" // go:linkname
)

// nanotime is the runtime's monotonic clock. Control measures its waits
// with it, not with time.Now: inside a testing/synctest bubble time.Now
// and timers follow the bubble's virtual clock, which stands still while a
// goroutine held at a gate runs, so a timeout on it would never expire.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// pollUntil waits until ch or giveUp is closed, or nanotime reaches
// deadline, and reports whether a channel was closed. It is the wait of a
// goroutine in a synctest bubble, which must never be durably blocked
// while control holds it (the bubble's clock could advance, and a timer of
// it would be the bubble's): it yields for its first polls, then sleeps
// between polls in a system call (pause), which is not durable blocking
// either and leaves the CPU to the goroutines it waits for.
func pollUntil(ch, giveUp <-chan struct{}, deadline int64) bool {
	for i := 0; ; i++ {
		select {
		case <-ch:
			return true
		case <-giveUp:
			return true
		default:
		}
		now := nanotime()
		if now >= deadline {
			return false
		}
		if i < pollYields {
			runtime.Gosched()
		} else {
			// From 10µs, doubling up to pollPause.
			pause(min(10_000<<min(i-pollYields, 7), pollPause, deadline-now))
		}
	}
}

// pollYields is how many times pollUntil yields before it pauses, and
// pollPause how long a pause is at most (nanoseconds): the latency a
// released goroutine may add once a wait got long. A pause costs the
// runtime a thread hand-off, so pauses much shorter would cost the CPU
// that yielding did.
const (
	pollYields = 100
	pollPause  = 1_000_000
)

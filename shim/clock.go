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
// deadline, yielding rather than blocking, and reports whether a channel
// was closed. It is the wait of a goroutine in a synctest bubble: one that
// yields is running, so the bubble's clock cannot advance while control
// holds it (a blocked one could count as durably blocked, and its timer
// would be the bubble's).
func pollUntil(ch, giveUp <-chan struct{}, deadline int64) bool {
	for {
		select {
		case <-ch:
			return true
		case <-giveUp:
			return true
		default:
		}
		if nanotime() >= deadline {
			return false
		}
		runtime.Gosched()
	}
}

package seatclaim

import (
	"sync"
	"sync/atomic"
)

// Flag is Board with its one member's readiness kept in an atomic: an
// update stores it and loads it back, with no critical section before
// its comparison with Status, and two updates interleave their
// check-then-acts as Board's do:
//
//	Update(false)                        Update(true)
//	ready = false
//	                                     ready = true
//	Status(): false, unchanged: no set
//	                                     Status(): false, not true
//	                                     setStatus(true)
//
// which is right; but with the second update's set forced before the
// first one's comparison, the first finds true and sets false: the flag
// says not ready when its member is.
type Flag struct {
	ready atomic.Bool // the member's readiness

	statusMu sync.RWMutex // guards status
	status   bool         // whether the flag says it is ready
}

// Status reports whether the flag says it is ready.
func (f *Flag) Status() bool {
	f.statusMu.RLock()
	defer f.statusMu.RUnlock()
	return f.status
}

// setStatus sets what the flag says.
func (f *Flag) setStatus(s bool) {
	f.statusMu.Lock()
	f.status = s
	f.statusMu.Unlock()
}

// Update records whether the member is ready, and then the flag's
// status: it compares the status with what it loaded outside statusMu,
// the bug.
func (f *Flag) Update(ready bool) {
	f.ready.Store(ready)
	if s := f.ready.Load(); s != f.Status() {
		f.setStatus(s)
	}
}

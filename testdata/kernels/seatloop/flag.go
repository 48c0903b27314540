package seatloop

import (
	"sync"
	"sync/atomic"
)

// Flag is seatclaim's Flag: its one member's readiness is an atomic that
// Update stores and loads back before it compares the status with
// Status, outside statusMu. Updates made one after the other by one
// goroutine cannot interleave, and a goroutine that loads the atomic and
// then polls Status only reads: it finds the flag as before an update
// or after it, or half updated (the member ready, the status not yet),
// which a poll that waits for both sees as not ready yet. A poller marks
// that it waits in an atomic that Update loads before its comparison
// (review C's waiter): a store of the poller's, no update's step.
type Flag struct {
	ready    atomic.Bool  // the member's readiness
	waiting  atomic.Bool  // whether a poller waits for the flag
	notified atomic.Int32 // updates made while a poller waited

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
// status.
func (f *Flag) Update(ready bool) {
	f.ready.Store(ready)
	s := f.ready.Load()
	if f.waiting.Load() {
		f.notified.Add(1)
	}
	if s != f.Status() {
		f.setStatus(s)
	}
}

// Sync is Flag with its update's comparison and set in one section of
// statusMu, which loads the member there: two updates on two goroutines
// leave the status that the later section loads, the member's last
// value (the member stored before the section that reads it).
type Sync struct {
	ready atomic.Bool // the member's readiness

	statusMu sync.RWMutex // guards status
	status   bool         // whether the flag says it is ready
}

// Status reports whether the flag says it is ready.
func (f *Sync) Status() bool {
	f.statusMu.RLock()
	defer f.statusMu.RUnlock()
	return f.status
}

// Update records whether the member is ready, and then the flag's
// status, compared and set in one section.
func (f *Sync) Update(ready bool) {
	f.ready.Store(ready)
	f.statusMu.Lock()
	if s := f.ready.Load(); s != f.status {
		f.status = s
	}
	f.statusMu.Unlock()
}

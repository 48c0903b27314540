// Package atomicgate holds callbacks that read a variable their starter
// sets after starting them, past a gate: an atomic flag of the starter
// that they find set. Silent when every store that can set the flag comes
// after the write (protoactor's startTimer spins on the flag; a plain
// check of it, an atomic.Bool and a cancel closure made after the write
// do too); reported when a store may set it before the write, when the
// flag starts set, or when the read does not wait for the flag.
package atomicgate

import (
	"runtime"
	"sync/atomic"
	"time"
)

const (
	stateInit = iota
	stateReady
	stateDone
)

// Timer spins until the flag leaves its zero value, which only the store
// after the write and the cancel closure made after it set: silent.
func Timer(d time.Duration, fn func()) func() {
	var t *time.Timer
	var state int32
	t = time.AfterFunc(d, func() {
		for atomic.LoadInt32(&state) == stateInit {
			runtime.Gosched()
		}
		if atomic.LoadInt32(&state) == stateDone {
			return
		}
		fn()
		t.Reset(d)
	})
	atomic.StoreInt32(&state, stateReady)
	return func() {
		if atomic.SwapInt32(&state, stateDone) != stateDone {
			t.Stop()
		}
	}
}

// Checked returns early while the flag is clear: silent.
func Checked(d time.Duration) {
	var t *time.Timer
	var ready atomic.Bool
	t = time.AfterFunc(d, func() {
		if !ready.Load() {
			return
		}
		t.Stop()
	})
	ready.Store(true)
}

// Early sets the flag before the write.
func Early(d time.Duration) {
	var t *time.Timer
	var state int32
	atomic.StoreInt32(&state, stateReady)
	t = time.AfterFunc(d, func() {
		for atomic.LoadInt32(&state) == stateInit {
			runtime.Gosched()
		}
		t.Reset(d) // want `t may be read before it is set`
	})
	atomic.StoreInt32(&state, stateDone)
}

// Cancel sets the flag in a closure made before the write.
func Cancel(d time.Duration) func() {
	var t *time.Timer
	var state int32
	cancel := func() { atomic.StoreInt32(&state, stateDone) }
	t = time.AfterFunc(d, func() {
		for atomic.LoadInt32(&state) == stateInit {
			runtime.Gosched()
		}
		t.Reset(d) // want `t may be read before it is set`
	})
	atomic.StoreInt32(&state, stateReady)
	return cancel
}

// Open waits for the flag to leave a value it never starts with.
func Open(d time.Duration) {
	var t *time.Timer
	var state int32
	t = time.AfterFunc(d, func() {
		for atomic.LoadInt32(&state) == stateReady {
			runtime.Gosched()
		}
		t.Reset(d) // want `t may be read before it is set`
	})
	atomic.StoreInt32(&state, stateReady)
}

// Unwaited reads on the path where the flag is clear.
func Unwaited(d time.Duration) {
	var t *time.Timer
	var ready atomic.Bool
	t = time.AfterFunc(d, func() {
		if ready.Load() {
			return
		}
		t.Stop() // want `t may be read before it is set`
	})
	ready.Store(true)
}

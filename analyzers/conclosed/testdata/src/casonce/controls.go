package casonce

import (
	"sync/atomic"
	"time"
)

// Reset puts state back to pending, so a later CompareAndSwap wins again.
func Reset(timeout time.Duration) <-chan bool {
	var state atomic.Uint32
	permission := make(chan bool, 1)
	resolve := func(result uint32) {
		if !state.CompareAndSwap(pending, result) {
			return
		}
		permission <- true // want `send on closed channel: permission may be closed concurrently by func literal in Reset`
		close(permission)
		state.Store(pending)
	}
	time.AfterFunc(timeout, func() { resolve(canceled) })
	resolve(ready)
	return permission
}

// Outside sends before the CompareAndSwap, whoever wins it.
func Outside(timeout time.Duration) <-chan bool {
	var state atomic.Uint32
	permission := make(chan bool, 1)
	resolve := func(result uint32) {
		permission <- true // want `send on closed channel: permission may be closed concurrently by func literal in Outside`
		if !state.CompareAndSwap(pending, result) {
			return
		}
		close(permission)
	}
	time.AfterFunc(timeout, func() { resolve(canceled) })
	resolve(ready)
	return permission
}

// Two elects one goroutine on each of two variables: both may close.
func Two(timeout time.Duration) <-chan bool {
	var first, second atomic.Uint32
	permission := make(chan bool, 1)
	time.AfterFunc(timeout, func() {
		if first.CompareAndSwap(pending, canceled) {
			close(permission)
		}
	})
	if second.CompareAndSwap(pending, ready) {
		permission <- true // want `send on closed channel: permission may be closed concurrently by func literal in Two`
	}
	return permission
}

// Back may be handed pending by a caller, which makes state pending again.
func Back(timeout time.Duration, to uint32) <-chan bool {
	var state atomic.Uint32
	permission := make(chan bool, 1)
	resolve := func(result uint32) {
		if !state.CompareAndSwap(pending, result) {
			return
		}
		permission <- true // want `send on closed channel: permission may be closed concurrently by func literal in Back`
		close(permission)
	}
	time.AfterFunc(timeout, func() { resolve(to) })
	resolve(ready)
	return permission
}

// Shared closes a channel its caller handed in: two calls elect two
// goroutines that close the same channel.
func Shared(timeout time.Duration, ch chan bool) {
	var state atomic.Uint32
	permission := ch
	resolve := func(result uint32) {
		if !state.CompareAndSwap(pending, result) {
			return
		}
		permission <- true // want `send on closed channel: permission may be closed concurrently by func literal in Shared`
		close(permission)
	}
	time.AfterFunc(timeout, func() { resolve(canceled) })
	resolve(ready)
}

// A task's state goes back to idle on Restart: a second finish wins.
type task struct {
	state atomic.Int32
	out   chan int
}

func (t *task) finish(v int) {
	if t.state.CompareAndSwap(idle, done) {
		t.out <- v // want `send on closed channel: t.out may be closed concurrently by \(\*task\).finish`
		close(t.out)
	}
}

func (t *task) Restart() { t.state.Store(idle) }

func RunTask(t *task) {
	go t.finish(1)
	t.finish(2)
}

// Loaded sends where a Load finds the flag set, which any number of
// goroutines may see.
func Loaded(timeout time.Duration) <-chan bool {
	var state atomic.Bool
	permission := make(chan bool, 1)
	resolve := func() {
		if state.Load() {
			permission <- true // want `send on closed channel: permission may be closed concurrently by func literal in Loaded`
			close(permission)  // want `close of closed channel: permission may also be closed by func literal in Loaded`
		}
	}
	time.AfterFunc(timeout, resolve)
	state.CompareAndSwap(false, true)
	resolve()
	return permission
}

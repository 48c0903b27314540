// Package atomicinit is Transmission (ConMem Fig. 7, Con-UnInit) through
// an atomic.Pointer: Start starts the handle's goroutine and only then
// stores its bandwidth, which the goroutine loads and dereferences. Every
// access is atomic, so there is no data race; the order is the bug.
//
// Crashing interleaving:
//
//	Start's goroutine                     the handle's goroutine
//	go h.run()
//	                                      h.band.Load().limit   (nil)
//	h.band.Store(&Bandwidth{...})
//	panic: runtime error: invalid memory address or nil pointer dereference
//
// The test's normal schedule hides it: the goroutine sleeps two
// milliseconds before its first load, and Start stores right after the go
// statement. In the recorded run the load reads the stored pointer, which
// orders it after the store: con-uninit judges the load without that
// order of its own.
package atomicinit

import (
	"sync/atomic"
	"time"
)

// Bandwidth is a handle's rate limit.
type Bandwidth struct{ limit int }

// Handle runs a transfer at its bandwidth.
type Handle struct {
	band  atomic.Pointer[Bandwidth]
	limit chan int
}

// Start is WRONG: the bandwidth is stored after the go statement.
func Start(delay time.Duration) *Handle {
	h := &Handle{limit: make(chan int, 1)}
	go h.run(delay)
	h.band.Store(&Bandwidth{limit: 10})
	return h
}

func (h *Handle) run(delay time.Duration) {
	time.Sleep(delay)
	h.limit <- h.band.Load().limit
}

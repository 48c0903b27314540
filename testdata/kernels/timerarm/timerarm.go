// Package timerarm is Unicorn's TimerThread (unicorn.txt Table I, P2, an
// order violation) in Go's own idiom: a time.AfterFunc callback reads the
// field that its creator sets from AfterFunc's result. ConMem calls it
// Con-UnInit (the read by the callback's goroutine, with no prior write of
// its own, can come before the creator's initializing write).
//
// Crashing interleaving:
//
//	Arm's goroutine                       the timer's goroutine
//	AfterFunc starts the timer
//	                                      c.timer.Stop()   (c.timer is nil)
//	c.timer = the timer
//	panic: runtime error: invalid memory address or nil pointer dereference
//
// The test's normal schedule hides it: the timer fires 100 ms
// after AfterFunc returns, and Arm stores its result microseconds after.
// The callback runs after everything Arm did before AfterFunc (the setup
// of c.fired), which the shim records as the callback's fork: a race on
// c.fired would be false.
package timerarm

import "time"

// Conn is a connection with an idle timer.
type Conn struct {
	timer *time.Timer
	fired chan bool
}

// Arm starts the idle timer: the callback stops it and reports whether it
// was still pending.
func (c *Conn) Arm(d time.Duration) {
	c.fired = make(chan bool, 1)
	c.timer = time.AfterFunc(d, func() {
		c.fired <- c.timer.Stop() // want `may be read before it is set`
	})
}

package timerarm

import (
	"sync"
	"time"
)

// The RIGHT version, which neither command may report: Arm takes the
// connection's lock before it starts the timer and stores the timer
// before it lets go, and the callback takes the same lock first. The
// callback's goroutine begins inside Arm's critical section, so its own
// section comes after Arm's in every run, even though Arm's store follows
// the start of the timer: detect/oscs orders two sections of one lock
// when one began before the other's access by order synchronization.
// The first run rearms the timer with Reset under the lock (a
// retransmission timer: sipgo's Timer A), so the second run begins inside
// the first's section, which began inside Arm's: the shim records a Reset
// as the fork of the run it schedules.

// LockedConn is Conn with its timer set and read under mu.
type LockedConn struct {
	mu    sync.Mutex
	timer *time.Timer
	runs  int
	fired chan bool
}

// Arm starts the idle timer under the lock; it fires twice.
func (c *LockedConn) Arm(d time.Duration) {
	c.fired = make(chan bool, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timer = time.AfterFunc(d, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.runs++; c.runs == 1 {
			c.timer.Reset(d)
			return
		}
		c.fired <- c.timer.Stop()
	})
}

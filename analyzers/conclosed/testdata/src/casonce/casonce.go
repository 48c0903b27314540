package casonce

import (
	"sync/atomic"
	"time"
)

const pending, ready, canceled = 0, 1, 2

// Init's resolve sends on and closes permission only after winning the
// CompareAndSwap from pending on a variable that never holds pending
// again: whoever loses returns, so one goroutine sends and then closes.
func Init(timeout time.Duration, work func() bool) (bool, <-chan bool) {
	var state atomic.Uint32
	permission := make(chan bool, 1)
	resolve := func(result uint32) bool {
		if !state.CompareAndSwap(pending, result) {
			return false
		}
		if result == ready {
			permission <- true
		}
		close(permission)
		return true
	}
	abort := func() { resolve(canceled) }
	defer abort()
	timer := time.AfterFunc(timeout, abort)
	defer timer.Stop()
	if !work() {
		return false, permission
	}
	return resolve(ready), permission
}

// A job's result is sent and its channel closed by whoever moves its
// state out of idle first; Cancel moves it on too, never back.
type job struct {
	state atomic.Int32
	out   chan int
}

const idle, done, stopped = 0, -1, -2

func (j *job) finish(v int) {
	if j.state.CompareAndSwap(idle, done) {
		j.out <- v
		close(j.out)
	}
}

func (j *job) Cancel() { j.state.Store(stopped) }

func Run(j *job) {
	go j.finish(1)
	j.finish(2)
}

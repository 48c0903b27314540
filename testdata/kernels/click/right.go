package click

import (
	"sync/atomic"
	"time"
)

// The RIGHT version of the same code, which precog vet must not report:
// the thread's timers are dropped only after the master has received the
// driver's exit (close(t.exited)).

// TimerSet holds a thread's pending timers.
type TimerSet struct {
	expired int
}

func (s *TimerSet) runTimers() { s.expired++ }

// timerThread is a router thread that owns a timer set.
type timerThread struct {
	timers *TimerSet
	stop   atomic.Bool
	exited chan struct{}
}

func (t *timerThread) driver() {
	defer close(t.exited)
	for !t.stop.Load() {
		t.timers.runTimers()
		time.Sleep(time.Millisecond)
	}
}

// RunTimers starts n timer threads and then stops them, joining each before
// it drops its timers.
func RunTimers(n int, d time.Duration) {
	var threads []*timerThread
	for range n {
		t := &timerThread{timers: &TimerSet{}, exited: make(chan struct{})}
		threads = append(threads, t)
		go t.driver()
	}
	time.Sleep(d)
	for _, t := range threads {
		t.stop.Store(true)
		<-t.exited
		t.timers = nil
	}
}

// Package click is the Click kernel, con-null part (ConMem, conmem.txt
// Fig. 13 and Sec. 7.5; Click 1.8.0).
//
// The master keeps one metadata object per router thread. When the router is
// killed, the master tells each driver to stop and drops the router the
// thread runs (t.router = nil) before it waits for the driver to exit. A
// driver that passed its stop check reads t.router again and walks its task
// list.
//
// Crashing interleaving:
//
//	master goroutine                driver goroutine
//	                                t.stop.Load() == false
//	t.stop.Store(true)
//	t.router = nil
//	                                range t.router.tasks
//	                                panic: runtime error: invalid memory
//	                                address or nil pointer dereference
//
// The normal schedule hides the bug: the driver is usually inside a task or
// parked in its sleep when the master kills the router, and sees stop first.
//
// RIGHT version in this file: t.timers is dropped only after the master has
// received the driver's exit (close(t.exited)).
package click

import (
	"sync/atomic"
	"time"
)

// Task is a unit of work scheduled on a router thread.
type Task struct {
	name  string
	fired int
}

// Router is a running router configuration.
type Router struct {
	tasks []*Task
}

// TimerSet holds the thread's pending timers.
type TimerSet struct {
	expired int
}

func (s *TimerSet) runTimers() { s.expired++ }

// RouterThread is the per-thread metadata object kept by the master.
type RouterThread struct {
	id     int
	router *Router
	timers *TimerSet
	stop   atomic.Bool
	exited chan struct{}
}

// driver is RouterThread::driver.
func (t *RouterThread) driver() {
	defer close(t.exited)
	for !t.stop.Load() {
		for _, task := range t.router.tasks { // want `may be nil when`
			task.fired++
		}
		t.timers.runTimers()
		time.Sleep(time.Millisecond)
	}
}

// Master owns the router threads.
type Master struct {
	threads []*RouterThread
}

// Start runs one driver per thread over its own router.
func (m *Master) Start(routers []*Router) {
	for i, r := range routers {
		t := &RouterThread{id: i, router: r, timers: &TimerSet{}, exited: make(chan struct{})}
		m.threads = append(m.threads, t)
		go t.driver()
	}
}

// KillRouter stops every thread; it drops the router too early.
func (m *Master) KillRouter() {
	for _, t := range m.threads {
		t.stop.Store(true)
		t.router = nil
		<-t.exited
		t.timers = nil
	}
}

// Run drives the router threads for d, then kills the router.
func Run(routers []*Router, d time.Duration) {
	m := &Master{}
	m.Start(routers)
	time.Sleep(d)
	m.KillRouter()
}

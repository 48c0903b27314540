// Package click is the Click kernel (ConMem, conmem.txt Fig. 13 and
// Sec. 7.5; Click 1.8.0): a Con-Dangling bug found by ConMem in a program
// with no known concurrency bugs.
//
// The master keeps one metadata object per router thread (RouterThread).
// When the router is killed, the master tells each driver to stop and drops
// the router the thread runs (t.router = nil, Go's way of letting it be
// freed) before it waits for the driver to exit. A driver that is still in
// its pass over the router's tasks reads t.router again.
//
// Crashing interleaving:
//
//	master goroutine                driver goroutine
//	close(t.stop)
//	S1 t.router = nil
//	                                S2 range t.router.tasks
//	                                panic: runtime error: invalid memory
//	                                address or nil pointer dereference
//
// The test's normal schedule hides the bug: the router runs for 20 ms before
// it is killed, and the driver makes its one pass over the tasks within
// microseconds of starting and then sleeps until it is woken or stopped.
package click

// Task is a unit of work scheduled on a router thread.
type Task struct {
	name  string
	fired int
}

// Router is a running router configuration.
type Router struct {
	tasks []*Task
}

// NewRouter returns a router with one task per name.
func NewRouter(names ...string) *Router {
	r := &Router{}
	for _, n := range names {
		r.tasks = append(r.tasks, &Task{name: n})
	}
	return r
}

// Fired returns how often each task ran, by name. Call it after KillRouter.
func (r *Router) Fired() map[string]int {
	m := make(map[string]int)
	for _, t := range r.tasks {
		m[t.name] = t.fired
	}
	return m
}

// RouterThread is the per-thread metadata object kept by the master.
type RouterThread struct {
	router *Router
	wake   chan struct{}
	stop   chan struct{}
	exited chan struct{}
}

// driver is RouterThread::driver: run the router's tasks, then sleep until
// woken (more work) or stopped.
func (t *RouterThread) driver() {
	defer close(t.exited)
	for {
		for _, task := range t.router.tasks { // S2 // want `may be nil when`
			task.fired++
		}
		select {
		case <-t.wake:
		case <-t.stop:
			return
		}
	}
}

// Master owns the router threads.
type Master struct {
	threads []*RouterThread
}

// Start runs one driver per router.
func (m *Master) Start(routers ...*Router) {
	for _, r := range routers {
		t := &RouterThread{
			router: r,
			wake:   make(chan struct{}, 1),
			stop:   make(chan struct{}),
			exited: make(chan struct{}),
		}
		m.threads = append(m.threads, t)
		go t.driver()
	}
}

// KillRouter stops every thread; it drops the router too early.
func (m *Master) KillRouter() {
	for _, t := range m.threads {
		close(t.stop)
		t.router = nil // S1
		<-t.exited
	}
	m.threads = nil
}

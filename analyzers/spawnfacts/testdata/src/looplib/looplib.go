// Package looplib has task loops: Loop.Run hands its function to the
// loop's one goroutine, which calls it and then closes the task's done
// channel that Run waits for (pion/ice's internal/taskloop), and gets a
// TaskLoopFact; the others run the function on a goroutine of its own,
// do not wait for it, signal before calling it, or start their loop
// twice per object or in a loop, and get none.
package looplib

import "context"

type task struct {
	fn   func(context.Context)
	done chan struct{}
}

// Loop runs its tasks one at a time on one goroutine.
type Loop struct {
	tasks chan task
	done  chan struct{}
}

func New(onClose func()) *Loop { // want New:`starts goroutines` New:`loopstart\[0\]`
	l := &Loop{tasks: make(chan task), done: make(chan struct{})}
	go l.runLoop(onClose)
	return l
}

func (l *Loop) runLoop(onClose func()) {
	defer func() {
		onClose()
		close(l.done)
	}()
	for {
		select {
		case <-l.done:
			return
		case t := <-l.tasks:
			t.fn(context.Background())
			close(t.done)
		}
	}
}

func (l *Loop) Run(ctx context.Context, f func(context.Context)) error { // want Run:`taskloop\(fn 2, loop 0\)`
	done := make(chan struct{})
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-l.done:
		return context.Canceled
	case l.tasks <- task{f, done}:
		<-done
		return nil
	}
}

// Do is a function of the package that takes the loop as an argument,
// with a plain send.
func Do(f func(context.Context), l *Loop) { // want Do:`taskloop\(fn 0, loop 1\)`
	done := make(chan struct{})
	l.tasks <- task{f, done}
	<-done
}

// Post does not wait for the task.
func (l *Loop) Post(f func(context.Context)) {
	done := make(chan struct{})
	l.tasks <- task{f, done}
}

// Maybe waits only on one path.
func (l *Loop) Maybe(f func(context.Context), wait bool) {
	done := make(chan struct{})
	l.tasks <- task{f, done}
	if wait {
		<-done
	}
}

// Hooked's loop calls its hook on its goroutine (loopstart), but not
// before, which NewHooked calls itself too, nor after, which it runs on a
// goroutine of its own.
type Hooked struct {
	tasks chan task
}

func NewHooked(before, hook, after func()) *Hooked { // want NewHooked:`starts goroutines` NewHooked:`loopstart\[1\]`
	h := &Hooked{tasks: make(chan task)}
	before()
	go h.runLoop(before, hook, after)
	return h
}

func (h *Hooked) runLoop(before, hook, after func()) { // want runLoop:`starts goroutines`
	before()
	for t := range h.tasks {
		hook()
		t.fn(context.Background())
		close(t.done)
	}
	go after()
}

func (h *Hooked) Run(f func(context.Context)) { // want Run:`taskloop\(fn 1, loop 0\)`
	done := make(chan struct{})
	h.tasks <- task{f, done}
	<-done
}

// Spawner's loop runs each task on a goroutine of its own.
type Spawner struct {
	tasks chan task
}

func NewSpawner() *Spawner { // want NewSpawner:`starts goroutines`
	s := &Spawner{tasks: make(chan task)}
	go s.runLoop()
	return s
}

func (s *Spawner) runLoop() { // want runLoop:`starts goroutines`
	for t := range s.tasks {
		go t.fn(context.Background())
		close(t.done)
	}
}

func (s *Spawner) Run(f func(context.Context)) {
	done := make(chan struct{})
	s.tasks <- task{f, done}
	<-done
}

// Early's loop signals done before it calls the task.
type Early struct {
	tasks chan task
}

func NewEarly() *Early { // want NewEarly:`starts goroutines`
	e := &Early{tasks: make(chan task)}
	go e.runLoop()
	return e
}

func (e *Early) runLoop() {
	for {
		t := <-e.tasks
		close(t.done)
		t.fn(context.Background())
	}
}

func (e *Early) Run(f func(context.Context)) {
	done := make(chan struct{})
	e.tasks <- task{f, done}
	<-done
}

// Twice starts two loops on one channel.
type Twice struct {
	tasks chan task
}

func NewTwice() *Twice { // want NewTwice:`starts goroutines`
	w := &Twice{tasks: make(chan task)}
	go w.runLoop()
	go w.runLoop()
	return w
}

func (w *Twice) runLoop() {
	for {
		t := <-w.tasks
		t.fn(context.Background())
		close(t.done)
	}
}

func (w *Twice) Run(f func(context.Context)) {
	done := make(chan struct{})
	w.tasks <- task{f, done}
	<-done
}

// Workers starts its loop in a loop, n goroutines on one channel.
type Workers struct {
	tasks chan task
}

func NewWorkers(n int) *Workers { // want NewWorkers:`starts goroutines`
	w := &Workers{tasks: make(chan task)}
	for range n {
		go w.runLoop()
	}
	return w
}

func (w *Workers) runLoop() {
	for {
		t := <-w.tasks
		t.fn(context.Background())
		close(t.done)
	}
}

func (w *Workers) Run(f func(context.Context)) {
	done := make(chan struct{})
	w.tasks <- task{f, done}
	<-done
}

// Restart starts a second loop later, on the same object.
type Restart struct {
	tasks chan task
}

func NewRestart() *Restart { // want NewRestart:`starts goroutines`
	r := &Restart{tasks: make(chan task)}
	go r.runLoop()
	return r
}

func (r *Restart) Again() { go r.runLoop() } // want Again:`starts goroutines`

func (r *Restart) runLoop() {
	for {
		t := <-r.tasks
		t.fn(context.Background())
		close(t.done)
	}
}

func (r *Restart) Run(f func(context.Context)) {
	done := make(chan struct{})
	r.tasks <- task{f, done}
	<-done
}

// Public's channel is exported: other packages may receive from it.
type Public struct {
	Tasks chan task
}

func NewPublic() *Public { // want NewPublic:`starts goroutines`
	p := &Public{Tasks: make(chan task)}
	go p.runLoop()
	return p
}

func (p *Public) runLoop() {
	for {
		t := <-p.Tasks
		t.fn(context.Background())
		close(t.done)
	}
}

func (p *Public) Run(f func(context.Context)) {
	done := make(chan struct{})
	p.Tasks <- task{f, done}
	<-done
}

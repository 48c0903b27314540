// Package tasklib is a task loop (pion/ice's internal/taskloop): Run
// hands its function to the loop's one goroutine, which calls it and then
// closes the done channel Run waits for. Spawner's loop runs each task on
// a goroutine of its own instead.
package tasklib

import "context"

type task struct {
	fn   func(context.Context)
	done chan struct{}
}

type Loop struct {
	tasks chan task
	done  chan struct{}
}

func New(onClose func()) *Loop {
	l := &Loop{tasks: make(chan task), done: make(chan struct{})}
	go l.runLoop(onClose)
	return l
}

func (l *Loop) runLoop(onClose func()) {
	defer onClose()
	for {
		select {
		case <-l.done:
			return
		case t := <-l.tasks:
			t.fn(l.ctx())
			close(t.done)
		}
	}
}

func (l *Loop) ctx() context.Context { return context.Background() }

func (l *Loop) Close() { close(l.done) }

func (l *Loop) Run(ctx context.Context, f func(context.Context)) error {
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

type Spawner struct {
	tasks chan task
}

func NewSpawner() *Spawner {
	s := &Spawner{tasks: make(chan task)}
	go s.runLoop()
	return s
}

func (s *Spawner) runLoop() {
	for t := range s.tasks {
		go t.fn(context.Background())
		close(t.done)
	}
}

func (s *Spawner) Run(ctx context.Context, f func(context.Context)) error {
	done := make(chan struct{})
	s.tasks <- task{f, done}
	<-done
	return nil
}

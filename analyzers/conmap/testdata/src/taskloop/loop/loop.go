// Package loop has task loops: Loop runs the functions handed to Run one
// at a time on its one goroutine, and calls its onClose there after the
// last; Spawner runs each on a goroutine of its own; Twice starts two
// goroutines on one channel.
package loop

import "context"

type task struct {
	fn   func(context.Context)
	done chan struct{}
}

type Loop struct {
	tasks chan task
	done  chan struct{}
	over  chan struct{}
}

func New(onClose func()) *Loop {
	l := &Loop{tasks: make(chan task), done: make(chan struct{}), over: make(chan struct{})}
	go l.runLoop(onClose)
	return l
}

func (l *Loop) runLoop(onClose func()) {
	defer func() {
		onClose()
		close(l.over)
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

func (l *Loop) Close() {
	close(l.done)
	<-l.over
}

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

type Twice struct {
	tasks chan task
}

func NewTwice() *Twice {
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

func (w *Twice) Run(ctx context.Context, f func(context.Context)) error {
	done := make(chan struct{})
	w.tasks <- task{f, done}
	<-done
	return nil
}

// Package twice: a spawner called twice on one object in one function
// starts its goroutine twice, as a loop would (Main: reported; silent
// before, when only calls in loops made a function repeat). Two objects
// started once each (Two) and one started on either branch (Branch) are
// silent.
package twice

type S struct {
	done chan struct{}
}

func (s *S) run() {
	close(s.done) // want `close of closed channel: s.done may also be closed by \(\*S\).run`
}

func (s *S) Start() { go s.run() }

func New() *S { return &S{done: make(chan struct{})} }

func Main() {
	s := New()
	s.Start()
	s.Start()
	<-s.done
}

type T struct {
	done chan struct{}
}

func (t *T) run() { close(t.done) }

func (t *T) Start() { go t.run() }

func Two() {
	a, b := &T{done: make(chan struct{})}, &T{done: make(chan struct{})}
	a.Start()
	b.Start()
	<-a.done
	<-b.done
}

type U struct {
	done chan struct{}
}

func (u *U) run() { close(u.done) }

func (u *U) Start() { go u.run() }

func Branch(x bool) {
	u := &U{done: make(chan struct{})}
	if x {
		u.Start()
	} else {
		u.Start()
	}
	<-u.done
}

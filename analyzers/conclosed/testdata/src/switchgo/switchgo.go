// Package switchgo: a `go` statement through a function value picked in a
// switch (mpb's refresh listeners) starts one goroutine per run, running
// one of the functions: their closes of one channel are alternatives.
// Silent. Two `go` statements that start two of them, and the same
// statement in a loop, are reported.
package switchgo

type Progress struct {
	done chan struct{}
	quit chan struct{}
}

// New starts one listener, picked by mode.
func New(mode int) *Progress {
	p := &Progress{done: make(chan struct{}), quit: make(chan struct{})}
	var listen func(*Progress)
	switch mode {
	case 0:
		listen = (*Progress).auto
	case 1:
		listen = (*Progress).manual
	default:
		listen = (*Progress).nop
	}
	go listen(p)
	return p
}

func (p *Progress) auto() {
	<-p.quit
	close(p.done)
}

func (p *Progress) manual() {
	<-p.quit
	close(p.done)
}

func (p *Progress) nop() {
	<-p.quit
	close(p.done)
}

// Both starts both listeners of a Twin: they close its channel twice.
func Both() *Twin {
	t := &Twin{done: make(chan struct{})}
	go t.first()
	go t.second()
	return t
}

type Twin struct{ done chan struct{} }

// The two closes are one bug, reported once, at the first.
func (t *Twin) first()  { close(t.done) } // want `close of closed channel: t.done may also be closed by \(\*Twin\).second`
func (t *Twin) second() { close(t.done) }

// Pool starts n listeners of one Pool, picked by mode each time.
func NewPool(n, mode int) *Pool {
	p := &Pool{done: make(chan struct{})}
	listen := (*Pool).a
	if mode == 1 {
		listen = (*Pool).b
	}
	for range n {
		go listen(p)
	}
	return p
}

type Pool struct{ done chan struct{} }

func (p *Pool) a() { close(p.done) } // want `close of closed channel: p.done may also be closed by`
func (p *Pool) b() { close(p.done) } // want `close of closed channel: p.done may also be closed by`

// Package reclonechain: objects that a wrapper of a constructor returns are
// told apart by the wrapper's call site, a clone deeper than the points-to
// analysis's own (the constructor's call inside the wrapper). The same
// object reached on another path that the refinement does not follow as
// far (a load from a package variable) is named by the analysis's clone,
// or by none, and the two names must alias: one connection's read loop
// started on the wrapper's result and on the variable that holds it, and
// a pipe stored in a variable by its constructor and returned again by a
// wrapper of a getter, are reported. Two sessions made through the same
// wrapper, each closed by its own goroutine, are two objects: silent.
package reclonechain

type Conn struct {
	closed chan struct{}
}

func newConn() *Conn { return &Conn{closed: make(chan struct{})} }

func dial() *Conn { return newConn() }

var current *Conn

func (c *Conn) loop() {
	close(c.closed) // want `close of closed channel: c.closed may also be closed by \(\*Conn\).loop`
}

// Start starts the loop twice on one connection.
func Start() {
	c := dial()
	current = c
	go c.loop()
	go current.loop()
}

type Pipe struct {
	done chan struct{}
}

var last *Pipe

func newPipe() *Pipe {
	p := &Pipe{done: make(chan struct{})}
	last = p
	return p
}

func lastPipe() *Pipe { return last }

func getLast() *Pipe { return lastPipe() }

func (p *Pipe) stop() {
	close(p.done) // want `close of closed channel: p.done may also be closed by \(\*Pipe\).stop`
}

// Run stops the pipe it made and the last one made: the same pipe.
func Run() {
	p := newPipe()
	go p.stop()
	go getLast().stop()
}

type Sess struct {
	closed chan struct{}
}

func newSess() *Sess { return &Sess{closed: make(chan struct{})} }

func openSess() *Sess { return newSess() }

func (s *Sess) loop() {
	close(s.closed)
}

// Two starts the loops of two sessions, one each.
func Two() {
	a := openSess()
	b := openSess()
	go a.loop()
	go b.loop()
}

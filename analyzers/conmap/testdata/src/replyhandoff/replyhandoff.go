// Package replyhandoff: pion/dtls's reader and handshake goroutines. The
// reader writes the fragment map, hands a state that carries a done
// channel to the machine and waits for done; the machine touches the map
// only while it holds the state, before it closes done. Nothing is
// reported. Near misses, reported: a reader that does not wait for done,
// and a machine that goes on touching the map after closing it (the near
// misses' readers read the map).
package replyhandoff

type state struct{ done chan struct{} }

type Conn struct {
	frags map[int][]byte
	recv  chan state
	quit  chan struct{}
}

func NewConn() *Conn {
	c := &Conn{frags: map[int][]byte{}, recv: make(chan state), quit: make(chan struct{})}
	go c.reader()
	go c.machine()
	return c
}

func (c *Conn) reader() {
	for i := 0; ; i++ {
		c.frags[i] = nil
		s := state{done: make(chan struct{})}
		select {
		case c.recv <- s:
			<-s.done
		case <-c.quit:
			return
		}
	}
}

func (c *Conn) machine() {
	for {
		select {
		case s := <-c.recv:
			c.parse()
			close(s.done)
		case <-c.quit:
			return
		}
	}
}

func (c *Conn) parse() {
	for k := range c.frags {
		delete(c.frags, k)
	}
}

// NoWait's reader sends the state and goes on.
type nstate struct{ done chan struct{} }

type NoWait struct {
	frags map[int][]byte
	recv  chan nstate
}

func NewNoWait() *NoWait {
	c := &NoWait{frags: map[int][]byte{}, recv: make(chan nstate)}
	go c.reader()
	go c.machine()
	return c
}

func (c *NoWait) reader() {
	for i := 0; ; i++ {
		_ = c.frags[i]
		c.recv <- nstate{done: make(chan struct{})}
	}
}

func (c *NoWait) machine() {
	for s := range c.recv {
		delete(c.frags, 0) // want `concurrent map read and map write: c.frags is written here and read by \(\*NoWait\).reader`
		close(s.done)
	}
}

// Late's machine deletes after it closed done.
type lstate struct{ done chan struct{} }

type Late struct {
	frags map[int][]byte
	recv  chan lstate
}

func NewLate() *Late {
	c := &Late{frags: map[int][]byte{}, recv: make(chan lstate)}
	go c.reader()
	go c.machine()
	return c
}

func (c *Late) reader() {
	for i := 0; ; i++ {
		_ = c.frags[i]
		s := lstate{done: make(chan struct{})}
		c.recv <- s
		<-s.done
	}
}

func (c *Late) machine() {
	for s := range c.recv {
		close(s.done)
		delete(c.frags, 0) // want `concurrent map read and map write: c.frags is written here and read by \(\*Late\).reader`
	}
}

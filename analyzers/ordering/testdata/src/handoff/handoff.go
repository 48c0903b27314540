// Package handoff: a value that carries its reply channel, sent by one
// goroutine that then waits on that channel, held by the receiver until it
// closes it (pion/dtls's reader and handshake goroutines).
package handoff

func a(string) {}
func b(string) {}

type state struct {
	done       chan struct{}
	retransmit bool
}

// Conn's reader pushes data, hands a state to the machine and waits for
// the machine to close its done; the machine parses only while it holds
// the state.
type Conn struct {
	recv chan state
	quit chan struct{}
}

func NewConn() *Conn {
	c := &Conn{recv: make(chan state), quit: make(chan struct{})}
	go c.reader()
	go c.machine()
	return c
}

func (c *Conn) reader() {
	for {
		a("select")
		s := state{done: make(chan struct{}), retransmit: true}
		select {
		case c.recv <- s:
			<-s.done
		case <-c.quit:
			a("after")
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
	c.handle()
	b("after") // want `^after: b before a by hand-off$`
}

func (c *Conn) handle() {
	b("select") // want `^select: ordered by hand-off$`
}

// req is handed by pointer with a plain send, and answered by a send on
// its reply channel.
type req struct {
	reply chan int
}

type Server struct{ in chan *req }

func NewServer() *Server {
	s := &Server{in: make(chan *req)}
	go s.client()
	go s.serve()
	return s
}

func (s *Server) client() {
	for i := 0; i < 3; i++ {
		a("pointer")
		r := &req{reply: make(chan int)}
		s.in <- r
		<-r.reply
	}
}

func (s *Server) serve() {
	for r := range s.in {
		b("pointer") // want `^pointer: ordered by hand-off$`
		r.reply <- 1
	}
}

// NoWait: the sender goes on without waiting for the reply.
type nstate struct{ done chan struct{} }

type NoWait struct{ recv chan nstate }

func NewNoWait() *NoWait {
	c := &NoWait{recv: make(chan nstate)}
	go c.reader()
	go c.machine()
	return c
}

func (c *NoWait) reader() {
	for {
		a("nowait")
		s := nstate{done: make(chan struct{})}
		c.recv <- s
	}
}

func (c *NoWait) machine() {
	for s := range c.recv {
		b("nowait") // want `^nowait: unordered$`
		close(s.done)
	}
}

// AfterClose: the receiver goes on touching the data after the close.
type astate struct{ done chan struct{} }

type AfterClose struct{ recv chan astate }

func NewAfterClose() *AfterClose {
	c := &AfterClose{recv: make(chan astate)}
	go c.reader()
	go c.machine()
	return c
}

func (c *AfterClose) reader() {
	for {
		a("afterclose")
		s := astate{done: make(chan struct{})}
		c.recv <- s
		<-s.done
	}
}

func (c *AfterClose) machine() {
	for s := range c.recv {
		close(s.done)
		b("afterclose") // want `^afterclose: unordered$`
	}
}

// two carries two channels: the sender waits on one, the receiver closes
// the other.
type two struct {
	done, ack chan struct{}
}

type OtherField struct{ recv chan two }

func NewOtherField() *OtherField {
	c := &OtherField{recv: make(chan two)}
	go c.reader()
	go c.machine()
	return c
}

func (c *OtherField) reader() {
	for {
		a("otherfield")
		s := two{done: make(chan struct{}), ack: make(chan struct{})}
		c.recv <- s
		<-s.done
	}
}

func (c *OtherField) machine() {
	for s := range c.recv {
		b("otherfield") // want `^otherfield: unordered$`
		close(s.ack)
	}
}

// OtherValue: the sender waits on the previous value's channel, not the
// one it just sent.
type oreq struct{ reply chan int }

type OtherValue struct{ recv chan *oreq }

func NewOtherValue() *OtherValue {
	c := &OtherValue{recv: make(chan *oreq)}
	go c.reader()
	go c.machine()
	return c
}

func (c *OtherValue) reader() {
	prev := &oreq{reply: make(chan int, 1)}
	prev.reply <- 0
	for {
		a("othervalue")
		r := &oreq{reply: make(chan int)}
		c.recv <- r
		<-prev.reply
		prev = r
	}
}

func (c *OtherValue) machine() {
	for r := range c.recv {
		b("othervalue") // want `^othervalue: unordered$`
		r.reply <- 1
	}
}

// TwoSenders: a second goroutine hands values over too; the receiver may
// hold the other's while the first runs.
type treq struct{ reply chan int }

type TwoSenders struct{ recv chan *treq }

func NewTwoSenders() *TwoSenders {
	c := &TwoSenders{recv: make(chan *treq)}
	go c.reader()
	go c.other()
	go c.machine()
	return c
}

func (c *TwoSenders) reader() {
	for {
		a("twosenders")
		r := &treq{reply: make(chan int)}
		c.recv <- r
		<-r.reply
	}
}

func (c *TwoSenders) other() {
	r := &treq{reply: make(chan int)}
	c.recv <- r
	<-r.reply
}

func (c *TwoSenders) machine() {
	for r := range c.recv {
		b("twosenders") // want `^twosenders: unordered$`
		r.reply <- 1
	}
}

// Client's Do runs on its callers' goroutines, any number at once: one
// caller waiting for its reply does not stop another.
type creq struct{ reply chan int }

type Client struct{ in chan *creq }

func NewClient() *Client {
	c := &Client{in: make(chan *creq)}
	go c.serve()
	return c
}

func (c *Client) Do() {
	r := &creq{reply: make(chan int)}
	c.in <- r
	<-r.reply
	a("caller")
}

func (c *Client) serve() {
	for r := range c.in {
		b("caller") // want `^caller: unordered$`
		r.reply <- 1
	}
}

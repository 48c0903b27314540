// Package onetoken is chromedp's allocated channel: one buffered token,
// taken by each closer before it closes.
package onetoken

// Ctx holds a channel made with one token in it.
type Ctx struct{ allocated chan struct{} }

// NewCtx puts the one token in the channel.
func NewCtx() *Ctx {
	c := &Ctx{allocated: make(chan struct{}, 1)}
	c.allocated <- struct{}{}
	return c
}

// Alloc allocates once per context, by one of two paths; each takes the
// token before it starts the goroutine that closes the channel (one
// receive plain, one in a select): the two close only if a caller takes
// the token twice, the second time after the first close.
type Alloc struct{ keepOpen bool }

func (a *Alloc) Allocate(c *Ctx, done <-chan struct{}) {
	if a.keepOpen {
		a.allocateKeepOpen(c, done)
		return
	}
	<-c.allocated
	go func() {
		<-done
		close(c.allocated) // want `^close of closed channel: c.allocated may also be closed by func literal in \(\*Alloc\).allocateKeepOpen \(low confidence: it assumes that the one token sent on c.allocated is taken twice: each close comes after a receive from it, which completes a second time only once the channel is closed\)$`
	}()
}

func (a *Alloc) allocateKeepOpen(c *Ctx, done <-chan struct{}) {
	select {
	case <-done:
		return
	case <-c.allocated:
	}
	go func() {
		<-done
		close(c.allocated)
	}()
}

// Lease's two paths each take the token before a go statement that
// starts a method closing the channel of its receiver, the same object:
// low confidence too.
type Lease struct{ held chan struct{} }

func NewLease() *Lease {
	l := &Lease{held: make(chan struct{}, 1)}
	l.held <- struct{}{}
	return l
}

func (l *Lease) Acquire(done <-chan struct{}, fast bool) {
	if fast {
		l.acquireFast()
		return
	}
	<-l.held
	go l.release(done)
}

func (l *Lease) acquireFast() {
	<-l.held
	go l.releaseNow()
}

func (l *Lease) release(done <-chan struct{}) {
	<-done
	close(l.held) // want `^close of closed channel: l.held may also be closed by \(\*Lease\).releaseNow \(low confidence: it assumes that the one token sent on l.held is taken twice: each close comes after a receive from it, which completes a second time only once the channel is closed\)$`
}

func (l *Lease) releaseNow() {
	close(l.held)
}

// Conn takes its token before it starts its closer, but its abort path
// closes without it: a real double close, at default confidence.
type Conn struct{ ready chan struct{} }

func NewConn() *Conn {
	c := &Conn{ready: make(chan struct{}, 1)}
	c.ready <- struct{}{}
	return c
}

func (c *Conn) Open(done <-chan struct{}, abort bool) {
	if abort {
		c.abort(done)
		return
	}
	<-c.ready
	go func() {
		<-done
		close(c.ready) // want `^close of closed channel: c.ready may also be closed by func literal in \(\*Conn\).abort$`
	}()
}

func (c *Conn) abort(done <-chan struct{}) {
	go func() {
		<-done
		close(c.ready)
	}()
}

// Pool's slot gets its token back from Put: two takers may each hold a
// token with no close between them (default confidence).
type Pool struct{ slot chan struct{} }

func NewPool() *Pool {
	p := &Pool{slot: make(chan struct{}, 1)}
	p.slot <- struct{}{}
	return p
}

func (p *Pool) Put() { p.slot <- struct{}{} }

func (p *Pool) Take(done <-chan struct{}, other bool) {
	if other {
		p.takeOther(done)
		return
	}
	<-p.slot
	go func() {
		<-done
		close(p.slot) // want `^close of closed channel: p.slot may also be closed by func literal in \(\*Pool\).takeOther$`
	}()
}

func (p *Pool) takeOther(done <-chan struct{}) {
	<-p.slot
	go func() {
		<-done
		close(p.slot)
	}()
}

// Fan takes its token once, then starts a closer per turn of a loop:
// they close without a second take (default confidence).
type Fan struct{ tok chan struct{} }

func NewFan() *Fan {
	f := &Fan{tok: make(chan struct{}, 1)}
	f.tok <- struct{}{}
	return f
}

func (f *Fan) Start(n int) {
	<-f.tok
	for range n {
		go func() {
			close(f.tok) // want `^close of closed channel: f.tok may also be closed by func literal in \(\*Fan\).Start$`
		}()
	}
}

// Job has no token: two goroutines close quit when they see an error
// (default confidence).
type Job struct{ quit chan struct{} }

func (j *Job) Run(errs <-chan error) {
	go func() {
		if <-errs != nil {
			close(j.quit) // want `^close of closed channel: j.quit may also be closed by func literal in \(\*Job\).Run$`
		}
	}()
	go func() {
		if <-errs != nil {
			close(j.quit)
		}
	}()
}

// Slot is Alloc's shape, but Snapshot copies the struct whole: a send on
// the copy's channel would be out of sight, so the pair stays at default
// confidence.
type Slot struct{ tok chan struct{} }

func NewSlot() *Slot {
	s := &Slot{tok: make(chan struct{}, 1)}
	s.tok <- struct{}{}
	return s
}

func (s *Slot) Snapshot() Slot { return *s }

func (s *Slot) Take(done <-chan struct{}, other bool) {
	if other {
		s.takeOther(done)
		return
	}
	<-s.tok
	go func() {
		<-done
		close(s.tok) // want `^close of closed channel: s.tok may also be closed by func literal in \(\*Slot\).takeOther$`
	}()
}

func (s *Slot) takeOther(done <-chan struct{}) {
	<-s.tok
	go func() {
		<-done
		close(s.tok)
	}()
}

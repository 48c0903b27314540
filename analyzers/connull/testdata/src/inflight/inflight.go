// Package inflight: a connection that writes one frame at a time, either
// on its serve loop or, for a large frame, on a goroutine of its own. A
// flag set before the goroutine starts, and cleared only once the serve
// loop has received the goroutine's report, keeps at most one writer in
// flight: the buffer the writer releases is not in use by the serve loop
// or by the next writer. Silent; a connection whose writers report on the
// channel without the flag guarding their start is reported.
package inflight

type buffer struct{ n int }

func (b *buffer) Available() int { return 4096 - b.n }
func (b *buffer) Flush() error   { b.n = 0; return nil }

type bufferedWriter struct{ bw *buffer }

func (w *bufferedWriter) Available() int {
	if w.bw == nil {
		return 4096
	}
	return w.bw.Available()
}

func (w *bufferedWriter) Flush() error {
	bw := w.bw
	if bw == nil {
		return nil
	}
	err := bw.Flush()
	w.bw = nil
	return err
}

type frame struct{ size int }

// Conn writes frames one at a time.
type Conn struct {
	w       *bufferedWriter
	writing bool
	wroteCh chan error
	frames  chan frame
}

// NewConn starts the connection's serve loop.
func NewConn() *Conn {
	c := &Conn{w: &bufferedWriter{bw: &buffer{}}, wroteCh: make(chan error, 1), frames: make(chan frame)}
	go c.serve()
	return c
}

// Send hands a frame to the serve loop.
func (c *Conn) Send(f frame) { c.frames <- f }

func (c *Conn) serve() {
	for {
		select {
		case f := <-c.frames:
			c.startWrite(f)
		case err := <-c.wroteCh:
			c.wrote(err)
		}
	}
}

func (c *Conn) startWrite(f frame) {
	if c.writing {
		panic("one frame at a time")
	}
	c.writing = true
	if f.size <= c.w.Available() {
		c.wrote(c.w.Flush())
	} else {
		go c.writeAsync()
	}
}

func (c *Conn) writeAsync() {
	err := c.w.Flush()
	c.wroteCh <- err
}

func (c *Conn) wrote(err error) {
	if !c.writing {
		panic("no frame in flight")
	}
	c.writing = false
}

type eagerWriter struct{ bw *buffer }

func (w *eagerWriter) Available() int {
	if w.bw == nil {
		return 4096
	}
	return w.bw.Available() // want `w.bw may be nil when used to call \(\*buffer\).Available here: \(\*eagerWriter\).Flush stores nil to it concurrently`
}

func (w *eagerWriter) Flush() error {
	bw := w.bw
	if bw == nil {
		return nil
	}
	err := bw.Flush()
	w.bw = nil
	return err
}

// Eager writes without the flag: a frame can start while the last
// writer still flushes.
type Eager struct {
	w       *eagerWriter
	wroteCh chan error
	frames  chan frame
}

// NewEager starts the eager connection's serve loop.
func NewEager() *Eager {
	e := &Eager{w: &eagerWriter{bw: &buffer{}}, wroteCh: make(chan error, 1), frames: make(chan frame)}
	go e.serve()
	return e
}

// Send hands a frame to the serve loop.
func (e *Eager) Send(f frame) { e.frames <- f }

func (e *Eager) serve() {
	for {
		select {
		case f := <-e.frames:
			e.startWrite(f)
		case <-e.wroteCh:
		}
	}
}

func (e *Eager) startWrite(f frame) {
	if f.size <= e.w.Available() {
		return
	}
	go e.writeAsync()
}

func (e *Eager) writeAsync() {
	err := e.w.Flush()
	e.wroteCh <- err
}

type hastyWriter struct{ bw *buffer }

func (w *hastyWriter) Available() int {
	if w.bw == nil {
		return 4096
	}
	return w.bw.Available() // want `w.bw may be nil when used to call \(\*buffer\).Available here: \(\*hastyWriter\).Flush stores nil to it concurrently`
}

func (w *hastyWriter) Flush() error {
	bw := w.bw
	if bw == nil {
		return nil
	}
	err := bw.Flush()
	w.bw = nil
	return err
}

// Hasty has the flag, but its serve loop also clears it on a timeout,
// without the writer's report: the next frame can start while the
// writer still flushes.
type Hasty struct {
	w       *hastyWriter
	writing bool
	wroteCh chan error
	frames  chan frame
	timeout chan bool
}

// NewHasty starts the hasty connection's serve loop.
func NewHasty() *Hasty {
	h := &Hasty{w: &hastyWriter{bw: &buffer{}}, wroteCh: make(chan error, 1), frames: make(chan frame), timeout: make(chan bool)}
	go h.serve()
	return h
}

// Send hands a frame to the serve loop.
func (h *Hasty) Send(f frame) { h.frames <- f }

// Timeout tells the serve loop to give up on the frame in flight.
func (h *Hasty) Timeout() { h.timeout <- true }

func (h *Hasty) serve() {
	for {
		select {
		case f := <-h.frames:
			h.startWrite(f)
		case <-h.wroteCh:
			h.writing = false
		case <-h.timeout:
			h.writing = false
		}
	}
}

func (h *Hasty) startWrite(f frame) {
	if h.writing {
		return
	}
	h.writing = true
	if f.size <= h.w.Available() {
		h.w.Flush()
		h.writing = false
	} else {
		go h.writeAsync()
	}
}

func (h *Hasty) writeAsync() {
	err := h.w.Flush()
	h.wroteCh <- err
}

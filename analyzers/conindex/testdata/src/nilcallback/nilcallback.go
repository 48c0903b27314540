// Package nilcallback is readline's RuneBuffer (held-out rehearsal 44's
// B): Refresh runs its function argument, if any, under the buffer's
// lock. The loop goroutine passes closures that slice the buffer by its
// index, and resets the buffer unlocked; Redraw, which any goroutine may
// call, passes nil, so no closure runs off the loop: silent. A goroutine
// NewOp starts passes a closure of its own: reported.
package nilcallback

import "sync"

type Buf struct {
	mu  sync.Mutex
	buf []rune
	idx int
}

func (r *Buf) Refresh(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f != nil {
		f()
	}
}

func (r *Buf) kill() {
	r.Refresh(func() { r.buf = r.buf[:r.idx] })
}

func (r *Buf) reset() []rune {
	ret := append([]rune(nil), r.buf...)
	r.buf = r.buf[:0]
	r.idx = 0
	return ret
}

type Op struct {
	buf *Buf
	in  chan rune
	out chan []rune
}

func NewOp() *Op {
	op := &Op{buf: &Buf{}, in: make(chan rune), out: make(chan []rune)}
	go op.loop()
	go op.buf.Refresh(func() {
		op.buf.buf = op.buf.buf[:op.buf.idx] // want `may be out of range: op.buf.idx is written concurrently by \(\*Buf\).reset`
	})
	return op
}

func (o *Op) loop() {
	for r := range o.in {
		if r == '\n' {
			o.out <- o.buf.reset()
		} else {
			o.buf.kill()
		}
	}
}

// Redraw may be called from any goroutine.
func (o *Op) Redraw() { o.buf.Refresh(nil) }

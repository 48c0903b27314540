// Package setternil: a setter stores its parameter into a field that
// another goroutine reads; a call that passes nil stores nil there.
package setternil

import "sync"

// Emitter's SetHook(nil), on a goroutine while Emit runs, clears the hook
// Emit re-reads after its check.
type Emitter struct {
	mu   sync.Mutex
	hook func(string)
}

func (e *Emitter) SetHook(h func(string)) {
	e.mu.Lock()
	e.hook = h
	e.mu.Unlock()
}

func (e *Emitter) Emit(s string) {
	if e.hook != nil {
		e.hook(s) // want `e.hook may be nil when called here: \(\*Emitter\).SetHook stores nil to it concurrently`
	}
}

func RunEmitter(e *Emitter) {
	e.SetHook(func(string) {})
	go e.Emit("x")
	e.SetHook(nil)
}

// Valued's setter is only ever called with a function: silent.
type Valued struct {
	hook func(string)
}

func (v *Valued) SetHook(h func(string)) { v.hook = h }

func (v *Valued) Emit(s string) {
	if v.hook != nil {
		v.hook(s)
	}
}

func RunValued(v *Valued) {
	go v.Emit("x")
	v.SetHook(func(string) {})
}

// Defaulted's setter replaces nil by a default: it never stores nil,
// whatever it is passed: silent.
type Defaulted struct {
	hook func(string)
}

func (d *Defaulted) SetHook(h func(string)) {
	if h == nil {
		h = func(string) {}
	}
	d.hook = h
}

func (d *Defaulted) Emit(s string) {
	if d.hook != nil {
		d.hook(s)
	}
}

func RunDefaulted(d *Defaulted) {
	go d.Emit("x")
	d.SetHook(nil)
}

// Checked's setter stores only a function that is not nil: silent.
type Checked struct {
	hook func(string)
}

func (c *Checked) SetHook(h func(string)) {
	if h != nil {
		c.hook = h
	}
}

func (c *Checked) Emit(s string) {
	if c.hook != nil {
		c.hook(s)
	}
}

func RunChecked(c *Checked) {
	go c.Emit("x")
	c.SetHook(nil)
}

// Early is cleared with nil before its goroutine starts and set to a
// function while it runs: the nil call is ordered before the reads:
// silent.
type Early struct {
	hook func(string)
}

func (e *Early) SetHook(h func(string)) { e.hook = h }

func (e *Early) Emit(s string) {
	if e.hook != nil {
		e.hook(s)
	}
}

func RunEarly(e *Early) {
	e.SetHook(nil)
	go e.Emit("x")
	e.SetHook(func(string) {})
}

// Guarded's reader holds the lock across its check and call, and the
// nil call holds it too: silent. The setter takes no lock itself.
type Guarded struct {
	mu      sync.Mutex
	handler *handler
}

type handler struct{ n int }

func (g *Guarded) setHandler(h *handler) { g.handler = h }

func (g *Guarded) Serve() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.handler != nil {
		return g.handler.n
	}
	return 0
}

func (g *Guarded) Detach() {
	g.mu.Lock()
	g.setHandler(nil)
	g.mu.Unlock()
}

// Unguarded is Guarded with a Detach that does not lock: reported.
type Unguarded struct {
	mu      sync.Mutex
	handler *handler
}

func (u *Unguarded) setHandler(h *handler) { u.handler = h }

func (u *Unguarded) Serve() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.handler != nil {
		return u.handler.n // want `u.handler may be nil when dereferenced here: \(\*Unguarded\).setHandler stores nil to it concurrently`
	}
	return 0
}

func (u *Unguarded) Detach() { u.setHandler(nil) }

func (u *Unguarded) Attach() {
	u.mu.Lock()
	u.setHandler(&handler{})
	u.mu.Unlock()
}

// Listener's Init(nil) is called only by a test (setternil_test.go):
// when it runs, relative to the goroutines it caused, is the test's
// protocol, so the pair rests on that (shown only with -all).
type Listener struct {
	log *handler
}

func (l *Listener) Init(log *handler) { l.log = log }

func (l *Listener) Serve() int { return l.log.n }

func (l *Listener) Start() { go l.Serve() }

func RunGuards(g *Guarded, u *Unguarded) {
	go g.Serve()
	go g.Detach()
	go u.Serve()
	go u.Detach()
	u.Attach()
}

// Package chanlock: a channel of capacity 1 whose send acquires and whose
// receive releases is a mutex (coder/websocket's mu): a plain send holds
// it, a send that is one case of a select holds it on that case's branch
// only, and a try or a lock that may fail holds it where its caller found
// it succeeded. A channel that is also received from where it is not
// held, made with another capacity, or closed, is no mutex.
package chanlock

import (
	"context"
	"errors"
	"fmt"
)

func mark() {}

type Conn struct {
	closed  chan struct{}
	readMu  *mu
	signal  chan struct{}
	buffer  chan int
	done    chan struct{}
	counter int
}

type mu struct {
	c  *Conn
	ch chan struct{}
}

func newMu(c *Conn) *mu {
	return &mu{c: c, ch: make(chan struct{}, 1)}
}

var errClosed = errors.New("closed")

func (m *mu) forceLock() {
	m.ch <- struct{}{}
}

func (m *mu) tryLock() bool {
	select {
	case m.ch <- struct{}{}:
		return true
	default:
		return false
	}
}

func (m *mu) lock(ctx context.Context) error {
	select {
	case <-m.c.closed:
		return errClosed
	case <-ctx.Done():
		return fmt.Errorf("failed to acquire lock: %w", ctx.Err())
	case m.ch <- struct{}{}:
		select {
		case <-m.c.closed:
			m.unlock()
			return errClosed
		default:
		}
		return nil
	}
}

func (m *mu) unlock() {
	select {
	case <-m.ch:
	default:
	}
}

func NewConn() *Conn {
	c := &Conn{
		closed: make(chan struct{}),
		signal: make(chan struct{}, 1),
		buffer: make(chan int, 2),
		done:   make(chan struct{}, 1),
	}
	c.readMu = newMu(c)
	return c
}

func (c *Conn) Read(ctx context.Context) error {
	err := c.readMu.lock(ctx)
	if err != nil {
		mark() // want `^held: none$`
		return err
	}
	defer c.readMu.unlock()
	mark() // want `^held: mu.ch\(w\)$`
	return nil
}

func (c *Conn) TryRead() {
	if !c.readMu.tryLock() {
		mark() // want `^held: none$`
		return
	}
	mark() // want `^held: mu.ch\(w\)$`
	c.readMu.unlock()
	mark() // want `^held: none$`
}

func (c *Conn) Close() {
	c.readMu.forceLock()
	mark() // want `^held: mu.ch\(w\)$`
}

// Maybe sends in a select with a default: where the default ran, nothing
// was sent.
func (c *Conn) Maybe() {
	select {
	case c.readMu.ch <- struct{}{}:
		mark() // want `^held: mu.ch\(w\)$`
	default:
		mark() // want `^held: none$`
	}
	mark() // want `^held: none$`
}

// Notify and Wait use signal as a wake-up: Wait receives what Notify
// sent, on another goroutine, so a send does not exclude anything.
func (c *Conn) Notify() {
	c.signal <- struct{}{}
	mark() // want `^held: none$`
}

func (c *Conn) Wait() {
	<-c.signal
	c.counter++
}

// buffer holds two values: two senders pass at once.
func (c *Conn) Put() {
	c.buffer <- 1
	mark() // want `^held: none$`
	<-c.buffer
}

// done is closed: every receive passes then.
func (c *Conn) Finish() {
	c.done <- struct{}{}
	mark() // want `^held: none$`
	<-c.done
	close(c.done)
}

// A captured channel of capacity 1 used as a mutex by the goroutines of
// one call.
func Captured() {
	sem := make(chan struct{}, 1)
	n := 0
	for range 2 {
		go func() {
			sem <- struct{}{}
			mark() // want `^held: sem\(w\)$`
			n++
			<-sem
			mark() // want `^held: none$`
		}()
	}
}

// handle releases readMu only where it fails (a close frame: unlock, then
// an error), so a caller that tested the error still holds readMu where
// it found it nil.
func (c *Conn) handle(closing bool) error {
	if closing {
		c.readMu.unlock()
		return errClosed
	}
	return nil
}

// loop hands handle's error up: it too releases only where it fails.
func (c *Conn) loop(closing bool) error {
	err := c.handle(closing)
	if err != nil {
		return err
	}
	return nil
}

func (c *Conn) Next(ctx context.Context, closing bool) error {
	err := c.readMu.lock(ctx)
	if err != nil {
		return err
	}
	defer c.readMu.unlock()
	for {
		err = c.loop(closing)
		if err != nil {
			mark() // want `^held: none$`
			return err
		}
		mark() // want `^held: mu.ch\(w\)$`
	}
}

// handleDeferred is handle with a named result and a deferred call (a
// context's cancel): go/ssa keeps err in memory then, and each return
// stores to it, runs the defers and loads it back. The defers cannot
// reach err, so the reloads return what was stored: it still releases
// readMu only where it fails.
func (c *Conn) handleDeferred(ctx context.Context, closing bool) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if closing {
		err = fmt.Errorf("received close: %w", errClosed)
		c.readMu.unlock()
		return err
	}
	err = c.check(ctx)
	if err != nil {
		return err
	}
	return nil
}

func (c *Conn) check(ctx context.Context) error { return ctx.Err() }

// handleCleared's deferred closure may set err to nil after the unlock:
// it releases where it succeeds too.
func (c *Conn) handleCleared(closing bool) (err error) {
	defer func() {
		if c.counter > 0 {
			err = nil
		}
	}()
	if closing {
		c.readMu.unlock()
		return errClosed
	}
	return nil
}

// handleWrapped hands &err to a deferred call the check does not read:
// taken as releasing where it succeeds too (errd.Wrap keeps a failure a
// failure, but nothing here knows it).
func (c *Conn) handleWrapped(closing bool) (err error) {
	defer wrap(&err)
	if closing {
		c.readMu.unlock()
		return errClosed
	}
	return nil
}

func wrap(err *error) {
	if *err != nil {
		*err = fmt.Errorf("handle: %w", *err)
	}
}

func (c *Conn) NextDeferred(ctx context.Context, closing bool) error {
	if err := c.readMu.lock(ctx); err != nil {
		return err
	}
	defer c.readMu.unlock()
	if err := c.handleDeferred(ctx, closing); err != nil {
		mark() // want `^held: none$`
		return err
	}
	mark() // want `^held: mu.ch\(w\)$`
	if err := c.handleCleared(closing); err != nil {
		return err
	}
	mark() // want `^held: none$`
	return nil
}

// handleZero's close path may return err's zero value (nil) after the
// unlock: it releases where it succeeds too.
func (c *Conn) handleZero(ctx context.Context, closing bool) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if closing {
		c.readMu.unlock()
		if ctx.Err() != nil {
			err = errClosed
		}
		return
	}
	return nil
}

func (c *Conn) NextZero(ctx context.Context, closing bool) error {
	if err := c.readMu.lock(ctx); err != nil {
		return err
	}
	defer c.readMu.unlock()
	if err := c.handleZero(ctx, closing); err != nil {
		return err
	}
	mark() // want `^held: none$`
	return nil
}

func (c *Conn) NextWrapped(ctx context.Context, closing bool) error {
	if err := c.readMu.lock(ctx); err != nil {
		return err
	}
	defer c.readMu.unlock()
	if err := c.handleWrapped(closing); err != nil {
		return err
	}
	mark() // want `^held: none$`
	return nil
}

// drop releases readMu where it succeeds too: its caller holds nothing
// after it.
func (c *Conn) drop(closing bool) error {
	c.readMu.unlock()
	if closing {
		return errClosed
	}
	return nil
}

func (c *Conn) Drop(ctx context.Context) error {
	if err := c.readMu.lock(ctx); err != nil {
		return err
	}
	if err := c.drop(false); err != nil {
		return err
	}
	mark() // want `^held: none$`
	return nil
}

// A channel of capacity 1 whose maker also hands it to a goroutine, which
// receives from it as a signal: no mutex.
type Worker struct {
	kick chan struct{}
	n    int
}

func NewWorker() *Worker {
	k := make(chan struct{}, 1)
	w := &Worker{kick: k}
	go w.drain(k)
	return w
}

func (w *Worker) drain(k chan struct{}) {
	for range k {
		w.n++
	}
}

func (w *Worker) Kick() {
	w.kick <- struct{}{}
	mark() // want `^held: none$`
}

// Life is a token lock (open-feature's multi-provider lifecycleLock): its
// maker puts the one token in, a receive takes it (in a select with
// ctx.Done, the lock held in that case's body only) and a send gives it
// back.
type Life struct {
	lock chan struct{}
	stop func()
}

func NewLife() *Life {
	l := make(chan struct{}, 1)
	l <- struct{}{}
	return &Life{lock: l}
}

func (l *Life) lockCtx(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		mark() // want `^held: none$`
		return ctx.Err()
	case <-l.lock:
		mark() // want `^held: Life.lock\(w\)$`
		return nil
	}
}

func (l *Life) unlock() { l.lock <- struct{}{} }

func (l *Life) Init(ctx context.Context) error {
	mark() // want `^held: none$`
	if err := l.lockCtx(ctx); err != nil {
		mark() // want `^held: none$`
		return err
	}
	defer l.unlock()
	mark() // want `^held: Life.lock\(w\)$`
	l.stop = nil
	return nil
}

// Shutdown takes the token with a plain receive; where it gives the token
// back on one path only, nothing is held past the join.
func (l *Life) Shutdown(early bool) {
	<-l.lock
	mark() // want `^held: Life.lock\(w\)$`
	if early {
		l.unlock()
	}
	mark() // want `^held: none$`
}

// Gate is a token lock whose maker puts the token in through the field
// of the object it has just made (kcp-go's sess.writeGate).
type Gate struct {
	gate chan struct{}
}

func NewGate() *Gate {
	g := new(Gate)
	g.gate = make(chan struct{}, 1)
	g.gate <- struct{}{}
	return g
}

// NewGateWatched's g is captured by a closure that only reads it: each
// g.gate loads g from its variable, which holds the Gate just made.
func NewGateWatched() (*Gate, func() int) {
	g := new(Gate)
	g.gate = make(chan struct{}, 1)
	g.gate <- struct{}{}
	return g, func() int { return len(g.gate) }
}

func (g *Gate) Write() {
	select {
	case <-g.gate:
	default:
		mark() // want `^held: none$`
		return
	}
	mark() // want `^held: Gate.gate\(w\)$`
	g.gate <- struct{}{}
	mark() // want `^held: none$`
}

// A captured variable as a token lock: the goroutines of one call take
// turns. The token goes in through the variable, after the store.
func CapturedToken() {
	gate := make(chan struct{}, 1)
	gate <- struct{}{}
	n := 0
	for range 2 {
		go func() {
			<-gate
			mark() // want `^held: gate\(w\)$`
			n++
			gate <- struct{}{}
			mark() // want `^held: none$`
		}()
	}
}

// None of these is a token lock: Pair's channel holds two tokens, Shut's
// is closed, Extra's gets a token from a goroutine that took none, Pool's
// token is a value handed on, Reset's maker puts the token in on an
// object it did not make.
type Pair struct{ ch chan struct{} }

func NewPair() *Pair {
	c := make(chan struct{}, 2)
	c <- struct{}{}
	return &Pair{ch: c}
}

func (p *Pair) Use() {
	<-p.ch
	mark() // want `^held: none$`
	p.ch <- struct{}{}
}

type Shut struct{ ch chan struct{} }

func NewShut() *Shut {
	c := make(chan struct{}, 1)
	c <- struct{}{}
	return &Shut{ch: c}
}

func (s *Shut) Use() {
	<-s.ch
	mark() // want `^held: none$`
	s.ch <- struct{}{}
}

func (s *Shut) Close() { close(s.ch) }

type Extra struct{ ch chan struct{} }

func NewExtra() *Extra {
	c := make(chan struct{}, 1)
	c <- struct{}{}
	return &Extra{ch: c}
}

func (e *Extra) Use() {
	<-e.ch
	mark() // want `^held: none$`
	e.ch <- struct{}{}
}

func (e *Extra) Kick() { e.ch <- struct{}{} }

type Pool struct{ ch chan *Conn }

func NewPool() *Pool {
	c := make(chan *Conn, 1)
	c <- NewConn()
	return &Pool{ch: c}
}

func (p *Pool) Use() {
	c := <-p.ch
	mark() // want `^held: none$`
	c.counter++
	p.ch <- c
}

type Reset struct{ ch chan struct{} }

func (r *Reset) Reset() {
	r.ch = make(chan struct{}, 1)
	r.ch <- struct{}{}
}

func (r *Reset) Use() {
	<-r.ch
	mark() // want `^held: none$`
	r.ch <- struct{}{}
}

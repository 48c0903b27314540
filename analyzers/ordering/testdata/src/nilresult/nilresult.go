// Package nilresult: a callee that returns a nil error only after a
// receive orders the caller's code that runs only when the call returned
// nil (go-coap's qBlockCapability after waitQBlockCapability).
package nilresult

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

func a(string) {}
func b(string) {}

func wait(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
		return nil
	}
}

func NotNil(ctx context.Context) {
	ch := make(chan struct{})
	go func() {
		a("not nil")
		close(ch)
	}()
	if err := wait(ctx, ch); err != nil {
		b("not nil") // want `^not nil: unordered$`
		return
	}
	b("not nil") // want `^not nil: a before b by channel$`
}

func IsNil(ctx context.Context) {
	ch := make(chan struct{})
	go func() {
		a("is nil")
		close(ch)
	}()
	if err := wait(ctx, ch); err == nil {
		b("is nil") // want `^is nil: a before b by channel$`
	}
}

// The error is not checked: the call may have returned ctx.Err().
func Unchecked(ctx context.Context) {
	ch := make(chan struct{})
	go func() {
		a("unchecked")
		close(ch)
	}()
	_ = wait(ctx, ch)
	b("unchecked") // want `^unchecked: unordered$`
}

// A pair's error: (T, error).
func waitValue(ctx context.Context, ch <-chan int) (int, error) {
	select {
	case v := <-ch:
		return v, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("waiting: %w", ctx.Err())
	}
}

func Pair(ctx context.Context) {
	ch := make(chan int)
	go func() {
		a("pair")
		ch <- 1
	}()
	v, err := waitValue(ctx, ch)
	if err != nil {
		return
	}
	_ = v
	b("pair") // want `^pair: a before b by channel$`
}

var errStopped = errors.New("stopped")

// Sentinel errors and errors.New are not nil.
func waitStop(stop, ch <-chan struct{}) error {
	select {
	case <-stop:
		return errStopped
	case <-ch:
		return nil
	}
}

func Sentinel(stop chan struct{}) {
	ch := make(chan struct{})
	go func() {
		a("sentinel")
		close(ch)
	}()
	if waitStop(stop, ch) != nil {
		return
	}
	b("sentinel") // want `^sentinel: a before b by channel$`
}

// An error received from a channel may be nil: the other case orders
// nothing.
func waitErr(errc <-chan error, ch <-chan struct{}) error {
	select {
	case err := <-errc:
		return err
	case <-ch:
		return nil
	}
}

func MaybeNil(errc chan error) {
	ch := make(chan struct{})
	go func() {
		a("maybe nil")
		close(ch)
	}()
	if err := waitErr(errc, ch); err != nil {
		return
	}
	b("maybe nil") // want `^maybe nil: unordered$`
}

// A default case returns nil without the receive.
func poll(ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	default:
		return nil
	}
}

func Default() {
	ch := make(chan struct{})
	go func() {
		a("default")
		close(ch)
	}()
	if err := poll(ch); err != nil {
		return
	}
	b("default") // want `^default: unordered$`
}

// ctx.Err() outside a select's Done case is not taken for non-nil.
func check(ctx context.Context, ch <-chan struct{}) error {
	if err := ctx.Err(); err != nil {
		return ctx.Err()
	}
	<-ch
	return nil
}

func CtxErrOutsideDone(ctx context.Context) {
	ch := make(chan struct{})
	go func() {
		a("ctx err outside done")
		close(ch)
	}()
	if err := check(ctx, ch); err != nil {
		return
	}
	b("ctx err outside done") // want `^ctx err outside done: unordered$`
}

// A function value's error: the callee is not known.
func Indirect(ctx context.Context, w func(context.Context, <-chan struct{}) error) {
	ch := make(chan struct{})
	go func() {
		a("indirect")
		close(ch)
	}()
	if err := w(ctx, ch); err != nil {
		return
	}
	b("indirect") // want `^indirect: unordered$`
}

// Every return of a nil error must follow the receive.
func readOrWait(r io.Reader, ch <-chan struct{}) error {
	if r != nil {
		return nil
	}
	<-ch
	return nil
}

func NilWithoutReceive(r io.Reader) {
	ch := make(chan struct{})
	go func() {
		a("nil without receive")
		close(ch)
	}()
	if err := readOrWait(r, ch); err != nil {
		return
	}
	b("nil without receive") // want `^nil without receive: unordered$`
}

// A method that waits, and the result published under a mutex before the
// close (the shape of go-coap's probe).
type result struct{ ok bool }

type Prober struct {
	wait chan struct{}
	res  *result
}

func (p *Prober) run(res *result, ch chan struct{}) {
	a("method")
	res.ok = true
	close(ch)
}

func (p *Prober) waitFor(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-p.wait:
		return nil
	case <-ch:
		return nil
	}
}

func (p *Prober) Get(ctx context.Context) bool {
	ch := make(chan struct{})
	res := &result{}
	go p.run(res, ch)
	if err := p.waitFor(ctx, ch); err != nil {
		return false
	}
	b("method") // want `^method: unordered$`
	return res.ok
}

func (p *Prober) waitOne(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
		return nil
	}
}

func (p *Prober) GetOne(ctx context.Context) bool {
	ch := make(chan struct{})
	res := &result{}
	go p.run2(res, ch)
	if err := p.waitOne(ctx, ch); err != nil {
		return false
	}
	b("method one") // want `^method one: a before b by channel$`
	return res.ok
}

func (p *Prober) run2(res *result, ch chan struct{}) {
	a("method one")
	res.ok = true
	close(ch)
}

func (p *Prober) GetV1(ctx context.Context) bool {
	ch := make(chan struct{})
	res := &result{}
	go p.run3(res, ch)
	if err := wait(ctx, ch); err != nil {
		return false
	}
	b("v1") // want `^v1: a before b by channel$`
	return res.ok
}

func (p *Prober) run3(res *result, ch chan struct{}) {
	a("v1")
	res.ok = true
	close(ch)
}

func (p *Prober) GetV2(ctx context.Context) bool {
	ch := make(chan struct{})
	go func() {
		a("v2")
		close(ch)
	}()
	if err := p.waitOne(ctx, ch); err != nil {
		return false
	}
	b("v2") // want `^v2: a before b by channel$`
	return true
}

func (p *Prober) GetV3(ctx context.Context) bool {
	ch := make(chan struct{})
	go func() {
		a("v3")
		close(ch)
	}()
	<-ch
	b("v3") // want `^v3: a before b by channel$`
	return true
}

type Shared struct {
	mu   sync.Mutex
	wait chan struct{}
	res  *result
}

func (p *Shared) run(res *result, ch chan struct{}) {
	p.mu.Lock()
	a("shared")
	res.ok = true
	p.wait = nil
	close(ch)
	p.mu.Unlock()
}

func (p *Shared) Get(ctx context.Context) bool {
	p.mu.Lock()
	ch, res := p.wait, p.res
	if ch == nil {
		ch = make(chan struct{})
		res = &result{}
		p.wait, p.res = ch, res
		go p.run(res, ch)
	}
	p.mu.Unlock()
	if err := wait(ctx, ch); err != nil {
		return false
	}
	b("shared") // want `^shared: a before b by channel$`
	return res.ok
}

// A getter called twice gives one context: Done of the first call, Err of
// the second.
type Conn struct {
	ctx   context.Context
	other *Conn
}

func (c *Conn) Context() context.Context { return c.ctx }

func (c *Conn) waitConn(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-c.Context().Done():
		return c.Context().Err()
	case <-ch:
		return nil
	}
}

func (c *Conn) Getter(ctx context.Context) {
	ch := make(chan struct{})
	go func() {
		a("getter")
		close(ch)
	}()
	if err := c.waitConn(ctx, ch); err != nil {
		return
	}
	b("getter") // want `^getter: a before b by channel$`
}

// Another connection's context: its Err may be nil.
func (c *Conn) waitOther(ch <-chan struct{}) error {
	select {
	case <-c.Context().Done():
		return c.other.Context().Err()
	case <-ch:
		return nil
	}
}

func (c *Conn) OtherGetter() {
	ch := make(chan struct{})
	go func() {
		a("other getter")
		close(ch)
	}()
	if err := c.waitOther(ch); err != nil {
		return
	}
	b("other getter") // want `^other getter: unordered$`
}

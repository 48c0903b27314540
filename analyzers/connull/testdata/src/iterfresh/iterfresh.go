// Package iterfresh: a function's accesses to objects that its own
// invocation made, reached through a local that a loop re-points at a new
// object (a phi of the function's own allocations), touch two objects in
// two invocations, and one invocation runs on one goroutine
// (go-libp2p-pubsub's (*RPC).split: an iterator literal that builds each
// part in nextRPC, writes it, yields it and makes the next one). Silent,
// also through an embedded struct's field; an object that comes from a
// parameter, a package variable or a field of a shared object, one
// touched after it was handed to a goroutine (against that goroutine's
// access), and a merge of a fresh object with a shared one are reported.
package iterfresh

import "iter"

type Control struct{ Graft []int }

type Header struct{ Control *Control }

type RPC struct {
	Header
	Subs []int
}

func (r *RPC) exceeds(limit int) bool { return len(r.Subs) > limit }

type Router struct {
	out  chan *RPC
	work chan *RPC
	cur  *RPC
	mix  *RPC
	arg  *RPC
}

var last, global *RPC

// split builds each part in next, yields it and starts the next one.
func (r *RPC) split(limit int) iter.Seq[*RPC] {
	return func(yield func(*RPC) bool) {
		next := &RPC{}
		for _, s := range r.Subs {
			if next.Subs = append(next.Subs, s); next.exceeds(limit) {
				next.Subs = next.Subs[:len(next.Subs)-1]
				if !yield(next) {
					return
				}
				next = &RPC{}
			}
		}
		if r.Control != nil {
			if next.Control == nil {
				next.Control = &Control{}
				if next.exceeds(limit) {
					next.Control = nil
					if !yield(next) {
						return
					}
					next = &RPC{Header: Header{Control: &Control{}}}
				}
			}
			for _, g := range r.Control.Graft {
				next.Control.Graft = append(next.Control.Graft, g)
			}
		}
		yield(next)
	}
}

// batch re-points a local at a new object each turn, without an iterator.
func (rt *Router) batch(subs []int) {
	b := &RPC{Header: Header{Control: &Control{}}}
	for _, s := range subs {
		b.Subs = append(b.Subs, s)
		if s == 0 {
			b.Control = nil
			rt.out <- b
			b = &RPC{Header: Header{Control: &Control{}}}
			continue
		}
		_ = len(b.Control.Graft)
	}
}

// Send splits r and hands each part to the writer.
func (rt *Router) Send(r *RPC) {
	for part := range r.split(4) {
		last = part
		rt.out <- part
	}
}

// param's object is its caller's: rt.arg on every goroutine.
func param(p *RPC) {
	p.Control = nil
	_ = len(p.Control.Graft) // want `p.Control may be nil when dereferenced here: param stores nil to it concurrently$`
}

// fromGlobal's object is the package's one.
func fromGlobal() {
	x := global
	for i := 0; i < 2; i++ {
		x.Control = nil
		_ = len(x.Control.Graft) // want `x.Control may be nil when dereferenced here: fromGlobal stores nil to it concurrently$`
	}
}

// fromField's object is the shared router's.
func (rt *Router) fromField() {
	x := rt.cur
	for i := 0; i < 2; i++ {
		x.Control = nil
		_ = len(x.Control.Graft) // want `x.Control may be nil when dereferenced here: \(\*Router\).fromField stores nil to it concurrently$`
	}
}

// mixed merges a fresh object with the shared one.
func (rt *Router) mixed(fresh bool) {
	x := &RPC{}
	if !fresh {
		x = rt.mix
	}
	for i := 0; i < 2; i++ {
		x.Control = nil
		_ = len(x.Control.Graft) // want `x.Control may be nil when dereferenced here: \(\*Router\).mixed stores nil to it concurrently$`
	}
}

// handed touches its fresh object after the goroutine it handed it to
// started: that goroutine's read meets the store.
func handed() {
	x := &RPC{Header: Header{Control: &Control{}}}
	for i := 0; i < 2; i++ {
		if i == 1 {
			go watch(x)
		}
		x.Control = nil
		x = &RPC{Header: Header{Control: &Control{}}}
	}
}

func watch(x *RPC) {
	_ = len(x.Control.Graft) // want `x.Control may be nil when dereferenced here: handed stores nil to it concurrently$`
}

// EachStop's loop body runs once per element, although go/ssa makes it a
// function that the iterator (whose code is not here) calls: the next
// turn's nil store meets the goroutine the turn before started.
func EachStop(seq iter.Seq[int], f func()) {
	var stop func()
	for range seq {
		stop = nil
		stop = f
		go func() {
			stop() // want `stop may be nil when called here: range-over-func body in EachStop stores nil to it concurrently$`
		}()
	}
}

// EachOwn declares its variable in the loop body: one per turn, each
// goroutine its own.
func EachOwn(seq iter.Seq[int], f func()) {
	for range seq {
		var stop func()
		stop = nil
		stop = f
		go func() {
			stop()
		}()
	}
}

// EachInner's variable is one per turn, but the goroutines of a turn's
// inner loop share it.
func EachInner(seq iter.Seq[int]) {
	for range seq {
		var p *int
		for i := range 3 {
			go func() {
				if i == 0 {
					p = nil
				} else {
					v := i
					p = &v
				}
				_ = *p // want `p may be nil when dereferenced here: func literal in EachInner stores nil to it concurrently$`
			}()
		}
	}
}

// EachBreak starts one goroutine and leaves the loop: the body runs no
// more turns, so nothing follows the goroutine's call.
func EachBreak(seq iter.Seq[int], f func()) {
	var stop func()
	for range seq {
		stop = nil
		stop = f
		go func() {
			stop()
		}()
		break
	}
}

// A Stopper's stop is set by each turn of its loops.
type Stopper struct{ stop func() }

// EachField stores to the receiver's field in the body, which captures
// the receiver in turn: the goroutine's closure gets it through the
// body's variable, one object for every turn.
func (s *Stopper) EachField(seq iter.Seq[int], f func()) {
	for range seq {
		s.stop = nil
		s.stop = f
		go func() {
			s.stop() // want `s.stop may be nil when called here: range-over-func body in \(\*Stopper\).EachField stores nil to it concurrently$`
		}()
	}
}

// EachFresh's goroutines each get the Stopper their turn made.
func EachFresh(seq iter.Seq[int], f func()) {
	for range seq {
		s := &Stopper{}
		s.stop = nil
		s.stop = f
		go func() {
			s.stop()
		}()
	}
}

// Sibling's goroutines, started in the body, reach s through the body's
// variable; another goroutine, which captures s itself, stores nil to its
// stop: neither is the other's starter.
func Sibling(seq iter.Seq[int], f func()) {
	var s *Stopper
	ready := make(chan bool)
	go func() {
		s = &Stopper{stop: f}
		close(ready)
	}()
	<-ready
	go func() {
		s.stop = nil
		s.stop = f
	}()
	for range seq {
		go func() {
			s.stop() // want `s.stop may be nil when called here: func literal in Sibling stores nil to it concurrently$`
		}()
	}
}

// OnceInner starts its goroutine from a closure called once, after both
// stores: the go statement orders them before the call.
func (s *Stopper) OnceInner(f func()) {
	func() {
		s.stop = nil
		s.stop = f
		go func() {
			s.stop()
		}()
	}()
}

func (rt *Router) loop() {
	for r := range rt.work {
		rt.Send(r)
		rt.batch(r.Subs)
		param(rt.arg)
		fromGlobal()
		rt.fromField()
		rt.mixed(len(r.Subs) > 0)
		handed()
	}
}

func (rt *Router) writer() {
	for range rt.out {
	}
}

// New starts two loops and the writer.
func New() *Router {
	rt := &Router{out: make(chan *RPC, 8), work: make(chan *RPC), cur: &RPC{}, mix: &RPC{}, arg: &RPC{}}
	global = &RPC{}
	go rt.loop()
	go rt.loop()
	go rt.writer()
	return rt
}

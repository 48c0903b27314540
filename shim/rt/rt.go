// Package rt holds the helpers that instrumented code calls besides the
// shim's own API, for rewrites the shim's calls cannot express alone: the
// select forcing protocol (Select), ranges over channels (RangeOf), writes of values only
// assignable to their target (At, SendTo), the targets of multiple
// assignments (Wrote, Later), method values of sync types (WGDoneFunc,
// ...), subtests passed as values (Sub), maps in files below go1.20
// (MapRead, ...) and the methods of sync/atomic's types (atomic.go).
//
// rt is part of the shim module that precog injects into the build, and
// rewritten files import it as precog_rt. Like the shim, it imports only
// the standard library and the shim, and builds at language version go1.22.
// The driver never imports it: the rewriter keeps copies of its limits
// (MaxCases, MaxWrites).
package rt

import (
	"sync"
	"unsafe"

	shim "github.com/precog-dev/precog/shim"
)

// A Select carries one execution of an instrumented select statement. The
// rewritten code declares it with Plan just before the select, passes every
// channel operand through Recv or Send (which note the real channel's
// address for the record), and makes the first statement of each clause
// Received, Sent or Defaulted, which record the clause that ran.
//
// When the shim's plan forces a clause (SelectPlan returned a timeout
// channel), the rewritten code also calls TryRecv, TrySend or TryDefault
// for the clauses before the select. Try* performs the forced clause's
// operation alone, waiting at most until the timeout. If it completes, Recv
// and Send give the forced clause a channel that is ready at once (a
// buffered proxy holding the received value, closed if the real channel was
// closed, or with room for the sent value) and every other clause a nil
// channel, which is never ready: the select takes the forced clause, and a
// default clause cannot run because a case is ready. If the timeout fires
// first, every clause keeps its real channel and the select runs as
// written. No clause body is duplicated and the select statement stays,
// so break, continue, labels and goto in the bodies keep their meaning.
// Clause indices count the non-default clauses from 0 in source order; the
// default clause is forced by index -1.
type Select struct {
	site    uint32
	force   int
	timeout <-chan struct{}
	done    bool // the forced clause's operation has completed
	proxy   any  // a chan T standing in for the forced clause's channel
	addrs   [MaxCases]unsafe.Pointer
	elems   [MaxCases]uint32 // the fingerprints of the send clauses' values that Val saw (shim.ElemOf), 0 if unknown
	// Ok receives the ok of a receive clause written as an assignment
	// (v = <-ch), which has no variable of its own for it.
	Ok bool
}

// MaxCases is the largest number of non-default clauses of a select the
// instrumenter rewrites.
const MaxCases = 16

// Plan asks the shim which clause of the select at site to force. It
// fills in its result's fields one by one, which keeps it below the
// inliner's budget (see shim.SelectPlan).
func Plan(site uint32) (s Select) {
	s.site = site
	s.force, s.timeout = shim.SelectPlan(site)
	return s
}

// Forcing reports whether the plan forces a clause, so that the rewritten
// code calls the Try functions only then.
func (s *Select) Forcing() bool { return s.timeout != nil }

// TryRecv performs the receive of clause i if the plan forces it.
func TryRecv[T any](s *Select, i int, ch <-chan T) {
	if s.timeout == nil || s.force != i || s.done {
		return
	}
	select {
	case v, ok := <-ch:
		p := make(chan T, 1)
		if ok {
			p <- v
		} else {
			close(p)
		}
		s.proxy, s.done = p, true
	case <-s.timeout:
	}
}

// TrySend performs the send of clause i if the plan forces it.
func TrySend[T any](s *Select, i int, ch chan<- T, v T) {
	if s.timeout == nil || s.force != i || s.done {
		return
	}
	select {
	case ch <- v:
		s.proxy, s.done = make(chan T, 1), true
	case <-s.timeout:
	}
}

// TryDefault marks the default clause as taken if the plan forces it:
// every case then gets a nil channel.
func TryDefault(s *Select) {
	if s.timeout != nil && s.force == -1 {
		s.done = true
	}
}

// Recv returns the channel that clause i of the select receives from.
func Recv[T any](s *Select, i int, ch <-chan T) <-chan T {
	s.addrs[i] = shim.ChanAddrRecv(ch)
	if !s.done {
		return ch
	}
	if i == s.force {
		return s.proxy.(chan T)
	}
	return nil
}

// Send returns the channel that clause i of the select sends to.
func Send[T any](s *Select, i int, ch chan<- T) chan<- T {
	s.addrs[i] = shim.ChanAddrSend(ch)
	if !s.done {
		return ch
	}
	if i == s.force {
		return s.proxy.(chan T)
	}
	return nil
}

// Received records that receive clause i ran; ok is false if its channel
// was closed.
func (s *Select) Received(i int, ok bool) { shim.SelectRecv(s.site, i, s.addrs[i], ok) }

// Got is Received for a clause whose received value v the rewritten code
// can name (case v := <-ch, or case <-ch rewritten to declare one): it
// records v's fingerprint too, so that hb pairs the receive with the send
// of v (shim.ElemOf).
func Got[T any](s *Select, i int, ok bool, v T) {
	shim.SelectRecvElem(s.site, i, s.addrs[i], ok, shim.ElemOf(&v))
}

// Val is the value of send clause i, v, of the element type: the
// rewritten code writes case Send(&s, i, ch) <- Val(&s, i, v), which
// evaluates v where the select did, and Sent records v's fingerprint.
func Val[T any](s *Select, i int, v T) T {
	s.elems[i] = shim.ElemOf(&v)
	return v
}

// Sent records that send clause i ran.
func (s *Select) Sent(i int) { shim.SelectSendElem(s.site, i, s.addrs[i], s.elems[i]) }

// Defaulted records that the default clause ran.
func (s *Select) Defaulted() { shim.SelectDefault(s.site) }

// A Loc is a location about to be written with Set: At(site, &x).Set(v)
// is shim.W(site, &x, v) for a value v that is assignable to x's type
// without being of it (shim.W's type inference would reject it).
type Loc[T any] struct {
	site uint32
	p    *T
}

// Elems ranges over s as for i, v := range s does, recording the read of
// each element before its iteration (see the rewriter's rangeElems).
func Elems[S ~[]E, E any](site uint32, s S) func(yield func(int, E) bool) {
	return func(yield func(int, E) bool) {
		for i := range s {
			if !yield(i, *shim.R(site, &s[i])) {
				return
			}
		}
	}
}

// At returns the location p for Set.
func At[T any](site uint32, p *T) Loc[T] { return Loc[T]{site, p} }

// Set stores v into the location and records the write.
func (l Loc[T]) Set(v T) { shim.W(l.site, l.p, v) }

// Wrote records a write of *p that the program has just done itself: the
// rewritten code keeps a multiple assignment whose targets are variables
// as it is and records them after it.
func Wrote[T any](site uint32, p *T) { shim.Wrote(site, p) }

// Reading records a read of *p by a method called on p whose code is not
// instrumented (bytes.Buffer.String), and returns p.
func Reading[T any](site uint32, p *T) *T {
	shim.Read(site, unsafe.Pointer(p))
	return p
}

// Writing records a write of *p by a method called on p whose code is not
// instrumented (bytes.Buffer.Write), and returns p. The write's word is 0:
// the method has not run yet, and reading *p here could race with it.
func Writing[T any](site uint32, p *T) *T {
	shim.Write(site, unsafe.Pointer(p), 0)
	return p
}

// Writes records the targets of a multiple assignment after it, when their
// addresses may change in it (a[i], i = x, y):
//
//	{ var precog_l precog_rt.Writes; *precog_rt.Later(&precog_l, SITE, &a[i]), i = x, y; precog_l.Done() }
//
// Later notes the address while Go evaluates the assignment's operands,
// Done records the writes.
type Writes struct {
	n int
	w [MaxWrites]pending
}

// MaxWrites is the largest number of targets of one assignment Writes
// takes.
const MaxWrites = 8

type pending struct {
	site  uint32
	p     unsafe.Pointer
	wrote func(site uint32, p unsafe.Pointer)
}

// Later notes the target p of an assignment and returns it.
func Later[T any](l *Writes, site uint32, p *T) *T {
	if l.n < len(l.w) {
		l.w[l.n] = pending{site, unsafe.Pointer(p), wroteAt[T]}
		l.n++
	}
	return p
}

func wroteAt[T any](site uint32, p unsafe.Pointer) { Wrote(site, (*T)(p)) }

// Done records the writes of the targets Later noted.
func (l *Writes) Done() {
	for _, w := range l.w[:l.n] {
		w.wrote(w.site, w.p)
	}
}

// A Sender is a channel about to be sent on: SendTo(site, ch).Send(v) is
// shim.Send(site, ch, v) for a value v assignable to the element type
// without being of it.
type Sender[T any] struct {
	site uint32
	ch   chan<- T
}

// SendTo returns ch for Send.
func SendTo[T any](site uint32, ch chan<- T) Sender[T] { return Sender[T]{site, ch} }

// Send sends v and records the send.
func (s Sender[T]) Send(v T) { shim.Send(s.site, s.ch, v) }

// A ChanRange is a range over a channel rewritten into a loop of
// receives, each recorded:
//
//	for precog_r, v := precog_rt.RangeOf(SITE, ch); precog_r.Next(&v); {
//
// ch is evaluated once, as by the range statement, and v is declared by
// the loop as before (one per iteration from go1.22 on).
type ChanRange[T any] struct {
	site uint32
	ch   <-chan T
}

// RangeOf starts a range over ch; it also returns the zero value that
// declares the loop's variable.
func RangeOf[T any](site uint32, ch <-chan T) (ChanRange[T], T) {
	var zero T
	return ChanRange[T]{site, ch}, zero
}

// Next receives the next value into *p (p may be nil) and reports false
// when the channel is closed and empty, which ends the loop.
func (r *ChanRange[T]) Next(p *T) bool {
	v, ok := shim.Recv2(r.site, r.ch)
	if ok && p != nil {
		*p = v
	}
	return ok
}

// Sub wraps a subtest function passed to t.Run or b.Run as a value (not a
// function literal, which gets TestStart as its first statement), so that
// the subtest records its start and end too. T is *testing.T or
// *testing.B; rt does not import testing.
func Sub[T shim.TB](f func(T)) func(T) {
	return func(t T) {
		shim.TestStart(t)
		f(t)
	}
}

// Method values of sync types the shim has no Func form for: f := wg.Done
// becomes f := precog_rt.WGDoneFunc(SITE, &wg), which takes the receiver
// when the method value is made, as the method value does.

// WGDoneFunc replaces the method value wg.Done.
func WGDoneFunc(site uint32, wg *sync.WaitGroup) func() { return func() { shim.WGDone(site, wg) } }

// WGWaitFunc replaces the method value wg.Wait.
func WGWaitFunc(site uint32, wg *sync.WaitGroup) func() { return func() { shim.WGWait(site, wg) } }

// CondWaitFunc replaces the method value c.Wait.
func CondWaitFunc(site uint32, c *sync.Cond) func() { return func() { shim.CondWait(site, c) } }

// CondSignalFunc replaces the method value c.Signal.
func CondSignalFunc(site uint32, c *sync.Cond) func() { return func() { shim.CondSignal(site, c) } }

// CondBroadcastFunc replaces the method value c.Broadcast.
func CondBroadcastFunc(site uint32, c *sync.Cond) func() {
	return func() { shim.CondBroadcast(site, c) }
}

// LockerLockFunc replaces the method value l.Lock of a sync.Locker.
func LockerLockFunc(site uint32, l sync.Locker) func() { return func() { shim.LockerLock(site, l) } }

// LockerUnlockFunc replaces the method value l.Unlock of a sync.Locker.
func LockerUnlockFunc(site uint32, l sync.Locker) func() {
	return func() { shim.LockerUnlock(site, l) }
}

// MapRead, MapWrite and MapIter are shim.MR, MW and MI for files whose
// language version is below go1.20, where a map type with interface keys
// does not satisfy shim.MR's comparable constraint. m is a map: its value
// is the map's pointer, which the shim records.
func MapRead[M any](site uint32, m M) M {
	shim.MR(site, *(*map[struct{}]struct{})(unsafe.Pointer(&m)))
	return m
}

// MapWrite is shim.MW for files below go1.20; see MapRead.
func MapWrite[M any](site uint32, m M) M {
	shim.MW(site, *(*map[struct{}]struct{})(unsafe.Pointer(&m)))
	return m
}

// MapIter is shim.MI for files below go1.20; see MapRead.
func MapIter[M any](site uint32, m M) M {
	shim.MI(site, *(*map[struct{}]struct{})(unsafe.Pointer(&m)))
	return m
}

// MapReadL, MapWriteL and MapIterL are MapRead, MapWrite and MapIter for
// a function body with a Local (shim.MRL, MWL and MIL), which looks the
// goroutine up once per call and not at every map access.
func MapReadL[M any](l *shim.Local, site uint32, m M) M {
	shim.MRL(l, site, *(*map[struct{}]struct{})(unsafe.Pointer(&m)))
	return m
}

// MapWriteL is shim.MWL for files below go1.20; see MapReadL.
func MapWriteL[M any](l *shim.Local, site uint32, m M) M {
	shim.MWL(l, site, *(*map[struct{}]struct{})(unsafe.Pointer(&m)))
	return m
}

// MapIterL is shim.MIL for files below go1.20; see MapReadL.
func MapIterL[M any](l *shim.Local, site uint32, m M) M {
	shim.MIL(l, site, *(*map[struct{}]struct{})(unsafe.Pointer(&m)))
	return m
}

// MapMake is shim.MakeMap for files below go1.20; see MapRead.
func MapMake[M any](site uint32, m M) M {
	shim.MakeMap(site, *(*map[struct{}]struct{})(unsafe.Pointer(&m)))
	return m
}

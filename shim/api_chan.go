package shim

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/precog-dev/precog/shim/trace"
)

// MakeChan wraps make(chan T, n): it records the channel's address and
// capacity and returns ch.
func MakeChan[T any](site uint32, ch chan T) chan T {
	if enabled {
		syncBefore(site, trace.EvChanMake, ChanAddr(ch), uint64(cap(ch)))
	}
	return ch
}

// Send records ChanSend before sending, so that a receive matching it always
// has a larger seq and a send on a closed channel is in the trace. A send
// that is a force step passes once its value is in the channel, or just
// before it blocks (shim/control.go, Points); one that panics never passes.
func Send[T any](site uint32, ch chan<- T, v T) {
	if enabled {
		g := gateSync(site, trace.EvChanSend, ChanAddrSend(ch))
		if !controlling() && !g.bubble {
			sendOrdered(g, site, ch, v)
			return
		}
		g.syncEvent(site, trace.EvChanSend, ChanAddrSend(ch), uint64(ElemOf(&v)))
		if g.bubble {
			g.clockBefore(site)
			ch <- v
			g.clockAfter(site)
			return
		}
		if controlGate != nil && ctlSendDue(g) {
			if testHookSending != nil {
				//precog:ignore con-null the hook is set and cleared only by TestForceSendPassedWhenSent, whose goroutines are joined before its deferred clear
				testHookSending()
			}
			select {
			case ch <- v:
				ctlReleased(g)
				return
			default:
			}
			ctlReleased(g) // it would block: its successor may be its receive
		}
	}
	ch <- v
}

// Channel operations are recorded in the order the channel took them
// (when no control plan is in force; a forced run's gates decide it): hb
// pairs a channel's k-th receive with its k-th send in the order of their
// events, and a send recorded before it happens could be overtaken by
// another goroutine's (bench/RESULTS.md, sixth stop). Selects take no part.
//
// chanLocks holds, per channel address, the locks its sends and its
// receives take: a send (or receive) records its event and performs the
// operation holding its side's lock, blocking included, so the order of
// the events is the order the channel took the operations. Each side has
// its own lock (a blocked receive must not keep out the send it waits
// for). Waiting for the lock only delays an operation, and only while
// another goroutine's operation on the same side of the same channel is
// blocked, when the channel would have queued this one behind it anyway:
// no behavior is added. An entry is removed by a cleanup when its channel
// is collected.
var chanLocks sync.Map // uintptr -> *chanLock

type chanLock struct {
	send, recv sync.Mutex
	// ch is the channel the entry is for. A channel made at a collected
	// channel's address before that one's cleanup ran must not take its
	// entry: the cleanup would remove it while the new channel's
	// operations held its locks, and the next operation would take a
	// lock of a new entry, unordered with theirs.
	ch weak.Pointer[byte]
}

func chanLockOf(a unsafe.Pointer) *chanLock {
	k, p := uintptr(a), (*byte)(a)
	old, ok := chanLocks.Load(k)
	if ok && pointsTo(old.(*chanLock).ch, p) {
		return old.(*chanLock)
	}
	n := &chanLock{ch: weak.Make(p)}
	for {
		var won bool
		if ok {
			won = chanLocks.CompareAndSwap(k, old, n) // old is a collected channel's
		} else {
			old, ok = chanLocks.LoadOrStore(k, n)
			won = !ok
		}
		if won {
			// CompareAndDelete: a channel made later at the address
			// may have its own entry by the time the cleanup runs.
			runtime.AddCleanup(p, func(k uintptr) { chanLocks.CompareAndDelete(k, n) }, k)
			return n
		}
		if old, ok = chanLocks.Load(k); ok && pointsTo(old.(*chanLock).ch, p) {
			return old.(*chanLock) // another operation of this channel made it
		}
	}
}

// pointsTo reports whether w was made for p, an object the caller holds
// (so p is live). It reads the weak pointer's handle, which the runtime
// clears when it sweeps the span of a dead object, before that object's
// memory can be reused: if the handle holds p, w's object is p's own. Value
// does the same after making sure the span is swept, so that it can return
// a pointer to an object it may bring back to life: about 110 instructions
// (GOMAXPROCS=1 callgrind), twice per recorded channel operation. Where the
// weak package is not laid out as checked at init (weakHandle), Value it
// is.
func pointsTo(w weak.Pointer[byte], p *byte) bool {
	if weakHandle {
		h := *(*unsafe.Pointer)(unsafe.Pointer(&w))
		return h != nil && atomic.LoadUintptr((*uintptr)(h)) == uintptr(unsafe.Pointer(p))
	}
	return w.Value() == p
}

// weakHandle says whether a weak.Pointer is one word, a pointer to a word
// that holds its object's address (its handle), as in Go 1.24 to 1.26.
var weakHandle = func() bool {
	var w weak.Pointer[byte]
	if unsafe.Sizeof(w) != unsafe.Sizeof(uintptr(0)) {
		return false
	}
	p := new([16]byte) // not a tiny allocation
	w = weak.Make(&p[0])
	h := *(*unsafe.Pointer)(unsafe.Pointer(&w))
	ok := h != nil && atomic.LoadUintptr((*uintptr)(h)) == uintptr(unsafe.Pointer(&p[0]))
	runtime.KeepAlive(p)
	return ok
}()

// controlling reports whether a control plan is in force.
func controlling() bool { return controlGate != nil && ctl.Load() != nil }

// sendOrdered records a send and performs it holding the channel's send
// lock.
func sendOrdered[T any](g *gstate, site uint32, ch chan<- T, v T) {
	a := ChanAddrSend(ch)
	elem := ElemOf(&v)
	if a == nil {
		g.syncEvent(site, trace.EvChanSend, a, uint64(elem))
		ch <- v // blocks forever, as a send on a nil channel does
		return
	}
	l := &chanLockOf(a).send
	l.Lock()
	defer l.Unlock() // a send on a closed channel panics after its event
	g.syncEvent(site, trace.EvChanSend, a, uint64(elem))
	ch <- v
}

// recvOrdered performs a receive and records it holding the channel's
// receive lock.
func recvOrdered[T any](g *gstate, site uint32, ch <-chan T) (v T, ok, got bool) {
	a := ChanAddrRecv(ch)
	if a == nil {
		return v, false, false
	}
	l := &chanLockOf(a).recv
	l.Lock()
	defer l.Unlock()
	v, ok = <-ch
	g.recvEvent(site, a, ok, ElemOf(&v))
	return v, ok, true
}

// testHookSending, if set (by tests only, with control on), runs between
// the record of a send that is a force step and its send.
var testHookSending func()

// Recv is <-ch; it records ChanRecv after the receive, with ok.
func Recv[T any](site uint32, ch <-chan T) T {
	if !enabled {
		return <-ch
	}
	v, _ := recv(site, ch)
	return v
}

// Recv2 is v, ok := <-ch.
func Recv2[T any](site uint32, ch <-chan T) (T, bool) {
	if !enabled {
		v, ok := <-ch
		return v, ok
	}
	return recv(site, ch)
}

func recv[T any](site uint32, ch <-chan T) (T, bool) {
	a := ChanAddrRecv(ch)
	g := gateSync(site, trace.EvChanRecv, a)
	if !controlling() && !g.bubble {
		if v, ok, got := recvOrdered(g, site, ch); got {
			return v, ok
		}
	}
	g.clockBefore(site)
	v, ok := <-ch
	g.clockAfter(site)
	g.recvEvent(site, a, ok, ElemOf(&v))
	return v, ok
}

// Close records ChanClose, then closes ch (a close of a closed channel
// panics after the event is recorded). It is a release recorded before it
// happens: control passes its step once the close returned, so a send
// forced after it finds the channel closed (passed when recorded, a send
// on a buffered channel could slip in before the close and succeed).
func Close[T any](site uint32, ch chan<- T) {
	if !enabled {
		close(ch)
		return
	}
	g := releaseBefore(site, trace.EvChanClose, ChanAddrSend(ch), 0)
	close(ch)
	g.released()
}

// Cancelling is called with a context's cancel function f just before the
// program calls it, and returns f. It records EvCancel: the context package
// closes the context's Done channel where nothing is recorded, and the
// cancel call is what a receive that finds a Done channel closed is
// ordered after. Under defer, it records when the defer statement runs,
// which is earlier than the cancel itself. F is a func type.
func Cancelling[F any](site uint32, f F) F {
	if enabled {
		syncBefore(site, trace.EvCancel, *(*unsafe.Pointer)(unsafe.Pointer(&f)), 0)
	}
	return f
}

// SelectPlan runs just before an instrumented select. It returns the case
// index control wants the select to take (-1: no preference) and a channel
// that becomes ready when control gives up waiting for it (nil when not
// forcing). With no control plan it returns -1, nil.
//
// It is not inlined, so that rt.Plan, which returns a select's state of
// about 250 bytes, is: inlined, Plan builds that state in the rewritten
// code's variable instead of in a result it then copies (30 instructions
// of a recorded select that takes its default case, bench/shim's Select).
//
//go:noinline
func SelectPlan(site uint32) (force int, timeout <-chan struct{}) {
	if !enabled {
		return -1, nil
	}
	return selectPlanFor(site)
}

// SelectRecv is the first statement of a receive case that ran; ok is false
// when the channel was closed.
func SelectRecv(site uint32, index int, ch unsafe.Pointer, ok bool) {
	SelectRecvElem(site, index, ch, ok, 0)
}

// SelectRecvElem is SelectRecv with the fingerprint of the element
// received (ElemOf; 0 if unknown).
func SelectRecvElem(site uint32, index int, ch unsafe.Pointer, ok bool, elem uint32) {
	if enabled {
		selected(site, index, ch, b2u(ok), elem)
	}
}

// SelectSend is the first statement of a send case that ran. The send has
// completed by then, so unlike Send its event may come after the matching
// receive's.
func SelectSend(site uint32, index int, ch unsafe.Pointer) {
	SelectSendElem(site, index, ch, 0)
}

// SelectSendElem is SelectSend with the fingerprint of the element sent
// (ElemOf; 0 if unknown).
func SelectSendElem(site uint32, index int, ch unsafe.Pointer, elem uint32) {
	if enabled {
		selected(site, index, ch, 1, elem)
	}
}

// SelectDefault is the first statement of a select's default case.
func SelectDefault(site uint32) {
	if enabled {
		selected(site, -1, nil, 0, 0)
	}
}

// ElemOf returns the fingerprint of the channel element *p that the trace
// records with a send or receive of it (elem), so that hb can pair a
// receive with the send whose element it got (a goroutine may record its
// send before another's and send after it; a select records after the
// operation). It folds the element's first 16 bytes (its pointer word for
// pointers, maps, channels and funcs, the data word of an interface, the
// data pointer and length of a string or slice, the bits of a scalar)
// into 32 bits, never 0: 0 in the trace means unknown. It only reads *p,
// which the caller owns: the program sees nothing of it. Two elements
// with equal fingerprints are paired in the order of their events.
func ElemOf[T any](p *T) uint32 {
	return elemAt(unsafe.Pointer(p), unsafe.Sizeof(*p))
}

// elemAt is ElemOf of the n bytes at p.
func elemAt(p unsafe.Pointer, n uintptr) uint32 {
	var w uint64
	switch {
	case n >= 16:
		w = *(*uint64)(p) ^ *(*uint64)(unsafe.Add(p, 8))*0x9e3779b97f4a7c15
	case n >= 8:
		w = *(*uint64)(p)
	default:
		b := unsafe.Slice((*byte)(p), n)
		for i := range b {
			w |= uint64(b[i]) << (8 * i)
		}
	}
	if e := uint32(w ^ w>>32); e != 0 {
		return e
	}
	return 0x9e3779b9 // the zero element, say
}

// ChanAddr returns the runtime channel pointer of ch (nil for a nil channel).
func ChanAddr[T any](ch chan T) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&ch)) }

// ChanAddrRecv is ChanAddr for a receive-only channel.
func ChanAddrRecv[T any](ch <-chan T) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&ch))
}

// ChanAddrSend is ChanAddr for a send-only channel.
func ChanAddrSend[T any](ch chan<- T) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&ch))
}

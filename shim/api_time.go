package shim

import (
	"sync/atomic"
	"time"

	"github.com/precog-dev/precog/shim/trace"
)

// Bubble is the first statement of a function literal passed to
// synctest.Test or synctest.Run: it records EvBubble on the bubble's root
// goroutine, with the bubble's virtual clock (time.Now inside a bubble).
// The goroutines that goroutine starts belong to its bubble; detect/hb
// follows the forks.
func Bubble(site uint32) {
	if enabled {
		g := cur()
		g.bubble = true
		g.now = nanos(time.Now())
		g.syncEvent(site, trace.EvBubble, nil, g.now)
	}
}

// BubbleFunc wraps a function value f passed to synctest.Test: the
// function it returns calls Bubble, then f.
func BubbleFunc[T any](site uint32, f func(T)) func(T) {
	return func(t T) {
		Bubble(site)
		f(t)
	}
}

// BubbleRun wraps a function value f passed to synctest.Run.
func BubbleRun(site uint32, f func()) func() {
	return func() {
		Bubble(site)
		f()
	}
}

// Sleep replaces time.Sleep(d). It records EvSleep with the clock at the
// call and EvWake with the clock at the return; inside a synctest bubble
// the clock is virtual, and detect/hb orders the wake after what the
// bubble's goroutines did before the clock reached it. Neither event
// passes a control gate: a gate here would hold the goroutine before or
// after a point where the bubble's clock may move.
func Sleep(site uint32, d time.Duration) {
	if !enabled {
		time.Sleep(d)
		return
	}
	g := cur()
	g.syncEvent(site, trace.EvSleep, nil, nanos(time.Now()))
	time.Sleep(d)
	g.syncEvent(site, trace.EvWake, nil, nanos(time.Now()))
}

// AfterFunc replaces time.AfterFunc(d, f). It records the fork (EvFork) of
// the goroutine the timer starts for f, and f's first run begins it, so
// detect/hb orders f after what the caller did before AfterFunc (the
// timer's callback reads the fields its creator set: without the fork it
// was a goroutine with no parent, concurrent with all of them). Inside a
// synctest bubble the goroutine is one of the bubble's and reads the clock
// when it begins (EvClock), so detect/hb orders it as a goroutine of the
// bubble woken when the timer fired. A timer stopped before it fired
// leaves a fork with no goroutine; a second run of f (after Reset) is not
// known to be the fork's (nor the bubble's), which only loses order.
func AfterFunc(site uint32, d time.Duration, f func()) *time.Timer {
	if !enabled {
		return time.AfterFunc(d, f)
	}
	id := fork(site, trace.EvFork, nil)
	var ran atomic.Bool
	return time.AfterFunc(d, func() {
		if ran.Swap(true) {
			f()
			return
		}
		Begin(id)
		defer End()
		cur().clockAfter(site)
		f()
	})
}

// SyncWait replaces synctest.Wait(): it records EvSyncWait after Wait
// returned, when every other goroutine of the bubble is durably blocked or
// ended; detect/hb orders the return after all they recorded before it.
// wait is synctest.Wait, passed in so that the shim builds with toolchains
// older than Go 1.25. Like Sleep, it passes no control gate.
func SyncWait(site uint32, wait func()) {
	wait()
	if enabled {
		cur().syncEvent(site, trace.EvSyncWait, nil, nanos(time.Now()))
	}
}

// clockBefore records EvClock with the bubble's clock in a goroutine of a
// synctest bubble, just before an operation that may block it durably
// (after the operation's gate and any event recorded before it). Outside
// bubbles it does nothing, at the cost of one test (it inlines). See
// "Bubbles" in detect/hb.
func (g *gstate) clockBefore(site uint32) {
	if g.bubble {
		g.clockRead(site)
	}
}

func (g *gstate) clockRead(site uint32) {
	g.now = nanos(time.Now())
	g.clockEvent(site, g.now)
}

// clockAfter records EvClock in a goroutine of a bubble just after an
// operation that may have blocked it returned, if the bubble's clock moved
// since clockBefore (else the reading adds nothing), before the
// operation's own event.
func (g *gstate) clockAfter(site uint32) {
	if g.bubble {
		g.clockMoved(site)
	}
}

func (g *gstate) clockMoved(site uint32) {
	if now := nanos(time.Now()); now != g.now {
		g.now = now
		g.clockEvent(site, now)
	}
}

// clockEvent records EvClock. It passes no gate and tells control
// nothing: it is no step of a forced or replayed order, and a reading of
// the clock where a goroutine may block must not hold it there.
func (g *gstate) clockEvent(site uint32, now uint64) {
	g.prepare()
	g.buf = g.enc.AppendClock(g.buf, seqs.n.Add(1), site, 0, now)
	g.commit()
	g.synced()
}

// nanos is t in nanoseconds since 1970, as the bits of an int64.
func nanos(t time.Time) uint64 { return uint64(t.UnixNano()) }

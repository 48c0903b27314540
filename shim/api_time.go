package shim

import (
	"sync"
	"time"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// Bubble records EvBubble on the goroutine that runs the function passed
// to synctest.Test or synctest.Run (the bubble's root goroutine, for the
// shim), with the bubble's virtual clock (time.Now inside a bubble). The
// goroutines that goroutine starts belong to its bubble; detect/hb
// follows the forks.
func Bubble(site uint32) {
	if enabled {
		g := cur()
		g.bubble = true
		g.now = nanos(time.Now())
		g.syncEvent(site, trace.EvBubble, nil, g.now)
	}
}

// BubbleFunc wraps a function f passed to synctest.Test (a function value,
// or a literal): the rewriter makes it the argument, so it runs on the
// goroutine that calls Test, before Test. The function it returns runs on
// a goroutine that testing starts for the bubble, which the shim would
// otherwise first meet with no parent: it binds that goroutine as the
// caller's child (adoptRunKid), as a subtest of T.Run is, calls Bubble,
// then f. detect/hb orders the bubble after what the caller did before
// Test, and the caller's next event after every goroutine of the bubble,
// since Test returns only once they all ended.
func BubbleFunc[T any](site uint32, f func(T)) func(T) {
	c := bubbleCaller()
	return func(t T) {
		enterBubble(site, c)
		f(t)
	}
}

// BubbleRun wraps a function f passed to synctest.Run (Go 1.24 and 1.25),
// as BubbleFunc does.
func BubbleRun(site uint32, f func()) func() {
	c := bubbleCaller()
	return func() {
		enterBubble(site, c)
		f()
	}
}

// caller names the goroutine that calls synctest.Test: its runtime and
// logical ids.
type caller struct{ gid, id uint64 }

// bubbleCaller names the running goroutine, which is about to call
// synctest.Test (or Run).
func bubbleCaller() caller {
	if !enabled {
		return caller{}
	}
	g := cur()
	return caller{g.goid.Load(), g.id}
}

// enterBubble binds the running goroutine, the bubble's, as c's child and
// records EvBubble.
func enterBubble(site uint32, c caller) {
	if enabled {
		if c.gid != 0 {
			adoptRunKid(c.gid, c.id)
		}
		Bubble(site)
	}
}

// Sleep replaces time.Sleep(d). It records EvSleep at the call and EvWake
// at the return. Inside a synctest bubble each carries the clock, which is
// virtual there, and detect/hb orders the wake after what the bubble's
// goroutines did before the clock reached it; outside one nothing reads
// the clock of these events, and they carry 0, which saves two readings
// of time.Now and their 8 or 9 bytes each (pond's TestSubpoolStopAndWait
// sleeps 100,000 times; bench/RESULTS.md, reccost19). Neither event
// passes a control gate: a gate here would hold the goroutine before or
// after a point where the bubble's clock may move.
func Sleep(site uint32, d time.Duration) {
	if !enabled {
		time.Sleep(d)
		return
	}
	g := cur()
	g.syncEvent(site, trace.EvSleep, nil, g.bubbleNow())
	time.Sleep(d)
	g.syncEvent(site, trace.EvWake, nil, g.bubbleNow())
}

// bubbleNow is the clock for an event that carries it only inside a
// synctest bubble (Sleep): time.Now there, 0 outside.
func (g *gstate) bubbleNow() uint64 {
	if g.bubble {
		return nanos(time.Now())
	}
	return 0
}

// AfterFunc replaces time.AfterFunc(d, f). It records the fork (EvFork) of
// the goroutine the timer starts for f, and f's run begins it, so
// detect/hb orders f after what the caller did before AfterFunc (the
// timer's callback reads the fields its creator set: without the fork it
// was a goroutine with no parent, concurrent with all of them). Inside a
// synctest bubble the goroutine is one of the bubble's and reads the clock
// when it begins (EvClock), so detect/hb orders it as a goroutine of the
// bubble woken when the timer fired. Each Reset of the timer (TimerReset)
// is a fork too, begun by the run it schedules (a callback that Resets
// its own timer: sipgo's retransmission timer, rearmed under the lock
// that its creator armed it under). A timer stopped before it fired
// leaves a fork with no goroutine. Which arm a run is for is known while
// at most one arm waits for its run (see afterTimer.begin); a run that
// cannot be told apart begins no fork, which only loses order.
func AfterFunc(site uint32, d time.Duration, f func()) *time.Timer {
	if !enabled {
		return time.AfterFunc(d, f)
	}
	at := &afterTimer{pending: []timerArm{{fork(site, trace.EvFork, nil), site}}}
	t := time.AfterFunc(d, func() {
		arm, ok := at.begin()
		if !ok {
			f()
			return
		}
		Begin(arm.id)
		defer End()
		cur().clockAfter(arm.site)
		f()
	})
	afterTimers.add(t, at)
	return t
}

// TimerReset replaces t.Reset(d) for a *time.Timer t. For a timer that
// AfterFunc made it records the fork of the run Reset schedules; t.Stop
// and then t.Reset is what Reset does, and Stop's result, whether the
// timer was active, is Reset's.
func TimerReset(site uint32, t *time.Timer, d time.Duration) bool {
	if !enabled {
		return t.Reset(d)
	}
	at := afterTimers.find(t)
	if at == nil {
		return t.Reset(d)
	}
	arm := timerArm{fork(site, trace.EvFork, nil), site}
	at.mu.Lock()
	defer at.mu.Unlock()
	active := t.Stop()
	at.stopped(active)
	at.pending = append(at.pending, arm)
	t.Reset(d)
	return active
}

// TimerStop replaces t.Stop() for a *time.Timer t: a Stop that returns
// true cancelled the run of the last arm of a timer AfterFunc made.
func TimerStop(site uint32, t *time.Timer) bool {
	if !enabled {
		return t.Stop()
	}
	at := afterTimers.find(t)
	if at == nil {
		return t.Stop()
	}
	at.mu.Lock()
	defer at.mu.Unlock()
	active := t.Stop()
	at.stopped(active)
	return active
}

// afterTimer is what the shim knows of a timer AfterFunc made: its arms
// (the AfterFunc call, each Reset through TimerReset) whose run has not
// begun and was not cancelled, oldest first. A timer is active for its
// last arm only, so a Stop that returns true cancels that one. Runs of
// several waiting arms (a run that fired and has not begun when Reset
// arms the next) may begin in either order: then which run is whose is
// lost until no arm waits. A Stop or Reset of the timer that precog does
// not see (code it does not instrument) leaves an arm that waits for a
// run that will not come, or a run with no arm: the next run then begins
// an earlier arm's fork, or none; either orders the run after an arm
// that came before it.
type afterTimer struct {
	mu      sync.Mutex
	pending []timerArm
	lost    bool
}

type timerArm struct {
	id   uint64 // the fork's child
	site uint32
}

// begin takes the arm a run of the callback is for, if it is known.
func (at *afterTimer) begin() (timerArm, bool) {
	at.mu.Lock()
	defer at.mu.Unlock()
	if len(at.pending) == 0 {
		return timerArm{}, false
	}
	arm := at.pending[0]
	at.pending = at.pending[1:]
	if len(at.pending) > 0 {
		at.lost = true
	}
	ok := !at.lost
	if len(at.pending) == 0 {
		at.lost = false
	}
	return arm, ok
}

// stopped notes a Stop's result (at.mu held).
func (at *afterTimer) stopped(active bool) {
	if active && len(at.pending) > 0 {
		at.pending = at.pending[:len(at.pending)-1]
	}
}

// afterTimers finds the afterTimer of a timer AfterFunc made, by its
// address, which does not keep the timer alive. A timer allocated later
// at the address of one collected finds the old one's state: a Reset of
// it then records a fork that no run begins, which orders nothing. Past
// maxAfterTimers the table starts again empty: the timers it forgets
// record no fork at Reset.
var afterTimers timerTable

const maxAfterTimers = 1 << 16

type timerTable struct {
	mu sync.RWMutex // a timer Reset for each message read takes it to read
	m  map[uintptr]*afterTimer
}

func (tt *timerTable) add(t *time.Timer, at *afterTimer) {
	tt.mu.Lock()
	if tt.m == nil || len(tt.m) >= maxAfterTimers {
		tt.m = make(map[uintptr]*afterTimer)
	}
	tt.m[uintptr(unsafe.Pointer(t))] = at
	tt.mu.Unlock()
}

func (tt *timerTable) find(t *time.Timer) *afterTimer {
	tt.mu.RLock()
	at := tt.m[uintptr(unsafe.Pointer(t))]
	tt.mu.RUnlock()
	return at
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

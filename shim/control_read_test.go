package shim

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/precog-dev/precog/shim/plan"
)

// The tests of a read step passed lazily (control.go, Points): R records
// the read and returns the pointer, and the caller loads the value after
// R returned. A step forced after the read must not run before that load.
// Each test holds the reader between R and its load, or after it, on a
// flag or channel of its own that the shim does not see, so that the
// outcome does not depend on how long anything takes.

// readerHeld runs a plan forcing a write of x (0) after another
// goroutine's read of x (1): the reader calls R, spins on a flag the test
// sets (as a goroutine descheduled between R and its load would stay),
// loads the value, then makes its next event. hold runs while the reader
// is held, after the writer was started; it returns when the test lets
// the reader go. It returns the value the reader loaded and the result.
func readerHeld(t *testing.T, base uint32, timeoutMS int, hold func(writerDone <-chan struct{})) (loaded int, recs []plan.Record) {
	t.Helper()
	x, y := 1, 0
	var load atomic.Bool
	start := make(chan struct{})
	a, aDone := spawn(base+1, start, func() {
		p := R(base+3, &x)
		for !load.Load() {
			runtime.Gosched()
		}
		loaded = *p
		_ = *R(base+5, &y) // the next event
	})
	b, bDone := spawn(base+2, start, func() { W(base+4, &x, 0) })
	res := loadPlan(t, &plan.Plan{Mode: "force", TimeoutMS: timeoutMS,
		Edges: []plan.Edge{{Before: plan.Point{G: a, Site: base + 3}, After: plan.Point{G: b, Site: base + 4}}}})
	close(start)
	hold(bDone)
	load.Store(true)
	<-aDone
	<-bDone
	uninstallControl()
	return loaded, readResult(t, res)
}

// TestForceReadNotPassedWhileRunnable: the reader stays between R and its
// load until the write has returned. The write may only return once the
// run is timed out: a write that passed the read by its grace stored 0
// before the reader loaded, and the run said confirmed for an order that
// did not happen (the shim before this test said confirmed, with the
// reader loading 0, in 60 of 60 runs).
func TestForceReadNotPassedWhileRunnable(t *testing.T) {
	loaded, recs := readerHeld(t, 11700, 100, func(writerDone <-chan struct{}) { <-writerDone })
	f := final(recs)
	if f.State == plan.Confirmed {
		t.Fatalf("confirmed, but the reader loaded %d, the value the write forced after it stored; records %+v", loaded, recs)
	}
	if f.State != plan.TimedOut || !strings.Contains(f.Reason, "may not have loaded the value") {
		t.Errorf("final %+v, want timed out with the reader not known to have loaded", f)
	}
}

// TestForceReadPassedByNextEvent: the reader is held between R and its
// load until a successor has found it runnable after the grace and goes
// on waiting (testHookLazyHeld); then it loads and reaches its next
// event, which passes the read: confirmed, and the load saw 1.
func TestForceReadPassedByNextEvent(t *testing.T) {
	held := make(chan struct{})
	var once atomic.Bool
	testHookLazyHeld = func(string) {
		if once.CompareAndSwap(false, true) {
			close(held)
		}
	}
	defer func() { testHookLazyHeld = nil }()
	loaded, recs := readerHeld(t, 11710, 60000, func(writerDone <-chan struct{}) {
		select {
		case <-held:
		case <-writerDone:
			t.Error("the write returned while the reader was held before its load")
		}
	})
	if f := final(recs); f.State != plan.Confirmed || loaded != 1 {
		t.Errorf("final %+v, the reader loaded %d; want confirmed and 1", f, loaded)
	}
}

// TestForceReadPassedWhileBlocked: the reader loads, then blocks on a
// channel the shim does not see, until the write forced after it has
// returned. The writer passes the read after the grace, since the reader
// is blocked (it loaded before it blocked), rather than waiting out its
// timeout: confirmed, and the passed line says why.
func TestForceReadPassedWhileBlocked(t *testing.T) {
	const base = 11720
	var x, y int // the steps need not touch one variable: no data race under -race
	start, unblock := make(chan struct{}), make(chan struct{})
	a, aDone := spawn(base+1, start, func() {
		_ = *R(base+3, &y)
		<-unblock
	})
	b, bDone := spawn(base+2, start, func() { W(base+4, &x, 2) })
	pr, pw := plan.Point{G: a, Site: base + 3}, plan.Point{G: b, Site: base + 4}
	res := loadPlan(t, &plan.Plan{Mode: "force", TimeoutMS: 60000, BudgetMS: 60000, Edges: []plan.Edge{{Before: pr, After: pw}}})
	close(start)
	<-bDone
	close(unblock)
	<-aDone
	uninstallControl()
	recs := readResult(t, res)
	if f := final(recs); f.State != plan.Confirmed {
		t.Errorf("final %+v, want confirmed", f)
	}
	var why string
	for _, r := range recs {
		if r.Event == plan.EvPassed && r.Point != nil && keyOf(*r.Point) == keyOf(pr) {
			why = r.Reason
		}
	}
	if !strings.Contains(why, "blocked (chan receive)") {
		t.Errorf("the read's passed line says %q, want that its goroutine was blocked", why)
	}
}

// TestStatusOf reads goroutine headers as runtime.Stack prints them.
func TestStatusOf(t *testing.T) {
	dump := []byte("goroutine 1 [running]:\nmain.main()\n\t/x.go:3 +0x1d\n\n" +
		"goroutine 17 [chan receive, 2 minutes]:\nmain.f()\n\ncreated by main.main in goroutine 1\n\n" +
		"goroutine 170 gp=0xc000 m=nil [select (durable)]:\n\n" +
		"goroutine 18 [runnable]:\n")
	for _, c := range []struct {
		id     uint64
		status string
		found  bool
		state  readerState
	}{
		{1, "running", true, readerMayRun},
		{17, "chan receive", true, readerBlocked},
		{170, "select (durable)", true, readerBlocked},
		{18, "runnable", true, readerMayRun},
		{7, "", false, readerMayRun},
	} {
		status, found := statusOf(dump, c.id)
		if status != c.status || found != c.found || (found && classifyStatus(status) != c.state) {
			t.Errorf("goroutine %d: %q %v, want %q %v", c.id, status, found, c.status, c.found)
		}
	}
	// The running goroutine, and one that has ended.
	var buf []byte
	if st, status := goroutineState(goid(), &buf); st != readerMayRun || status != "running" {
		t.Errorf("this goroutine: %v %q, want running", st, status)
	}
	done := make(chan uint64)
	go func() { done <- goid() }()
	id := <-done
	for {
		st, _ := goroutineState(id, &buf)
		if st == readerGone {
			break
		}
		runtime.Gosched() // it is on its way out
	}
}

// TestWaitPanics: a top-level test's end waits while another goroutine
// runs its deferred calls in a panic (cherokee's worker, whose deferred
// wg.Done let the test end before the panic was printed), and only then.
func TestWaitPanics(t *testing.T) {
	var buf []runtime.StackRecord
	if anyPanicking(&buf) {
		t.Fatal("a goroutine is seen panicking before any panicked")
	}
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var recovered atomic.Bool
	go func() {
		defer close(done)
		defer func() { recovered.Store(recover() != nil) }()
		defer func() { close(held); <-release }()
		panic("boom")
	}()
	<-held
	if !anyPanicking(&buf) {
		t.Fatal("a goroutine running its deferred calls in a panic is not seen")
	}
	go func() {
		time.Sleep(20 * time.Millisecond) // so that a waitPanics that does not wait returns first
		close(release)
	}()
	waitPanics() // returns once the panic was recovered, not before
	select {
	case <-release:
	default:
		t.Fatal("waitPanics returned while the goroutine was still panicking")
	}
	<-done
	if !recovered.Load() || anyPanicking(&buf) {
		t.Errorf("recovered %v, and the recovered panic is still seen: %v", recovered.Load(), anyPanicking(&buf))
	}
}

// TestForceReadSpinRepeats: the reader spins on its read, whose repeats
// the repeat filter leaves out, so it makes no other event. The first
// repeat passes the read (the loop's next turn comes after the load), and
// it is no arrival: the site's count stays the recording's. Before, the
// write forced after the read waited until the plan's timeout.
func TestForceReadSpinRepeats(t *testing.T) {
	if !repeatFilter {
		t.Skip("the repeat filter is off")
	}
	const base = 11760
	var x, y int // y is never written: the spin reads race with nothing
	var stop atomic.Bool
	start := make(chan struct{})
	a, aDone := spawn(base+1, start, func() {
		for *R(base+3, &y) == 0 && !stop.Load() {
			runtime.Gosched()
		}
	})
	b, bDone := spawn(base+2, start, func() { W(base+4, &x, 1) })
	res := loadPlan(t, &plan.Plan{Mode: "force", TimeoutMS: 20000, BudgetMS: 20000,
		Edges: []plan.Edge{{Before: plan.Point{G: a, Site: base + 3}, After: plan.Point{G: b, Site: base + 4}}}})
	c := ctl.Load()
	close(start)
	<-bDone
	stop.Store(true)
	<-aDone
	c.mu.Lock()
	n := c.gs[a].counts[base+3]
	c.mu.Unlock()
	uninstallControl()
	if f := final(readResult(t, res)); f.State != plan.Confirmed {
		t.Errorf("final %+v, want confirmed", f)
	}
	if n != 1 {
		t.Errorf("the spinning reader arrived at its read %d times, want 1 (its repeats are left out)", n)
	}
}

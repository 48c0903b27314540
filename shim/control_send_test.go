package shim

import (
	"testing"

	"github.com/precog-dev/precog/shim/plan"
)

// forceSendThenTake forces a write of another goroutine after a send on
// ch; that goroutine then takes what the channel holds without waiting
// (recv) and the test returns it with the run's final record. While hold
// is set, the sender stays between its record and its send until the
// other goroutine is done.
func forceSendThenTake(t *testing.T, base uint32, ch chan int, hold bool, recv func(ch chan int) int) (int, plan.Record) {
	t.Helper()
	var x int
	got := -1
	release := make(chan struct{})
	if hold {
		testHookSending = func() { <-release }
		defer func() { testHookSending = nil }()
	}
	start := make(chan struct{})
	a, aDone := spawn(base+1, start, func() { Send(base+3, ch, 7) })
	b, bDone := spawn(base+2, start, func() {
		W(base+4, &x, 1)
		got = recv(ch)
	})
	res := loadPlan(t, &plan.Plan{Mode: "force", TimeoutMS: 100,
		Edges: []plan.Edge{{Before: plan.Point{G: a, Site: base + 3}, After: plan.Point{G: b, Site: base + 4}}}})
	close(start)
	<-bDone
	close(release)
	<-aDone
	uninstallControl()
	return got, final(readResult(t, res))
}

// takeNow takes a value from ch if it holds one, else returns 0.
func takeNow(ch chan int) int {
	select {
	case v := <-ch:
		return v
	default:
		return 0
	}
}

// TestForceSendPassedWhenSent: a send on a buffered channel with room is
// a step; the write forced after it must find the value in the channel.
// Held between its record and its send until the other goroutine is done,
// the send has not happened, and the run must not say confirmed: the shim
// that passed a send at arrival said confirmed with the channel empty.
func TestForceSendPassedWhenSent(t *testing.T) {
	const base = 11730
	if got, f := forceSendThenTake(t, base, make(chan int, 1), false, takeNow); f.State != plan.Confirmed || got != 7 {
		t.Errorf("final %+v, took %d; want confirmed and 7", f, got)
	}
	got, f := forceSendThenTake(t, base+10, make(chan int, 1), true, takeNow)
	if f.State == plan.Confirmed {
		t.Errorf("confirmed, but the goroutine forced after the send took %d from the channel", got)
	}
	if f.State != plan.TimedOut {
		t.Errorf("final %+v, want timed out", f)
	}
}

// TestForceSendToItsSuccessor: an unbuffered send whose receive is forced
// after it passes before it blocks, and the receive gets its value.
func TestForceSendToItsSuccessor(t *testing.T) {
	got, f := forceSendThenTake(t, 11750, make(chan int), false, func(ch chan int) int { return <-ch })
	if f.State != plan.Confirmed || got != 7 {
		t.Errorf("final %+v, received %d; want confirmed and 7", f, got)
	}
}

package shim

import (
	"cmp"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// A releaseCase is a release and an operation forced after it: first runs
// the release at site s, second the operation at site s; check says what
// went wrong, if anything, once both returned. final is the run's state
// (plan.Confirmed if empty).
type releaseCase struct {
	name          string
	first, second func(s uint32)
	check         func() string
	final         string
}

// TestForceReleaseHappened: a release recorded before it happens (WGDone,
// Unlock, WGAdd, Close) and forced before another goroutine's operation passes
// only once the release has happened, so the successor sees its effect.
// testHookReleasing holds the releasing goroutine between its record and
// the release, where the step used to pass: then a WGAdd forced after a
// WGDone at zero ran first and the Done did not panic (kernel doneadd,
// not confirmed in about 1 of 100 runs), a TryLock forced after an Unlock
// found the mutex locked, a Wait forced after an Add saw the counter
// at zero, and a Send forced after a Close found room in the channel.
func TestForceReleaseHappened(t *testing.T) {
	const hold = 20 * time.Millisecond
	var holding atomic.Uint64 // the releasing goroutine
	var held atomic.Value     // the kind of the release held last
	testHookReleasing = func(k trace.Kind) {
		if cur().id == holding.Load() {
			held.Store(k)
			time.Sleep(hold)
		}
	}
	defer func() { testHookReleasing = nil }()

	for i, tc := range []releaseCase{
		func() (tc releaseCase) {
			var wg sync.WaitGroup
			var panicked any
			tc.name = "Done before Add"
			// The Done panics (and is recovered here): its step never
			// passes, and the Add waits until its timeout. Passing the
			// step at the goroutine's end let the Add run while the
			// panic unwound; the test could pass before it ended the
			// process.
			tc.final = plan.TimedOut
			tc.first = func(s uint32) {
				defer func() { panicked = recover() }()
				WGDone(s, &wg)
			}
			tc.second = func(s uint32) { WGAdd(s, &wg, 1) }
			tc.check = func() string {
				if panicked == nil {
					return "the Done did not panic: the Add ran before it"
				}
				if fmt.Sprint(panicked) != "sync: negative WaitGroup counter" {
					return fmt.Sprintf("the Done panicked with %v, want a negative counter", panicked)
				}
				return ""
			}
			return
		}(),
		func() (tc releaseCase) {
			var mu sync.Mutex
			var ok bool
			tc.name = "Unlock before TryLock"
			tc.first = func(s uint32) {
				mu.Lock()
				Unlock(s, &mu)
			}
			tc.second = func(s uint32) { ok = TryLock(s, &mu) }
			tc.check = func() string {
				if !ok {
					return "the TryLock found the mutex locked: it ran before the Unlock"
				}
				return ""
			}
			return
		}(),
		func() (tc releaseCase) {
			var wg sync.WaitGroup
			var doneFirst atomic.Bool
			var early bool
			tc.name = "Add before Wait"
			tc.first = func(s uint32) {
				WGAdd(s, &wg, 1)
				time.Sleep(hold)
				doneFirst.Store(true)
				wg.Done()
			}
			tc.second = func(s uint32) {
				WGWait(s, &wg)
				early = !doneFirst.Load()
			}
			tc.check = func() string {
				if early {
					return "the Wait returned before the Done: it ran before the Add"
				}
				return ""
			}
			return
		}(),
		func() (tc releaseCase) {
			ch := make(chan int, 1)
			var panicked any
			tc.name = "Close before Send"
			// A send forced after a close must find the channel closed.
			// Passed when recorded, the close let a send on a buffered
			// channel go first: it succeeded and the close did not crash
			// anything (the cfp corpus's cache, not confirmed once in
			// about 70 runs under load).
			tc.first = func(s uint32) { Close(s, ch) }
			tc.second = func(s uint32) {
				defer func() { panicked = recover() }()
				Send(s, ch, 1)
			}
			tc.check = func() string {
				if k, _ := held.Load().(trace.Kind); k != trace.EvChanClose {
					return "the close was not held between its record and the close: it is not recorded as a release"
				}
				if fmt.Sprint(panicked) != "send on closed channel" {
					return fmt.Sprintf("the send panicked with %v, want a send on a closed channel: it ran before the close", panicked)
				}
				return ""
			}
			return
		}(),
	} {
		base := uint32(10700 + 10*i)
		start := make(chan struct{})
		a, aDone := spawn(base+1, start, func() { tc.first(base + 3) })
		b, bDone := spawn(base+2, start, func() { tc.second(base + 4) })
		holding.Store(a)
		pa, pb := plan.Point{G: a, Site: base + 3}, plan.Point{G: b, Site: base + 4}
		res := loadPlan(t, &plan.Plan{Mode: "force", TimeoutMS: 300, Edges: []plan.Edge{{Before: pa, After: pb}}})
		close(start)
		<-aDone
		<-bDone
		uninstallControl()
		if why := tc.check(); why != "" {
			t.Errorf("%s: %s", tc.name, why)
		}
		want := cmp.Or(tc.final, plan.Confirmed)
		if f := final(readResult(t, res)); f.State != want {
			t.Errorf("%s: final %+v, want %s", tc.name, f, want)
		} else if want == plan.TimedOut && !strings.Contains(f.Reason, "panicked") {
			t.Errorf("%s: the reason %q does not say that the release panicked", tc.name, f.Reason)
		}
	}
}

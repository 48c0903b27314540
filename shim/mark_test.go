package shim

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// spawnLib stands for a dependency that is not instrumented and starts
// the goroutine that runs f: it records nothing.
//
//go:noinline
func spawnLib(wg *sync.WaitGroup, f func()) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		f()
	}()
}

// spawnTwice starts a goroutine (recording nothing) that starts the one
// that runs f.
//
//go:noinline
func spawnTwice(wg *sync.WaitGroup, f func()) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		spawnLib(wg, f)
	}()
}

// spawnThenFail is lambda's startFunctionRPC: its marked call, which
// creates a goroutine, is followed by an inlined call (errors.New), at
// whose first instruction the call returns: the runtime prints the
// creation section's frame as errors.New's, the one logical function it
// names at a return pc, with the offset from spawnThenFail's entry.
//
//go:noinline
func spawnThenFail(kids *sync.WaitGroup, f func()) error {
	MarkF(9314, spawnLib)(kids, f)
	return errors.New("spawned")
}

// spawnInline is net/rpc's Accept, a wrapper inlined in its caller.
func spawnInline(wg *sync.WaitGroup, f func()) { spawnLib(wg, f) }

// spawnInlinedThenFail is startFunctionRPC as lambda wrote it: the marked
// call (rpc.Accept(lis)) is inlined, then errors.New is. The creation
// section shows the frame twice, once per logical function, each named
// after what is inlined at the pc printed.
//
//go:noinline
func spawnInlinedThenFail(kids *sync.WaitGroup, f func()) error {
	spawnInline(kids, MarkV(9315, 0, f))
	return errors.New("spawned")
}

// TestMark: a goroutine that code precog does not instrument created
// during a marked call (MarkF, MarkV) of a recorded goroutine is recorded with
// EvAfter naming the creator and the mark's site, directly and through a
// goroutine that records nothing (the second creation section); one
// created from a line with no mark, in a function with marks, and one
// created before the mark's line ran are not; one whose creation section
// names the function inlined after the marked call is (spawnThenFail,
// spawnInlinedThenFail).
// The runtime shows the creation sections only with
// GODEBUG=tracebackancestors, read at start: the test runs itself again
// with plan.Godebug's.
func TestMark(t *testing.T) {
	if !strings.Contains(os.Getenv("GODEBUG"), "tracebackancestors=") {
		if testing.Short() {
			t.Skip("runs the test binary again")
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestMark$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GODEBUG="+plan.Godebug(os.Getenv("GODEBUG"), true))
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "PASS") {
			t.Fatalf("with tracebackancestors: %v\n%s", err, out)
		}
		return
	}
	from := seqs.n.Load()
	const id = 0x6eef
	var wg, kids sync.WaitGroup
	wg.Add(1)
	go func() { // as an instrumented go statement's child
		Begin(id)
		defer End()
		defer wg.Done()
		spawnLib(&kids, func() { Read(9301, nil) }) // before the marks: no mark on its line
		kids.Wait()
		MarkF(9310, spawnLib)(&kids, func() { Read(9302, nil) })
		kids.Wait()
		spawnTwice(&kids, MarkV(9311, 0, func() { Read(9303, nil) }))
		kids.Wait()
		callLine := lineHere() + 1 // the call's line, not the argument's
		spawnLib(&kids,
			MarkV(9313, callLine, func() { Read(9306, nil) }))
		kids.Wait()
		for range 2 {
			MarkF(9312, spawnLib)(&kids, func() { Read(9304, nil) }) // the first mark's site, both times
			kids.Wait()
		}
		spawnLib(&kids, func() { Read(9305, nil) }) // after the marks, on a line with none
		kids.Wait()
		_ = spawnThenFail(&kids, func() { Read(9307, nil) })
		kids.Wait()
		_ = spawnInlinedThenFail(&kids, func() { Read(9308, nil) })
		kids.Wait()
	}()
	wg.Wait()
	evs := since(readTrace(t, tracePath), from)
	for _, c := range []struct {
		site  uint32
		after uint32 // 0: no EvAfter
	}{{9301, 0}, {9302, 9310}, {9303, 9311}, {9304, 9312}, {9305, 0}, {9306, 9313}, {9307, 9314}, {9308, 9315}} {
		n := 0
		for _, ev := range evs {
			if ev.Site != c.site || ev.Kind != trace.EvRead {
				continue
			}
			n++
			var after []trace.Event
			for _, e := range goroutineEvents(evs, ev.Goroutine) {
				if e.Kind == trace.EvAfter {
					after = append(after, e)
				}
			}
			switch {
			case c.after == 0 && len(after) > 0:
				t.Errorf("site %d: %d EvAfter (site %d), want none", c.site, len(after), after[0].Site)
			case c.after != 0 && (len(after) != 1 || after[0].Site != c.after || after[0].Peer != id):
				t.Errorf("site %d: EvAfter %v, want one naming site %d and goroutine %#x", c.site, after, c.after, uint64(id))
			}
		}
		if want := map[uint32]int{9304: 2}[c.site]; n != max(want, 1) {
			t.Errorf("site %d: %d reads, want %d", c.site, n, max(want, 1))
		}
	}
	var marks []uint32
	for _, ev := range goroutineEvents(evs, id) {
		if ev.Kind == trace.EvMark {
			marks = append(marks, ev.Site)
		}
	}
	if want := []uint32{9310, 9311, 9313, 9312, 9314, 9315}; !slices.Equal(marks, want) {
		t.Errorf("marks %v, want %v (the first at each site only)", marks, want)
	}
}

// lineHere returns the line of its call.
func lineHere() int {
	_, _, line, _ := runtime.Caller(1)
	return line
}

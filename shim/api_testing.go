package shim

import "github.com/precog-dev/precog/shim/trace"

// TB is the part of testing.TB the shim uses; the shim does not import
// testing, which would change every program it is linked into.
type TB interface {
	Name() string
	Failed() bool
	Skipped() bool
	Cleanup(func())
}

// TestStart is the first statement of every instrumented TestXxx and t.Run
// function literal. It records TestStart with t's name (and names the
// goroutine after it, see the package doc) and registers a cleanup that
// records TestEnd with the outcome.
func TestStart(t TB) {
	if !enabled {
		return
	}
	testStart(t)
}

// Ran is called with the result of an instrumented t.Run (or b.Run) as it
// returns, and returns it. It records EvRan: the subtest has ended, or
// called t.Parallel. The goroutine's accesses after it carry its seq, so
// that detect/hb orders them after the subtest it waited for; without it
// they carried the seq of the goroutine's last sync event before t.Run
// (a Cleanup's restore of a variable the subtest's goroutines read was
// taken to come before them). It passes no control gate: no goroutine
// arrives at it.
func Ran(site uint32, ok bool) bool {
	if enabled {
		cur().syncEvent(site, trace.EvRan, nil, 0)
	}
	return ok
}

// TestLog is called before a call of a method that panics once its test
// has completed (Log, Logf, Error, Errorf, Fatal, Fatalf, Fail, FailNow,
// Skip, Skipf) on x: a *testing.T or *testing.B, or an interface value
// that may hold one (a logger interface the test was passed as). If x is
// the T of a test that TestStart saw, it records a read of the T at site;
// detect/conmem pairs it with the test's end (con-closed).
func TestLog(site uint32, x any) {
	if !enabled {
		return
	}
	testLog(site, x)
}

package shim

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

package connull_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/connull"
	"github.com/precog-dev/precog/internal/corpus"
)

// TestKernels runs the check over its kernels of the corpus, where it must
// report what their want comments say, and over the static negative
// controls, where it must report nothing. (analyzers/suite runs every
// check over the whole corpus.)
func TestKernels(t *testing.T) {
	kernels := []string{"mysql", "mysql2", "pbzip2mutex", "click", "prodcons", "spinflag", "timerthread"}
	negative, err := corpus.Negative(corpus.Dir())
	if err != nil {
		t.Fatal(err)
	}
	corpus.CheckVet(t, []*analysis.Analyzer{connull.Analyzer}, append(kernels, negative...))
}

// TestElection: accesses that only the winner of a one-shot
// CompareAndSwap runs are on one goroutine; a nil store that wins nothing,
// or a flag that is reset, is still reported.
func TestElection(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), connull.Analyzer, "election")
}

// TestTestHook: a hook that test code clears in a package variable, read
// by the package's goroutines, rests on the test's timing (low
// confidence); the package clearing it itself is reported.
func TestTestHook(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), connull.Analyzer, "testhook")
}

// TestMethodValue: an object reachable from what a goroutine was handed
// only through the receiver of a method value stored in a field is
// shared with it.
func TestMethodValue(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), connull.Analyzer, "methodvalue")
}

// TestInFlight: a flag that a goroutine's start requires clear, sets,
// and that is cleared only after the goroutine's report is received,
// orders each writer before the next one and before the code that
// starts it; writers started without the flag are reported.
func TestInFlight(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), connull.Analyzer, "inflight")
}

// TestRestart: goroutines that a reconnect starts again only after a Wait
// for the one before (on some path; a flag guards the other) are taken
// to run one at a time, at low confidence: under -all the report is shown
// with the assumption it rests on. A restart without a Wait is reported
// at the default confidence.
func TestRestart(t *testing.T) {
	if err := connull.Analyzer.Flags.Set("all", "true"); err != nil {
		t.Fatal(err)
	}
	defer connull.Analyzer.Flags.Set("all", "false")
	analysistest.Run(t, analysistest.TestData(), connull.Analyzer, "restart")
}

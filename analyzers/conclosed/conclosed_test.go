package conclosed_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/conclosed"
	"github.com/precog-dev/precog/internal/corpus"
)

// TestKernels runs the check over its kernels of the corpus, where it must
// report what their want comments say, and over the static negative
// controls, where it must report nothing. (analyzers/suite runs every
// check over the whole corpus.)
func TestKernels(t *testing.T) {
	kernels := []string{"pbzip2queue", "apache1", "apache1pool", "clickclose", "mapiter", "tlogafter"}
	negative, err := corpus.Negative(corpus.Dir())
	if err != nil {
		t.Fatal(err)
	}
	corpus.CheckVet(t, []*analysis.Analyzer{conclosed.Analyzer}, append(kernels, negative...))
}

// TestDeferDone: a Done in a function literal that the goroutine defers
// runs after everything the goroutine did before, and before what the
// literal does after it; a Done that a spawner's own goroutine function
// defers runs after the function value it runs (spawnerjoin).
func TestDeferDone(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conclosed.Analyzer, "deferdone", "earlyreturn", "spawnerjoin")
}

// TestSwitchGo: the functions one `go` statement may start through a
// function value do not run at the same time unless the statement runs
// again while they do.
func TestSwitchGo(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conclosed.Analyzer, "switchgo")
}

// TestTaken: a map taken out of its field under the mutex, with a fresh
// one put there in the same section, is the taker's alone to range over.
func TestTaken(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conclosed.Analyzer, "taken")
}

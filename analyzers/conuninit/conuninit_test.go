package conuninit_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/conuninit"
	"github.com/precog-dev/precog/analyzers/internal/fixes/fixtest"
	"github.com/precog-dev/precog/internal/corpus"
)

// TestKernels runs the check over its kernels of the corpus, where it must
// report what their want comments say, and over the static negative
// controls, where it must report nothing. (analyzers/suite runs every
// check over the whole corpus.)
func TestKernels(t *testing.T) {
	kernels := []string{"transmission", "fft", "doneadd"}
	negative, err := corpus.Negative(corpus.Dir())
	if err != nil {
		t.Fatal(err)
	}
	corpus.CheckVet(t, []*analysis.Analyzer{conuninit.Analyzer}, append(kernels, negative...))
}

// TestAddFix applies the fixes of Done-before-Add reports, compares the
// result with the golden file, and checks that the fixed package compiles
// and draws no report where a fix was applied.
func TestAddFix(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), conuninit.Analyzer, "addfix")
	fixtest.Recheck(t, conuninit.Analyzer, analysistest.TestData(), "addfix")
}

// TestInitFix applies the fixes of reads before initialization, as
// TestAddFix does.
func TestInitFix(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), conuninit.Analyzer, "initfix")
	fixtest.Recheck(t, conuninit.Analyzer, analysistest.TestData(), "initfix")
}

// TestLockedInit: a goroutine that takes the mutex its starter holds from
// the go statement through the write reads after the write.
func TestLockedInit(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conuninit.Analyzer, "lockedinit")
}

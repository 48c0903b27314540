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

// TestConfidence checks that a report resting on an assumption (a test's
// handler serving two requests at once) carries it, under the check's all
// flag, and that a handler outside tests is reported as confident. (That
// such a report is hidden without the flag is measured on net/http's
// tests in bench/static/verdicts.md: loading net/http twice here would
// double the test's time.)
func TestConfidence(t *testing.T) {
	if err := conclosed.Analyzer.Flags.Set("all", "true"); err != nil {
		t.Fatal(err)
	}
	defer conclosed.Analyzer.Flags.Set("all", "false")
	analysistest.Run(t, analysistest.TestData(), conclosed.Analyzer, "handlers")
}

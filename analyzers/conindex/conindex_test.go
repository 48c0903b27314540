package conindex_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/conindex"
	"github.com/precog-dev/precog/internal/corpus"
)

// TestKernels runs the check over its kernels of the corpus, where it must
// report what their want comments say, and over the static negative
// controls, where it must report nothing. (analyzers/suite runs every
// check over the whole corpus.)
func TestKernels(t *testing.T) {
	kernels := []string{"apache", "cherokee"}
	negative, err := corpus.Negative(corpus.Dir())
	if err != nil {
		t.Fatal(err)
	}
	corpus.CheckVet(t, []*analysis.Analyzer{conindex.Analyzer}, append(kernels, negative...))
}

// TestReduced checks that an index reduced into range where it is used is
// not reported, beside near misses that are.
func TestReduced(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conindex.Analyzer, "ring")
}

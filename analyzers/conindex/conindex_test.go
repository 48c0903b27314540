package conindex_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/analyzers/conindex"
	"github.com/precog-dev/precog/internal/corpus"
)

// TestKernels runs the check over its kernels of the corpus, where it must
// report what their want comments say, and over the packages without want
// comments (negative controls, and kernels of other bugs), where it must
// report nothing.
func TestKernels(t *testing.T) {
	kernels := []string{"apache", "cherokee"}
	silent, err := corpus.Silent(corpus.Dir())
	if err != nil {
		t.Fatal(err)
	}
	corpus.CheckVet(t, []*analysis.Analyzer{conindex.Analyzer}, append(kernels, silent...))
}

package conmap_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/analyzers/conmap"
	"github.com/precog-dev/precog/internal/corpus"
)

// TestKernels runs the check over its kernels of the corpus, where it must
// report what their want comments say, and over the static negative
// controls, where it must report nothing. (analyzers/suite runs every
// check over the whole corpus.)
func TestKernels(t *testing.T) {
	kernels := []string{"mapwrites"}
	negative, err := corpus.Negative(corpus.Dir())
	if err != nil {
		t.Fatal(err)
	}
	corpus.CheckVet(t, []*analysis.Analyzer{conmap.Analyzer}, append(kernels, negative...))
}

package conclosed_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/analyzers/conclosed"
	"github.com/precog-dev/precog/internal/corpus"
)

// TestKernels runs the check over its kernels of the corpus, where it must
// report what their want comments say, and over the packages without want
// comments (negative controls, and kernels of other bugs), where it must
// report nothing.
func TestKernels(t *testing.T) {
	kernels := []string{"pbzip2queue", "apache1", "apache1pool", "clickclose", "mapiter", "tlogafter"}
	silent, err := corpus.Silent(corpus.Dir())
	if err != nil {
		t.Fatal(err)
	}
	corpus.CheckVet(t, []*analysis.Analyzer{conclosed.Analyzer}, append(kernels, silent...))
}

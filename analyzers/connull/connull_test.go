package connull_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/analyzers/connull"
	"github.com/precog-dev/precog/internal/corpus"
)

// TestKernels runs the check over its kernels of the corpus, where it must
// report what their want comments say, and over the packages without want
// comments (negative controls, and kernels of other bugs), where it must
// report nothing.
func TestKernels(t *testing.T) {
	kernels := []string{"mysql", "mysql2", "pbzip2mutex", "click", "prodcons", "spinflag", "timerthread"}
	silent, err := corpus.Silent(corpus.Dir())
	if err != nil {
		t.Fatal(err)
	}
	corpus.CheckVet(t, []*analysis.Analyzer{connull.Analyzer}, append(kernels, silent...))
}

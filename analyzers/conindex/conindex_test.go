package conindex_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/conindex"
)

func TestKernels(t *testing.T) {
	dir, err := filepath.Abs("../../testdata/static")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, conindex.Analyzer, "conindex/...", "negative/...")
}

package conuninit_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/conuninit"
	"github.com/precog-dev/precog/analyzers/internal/fixes/fixtest"
)

func TestKernels(t *testing.T) {
	dir, err := filepath.Abs("../../testdata/static")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, conuninit.Analyzer, "conuninit/...", "negative/...")
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

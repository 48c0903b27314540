package limits_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/limits"
	"github.com/precog-dev/precog/analyzers/pointsto"
)

// TestQuiet checks that a package within every budget gets no report.
func TestQuiet(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), limits.Analyzer, "small")
}

// TestReached lowers both budgets below what package small needs: each is
// reported once, at the package clause.
func TestReached(t *testing.T) {
	for _, f := range []struct {
		analyzer *analysis.Analyzer
		flag     string
	}{
		{callgraph.Analyzer, "maxvta"},
		{pointsto.Analyzer, "maxfacts"},
	} {
		old := f.analyzer.Flags.Lookup(f.flag).Value.String()
		if err := f.analyzer.Flags.Set(f.flag, "1"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.analyzer.Flags.Set(f.flag, old) })
	}
	analysistest.Run(t, analysistest.TestData(), limits.Analyzer, "budget")
}

package limits_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/limits"
)

// TestQuiet checks that a package within every budget gets no report.
func TestQuiet(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), limits.Analyzer, "small")
}

// TestReached lowers the VTA bound and the work budget below what package
// budget needs: one note, at the package clause, names both.
func TestReached(t *testing.T) {
	set(t, callgraph.Analyzer, "maxvta", "1")
	set(t, limits.Analyzer, "work", "1")
	analysistest.Run(t, analysistest.TestData(), limits.Analyzer, "budget")
}

// set sets a flag of an analyzer for the rest of the test.
func set(t *testing.T, a *analysis.Analyzer, name, value string) {
	t.Helper()
	old := a.Flags.Lookup(name).Value.String()
	if err := a.Flags.Set(name, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Flags.Set(name, old) })
}

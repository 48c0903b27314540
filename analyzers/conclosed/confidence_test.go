// The test loads net/http from source, which takes minutes under the race
// detector on a loaded machine (go test's 10-minute limit was reached at
// load 60); it checks the analysis's output, not its concurrency, so it
// runs without -race only.

//go:build !race

package conclosed_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/conclosed"
)

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

package suppress_test

import (
	"slices"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/budget"
	"github.com/precog-dev/precog/analyzers/conmap"
	"github.com/precog-dev/precog/analyzers/internal/fixturetest"
	"github.com/precog-dev/precog/analyzers/internal/suppress"
)

func TestSuppress(t *testing.T) {
	var skipped []string
	a := &analysis.Analyzer{
		Name:     "dropper",
		Doc:      "report once the budget has run out",
		Requires: []*analysis.Analyzer{budget.Analyzer},
		Run: func(pass *analysis.Pass) (any, error) {
			b := pass.ResultOf[budget.Analyzer].(*budget.Budget)
			r := suppress.New(pass, "dropper")
			b.Spend(int(budget.DefaultWork) + 1)
			r.Report(analysis.Diagnostic{Pos: pass.Files[0].Package, Message: "dropped"})
			skipped = b.Skipped()
			return nil, nil
		},
	}
	fixturetest.Run(t, analysistest.TestData(),
		// A real check, con-map, over maps written by several goroutines
		// at once, with suppression comments around the writes.
		fixturetest.Case{Name: "Comments", Analyzer: conmap.Analyzer, Patterns: []string{
			"ignore", "nolint", "malformed", "stale", "othercheck", "testonly"}},
		// A report dropped because the package's budget ran out records
		// that the rest of the check was skipped, so that the limits check
		// notes it even when the check itself never asked the budget again
		// (its last ordering query was cut short).
		fixturetest.Case{Name: "DroppedNoted", Analyzer: a, Patterns: []string{"dropped"},
			Check: func(t *testing.T, _ []*analysistest.Result) {
				if !slices.Equal(skipped, []string{"the rest of the dropper check"}) {
					t.Errorf("skipped %q, want the rest of the dropper check", skipped)
				}
			}},
	)
}

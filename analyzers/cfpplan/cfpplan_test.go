package cfpplan_test

import (
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/cfpplan"
	"github.com/precog-dev/precog/analyzers/internal/fixturetest"
)

// plan reports each function's plan at its name: "F: logged", "F: opt1",
// "F: opt2 from A, B", "F: pre", followed by "spawned" when it runs on a
// goroutine the package starts.
var plan = &analysis.Analyzer{
	Name:     "plan",
	Doc:      "report the CFP plan of each function",
	Requires: []*analysis.Analyzer{cfpplan.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		res := pass.ResultOf[cfpplan.Analyzer].(*cfpplan.Result)
		for _, f := range res.Funcs {
			if !strings.Contains(pass.Fset.File(f.Fn.Pos()).Name(), "testdata") {
				continue // the generated test main
			}
			what := f.Skip.String()
			if what == "" {
				what = "logged"
			}
			if f.Skip == cfpplan.Opt2 {
				var names []string
				for _, c := range f.Callers {
					names = append(names, c.Name())
				}
				what += " from " + strings.Join(names, ", ")
			}
			if f.Spawned {
				what += " spawned"
			}
			pass.Reportf(f.Fn.Pos(), "%s: %s", f.Fn.Name(), what)
		}
		return nil, nil
	},
}

func TestPlan(t *testing.T) {
	fixturetest.Run(t, analysistest.TestData(),
		fixturetest.Case{Name: "Plan", Analyzer: plan, Patterns: []string{"lu", "fig2", "misc"}},
		// The at-least-one-iteration heuristic off: daxpy, in a loop of
		// lu0, is then logged.
		fixturetest.Case{Name: "NoLoops", Analyzer: plan, Patterns: []string{"noloops"},
			Flags: []fixturetest.Flag{{Analyzer: cfpplan.Analyzer, Name: "loops", Value: "false"}}},
	)
}

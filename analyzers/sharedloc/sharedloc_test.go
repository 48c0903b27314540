package sharedloc_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/fixturetest"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// locality reports each access to a field, package variable or captured
// variable with
// whether no other goroutine can reach its object yet (Local), so that
// testdata states it with // want comments:
//
//	write T.n: local
//	read T.n: shared
var locality = &analysis.Analyzer{
	Name:     "locality",
	Doc:      "report whether each access to a variable or field is local",
	Requires: []*analysis.Analyzer{ssabuild.Analyzer, sharedloc.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		sr := pass.ResultOf[sharedloc.Analyzer].(*sharedloc.Result)
		for _, a := range sr.Accesses {
			if !reported(a) {
				continue
			}
			state := "shared"
			if sr.Local(a) {
				state = "local"
			}
			pass.Reportf(a.Pos(), "%s %s: %s", a.Op, a.Loc, state)
		}
		return nil, nil
	},
}

// sharing reports, for each access to a variable or field in a
// function that runs in a Multi context, whether all goroutines of that
// context touch one object (SharedIn):
//
//	write x in go statement Start$1 from Start: shared
//	write x in go statement Start$1 from Start: one per goroutine
var sharing = &analysis.Analyzer{
	Name:     "sharing",
	Doc:      "report whether the goroutines of a Multi context share each access's object",
	Requires: []*analysis.Analyzer{ssabuild.Analyzer, goroutines.Analyzer, sharedloc.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		gr := pass.ResultOf[goroutines.Analyzer].(*goroutines.Result)
		sr := pass.ResultOf[sharedloc.Analyzer].(*sharedloc.Result)
		for _, a := range sr.Accesses {
			if !reported(a) {
				continue
			}
			for _, c := range gr.Of(a.Fn()) {
				if !c.Multi {
					continue
				}
				state := "one per goroutine"
				if sr.SharedIn(a, c) {
					state = "shared"
				}
				pass.Reportf(a.Pos(), "%s %s in %s from %s: %s", a.Op, a.Loc, c, c.Spawner().Name(), state)
			}
		}
		return nil, nil
	},
}

func reported(a *sharedloc.Access) bool {
	return a.Loc.Kind != sharedloc.Made
}

func TestFixtures(t *testing.T) {
	fixturetest.Run(t, analysistest.TestData(),
		// Local on constructors, captured and package variables. The
		// locality analyzer reports every field and captured-variable
		// access, so the scenarios for it are kept apart from those for
		// sharing.
		fixturetest.Case{Name: "Local", Analyzer: locality, Patterns: []string{"constructor", "captured", "globals", "deadcode", "capturedlater"}},
		fixturetest.Case{Name: "SharedIn", Analyzer: sharing, Patterns: []string{"loopshare"}},
	)
}

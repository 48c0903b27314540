// Package ssabuild builds the SSA form every check of precog reads: x/tools'
// buildssa, whose result type it keeps, with one more kind of call cut from
// the control flow. buildssa ends a block after a call of a function that
// ctrlflow's facts mark as never returning (os.Exit, t.Fatal, a helper of
// the package that always calls them); ssabuild also ends it after a call
// of a function model.NoReturn names, which ctrlflow cannot see never
// returns: testify's require.FailNow fails the test through the TestingT
// interface's FailNow, a call ctrlflow does not follow, after a branch that
// returns when assert's Fail reports success, which it never does (pion/ice's
// `select { case <-done: case <-time.After(time.Second): require.FailNow(t,
// "timeout") }` reads what the goroutine wrote before done only after the
// receive).
package ssabuild

import (
	"go/types"
	"reflect"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

// Analyzer builds the package's SSA form, as buildssa.Analyzer does (the
// same result type), with model.NoReturn's calls also cut.
var Analyzer = &analysis.Analyzer{
	Name:       "precogssa",
	Doc:        "build SSA-form IR for precog's checks, cutting calls that never return (ctrlflow's and model.NoReturn's)",
	Run:        run,
	Requires:   []*analysis.Analyzer{ctrlflow.Analyzer},
	ResultType: reflect.TypeFor[*buildssa.SSA](),
}

func run(pass *analysis.Pass) (any, error) {
	cfgs := pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs)
	pkg, funcs := analyzerutil.BuildPackage(pass, func(fn *types.Func) bool {
		return cfgs.NoReturn(fn) || model.NoReturn(fn.FullName())
	})
	return &buildssa.SSA{Pkg: pkg, SrcFuncs: funcs}, nil
}

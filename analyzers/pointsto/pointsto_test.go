package pointsto_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/pointsto"
)

// aliasing reports, at each call alias(p, q), whether the points-to sets
// of p and q intersect, so that testdata states it with // want comments:
// "may alias" or "disjoint". The arguments are looked at before their
// conversion to the marker's interface parameters.
var aliasing = &analysis.Analyzer{
	Name:     "aliasing",
	Doc:      "report whether the arguments of each alias call may alias",
	Requires: []*analysis.Analyzer{ssabuild.Analyzer, pointsto.Analyzer},
	Run:      runAliasing,
}

func runAliasing(pass *analysis.Pass) (any, error) {
	ssainput := pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
	pr := pass.ResultOf[pointsto.Analyzer].(*pointsto.Result)
	for _, fn := range ssainput.SrcFuncs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(*ssa.Call)
				if !ok || len(call.Call.Args) != 2 {
					continue
				}
				if callee := call.Call.StaticCallee(); callee == nil || callee.Name() != "alias" {
					continue
				}
				p, q := unwrap(call.Call.Args[0]), unwrap(call.Call.Args[1])
				ps, qs := pr.PointsTo(p), pr.PointsTo(q)
				switch {
				case len(ps) == 0 || len(qs) == 0:
					pass.Reportf(call.Pos(), "no objects")
				case pointsto.Intersect(ps, qs):
					pass.Reportf(call.Pos(), "may alias")
				default:
					pass.Reportf(call.Pos(), "disjoint")
				}
			}
		}
	}
	return nil, nil
}

func unwrap(v ssa.Value) ssa.Value {
	if mi, ok := v.(*ssa.MakeInterface); ok {
		return mi.X
	}
	return v
}

func TestPointsTo(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), aliasing, "constructors", "interior", "flows", "wrappers", "nested")
}

package callgraph_test

import (
	"reflect"
	"slices"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
)

// TestCallees checks that Callees gives, for every call site, the callees
// of its function's out-edges at that site, each once, in CompareFuncs
// order (what it computed by a search and a sort before it kept them per
// site), on dynamic calls of every kind, some with several callees.
func TestCallees(t *testing.T) {
	var sites, several int
	check := &analysis.Analyzer{
		Name:     "calleescheck",
		Doc:      "compares Callees with the out-edges of each site",
		Requires: []*analysis.Analyzer{ssabuild.Analyzer, callgraph.Analyzer},
		Run: func(pass *analysis.Pass) (any, error) {
			g := pass.ResultOf[callgraph.Analyzer].(*callgraph.Result)
			for _, fn := range pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA).SrcFuncs {
				for _, f := range append([]*ssa.Function{fn}, fn.AnonFuncs...) {
					for _, b := range f.Blocks {
						for _, instr := range b.Instrs {
							site, ok := instr.(ssa.CallInstruction)
							if !ok || site.Common().StaticCallee() != nil {
								continue
							}
							var want []*ssa.Function
							for _, e := range g.Out(f) {
								if e.Site == site && !slices.Contains(want, e.Callee.Func) {
									want = append(want, e.Callee.Func)
								}
							}
							slices.SortFunc(want, callgraph.CompareFuncs)
							got := g.Callees(site)
							if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
								pass.Reportf(site.Pos(), "callees %v, want %v", got, want)
							}
							sites++
							if len(want) > 1 {
								several++
							}
						}
					}
				}
			}
			return nil, nil
		},
	}
	analysistest.Run(t, analysistest.TestData(), check, "calls")
	if sites < 8 || several < 3 {
		t.Errorf("%d dynamic call sites, %d with several callees; want at least 8 and 3 (the test would check little)", sites, several)
	}
}

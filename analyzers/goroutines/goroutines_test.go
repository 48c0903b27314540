package goroutines_test

import (
	"go/ast"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
)

// contexts reports, at each source function, the goroutine contexts it
// runs in, so that testdata can state them with // want comments:
//
//	ctx: caller, go statement worker multi, task main$1 dynamic
//
// Each context is its kind and entry function, followed by "multi" when
// several of its goroutines may run at once, "join M" when method M on the
// spawning call's receiver waits for them, "joined" when the spawning call
// itself waits for them, and "dynamic" when the function is reached from
// the entry only through function values (Context.Static is false). A
// function that runs in no context gets "ctx: none".
var contexts = &analysis.Analyzer{
	Name:     "contexts",
	Doc:      "report the goroutine contexts of each function",
	Requires: []*analysis.Analyzer{ssabuild.Analyzer, goroutines.Analyzer},
	Run:      runContexts,
}

func runContexts(pass *analysis.Pass) (any, error) {
	ssainput := pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
	gr := pass.ResultOf[goroutines.Analyzer].(*goroutines.Result)
	generated := map[string]bool{}
	for _, f := range pass.Files {
		if ast.IsGenerated(f) {
			generated[pass.Fset.File(f.Pos()).Name()] = true
		}
	}
	for _, fn := range ssainput.SrcFuncs {
		if !fn.Pos().IsValid() || generated[pass.Fset.File(fn.Pos()).Name()] {
			continue
		}
		pass.Reportf(fn.Pos(), "ctx: %s", describe(gr, fn))
	}
	return nil, nil
}

func describe(gr *goroutines.Result, fn *ssa.Function) string {
	cs := gr.Of(fn)
	if len(cs) == 0 {
		return "none"
	}
	var parts []string
	for _, c := range cs {
		s := c.Kind.String()
		if c.Kind != goroutines.Caller {
			s += " " + c.Entry.Name()
		}
		if c.Multi {
			s += " multi"
		}
		if c.Join != "" {
			s += " join " + c.Join
		}
		if c.JoinedByReturn {
			s += " joined"
		}
		if !c.Static(fn) {
			s += " dynamic"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func TestContexts(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), contexts,
		"gostmt", "loops", "tasks", "subtests", "handlers", "afterfunc",
		"samegoroutine", "spawnuse", "localspawn", "bindings", "static", "wrapped", "reentry")
}

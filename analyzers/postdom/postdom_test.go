package postdom_test

import (
	"reflect"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/postdom"
)

// reach reports, at each call of a.always and a.maybe (deferred or not),
// whether the call runs on every path from its function's entry to its
// exit: "always", "loops" (only under Options.LoopsIterate) or "maybe".
// It returns buildssa's and postdom's results, for TestFixtures' checks of
// the tree.
var reach = &analysis.Analyzer{
	Name:       "reach",
	Doc:        "report post-dominance of marker calls",
	Requires:   []*analysis.Analyzer{ssabuild.Analyzer, postdom.Analyzer},
	ResultType: reflect.TypeFor[[2]any](),
	Run: func(pass *analysis.Pass) (any, error) {
		ssainput := pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
		res := pass.ResultOf[postdom.Analyzer].(*postdom.Result)
		var visit func(fn *ssa.Function)
		visit = func(fn *ssa.Function) {
			plain := res.Of(fn)
			loops := res.Build(fn, postdom.Options{LoopsIterate: true})
			for _, b := range fn.Blocks {
				for _, instr := range b.Instrs {
					call, ok := instr.(ssa.CallInstruction)
					if !ok {
						continue
					}
					switch model.CalleeName(call.Common()) {
					case "a.always", "a.maybe":
					default:
						continue
					}
					msg := "maybe"
					switch {
					case plain.AlwaysReached(instr):
						msg = "always"
						if !loops.AlwaysReached(instr) {
							msg = "always without loops only" // must not happen
						}
					case loops.AlwaysReached(instr):
						msg = "loops"
					}
					pass.Reportf(call.Pos(), "%s", msg)
				}
			}
			for _, anon := range fn.AnonFuncs {
				visit(anon)
			}
		}
		for _, fn := range ssainput.SrcFuncs {
			if fn.Parent() == nil {
				visit(fn)
			}
		}
		return [2]any{ssainput, res}, nil
	},
}

// TestFixtures runs reach over its fixtures in one analysistest run (each
// run loads the standard library packages its fixtures import from source
// and analyzes them for facts, several seconds of CPU under -race): a
// states what reach must report at each marker call, and tree is the shape
// checkTree looks at.
func TestFixtures(t *testing.T) {
	results := analysistest.Run(t, analysistest.TestData(), reach, "a", "tree")
	for _, r := range results {
		if r.Action.Package.PkgPath == "tree" {
			checkTree(t, r.Action.Result.([2]any))
			return
		}
	}
	t.Fatal("no result for package tree")
}

// checkTree checks the tree's shape on a diamond: the join block is the
// immediate post-dominator of the entry and of both arms, and the exit
// (nil) is the join's. It also checks which functions never return.
func checkTree(t *testing.T, r [2]any) {
	ssainput, res := r[0].(*buildssa.SSA), r[1].(*postdom.Result)
	funcs := map[string]*ssa.Function{}
	for _, f := range ssainput.SrcFuncs {
		funcs[f.Name()] = f
	}
	fn := funcs["branch"]
	tree := res.Of(fn)
	if tree == nil {
		t.Fatal("no tree for branch")
	}
	entry := fn.Blocks[0]
	if len(entry.Succs) != 2 {
		t.Fatalf("entry of branch has %d successors, want 2", len(entry.Succs))
	}
	join := tree.IPostDom(entry)
	if join == nil || join == entry {
		t.Fatalf("ipdom(entry) = %v, want the join block", join)
	}
	for _, arm := range entry.Succs {
		if arm == join {
			continue
		}
		if got := tree.IPostDom(arm); got != join {
			t.Errorf("ipdom(%s) = %v, want %s", arm, got, join)
		}
		if tree.PostDominates(arm, entry) {
			t.Errorf("arm %s post-dominates the entry", arm)
		}
	}
	if !tree.PostDominates(join, entry) || !tree.PostDominates(entry, entry) {
		t.Error("join must post-dominate the entry, and the entry itself")
	}
	if got := tree.IPostDom(join); got != nil {
		t.Errorf("ipdom(join) = %v, want the virtual exit", got)
	}
	for name, want := range map[string]bool{"die": true, "dieLater": true, "blocksForever": true, "endless": true, "sometimes": false, "recovers": false, "branch": false} {
		if got := res.NoReturn(funcs[name]); got != want {
			t.Errorf("NoReturn(%s) = %v, want %v", name, got, want)
		}
	}
}

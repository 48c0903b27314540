// Package checktest provides small analyzers that behave like precog's
// checks, for testing the drivers without depending on what the real checks
// find: one reports every go statement with evidence, one uses facts across
// packages, and one panics inside a guard.
package checktest

import (
	"errors"
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/internal/analyzerutil"
)

// IDs maps the analyzers' names to their stable IDs, the categories of
// their findings, as suite.IDs does for precog's checks.
var IDs = map[string]string{"gostmt": "test-go", "spawns": "test-spawn"}

// GoStmt reports each go statement, with the enclosing function as evidence.
var GoStmt = &analysis.Analyzer{
	Name: "gostmt",
	Doc:  "report go statements\n\nGostmt reports every go statement, naming the function it is in.",
	URL:  "https://example.com/checks/gostmt",
	Run: func(pass *analysis.Pass) (any, error) {
		for _, f := range pass.Files {
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if g, ok := n.(*ast.GoStmt); ok {
						pass.Report(analysis.Diagnostic{
							Pos:      g.Pos(),
							End:      g.End(),
							Category: "test-go",
							Message:  "go statement in " + fn.Name.Name,
							Related: []analysis.RelatedInformation{{
								Pos:     fn.Name.Pos(),
								End:     fn.Name.End(),
								Message: fn.Name.Name + " declared here",
							}},
						})
					}
					return true
				})
			}
		}
		return nil, nil
	},
}

// Spawns marks each function whose body has a go statement with a fact, and
// reports calls to marked functions of other packages: a finding that only
// a driver that carries facts across packages can make.
var Spawns = &analysis.Analyzer{
	Name:      "spawns",
	Doc:       "report calls of functions that start goroutines\n\nSpawns follows facts across packages.",
	FactTypes: []analysis.Fact{new(SpawnsFact)},
	Run: func(pass *analysis.Pass) (any, error) {
		for _, f := range pass.Files {
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				hasGo := false
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					_, ok := n.(*ast.GoStmt)
					hasGo = hasGo || ok
					return !hasGo
				})
				if hasGo {
					pass.ExportObjectFact(pass.TypesInfo.Defs[fn.Name], new(SpawnsFact))
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				obj, ok := pass.TypesInfo.Uses[sel.Sel].(*types.Func)
				if ok && obj.Pkg() != pass.Pkg && pass.ImportObjectFact(obj, new(SpawnsFact)) {
					pass.Report(analysis.Diagnostic{
						Pos:      call.Pos(),
						Category: "test-spawn",
						Message:  fmt.Sprintf("call of %s.%s, which starts a goroutine", obj.Pkg().Name(), obj.Name()),
					})
				}
				return true
			})
		}
		return nil, nil
	},
}

// SpawnsFact marks a function that starts a goroutine.
type SpawnsFact struct{}

// AFact marks SpawnsFact as a fact.
func (*SpawnsFact) AFact() {}

func (*SpawnsFact) String() string { return "spawns" }

// Fails returns an error on every package.
var Fails = &analysis.Analyzer{
	Name: "fails",
	Doc:  "fail on every package\n\nFails stands for a check that cannot do its work.",
	Run: func(*analysis.Pass) (any, error) {
		return nil, errors.New("no luck")
	},
}

// Panics panics on every package, inside a guard.
var Panics = &analysis.Analyzer{
	Name: "panics",
	Doc:  "panic on every package\n\nPanics stands for a check with a bug.",
	Run: analyzerutil.Guard(func(*analysis.Pass) (any, error) {
		panic("boom")
	}, nil),
}

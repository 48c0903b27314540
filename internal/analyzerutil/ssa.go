package analyzerutil

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"
)

// BuildSSA builds the SSA form of the package's functions, as buildssa
// does but without the control-flow facts of the ctrlflow analyzer (calls
// that never return, such as log.Fatal, keep an edge to what follows
// them), and returns its source functions, closures included, in source
// order. An analyzer with facts that needs SSA builds it with this rather
// than requiring buildssa: a required buildssa runs, and keeps its SSA
// form, on every dependency the facts make the driver analyze.
func BuildSSA(pass *analysis.Pass) []*ssa.Function {
	_, funcs := BuildPackage(pass, nil)
	return funcs
}

// BuildPackage builds the SSA form of the package, with its imports
// created from their types, and returns it with its source functions,
// closures included, in source order, as buildssa lists them (init
// functions have distinct Func objects named "init" and distinct
// ssa.Functions named "init#1", ...; a function named _ has none). A call
// of a function for which noReturn (if not nil) is true ends its block,
// as buildssa ends it after a call ctrlflow's facts say never returns.
func BuildPackage(pass *analysis.Pass, noReturn func(*types.Func) bool) (*ssa.Package, []*ssa.Function) {
	prog := ssa.NewProgram(pass.Fset, 0)
	if noReturn != nil {
		prog.SetNoReturn(noReturn)
	}
	for _, p := range pass.Pkg.Imports() {
		prog.CreatePackage(p, nil, nil, true)
	}
	pkg := prog.CreatePackage(pass.Pkg, pass.Files, pass.TypesInfo, false)
	pkg.Build()
	var funcs []*ssa.Function
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		funcs = append(funcs, fn)
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
	}
	for _, f := range pass.Files {
		for _, decl := range f.Decls {
			if decl, ok := decl.(*ast.FuncDecl); ok {
				if obj, ok := pass.TypesInfo.Defs[decl.Name].(*types.Func); ok {
					if fn := prog.FuncValue(obj); fn != nil {
						add(fn)
					}
				}
			}
		}
	}
	return pkg, funcs
}

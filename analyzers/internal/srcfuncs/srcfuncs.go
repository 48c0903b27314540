// Package srcfuncs lists the functions of a package's source that the
// analyzers look at: buildssa's SrcFuncs (one per FuncDecl and its
// closures) and the closures of package-level variable initializers,
// which buildssa leaves out because they belong to the synthetic package
// initializer. Such a closure is code of the user's that other goroutines
// run: the func field of a package-level table (var handlers =
// map[string]func(){...}, a test's var cases = []struct{...; run func()})
// called from a goroutine.
package srcfuncs

import (
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// Of returns in.SrcFuncs followed by the closures of the package
// initializer, each closure after its parent, in source order. The
// initializer itself is not included: it runs before any goroutine of the
// package's code is started.
func Of(in *buildssa.SSA) []*ssa.Function {
	init := in.Pkg.Func("init")
	if init == nil || len(init.AnonFuncs) == 0 {
		return in.SrcFuncs
	}
	funcs := append([]*ssa.Function(nil), in.SrcFuncs...)
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		funcs = append(funcs, fn)
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
	}
	for _, anon := range init.AnonFuncs {
		add(anon)
	}
	return funcs
}

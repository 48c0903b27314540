package callgraph

import (
	"cmp"
	"go/token"
	"slices"

	xcallgraph "golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"
)

// sortFuncs orders functions by position, then by name, so that results
// derived from map-backed graphs are deterministic.
func sortFuncs(fns []*ssa.Function) {
	slices.SortFunc(fns, CompareFuncs)
}

// CompareFuncs orders functions by file name and offset, then by name.
// token.Pos values are not compared directly: go/packages parses files in
// parallel, so the order of two files' Pos ranges changes from process to
// process, and an order built on it would make results that depend on
// order (fixed points with budgets, first-found evidence) vary too.
func CompareFuncs(a, b *ssa.Function) int {
	if a == b {
		return 0
	}
	if c := comparePos(a.Prog.Fset, a.Pos(), b.Pos()); c != 0 {
		return c
	}
	return cmp.Compare(a.String(), b.String()) // wrappers share their method's position
}

func comparePos(fset *token.FileSet, a, b token.Pos) int {
	if a == b {
		return 0
	}
	pa, pb := fset.Position(a), fset.Position(b)
	return cmp.Or(cmp.Compare(pa.Filename, pb.Filename), cmp.Compare(pa.Offset, pb.Offset))
}

func sortEdges(edges []*xcallgraph.Edge) {
	slices.SortFunc(edges, func(a, b *xcallgraph.Edge) int {
		return cmp.Or(
			CompareFuncs(a.Caller.Func, b.Caller.Func),
			comparePos(a.Caller.Func.Prog.Fset, a.Pos(), b.Pos()),
			CompareFuncs(a.Callee.Func, b.Callee.Func))
	})
}

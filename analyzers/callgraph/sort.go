package callgraph

import (
	"cmp"
	"slices"

	xcallgraph "golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"
)

// sortFuncs orders functions by position, then by name, so that results
// derived from map-backed graphs are deterministic.
func sortFuncs(fns []*ssa.Function) {
	slices.SortFunc(fns, compareFuncs)
}

func compareFuncs(a, b *ssa.Function) int {
	return cmp.Or(cmp.Compare(a.Pos(), b.Pos()), cmp.Compare(a.String(), b.String()))
}

func sortEdges(edges []*xcallgraph.Edge) {
	slices.SortFunc(edges, func(a, b *xcallgraph.Edge) int {
		return cmp.Or(
			compareFuncs(a.Caller.Func, b.Caller.Func),
			cmp.Compare(a.Pos(), b.Pos()),
			compareFuncs(a.Callee.Func, b.Callee.Func))
	})
}

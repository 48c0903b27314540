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
	if a == b {
		return 0
	}
	if c := cmp.Compare(a.Pos(), b.Pos()); c != 0 {
		return c
	}
	return cmp.Compare(a.String(), b.String()) // wrappers share their method's position
}

func sortEdges(edges []*xcallgraph.Edge) {
	slices.SortFunc(edges, func(a, b *xcallgraph.Edge) int {
		return cmp.Or(
			compareFuncs(a.Caller.Func, b.Caller.Func),
			cmp.Compare(a.Pos(), b.Pos()),
			compareFuncs(a.Callee.Func, b.Callee.Func))
	})
}

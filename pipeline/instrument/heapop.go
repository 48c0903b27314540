package instrument

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// heapInterface is container/heap.Interface, built from its method set
// so that a type implementing it is found in a package that does not
// import container/heap (the type's package and the heap's caller are
// often two).
var heapInterface = func() *types.Interface {
	intT, anyT := types.Typ[types.Int], types.Universe.Lookup("any").Type()
	tuple := func(ts ...types.Type) *types.Tuple {
		vs := make([]*types.Var, len(ts))
		for i, t := range ts {
			vs[i] = types.NewParam(token.NoPos, nil, "", t)
		}
		return types.NewTuple(vs...)
	}
	method := func(name string, params, results *types.Tuple) *types.Func {
		return types.NewFunc(token.NoPos, nil, name, types.NewSignatureType(nil, nil, nil, params, results, false))
	}
	return types.NewInterfaceType([]*types.Func{
		method("Len", nil, tuple(intT)),
		method("Less", tuple(intT, intT), tuple(types.Typ[types.Bool])),
		method("Swap", tuple(intT, intT), nil),
		method("Push", tuple(anyT), nil),
		method("Pop", nil, tuple(anyT)),
	}, nil).Complete()
}()

// heapOp reports whether fn (or the method its function literal is in)
// is the Swap, Push or Pop method of a type that implements
// container/heap.Interface: the methods by which container/heap moves
// the items, whose stores keep an item's position in step with the
// heap's order (`pq[i].index = i`, `item.index = -1`) in each operation
// (trace.UseHeap).
func heapOp(fn *ssa.Function) bool {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	if fn.Origin() != nil {
		fn = fn.Origin()
	}
	recv := fn.Signature.Recv()
	if recv == nil {
		return false
	}
	switch fn.Name() {
	case "Swap", "Push", "Pop":
	default:
		return false
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	return types.Implements(types.NewPointer(t), heapInterface)
}

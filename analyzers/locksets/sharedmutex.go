package locksets

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// sharedMutexes finds the pointer fields and package variables that hold
// another location's mutex (pubsub's pstest: every subscription's mu
// *sync.Mutex is set to &s.mu of the server that makes it, so the
// server's handlers, locking s.mu, and the subscription's goroutines,
// locking sub.mu, take one mutex) and maps each to that location, which
// names the lock where it is locked through the pointer.
//
// A location P is mapped to L when:
//   - P is an unexported field of a type of the package, or an unexported
//     package variable, whose type is a pointer to a mutex type (one
//     whose own Lock the model knows: sync.Mutex, sync.RWMutex), so code
//     outside the package stores to it only by copying a whole value
//     that the package built (or a zero value, whose nil pointer no Lock
//     goes through);
//   - every address of P in the package's functions and its initializer
//     is only stored to or loaded from (not handed to a call, converted,
//     or stored elsewhere, through which an unseen store could go);
//   - P is stored to at least once, and every value stored is, by
//     sharedloc's Objects (which follows a parameter of an unexported
//     function to the arguments of all its call sites), the address of
//     one and the same location L: a field of a type or a package
//     variable that holds the mutex by value.
//
// Then every non-nil pointer in P points to the mutex of some instance
// of L, and L names every instance's mutex as one lock already (see
// "instances of a type share one location" in the package doc), so the
// mapping adds no conflation that naming by field does not make. A
// location also stored nil, a parameter of an exported function (whose
// callers are unknown: Objects finds nothing), a new(sync.Mutex) (each
// subscription its own mutex: a made object, not L), two different
// locations, or a pointer loaded from another pointer field, leaves P
// unmapped, named as before. A captured variable is left unmapped: a
// closure made at several places gives its free variable no one cell,
// so not every store to the cell would be seen.
func sharedMutexes(pkg *types.Package, funcs []*ssa.Function, init *ssa.Function, shared *sharedloc.Result) map[sharedloc.Loc]sharedloc.Loc {
	stores := make(map[sharedloc.Loc][]ssa.Value)
	escaped := make(map[sharedloc.Loc]bool)
	all := funcs
	if init != nil {
		all = append(all[:len(all):len(all)], init)
	}
	var ops []*ssa.Value
	for _, fn := range all {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				ops = instr.Operands(ops[:0])
				for _, op := range ops {
					if *op == nil {
						continue
					}
					loc, ok := mutexPointerLoc(pkg, *op)
					if !ok {
						continue
					}
					switch instr := instr.(type) {
					case *ssa.Store:
						if instr.Addr == *op && instr.Val != *op {
							stores[loc] = append(stores[loc], instr.Val)
							continue
						}
					case *ssa.UnOp:
						if instr.Op == token.MUL {
							continue
						}
					case *ssa.DebugRef:
						continue
					}
					escaped[loc] = true
				}
			}
		}
	}
	out := make(map[sharedloc.Loc]sharedloc.Loc)
	for p, vals := range stores {
		if escaped[p] {
			continue
		}
		var to sharedloc.Loc
		ok := true
		for i, v := range vals {
			ls := shared.Objects(v)
			if len(ls) != 1 || !mutexValueLoc(ls[0]) || i > 0 && ls[0] != to {
				ok = false
				break
			}
			to = ls[0]
		}
		if ok {
			out[p] = to
		}
	}
	return out
}

// mutexPointerLoc returns the location whose address addr is, when it is
// an unexported field of a type of pkg or an unexported package variable
// of pkg whose type is a pointer to a mutex type.
func mutexPointerLoc(pkg *types.Package, addr ssa.Value) (sharedloc.Loc, bool) {
	switch addr.(type) {
	case *ssa.FieldAddr, *ssa.Global:
	default:
		return sharedloc.Loc{}, false
	}
	loc, ok := sharedloc.AddrLoc(addr)
	if !ok || loc.Obj.Pkg() != pkg || loc.Obj.Exported() {
		return sharedloc.Loc{}, false
	}
	p, ok := loc.Obj.Type().Underlying().(*types.Pointer)
	if !ok || !isMutexType(p.Elem()) {
		return sharedloc.Loc{}, false
	}
	return loc, true
}

// mutexValueLoc reports whether l is a field or package variable that
// holds a mutex by value: the one lock that its instances name.
func mutexValueLoc(l sharedloc.Loc) bool {
	if l.Kind != sharedloc.Field && l.Kind != sharedloc.Global || l.Elem || l.Cell != nil {
		return false
	}
	return isMutexType(l.Obj.Type())
}

// isMutexType reports whether t is a type whose own (not promoted) Lock
// method, on a pointer, is a lock operation the model knows.
func isMutexType(t types.Type) bool {
	if _, ok := t.(*types.Named); !ok {
		return false
	}
	sel := types.NewMethodSet(types.NewPointer(t)).Lookup(nil, "Lock")
	if sel == nil || len(sel.Index()) != 1 {
		return false
	}
	fn, ok := sel.Obj().(*types.Func)
	if !ok {
		return false
	}
	op, ok := model.LockOpOf(fn.FullName())
	return ok && op == model.Lock
}

package concurrent

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/pointsto"
)

// selfBoundObjects refines free variable fv of a closure that every call
// on context c calls through a load from a field that holds only closures
// bound to their holder (see selfBinding): netpoll's `poll.Reset =
// poll.reset`, called as p.Reset(...) by each poller's goroutine. The
// closure loaded from an object's field was made with that object (or a
// field of it) as the free variable, so the variable holds, at each call,
// the object the call loaded the closure from: the holders of the loads
// on c, the binding's fields selected. ok is false when some call on c
// (or the goroutine's own start, or a callee outside the package handed
// the closure) is of another shape; the caller then falls back to the
// closure's makers.
//
// Why sound: the field is written only by stores of such closures (or
// nil), never through a pointer to it, read only to be called (so every
// run of a closure loaded from it is a call site the call graph shows),
// and no value of its struct (or of
// a type holding one by value) is ever made, so no copy carries a closure
// bound to one holder into another; the field is unexported, or its
// struct is an unexported type that no exported part of the package's API
// reaches, so importers do not write it either. Reflection and unsafe are
// outside, as for the points-to analysis.
func (e *Env) selfBoundObjects(fv *ssa.FreeVar, c *goroutines.Context) ([]pointsto.Obj, bool) {
	fn := fv.Parent()
	idx := slices.Index(fn.FreeVars, fv)
	if idx < 0 || fn == c.Entry || len(e.Goroutines.RefSites(fn)) > 0 {
		return nil, false
	}
	var out objSet
	found := false
	for _, edge := range e.Goroutines.CallGraph.Callers(fn) {
		if _, isGo := edge.Site.(*ssa.Go); isGo {
			// Its goroutine is another context, whose entry is fn.
			continue
		}
		if !slices.Contains(e.Goroutines.Of(edge.Caller.Func), c) {
			continue
		}
		common := edge.Site.Common()
		if common.IsInvoke() {
			return nil, false
		}
		load, ok := common.Value.(*ssa.UnOp)
		if !ok || load.Op != token.MUL {
			return nil, false
		}
		fa, ok := load.X.(*ssa.FieldAddr)
		if !ok {
			return nil, false
		}
		path, ok := e.selfBinding(ssavalue.Field(fa), fn, idx)
		if !ok {
			return nil, false
		}
		found = true
		for _, h := range e.objects(fa.X, c) {
			for _, step := range path {
				h = h.Select(step)
			}
			out.add([]pointsto.Obj{h})
		}
	}
	return out.list, found
}

// A boundKey names free variable idx of closures of fn stored in field f.
type boundKey struct {
	f   *types.Var
	fn  *ssa.Function
	idx int
}

// A boundPath is the field path, from the holder, that every closure of fn
// stored in the field binds as its free variable (nil: the holder itself),
// or ok false when some store binds something else.
type boundPath struct {
	path []string
	ok   bool
}

// selfBinding reports whether field f holds only closures bound to their
// holder, as selfBoundObjects needs, and, of those made of fn, which
// fields of the holder their free variable idx is bound to: the steps to
// select in the holder. Every store to f stores nil or a closure made
// right there; each closure of fn binds, as variable idx, the address the
// store is based on or a field of it (`p.Reset = p.reset`, `p.Reset =
// p.args.reset`), the same SSA value, so the same object at run time.
func (e *Env) selfBinding(f *types.Var, fn *ssa.Function, idx int) ([]string, bool) {
	if f == nil || f.Pkg() != e.Pass.Pkg {
		return nil, false
	}
	k := boundKey{f, fn, idx}
	if b, ok := e.bound[k]; ok {
		return b.path, b.ok
	}
	b := e.computeSelfBinding(f, fn, idx)
	e.bound[k] = b
	return b.path, b.ok
}

func (e *Env) computeSelfBinding(f *types.Var, fn *ssa.Function, idx int) boundPath {
	owner := e.ownerStruct(f)
	if owner == nil {
		return boundPath{}
	}
	if f.Exported() && (owner.(*types.Named).Obj().Exported() || e.exposed(owner)) {
		return boundPath{} // importers may store any closure there
	}
	var path []string
	seen := false
	for _, g := range e.packageFuncs() {
		for _, b := range g.Blocks {
			for _, instr := range b.Instrs {
				if v, ok := instr.(ssa.Value); ok && holdsByValue(v.Type(), owner) {
					return boundPath{} // a value of the struct: copied whole
				}
				for _, op := range instr.Operands(nil) {
					if *op != nil && holdsByValue((*op).Type(), owner) {
						return boundPath{}
					}
				}
				fa, ok := instr.(*ssa.FieldAddr)
				if !ok || ssavalue.Field(fa) != f {
					continue
				}
				for _, u := range *fa.Referrers() {
					switch u := u.(type) {
					case *ssa.UnOp:
						if u.Op != token.MUL || !loadOnlyCalled(u) {
							return boundPath{}
						}
					case *ssa.Store:
						if u.Addr != fa {
							return boundPath{}
						}
						if c, ok := u.Val.(*ssa.Const); ok && c.IsNil() {
							continue
						}
						mc, ok := u.Val.(*ssa.MakeClosure)
						if !ok {
							return boundPath{}
						}
						if mc.Fn != fn {
							continue
						}
						p, ok := fieldsFrom(mc.Bindings[idx], fa.X)
						if !ok || seen && !slices.Equal(p, path) {
							return boundPath{}
						}
						path, seen = p, true
					case *ssa.DebugRef:
					default:
						return boundPath{} // its address taken
					}
				}
			}
		}
	}
	return boundPath{path: path, ok: seen}
}

// loadOnlyCalled reports whether the closure load loads is only called, so
// that every run of it is a call site whose function value is the load
// (not handed to a callee, stored or returned, where a call that the call
// graph may not show would run it bound to a holder no call site names).
func loadOnlyCalled(load *ssa.UnOp) bool {
	for _, u := range *load.Referrers() {
		switch u := u.(type) {
		case ssa.CallInstruction:
			common := u.Common()
			if common.IsInvoke() || common.Value != load || slices.Contains(common.Args, ssa.Value(load)) {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// fieldsFrom returns the field steps that select v from base (v is base,
// or a chain of FieldAddr on it).
func fieldsFrom(v, base ssa.Value) ([]string, bool) {
	var steps []string
	for v != base {
		fa, ok := v.(*ssa.FieldAddr)
		if !ok {
			return nil, false
		}
		steps = append(steps, pointsto.FieldPath(ssavalue.Field(fa)))
		v = fa.X
	}
	slices.Reverse(steps)
	return steps, true
}

// holdsByValue reports whether a value of type t holds a value of type
// owner in its own memory (owner itself, or an array, slice, map or
// channel of it, or a struct with such a field): making, copying or
// appending one copies an owner.
func holdsByValue(t, owner types.Type) bool {
	return holdsIn(t, owner, map[types.Type]bool{})
}

func holdsIn(t, owner types.Type, seen map[types.Type]bool) bool {
	if types.Identical(t, owner) {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch u := t.Underlying().(type) {
	case *types.Array:
		return holdsIn(u.Elem(), owner, seen)
	case *types.Slice:
		return holdsIn(u.Elem(), owner, seen)
	case *types.Map:
		return holdsIn(u.Key(), owner, seen) || holdsIn(u.Elem(), owner, seen)
	case *types.Chan:
		return holdsIn(u.Elem(), owner, seen)
	case *types.Struct:
		for sf := range u.Fields() {
			if holdsIn(sf.Type(), owner, seen) {
				return true
			}
		}
	case *types.Tuple:
		for v := range u.Variables() {
			if holdsIn(v.Type(), owner, seen) {
				return true
			}
		}
	}
	return false
}

// exposed reports whether the package's exported API reaches type t: an
// exported function's, method's or variable's type, an exported type's
// underlying type or exported methods, through pointers, containers,
// signatures, struct fields and the methods of the named types met. An
// importer holding such a value could write its exported fields.
func (e *Env) exposed(t types.Type) bool {
	seen := map[types.Type]bool{}
	var reaches func(u types.Type) bool
	reaches = func(u types.Type) bool {
		if types.Identical(u, t) {
			return true
		}
		if seen[u] {
			return false
		}
		seen[u] = true
		switch u := u.(type) {
		case *types.Named:
			if u.Obj().Pkg() != e.Pass.Pkg {
				return false // another package's types do not name this one's
			}
			for m := range u.Methods() {
				if m.Exported() && reaches(m.Type()) {
					return true
				}
			}
			return reaches(u.Underlying())
		case *types.Pointer:
			return reaches(u.Elem())
		case *types.Array:
			return reaches(u.Elem())
		case *types.Slice:
			return reaches(u.Elem())
		case *types.Map:
			return reaches(u.Key()) || reaches(u.Elem())
		case *types.Chan:
			return reaches(u.Elem())
		case *types.Signature:
			return reaches(u.Params()) || reaches(u.Results())
		case *types.Tuple:
			for v := range u.Variables() {
				if reaches(v.Type()) {
					return true
				}
			}
		case *types.Struct:
			for sf := range u.Fields() {
				if (sf.Exported() || sf.Embedded()) && reaches(sf.Type()) {
					return true
				}
			}
		case *types.Interface:
			for m := range u.Methods() {
				if reaches(m.Type()) {
					return true
				}
			}
		}
		return false
	}
	scope := e.Pass.Pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if obj.Exported() && reaches(obj.Type()) {
			return true
		}
	}
	return false
}

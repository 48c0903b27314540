// Package exposed tells which functions of a package code outside it can
// call. An exported function can be called from anywhere; so can an
// exported method, unless its receiver is an unexported type whose values
// never leave the package. Go code often gives the methods of an internal
// type exported names (memberlist's (*suspicion).Confirm, called only by
// suspectNode with the node lock held): an importer cannot name the type,
// and it can reach such a method only through a value of the type it got
// from the package.
//
// A type's values are taken to leave the package (conservatively, by type,
// not by value) when the package converts a T or *T to an interface
// anywhere (an importer may then assert an interface that has the method,
// and the package's own dynamic calls are no call sites in the call
// graph); when T or *T appears, other than through a named type, in the
// type of an exported package-level function or variable, an exported
// alias, the signature of an exported method of any type, or an exported
// field of any struct; when a struct embeds T or *T (its methods are
// promoted); and when T is a type argument of any instantiation. A type
// with type parameters is always taken to leave. Reflection reaches
// values only through an interface, so it is covered. A conversion whose
// interface value goes only into calls of container/heap or sort that
// call its methods before they return and keep no reference
// (model.SyncInterfaceCalls) lets nothing leave: those calls are the
// methods' call sites (kcp-go's shardHeap, ordered by heap.Push and
// heap.Pop under its session's lock).
package exposed

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
)

// Set holds the unexported types of one package whose values stay in it.
type Set struct {
	hidden map[*types.TypeName]bool
}

// Of computes the Set of the package pkg, whose syntax is described by
// info and whose functions (every one that may convert a value to an
// interface, the package initializer included) are funcs.
func Of(pkg *types.Package, info *types.Info, funcs []*ssa.Function) *Set {
	s := &Set{hidden: make(map[*types.TypeName]bool)}
	if pkg == nil || info == nil {
		return s
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.Exported() || tn.IsAlias() {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok || n.TypeParams().Len() > 0 || types.IsInterface(n) {
			continue
		}
		s.hidden[tn] = true
	}
	if len(s.hidden) == 0 {
		return s
	}
	// mark leaves every hidden type t mentions, other than through a
	// named type (whose exported parts are checked on their own).
	seen := make(map[types.Type]bool)
	var mark func(t types.Type)
	mark = func(t types.Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Alias:
			mark(types.Unalias(t))
		case *types.Named:
			delete(s.hidden, t.Obj())
		case *types.Pointer:
			mark(t.Elem())
		case *types.Slice:
			mark(t.Elem())
		case *types.Array:
			mark(t.Elem())
		case *types.Map:
			mark(t.Key())
			mark(t.Elem())
		case *types.Chan:
			mark(t.Elem())
		case *types.Signature:
			for v := range t.Params().Variables() {
				mark(v.Type())
			}
			for v := range t.Results().Variables() {
				mark(v.Type())
			}
		case *types.Struct:
			for f := range t.Fields() {
				if f.Exported() || f.Embedded() {
					mark(f.Type())
				}
			}
		case *types.Interface:
			for m := range t.Methods() {
				mark(m.Type())
			}
			for e := range t.EmbeddedTypes() {
				mark(e)
			}
		case *types.TypeParam:
			mark(t.Constraint())
		}
	}
	leave := func(t types.Type) {
		clear(seen)
		mark(t)
	}
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if obj.Exported() {
			if tn, ok := obj.(*types.TypeName); !ok || tn.IsAlias() {
				leave(obj.Type())
			}
		}
	}
	for _, obj := range info.Defs {
		switch obj := obj.(type) {
		case *types.Var:
			if obj.IsField() && (obj.Exported() || obj.Embedded()) {
				leave(obj.Type())
			}
		case *types.Func:
			if obj.Exported() {
				leave(obj.Type())
			}
		}
	}
	for _, inst := range info.Instances {
		for t := range inst.TypeArgs.Types() {
			leave(t)
		}
	}
	for _, fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if mi, ok := instr.(*ssa.MakeInterface); ok {
					if _, ok := model.SyncInterfaceCalls(mi); ok {
						continue // only container/heap or sort calls its methods, within the call
					}
					leave(mi.X.Type())
				}
			}
		}
	}
	return s
}

// Outside reports whether code outside the package may call fn by its
// name: fn is an exported function or method, and not a method of a type
// whose values stay in the package. Closures and init functions are never
// called from outside.
func (s *Set) Outside(fn *ssa.Function) bool {
	obj := fn.Object()
	if obj == nil || !obj.Exported() || fn.Parent() != nil || strings.HasPrefix(fn.Name(), "init") {
		return false
	}
	recv := fn.Signature.Recv()
	if recv == nil {
		return true
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return !ok || !s.hidden[n.Obj()]
}

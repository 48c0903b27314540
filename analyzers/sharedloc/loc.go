package sharedloc

import (
	"fmt"
	"go/types"
	"path/filepath"

	"golang.org/x/tools/go/ssa"
)

// LocKind is the kind of root of a location.
type LocKind int

const (
	// Global is a package variable; Obj is its *types.Var.
	Global LocKind = iota + 1
	// Field is a struct field of all instances of its type; Obj is the
	// field's *types.Var (the generic origin for instantiated types).
	Field
	// Captured is a local variable captured by a closure; Cell is its
	// *ssa.Alloc.
	Captured
	// Made is a map, slice, array or channel created in the package;
	// Cell is the instruction that makes it.
	Made
	// Param is whatever a parameter (Cell, an *ssa.Parameter) refers to,
	// when the callers pass different things: a mutex handed to a
	// with-lock helper, known at each call site.
	Param
)

// A Loc is an abstract memory location. Locs are comparable and may be
// used as map keys.
type Loc struct {
	Kind LocKind
	Obj  types.Object
	// Cell is nil for a Field, but for one element of an array field
	// that locksets takes as a lock of its own: a *ssa.Const, one per
	// field and index, for the index.
	Cell ssa.Value
	// Elem selects the contents of the container held in the location:
	// map entries, slice or array elements, or the channel.
	Elem bool
}

// Contents returns the location of the contents of the container held in
// l.
func (l Loc) Contents() Loc {
	l.Elem = true
	return l
}

// Holder returns the location that holds the container whose contents l
// denotes.
func (l Loc) Holder() Loc {
	l.Elem = false
	return l
}

// String renders the location for diagnostics: "T.f", "pkg.v", "x" for a
// captured variable, "slice made at f.go:12:7" for a made container, and
// "[]" appended for contents.
func (l Loc) String() string {
	var s string
	switch l.Kind {
	case Global:
		s = l.Obj.Name()
	case Field:
		s = fieldOwner(l.Obj) + "." + l.Obj.Name()
		if c, ok := l.Cell.(*ssa.Const); ok {
			// One element of an array field, a lock of its own
			// (locksets' flag locks).
			s += "[" + c.Value.ExactString() + "]"
		}
	case Captured:
		s = l.Cell.(*ssa.Alloc).Comment
		if s == "" {
			s = l.Cell.Name()
		}
	case Param:
		s = "the mutex passed as " + l.Cell.Name()
	case Made:
		// The file's base name, as the messages' other positions: the
		// diagnostic's own position names the directory.
		if p := l.Cell.Parent().Prog.Fset.Position(l.Cell.Pos()); p.IsValid() {
			s = fmt.Sprintf("%s made at %s:%d:%d", kindOf(l.Cell.Type()), filepath.Base(p.Filename), p.Line, p.Column)
		} else {
			s = fmt.Sprintf("%s made in %s", kindOf(l.Cell.Type()), l.Cell.Parent().Name())
		}
	}
	if l.Elem {
		s += "[]"
	}
	return s
}

func kindOf(t types.Type) string {
	switch t.Underlying().(type) {
	case *types.Map:
		return "map"
	case *types.Chan:
		return "channel"
	case *types.Slice:
		return "slice"
	}
	return "value"
}

// fieldOwner finds the name of the struct type that declares field f, or
// "struct" for anonymous structs.
func fieldOwner(f types.Object) string {
	if f.Pkg() == nil {
		return "struct"
	}
	scope := f.Pkg().Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		if st, ok := tn.Type().Underlying().(*types.Struct); ok {
			for i := range st.NumFields() {
				if st.Field(i) == f {
					return tn.Name()
				}
			}
		}
	}
	return "struct"
}

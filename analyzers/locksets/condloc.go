package locksets

import (
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// A condSet is a function's correlated conditions (see correlated): flow
// keeps the paths on which each is true apart from those on which it is
// false (bit i of a valuation: condition i true).
type condSet struct {
	// vals[i] is the boolean value condition i is, or nil where
	// condition i is a field's value, which each test loads afresh.
	vals []ssa.Value
	// tests maps an If to the conditions it branches on (a bit per
	// condition): where they are true, it goes to its first successor.
	tests map[*ssa.If]int
	// forget maps an instruction to the conditions whose value is not
	// known after it: a value's definition (again, in a loop), the
	// definition of a field's object, a write that may change a field.
	forget map[ssa.Instruction]int
}

// A fieldKey names a field of a named struct type: the type's origin
// and the field's index.
type fieldKey struct {
	t *types.Named
	i int
}

// fieldKeyOf returns the field fa takes the address of, when fa's struct
// type is named.
func fieldKeyOf(fa *ssa.FieldAddr) (fieldKey, bool) {
	ptr, ok := types.Unalias(fa.X.Type()).Underlying().(*types.Pointer)
	if !ok {
		return fieldKey{}, false
	}
	n, ok := types.Unalias(ptr.Elem()).(*types.Named)
	if !ok {
		return fieldKey{}, false
	}
	if _, isStruct := n.Underlying().(*types.Struct); !isStruct {
		return fieldKey{}, false
	}
	return fieldKey{n.Origin(), fa.Field}, true
}

// fieldWrites tells how the package's code may write the fields of named
// struct types, for conditions that test a field twice (see locCond).
//
// A field is escaped when its address goes anywhere but into loads and
// stores (a pointer to it handed on may be written through unseen). It
// is written when the package stores to it after its object was made (a
// store into a fresh allocation before anything else saw it, as a
// composite literal's, is the object's making), when it stores a whole
// value of a type that holds the field's struct by value (or copies,
// appends or clears a slice of one), or when a value through which such
// a struct can be reached by pointer goes where the package does not see
// what is done with it: into an interface or an unsafe.Pointer (or a
// pointer to another named type with the same fields), an
// argument of a function of another package or of a call through a
// function value or an interface, or a parameter of a generic function
// whose type mentions a type parameter (which a store of the type
// parameter's type may overwrite).
type fieldWrites struct {
	pkg     *ssa.Package
	escaped map[fieldKey]bool
	stored  map[fieldKey]bool
	whole   map[*types.Named]bool
	byValue map[types.Type][]*types.Named
	byRef   map[types.Type][]*types.Named
	inits   map[*ssa.Store]bool
}

func (w *fieldWrites) written(k fieldKey) bool {
	return w.stored[k] || w.whole[k.t]
}

// newFieldWrites scans funcs, the functions of the package pkg.
func newFieldWrites(pkg *ssa.Package, funcs []*ssa.Function) *fieldWrites {
	w := &fieldWrites{
		pkg:     pkg,
		escaped: make(map[fieldKey]bool),
		stored:  make(map[fieldKey]bool),
		whole:   make(map[*types.Named]bool),
		byValue: make(map[types.Type][]*types.Named),
		byRef:   make(map[types.Type][]*types.Named),
		inits:   make(map[*ssa.Store]bool),
	}
	wholeOf := func(ns []*types.Named) {
		for _, n := range ns {
			w.whole[n] = true
		}
	}
	for _, fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch instr := instr.(type) {
				case *ssa.FieldAddr:
					k, ok := fieldKeyOf(instr)
					if !ok {
						continue
					}
					for _, r := range *instr.Referrers() {
						switch r := r.(type) {
						case *ssa.UnOp:
							if r.Op == token.MUL {
								continue
							}
						case *ssa.Store:
							if r.Addr == instr && r.Val != instr {
								continue
							}
						}
						w.escaped[k] = true
					}
				case *ssa.Store:
					if w.initStore(instr) {
						continue
					}
					if fa, ok := instr.Addr.(*ssa.FieldAddr); ok {
						if k, ok := fieldKeyOf(fa); ok {
							w.stored[k] = true
						}
					}
					wholeOf(w.contained(instr.Val.Type()))
				case *ssa.MakeInterface:
					wholeOf(w.reached(instr.X.Type()))
				case *ssa.ChangeType:
					// A pointer to one named struct type made a
					// pointer to another with the same fields:
					// their writes are not told apart.
					wholeOf(w.reached(instr.X.Type()))
					wholeOf(w.reached(instr.Type()))
				case *ssa.Convert:
					if b, ok := instr.Type().Underlying().(*types.Basic); ok && b.Kind() == types.UnsafePointer {
						wholeOf(w.reached(instr.X.Type()))
					}
				case ssa.CallInstruction:
					w.call(instr.Common(), wholeOf)
				}
			}
		}
	}
	return w
}

// call records the writes a call may make unseen: a builtin's copy,
// append or clear of a slice, and what its unseen callee may reach.
func (w *fieldWrites) call(c *ssa.CallCommon, wholeOf func([]*types.Named)) {
	if bi, ok := c.Value.(*ssa.Builtin); ok {
		switch bi.Name() {
		case "copy", "append", "clear":
			for _, a := range c.Args {
				if s, ok := a.Type().Underlying().(*types.Slice); ok {
					wholeOf(w.contained(s.Elem()))
				}
			}
		}
		return
	}
	// The parameters of a static callee of the package whose bodies
	// are seen (its receiver first): the types its generic origin
	// declares them with.
	var params []types.Type
	if g := c.StaticCallee(); g != nil {
		o := g
		if g.Origin() != nil {
			o = g.Origin()
		}
		if o.Pkg == w.pkg && o.Blocks != nil {
			if r := o.Signature.Recv(); r != nil {
				params = append(params, r.Type())
			}
			for p := range o.Signature.Params().Variables() {
				params = append(params, p.Type())
			}
			if len(params) != len(c.Args) {
				params = nil
			}
		}
	}
	for i, a := range c.Args {
		if params != nil && !mentionsTypeParam(params[i]) {
			continue
		}
		wholeOf(w.reached(a.Type()))
	}
	if c.IsInvoke() {
		wholeOf(w.reached(c.Value.Type()))
	}
}

// mentionsTypeParam reports whether t is or holds a type parameter.
func mentionsTypeParam(t types.Type) bool {
	found := false
	var walk func(t types.Type, seen map[types.Type]bool)
	walk = func(t types.Type, seen map[types.Type]bool) {
		if found || seen[t] {
			return
		}
		seen[t] = true
		switch t := types.Unalias(t).(type) {
		case *types.TypeParam:
			found = true
		case *types.Pointer:
			walk(t.Elem(), seen)
		case *types.Slice:
			walk(t.Elem(), seen)
		case *types.Array:
			walk(t.Elem(), seen)
		case *types.Map:
			walk(t.Key(), seen)
			walk(t.Elem(), seen)
		case *types.Chan:
			walk(t.Elem(), seen)
		case *types.Struct:
			for f := range t.Fields() {
				walk(f.Type(), seen)
			}
		case *types.Named:
			if args := t.TypeArgs(); args != nil {
				for a := range args.Types() {
					walk(a, seen)
				}
			}
		case *types.Signature:
			found = true // a function value may be instantiated with anything
		}
	}
	walk(t, make(map[types.Type]bool))
	return found
}

// contained returns the named struct types a value of type t holds by
// value (t's own among them).
func (w *fieldWrites) contained(t types.Type) []*types.Named {
	if ns, ok := w.byValue[t]; ok {
		return ns
	}
	var ns []*types.Named
	var walk func(t types.Type)
	walk = func(t types.Type) {
		t = types.Unalias(t)
		if n, ok := t.(*types.Named); ok {
			if _, ok := n.Underlying().(*types.Struct); ok {
				ns = append(ns, n.Origin())
			}
		}
		switch u := t.Underlying().(type) {
		case *types.Struct:
			for f := range u.Fields() {
				walk(f.Type())
			}
		case *types.Array:
			walk(u.Elem())
		}
	}
	walk(t)
	w.byValue[t] = ns
	return ns
}

// reached returns the named struct types whose values can be reached,
// so written, through a value of type t: by pointers and slices, and
// the maps and channels that hold those (not through interfaces or
// functions, which the conversion or the call that made them records).
func (w *fieldWrites) reached(t types.Type) []*types.Named {
	if ns, ok := w.byRef[t]; ok {
		return ns
	}
	var ns []*types.Named
	// A type is walked once by reference and once by value: a type held
	// by value in a map of its own (go-openapi's Schema, `Properties
	// map[string]Schema`) reaches itself with ref false, and a walk that
	// only remembered the types met by reference recursed until the stack
	// overflowed (held-out rehearsal 50: every package importing one).
	type visit struct {
		t   types.Type
		ref bool
	}
	seen := make(map[visit]bool)
	var walk func(t types.Type, ref bool)
	walk = func(t types.Type, ref bool) {
		t = types.Unalias(t)
		if seen[visit{t, ref}] || !ref && seen[visit{t, true}] {
			return
		}
		seen[visit{t, ref}] = true
		if n, ok := t.(*types.Named); ok && ref {
			if _, ok := n.Underlying().(*types.Struct); ok {
				ns = append(ns, n.Origin())
			}
		}
		switch u := t.Underlying().(type) {
		case *types.Pointer:
			walk(u.Elem(), true)
		case *types.Slice:
			walk(u.Elem(), true)
		case *types.Array:
			walk(u.Elem(), ref)
		case *types.Map:
			walk(u.Key(), false)
			walk(u.Elem(), false)
		case *types.Chan:
			walk(u.Elem(), false)
		case *types.Struct:
			for f := range u.Fields() {
				walk(f.Type(), ref)
			}
		}
	}
	walk(t, false)
	w.byRef[t] = ns
	return ns
}

// initStore reports whether s stores into an allocation of its own
// function that nothing has seen yet: no instruction on a path from the
// allocation to s uses its address, or one derived from it, but to take
// a field's or an element's address or to store there (a composite
// literal's stores; a local struct filled in before it is handed on).
// Such a store makes the object: it cannot change a field of an object
// some code already tests, since testing it loads it first.
func (w *fieldWrites) initStore(s *ssa.Store) bool {
	if r, ok := w.inits[s]; ok {
		return r
	}
	r := initStore(s)
	w.inits[s] = r
	return r
}

func initStore(s *ssa.Store) bool {
	root := s.Addr
	for {
		switch a := root.(type) {
		case *ssa.FieldAddr:
			root = a.X
			continue
		case *ssa.IndexAddr:
			root = a.X
			continue
		}
		break
	}
	al, ok := root.(*ssa.Alloc)
	if !ok || al.Parent() != s.Parent() || al.Block() == nil {
		return false
	}
	// The uses of al's object: every instruction with an operand
	// derived from al, but address arithmetic and stores into it.
	derived := map[ssa.Value]bool{al: true}
	var uses []ssa.Instruction
	var visit func(v ssa.Value)
	visit = func(v ssa.Value) {
		for _, r := range *v.Referrers() {
			switch r := r.(type) {
			case *ssa.FieldAddr:
				if !derived[r] {
					derived[r] = true
					visit(r)
				}
				continue
			case *ssa.IndexAddr:
				if r.X == v {
					if !derived[r] {
						derived[r] = true
						visit(r)
					}
					continue
				}
			case *ssa.Store:
				if r.Addr == v && r.Val != v {
					continue
				}
			}
			uses = append(uses, r)
		}
	}
	visit(al)
	if len(uses) == 0 {
		return true
	}
	// after: the blocks reachable from al's on leaving it; before, those
	// from which s's block is reachable by an edge or more.
	after := reachableBy(al.Block(), func(b *ssa.BasicBlock) []*ssa.BasicBlock { return b.Succs })
	before := reachableBy(s.Block(), func(b *ssa.BasicBlock) []*ssa.BasicBlock { return b.Preds })
	index := func(instr ssa.Instruction) int {
		for i, x := range instr.Block().Instrs {
			if x == instr {
				return i
			}
		}
		return -1
	}
	ia, is := index(al), index(s)
	for _, u := range uses {
		ub, iu := u.Block(), index(u)
		if u == s {
			continue
		}
		followsAl := after[ub] || ub == al.Block() && iu > ia
		precedesS := before[ub] || ub == s.Block() && iu < is
		if followsAl && precedesS {
			return false
		}
	}
	return true
}

// reachableBy returns the blocks reachable from b by one or more steps of
// next.
func reachableBy(b *ssa.BasicBlock, next func(*ssa.BasicBlock) []*ssa.BasicBlock) map[*ssa.BasicBlock]bool {
	seen := make(map[*ssa.BasicBlock]bool)
	work := slices.Clone(next(b))
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		work = append(work, next(x)...)
	}
	return seen
}

// A locCond is a condition that loads a field: the field, and the
// object's address it is taken from (root, through fields held by value:
// s.cfg.flag's root is s).
type locCond struct {
	root  ssa.Value
	path  string // the field indices from root, for the map key
	field fieldKey
}

// locOf returns the field ifi tests, when its condition is a load of a
// field of a named struct type whose address goes nowhere else, made in
// ifi's block with no write that may change the field between.
func (w *fieldWrites) locOf(ifi *ssa.If) (locCond, bool) {
	ld, ok := ifi.Cond.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL || ld.Block() != ifi.Block() {
		return locCond{}, false
	}
	fa, ok := ld.X.(*ssa.FieldAddr)
	if !ok {
		return locCond{}, false
	}
	k, ok := fieldKeyOf(fa)
	if !ok || w.escaped[k] {
		return locCond{}, false
	}
	var path []string
	var root ssa.Value = fa
	for {
		f, ok := root.(*ssa.FieldAddr)
		if !ok {
			break
		}
		path = append(path, strconv.Itoa(f.Field))
		root = f.X
	}
	// No write between the load and the test.
	between := false
	for _, instr := range ifi.Block().Instrs {
		if instr == ld {
			between = true
			continue
		}
		if instr == ifi {
			break
		}
		if between && w.mayWrite(instr, k) {
			return locCond{}, false
		}
	}
	return locCond{root: root, path: strings.Join(path, "."), field: k}, true
}

// mayWrite reports whether instr may change field k of an object some
// code already tests: a store to it or of a value that holds its struct,
// or, where the package may write it elsewhere (written), any call or
// channel operation, after which another goroutine's write may be seen.
func (w *fieldWrites) mayWrite(instr ssa.Instruction, k fieldKey) bool {
	switch instr := instr.(type) {
	case *ssa.Store:
		if w.initStore(instr) {
			return false
		}
		if fa, ok := instr.Addr.(*ssa.FieldAddr); ok {
			if fk, ok := fieldKeyOf(fa); ok && fk == k {
				return true
			}
		}
		for _, n := range w.contained(instr.Val.Type()) {
			if n == k.t {
				return true
			}
		}
		return false
	}
	if !w.written(k) {
		return false
	}
	switch instr := instr.(type) {
	case ssa.CallInstruction:
		if _, isDefer := instr.(*ssa.Defer); isDefer {
			return false
		}
		if bi, ok := instr.Common().Value.(*ssa.Builtin); ok {
			switch bi.Name() {
			case "copy", "append", "clear":
				return true
			}
			return false
		}
		return true
	case *ssa.RunDefers, *ssa.Send, *ssa.Select:
		return true
	case *ssa.UnOp:
		return instr.Op == token.ARROW
	}
	return false
}

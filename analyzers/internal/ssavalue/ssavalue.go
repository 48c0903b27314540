// Package ssavalue traces SSA values back to where they come from, across
// the indirections that go/ssa introduces for closures: a local variable
// captured by a closure lives in a heap *ssa.Alloc, is read with a load,
// and reaches the closure as an *ssa.FreeVar bound by a *ssa.MakeClosure
// in the enclosing function.
//
// The tracing is intraprocedural except for those closure bindings, and it
// is bounded: it answers "these are the sources" or gives up, and callers
// must treat giving up as "unknown".
package ssavalue

import (
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// MaxDepth bounds how many indirections Sources follows.
const MaxDepth = 8

// Sources returns the values v may hold, looking through Phi nodes,
// type changes, interface conversions, and loads of captured variables
// (which give the values stored to the variable). A value that is not
// one of those is its own source. The result is nil if the trace gave up.
func Sources(v ssa.Value) []ssa.Value {
	var out []ssa.Value
	seen := map[ssa.Value]bool{}
	ok := sources(v, MaxDepth, seen, &out)
	if !ok {
		return nil
	}
	return out
}

func sources(v ssa.Value, depth int, seen map[ssa.Value]bool, out *[]ssa.Value) bool {
	if seen[v] {
		return true
	}
	seen[v] = true
	if depth == 0 {
		return false
	}
	switch v := v.(type) {
	case *ssa.Phi:
		for _, e := range v.Edges {
			if !sources(e, depth-1, seen, out) {
				return false
			}
		}
		return true
	case *ssa.ChangeType:
		return sources(v.X, depth-1, seen, out)
	case *ssa.MakeInterface:
		return sources(v.X, depth-1, seen, out)
	case *ssa.UnOp:
		if cell := CapturedCell(v); cell != nil {
			stored := StoresTo(cell)
			if len(stored) == 0 {
				return false
			}
			for _, s := range stored {
				if !sources(s, depth-1, seen, out) {
					return false
				}
			}
			return true
		}
	case *ssa.FreeVar:
		if b := Binding(v); b != nil {
			return sources(b, depth-1, seen, out)
		}
		return false
	}
	*out = append(*out, v)
	return true
}

// CapturedCell returns the heap cell of a captured local variable that the
// load v reads, or nil if v is not such a load. The cell is the *ssa.Alloc
// in the function that declares the variable, also when the load happens
// in a closure through a FreeVar.
func CapturedCell(v ssa.Value) *ssa.Alloc {
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op.String() != "*" {
		return nil
	}
	return Cell(load.X)
}

// Cell returns the *ssa.Alloc that the address addr denotes when addr is a
// local variable's cell, either directly or as a closure's FreeVar.
func Cell(addr ssa.Value) *ssa.Alloc {
	for range MaxDepth {
		switch a := addr.(type) {
		case *ssa.Alloc:
			return a
		case *ssa.FreeVar:
			b := Binding(a)
			if b == nil {
				return nil
			}
			addr = b
		default:
			return nil
		}
	}
	return nil
}

// StoresTo returns the values stored to the local cell, in instruction
// order, including stores made in closures through FreeVars bound to it.
func StoresTo(cell *ssa.Alloc) []ssa.Value {
	var out []ssa.Value
	for _, st := range Stores(cell) {
		out = append(out, st.Val)
	}
	return out
}

// Stores returns the stores to the local cell, as StoresTo.
func Stores(cell *ssa.Alloc) []*ssa.Store {
	var out []*ssa.Store
	var visit func(addr ssa.Value, depth int)
	visit = func(addr ssa.Value, depth int) {
		if depth == 0 {
			return
		}
		for _, r := range *addr.Referrers() {
			switch r := r.(type) {
			case *ssa.Store:
				if r.Addr == addr {
					out = append(out, r)
				}
			case *ssa.MakeClosure:
				for i, b := range r.Bindings {
					if b == addr {
						fn := r.Fn.(*ssa.Function)
						visit(fn.FreeVars[i], depth-1)
					}
				}
			}
		}
	}
	visit(cell, MaxDepth)
	return out
}

// Loaders returns the functions that read the local cell: the function
// declaring it and the closures capturing it, where they load it. It
// reports escapes when the cell's address goes anywhere else (handed to
// a call, stored, a field or element of it addressed) or the closures
// nest deeper than MaxDepth: then any code may read it.
func Loaders(cell *ssa.Alloc) (fns []*ssa.Function, escapes bool) {
	var visit func(addr ssa.Value, depth int)
	visit = func(addr ssa.Value, depth int) {
		if depth == 0 {
			escapes = true
			return
		}
		for _, r := range *addr.Referrers() {
			switch r := r.(type) {
			case *ssa.Store:
				if r.Addr != addr {
					escapes = true
				}
			case *ssa.UnOp:
				if r.Op != token.MUL {
					escapes = true
				} else if !slices.Contains(fns, r.Parent()) {
					fns = append(fns, r.Parent())
				}
			case *ssa.MakeClosure:
				for i, b := range r.Bindings {
					if b == addr {
						fn := r.Fn.(*ssa.Function)
						visit(fn.FreeVars[i], depth-1)
					}
				}
			case *ssa.DebugRef:
			default:
				escapes = true
			}
		}
	}
	visit(cell, MaxDepth)
	return fns, escapes
}

// ReachingStores returns the values that load, a read of a captured
// local variable in the function that declares it, can see: the stores to
// the variable that reach the load along the function's control flow with
// no other store to it in between (none when only the zero value can
// reach it). In
//
//	for {
//		req = &Request{...}  // store 2
//		copyHeaders(req)     // load: sees store 2 only
//		send(req)            // load at the loop head would see both
//	}
//
// the load after store 2 reads the new request, even though a closure
// elsewhere captures req. ok is false when another function may write the
// variable (a closure capturing it stores to it) or its address escapes
// otherwise, so that the order of the function's own statements does not
// decide what it holds.
func ReachingStores(load *ssa.UnOp) (vals []ssa.Value, ok bool) {
	cell, isCell := load.X.(*ssa.Alloc)
	if !isCell || !cell.Heap || cell.Parent() != load.Parent() || load.Block() == nil || !onlyOwnerWrites(cell, MaxDepth) {
		return nil, false
	}
	vals, _, ok = reaching(load, cell)
	return vals, ok
}

// OwnStores returns the values that load, a read of a local variable
// whose address goes nowhere but into its function's own loads of it and
// stores to it, can see: the stores reaching the load along the
// function's control flow. ok is false when some path reaches the
// variable's zero value instead (its declaration, or the function's
// entry), or when the address goes anywhere else (a closure, a call, a
// deferred call such as `defer errd.Wrap(&err)`) where code the order of
// the function's statements does not decide may write it. go/ssa keeps a
// function's named results in such variables when it defers a call.
func OwnStores(load *ssa.UnOp) (vals []ssa.Value, ok bool) {
	cell, isCell := load.X.(*ssa.Alloc)
	if !isCell || load.Op != token.MUL || cell.Parent() != load.Parent() || load.Block() == nil || !onlyLoadedAndStored(cell) {
		return nil, false
	}
	vals, zero, ok := reaching(load, cell)
	return vals, ok && !zero && len(vals) > 0
}

// onlyLoadedAndStored reports whether a local variable's address goes
// only into loads of it and stores to it.
func onlyLoadedAndStored(cell *ssa.Alloc) bool {
	for _, ref := range *cell.Referrers() {
		if !LoadsOrStores(cell, ref) {
			return false
		}
	}
	return true
}

// LoadsOrStores reports whether instr, a referrer of the address cell,
// only loads from it or stores to it (a store of cell itself elsewhere
// does not count), or is a DebugRef.
func LoadsOrStores(cell ssa.Value, instr ssa.Instruction) bool {
	switch instr := instr.(type) {
	case *ssa.Store:
		return instr.Addr == cell && instr.Val != cell
	case *ssa.UnOp:
		return instr.Op == token.MUL
	case *ssa.DebugRef:
		return true
	}
	return false
}

// ReachingAt returns the values of the stores to cell, a variable of
// instr's function, that reach instr along the function's control flow
// with no other store to it in between (none when only the zero value
// can). It says nothing of writes by other functions.
func ReachingAt(instr ssa.Instruction, cell *ssa.Alloc) (vals []ssa.Value, ok bool) {
	if cell.Parent() != instr.Parent() || instr.Block() == nil {
		return nil, false
	}
	vals, _, ok = reaching(instr, cell)
	return vals, ok
}

// reaching walks back from load, over its function's control flow, to the
// first store to cell on each path, and returns the values stored; zero
// reports whether some path reaches cell's zero value first (its Alloc,
// or the function's entry).
func reaching(load ssa.Instruction, cell *ssa.Alloc) (vals []ssa.Value, zero, ok bool) {
	type at struct {
		b    *ssa.BasicBlock
		upTo int // scan the block's instructions before this index
	}
	idx := -1
	for i, in := range load.Block().Instrs {
		if in == load {
			idx = i
		}
	}
	if idx < 0 {
		return nil, false, false
	}
	seen := map[*ssa.BasicBlock]bool{}
	work := []at{{load.Block(), idx}}
	for len(work) > 0 {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		killed := false
		for i := w.upTo - 1; i >= 0 && !killed; i-- {
			switch in := w.b.Instrs[i].(type) {
			case *ssa.Store:
				if in.Addr == cell {
					vals = append(vals, in.Val)
					killed = true
				}
			case *ssa.Alloc:
				if in == cell {
					killed, zero = true, true // a new variable, holding its zero value
				}
			}
		}
		if killed {
			continue
		}
		if len(w.b.Preds) == 0 {
			zero = true
		}
		for _, p := range w.b.Preds {
			if !seen[p] {
				seen[p] = true
				work = append(work, at{p, len(p.Instrs)})
			}
		}
	}
	return vals, zero, true
}

// OnlyOwnerWrites reports whether the local variable cell is written only
// by stores in the function declaring it, its address going nowhere but
// into loads and closures that only load it.
func OnlyOwnerWrites(cell *ssa.Alloc) bool { return onlyOwnerWrites(cell, MaxDepth) }

// onlyOwnerWrites reports whether the variable at addr (a cell, or a
// closure's free variable bound to it) is written only by stores in the
// function declaring it: every other use of its address is a load, or a
// binding into a closure that in turn only loads it.
func onlyOwnerWrites(addr ssa.Value, depth int) bool {
	if depth == 0 {
		return false
	}
	_, isFree := addr.(*ssa.FreeVar)
	for _, r := range *addr.Referrers() {
		switch r := r.(type) {
		case *ssa.Store:
			if isFree || r.Addr != addr {
				return false // written by a closure, or the address stored
			}
		case *ssa.UnOp:
			if r.Op.String() != "*" {
				return false
			}
		case *ssa.DebugRef:
		case *ssa.MakeClosure:
			fn, ok := r.Fn.(*ssa.Function)
			if !ok {
				return false
			}
			for i, b := range r.Bindings {
				if b == addr && !onlyOwnerWrites(fn.FreeVars[i], depth-1) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// IsNil reports whether v is the constant nil.
func IsNil(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.IsNil()
}

// Unconverted returns the value x converts without making a new object:
// a channel made bidirectional handed on as send-only or receive-only
// (chan T to <-chan T, as a return or an argument may apply), or any
// other change of a type to one with the same underlying type.
func Unconverted(x ssa.Value) ssa.Value {
	for {
		ct, ok := x.(*ssa.ChangeType)
		if !ok {
			return x
		}
		x = ct.X
	}
}

// Binding returns the value bound to fv by the MakeClosure that creates
// fv's function, or nil if the function is created by more than one
// MakeClosure or by none that can be found.
func Binding(fv *ssa.FreeVar) ssa.Value {
	fn := fv.Parent()
	idx := -1
	for i, f := range fn.FreeVars {
		if f == fv {
			idx = i
		}
	}
	if idx < 0 {
		return nil
	}
	if mc := OnlyClosure(fn); mc != nil {
		return mc.Bindings[idx]
	}
	return nil
}

// OnlyClosure returns the MakeClosure that creates the closure fn in its
// parent function, or nil if fn is not a closure or its parent creates it
// more than once.
func OnlyClosure(fn *ssa.Function) *ssa.MakeClosure {
	if fn.Parent() == nil {
		return nil
	}
	var found *ssa.MakeClosure
	for _, b := range fn.Parent().Blocks {
		for _, instr := range b.Instrs {
			mc, ok := instr.(*ssa.MakeClosure)
			if !ok || mc.Fn != fn {
				continue
			}
			if found != nil {
				return nil
			}
			found = mc
		}
	}
	return found
}

// Funcs returns the functions that the function value v may denote when
// they can be found by tracing v with Sources: function constants and
// closures. Bound method values give the method itself.
func Funcs(v ssa.Value) []*ssa.Function {
	var out []*ssa.Function
	for _, s := range Sources(v) {
		switch s := s.(type) {
		case *ssa.Function:
			out = append(out, s)
		case *ssa.MakeClosure:
			fn := s.Fn.(*ssa.Function)
			if m := BoundMethod(fn); m != nil {
				fn = m
			}
			out = append(out, fn)
		}
	}
	return out
}

// BoundMethod returns the concrete method that a synthetic bound-method
// wrapper (the function behind a method value such as s.run) calls, or nil
// if fn is not such a wrapper or the method is an interface method.
func BoundMethod(fn *ssa.Function) *ssa.Function {
	if !strings.HasPrefix(fn.Synthetic, "bound method wrapper") || len(fn.Blocks) == 0 {
		return nil
	}
	for _, instr := range fn.Blocks[0].Instrs {
		if c, ok := instr.(*ssa.Call); ok {
			return c.Call.StaticCallee()
		}
	}
	return nil
}

// ThunkMethod returns the concrete method that a synthetic thunk (the
// function behind a method expression such as (*T).m, which takes the
// receiver as its first parameter) calls, or nil if fn is not such a thunk
// or the method is an interface method.
func ThunkMethod(fn *ssa.Function) *ssa.Function {
	if !strings.HasPrefix(fn.Synthetic, "thunk for") || len(fn.Blocks) == 0 {
		return nil
	}
	for _, instr := range fn.Blocks[0].Instrs {
		if c, ok := instr.(*ssa.Call); ok {
			return c.Call.StaticCallee()
		}
	}
	return nil
}

// WrappedMethod returns the method that a synthetic method wrapper calls:
// go/ssa's "wrapper for" function behind (*T).m where m has a value
// receiver, or behind a method promoted from an embedded field, which an
// interface holding a *T runs. It returns nil if fn is not such a wrapper.
func WrappedMethod(fn *ssa.Function) *ssa.Function {
	if !strings.HasPrefix(fn.Synthetic, "wrapper for") || len(fn.Blocks) == 0 {
		return nil
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			// The wrapper of a value method first calls the
			// builtin ssa:wrapnilchk on the pointer.
			if c, ok := instr.(*ssa.Call); ok && c.Call.StaticCallee() != nil {
				return c.Call.StaticCallee()
			}
		}
	}
	return nil
}

// Field returns the struct field (its generic origin) that fa addresses,
// or nil.
func Field(fa *ssa.FieldAddr) *types.Var {
	p, ok := fa.X.Type().Underlying().(*types.Pointer)
	if !ok {
		return nil
	}
	st, ok := p.Elem().Underlying().(*types.Struct)
	if !ok || fa.Field >= st.NumFields() {
		return nil
	}
	return st.Field(fa.Field).Origin()
}

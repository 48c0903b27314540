package sharedloc

import (
	"go/token"
	"go/types"
	"slices"

	xcallgraph "golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
)

// maxSharingDepth bounds how many calls Local and SharedIn look through.
const maxSharingDepth = 4

// Local reports whether a touches an object that no other goroutine can
// reach yet when a executes: one allocated in a's function, or passed to
// it by every caller, that has not escaped on any path to a; or a local
// variable that no closure has captured yet (such as the per-iteration
// copy of a loop variable, written before the goroutine that captures it
// is created). Accesses to package variables are never local.
func (r *Result) Local(a *Access) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := r.local[a]; ok {
		return v
	}
	var v bool
	switch a.Loc.Kind {
	case Global:
	case Captured:
		cell := a.Loc.Cell.(*ssa.Alloc)
		v = a.Fn() == cell.Parent() && !r.escapesBefore(cell, a.Instr, cell, false, false) || r.cellStaysHome(cell)
	default:
		v = a.Base != nil && (r.freshAt(a.Base, a.Instr, maxSharingDepth, false) || r.ownFieldOfNew(a))
	}
	r.local[a] = v
	return v
}

// LocalThrough reports whether a, in the frame of its function that the
// call site makes, touches an object that no other goroutine can reach
// yet: a field of the object that a parameter of a's function points to
// (through fields of fields, no load), site a direct static call of the
// function (not go, defer or through an interface) that passes as that
// parameter an object fresh at the call (allocated in the caller, or a
// constructor's result, let go nowhere on any path to the call, as
// Local's own objects), and a's function letting the parameter go
// nowhere on any path to a. colly's NewCollector calls c.Init() on the
// collector it has just allocated, and Init's first statement stores nil
// to c.Headers: in that frame no goroutine but the caller's can read the
// field, whatever other collectors of the same allocation site do.
//
// Local asks the same of every call of an unexported function at once;
// LocalThrough answers for one call, so an exported function, which code
// outside the package may call on a published object, is judged per call
// site of the package (concurrent's views).
func (r *Result) LocalThrough(a *Access, site ssa.CallInstruction) bool {
	call, ok := site.(*ssa.Call)
	if !ok || call.Call.IsInvoke() || call.Call.StaticCallee() != a.Fn() || a.Loc.Kind == Global || a.Loc.Kind == Captured || a.Loc.Elem {
		return false
	}
	p := ownFieldParam(a)
	if p == nil {
		return false
	}
	i := slices.Index(a.Fn().Params, p)
	if i < 0 || i >= len(call.Call.Args) {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := throughKey{a, call}
	if v, ok := r.through[k]; ok {
		return v
	}
	v := r.freshObjectArg(call.Call.Args[i], call) && !r.escapesBefore(p, a.Instr, nil, false, false)
	if r.through == nil {
		r.through = make(map[throughKey]bool)
	}
	r.through[k] = v
	return v
}

type throughKey struct {
	a    *Access
	site *ssa.Call
}

// ownFieldParam returns the parameter of a's function whose object a
// loads or stores a field of, the field's address taken from the
// parameter itself or through fields of fields (p.f, p.inner.f), or nil.
func ownFieldParam(a *Access) *ssa.Parameter {
	addr := a.Addr()
	if addr == nil || addr != a.Ptr {
		return nil
	}
	fa, ok := addr.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	x := fa.X
	for {
		inner, ok := x.(*ssa.FieldAddr)
		if !ok {
			break
		}
		x = inner.X
	}
	p, _ := x.(*ssa.Parameter)
	return p
}

// freshObjectArg reports whether arg, an argument of site, is an object
// fresh when the callee starts (see freshArg), itself: not one reached
// through a fresh object's fields, which may hold anything.
func (r *Result) freshObjectArg(arg ssa.Value, site ssa.Instruction) bool {
	self := func(v ssa.Value) bool {
		switch Root(v).(type) {
		case *ssa.Alloc, *ssa.Call:
			return Root(v) == ssavalue.Unconverted(v)
		}
		return false
	}
	if load, ok := arg.(*ssa.UnOp); ok && ssavalue.CapturedCell(load) != nil {
		stored, ok := ssavalue.ReachingStores(load)
		if !ok || len(stored) == 0 {
			return false
		}
		for _, sv := range stored {
			if !self(sv) {
				return false
			}
		}
	} else if !self(arg) {
		return false
	}
	return r.freshArg(arg, site, maxSharingDepth)
}

// freshAt reports whether the object v denotes is reachable only from the
// current goroutine when at executes. With entering set, at is a call
// that hands v to a callee, and the question is whether v is fresh when
// the callee starts: the hand-off itself is no escape, since what the
// callee does with its parameter is asked of the callee's own body.
func (r *Result) freshAt(v ssa.Value, at ssa.Instruction, depth int, entering bool) bool {
	if depth == 0 || at.Parent() != parentOf(v) {
		return false
	}
	k := depthKey{v: v, at: at, depth: depth, entering: entering}
	if f, ok := r.fresh[k]; ok {
		return f
	}
	f := r.computeFreshAt(v, at, depth, entering)
	r.fresh[k] = f
	return f
}

func (r *Result) computeFreshAt(v ssa.Value, at ssa.Instruction, depth int, entering bool) bool {
	switch v := v.(type) {
	case *ssa.Alloc:
		if isCaptured(v) {
			// A captured variable: fresh if every value stored to it
			// is, and no closure captures it before at.
			stored := ssavalue.StoresTo(v)
			if len(stored) != 1 {
				return false
			}
			s, ok := stored[0].(ssa.Instruction)
			if !ok || s.Parent() != at.Parent() || !r.freshAt(Root(stored[0]), at, depth-1, entering) {
				return false
			}
			for _, ref := range *v.Referrers() {
				if _, ok := ref.(*ssa.MakeClosure); ok && r.mayRunBefore(ref, at) {
					return false
				}
			}
			return true
		}
		return !r.escapesBefore(v, at, v, entering, false)
	case *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeSlice:
		return !r.escapesBefore(v, at, v.(ssa.Instruction), entering, false)
	case *ssa.Parameter:
		fn := v.Parent()
		if fn.Parent() != nil && !r.callsKnown(fn) || isEntry(r.Goroutines, fn) || (fn.Object() != nil && fn.Object().Exported()) {
			return false
		}
		idx := slices.Index(fn.Params, v)
		callers := r.Goroutines.CallGraph.Callers(fn)
		if idx < 0 || len(callers) == 0 {
			return false
		}
		for _, e := range callers {
			switch e.Site.(type) {
			case *ssa.Go, *ssa.Defer:
				return false // runs later, when the object may have gone
			}
			args := e.Site.Common().Args
			if e.Site.Common().IsInvoke() || idx >= len(args) {
				return false
			}
			if !r.freshArg(args[idx], e.Site, depth-1) {
				return false
			}
		}
		return !r.escapesBefore(v, at, nil, entering, false)
	case *ssa.Call:
		// A constructor's result: each call has an object of its own.
		if !r.constructs(v, depth-1) {
			return false
		}
		return !r.escapesBefore(v, at, v, entering, false)
	}
	return false
}

// constructs reports whether call's callee is a constructor: every return
// of it returns an object it allocated (new, &T{...}, make) and let go
// nowhere before, filled with nothing but values that hold no pointer and
// objects made for it there (mochi-mqtt's NewInflights returning
// &Inflight{internal: map[uint16]packets.Packet{}}). Each call then
// returns an object of its own, as an allocation in the caller would.
// An object filled with a parameter or a call's result is not fresh
// although it is new: what it points to may be shared.
func (r *Result) constructs(call *ssa.Call, depth int) bool {
	return depth > 0 && everyReturn(call, func(ret *ssa.Return) bool {
		made, ok := ret.Results[0].(ssa.Instruction)
		return ok && madeHere(made) && !r.escapesBefore(ret.Results[0], ret, made, true, true)
	})
}

// everyReturn reports whether call's callee, a function of the package
// with one result, has a return and ok holds at each of them.
func everyReturn(call *ssa.Call, ok func(*ssa.Return) bool) bool {
	fn := call.Call.StaticCallee()
	if fn == nil || fn.Blocks == nil || fn.Signature.Results().Len() != 1 {
		return false
	}
	returns := 0
	for _, b := range fn.Blocks {
		if ret, isRet := b.Instrs[len(b.Instrs)-1].(*ssa.Return); isRet {
			if !ok(ret) {
				return false
			}
			returns++
		}
	}
	return returns > 0
}

// ownFieldOfNew reports whether a touches a field of the object that a
// call in a's function returned, its address taken from the call's
// result itself (x.f, not x.p.f), before that object escaped on any path
// to a, the callee allocating a new object at every return and letting it
// go nowhere before (see allocates). What the object was filled with may
// be shared (goleveldb's newVersion(s) returns &version{s: s}, which
// constructs refuses), but the object's own fields are that call's alone
// until it lets the object go.
func (r *Result) ownFieldOfNew(a *Access) bool {
	call, ok := a.Base.(*ssa.Call)
	fa, isField := a.Ptr.(*ssa.FieldAddr)
	if !ok || !isField || fa.X != a.Base || a.Loc.Elem || !r.allocates(call) {
		return false
	}
	return !r.escapesBefore(call, a.Instr, call, false, false)
}

// allocates reports whether call's callee returns, at every return, an
// object it allocated there (new or &T{...}, not captured by a closure),
// whose fields' addresses go only into loads and stores to them, and
// which it let go nowhere before the return.
func (r *Result) allocates(call *ssa.Call) bool {
	return everyReturn(call, func(ret *ssa.Return) bool {
		alloc, ok := ret.Results[0].(*ssa.Alloc)
		return ok && !isCaptured(alloc) && fieldsStayHome(alloc) && !r.escapesBefore(alloc, ret, alloc, true, true)
	})
}

// fieldsStayHome reports whether the addresses of v's fields and elements
// go only into loads and into stores to them.
func fieldsStayHome(v *ssa.Alloc) bool {
	for _, ref := range *v.Referrers() {
		switch ref.(type) {
		case *ssa.FieldAddr, *ssa.IndexAddr:
		default:
			continue
		}
		addr := ref.(ssa.Value)
		for _, u := range *addr.Referrers() {
			switch u := u.(type) {
			case *ssa.UnOp, *ssa.DebugRef:
			case *ssa.Store:
				if u.Addr != addr {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}

// madeHere reports whether v is an allocation whose fields (or elements)
// are only read, or written with values that hold no pointer and with
// allocations that nothing else refers to (an object literal's map or
// slice).
func madeHere(v ssa.Instruction) bool {
	switch v := v.(type) {
	case *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeSlice:
		return true // filled later, if at all, by map updates, sends and stores the escape walk sees
	case *ssa.Alloc:
		if isCaptured(v) {
			return false
		}
		for _, ref := range *v.Referrers() {
			var addr ssa.Value
			switch ref := ref.(type) {
			case *ssa.FieldAddr:
				addr = ref
			case *ssa.IndexAddr:
				addr = ref
			case *ssa.Store:
				if ref.Addr == ssa.Value(v) && !PointerFree(ref.Val.Type()) && !madeFor(ref.Val, ref) {
					return false // *p = *q: a copy of what q points to
				}
				continue
			default:
				continue // the object itself: escapesBefore's to judge
			}
			for _, u := range *addr.Referrers() {
				switch u := u.(type) {
				case *ssa.UnOp, *ssa.DebugRef:
				case *ssa.Store:
					if u.Addr != addr || !PointerFree(u.Val.Type()) && !madeFor(u.Val, u) {
						return false
					}
				default:
					return false // the field's address goes elsewhere
				}
			}
		}
		return true
	}
	return false
}

// madeFor reports whether v is a nil constant, or an allocation whose
// only use is the store s: a new object, map, channel or slice (a slice
// of an array allocated for it alone, as make([]T, 0) with a constant
// length is built), or the value of a composite literal filled with such
// allocations (see literalValue).
func madeFor(v ssa.Value, s *ssa.Store) bool {
	switch v := v.(type) {
	case *ssa.Const:
		return true
	case *ssa.Slice:
		arr, ok := v.X.(*ssa.Alloc)
		return ok && onlyUse(v, s) && onlyUse(arr, v)
	case *ssa.UnOp:
		return onlyUse(v, s) && literalValue(v)
	case *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeSlice, *ssa.Alloc:
		for _, u := range *v.Referrers() {
			if _, isDebug := u.(*ssa.DebugRef); u != s && !isDebug {
				if ins, ok := u.(*ssa.MapUpdate); ok && ins.Map == v {
					continue // a map literal's entries
				}
				return false
			}
		}
		return true
	}
	return false
}

// onlyUse reports whether u is the only instruction that uses v (debug
// references aside).
func onlyUse(v ssa.Value, u ssa.Instruction) bool {
	for _, r := range *v.Referrers() {
		if _, isDebug := r.(*ssa.DebugRef); r != u && !isDebug {
			return false
		}
	}
	return true
}

// literalValue reports whether load reads the whole value of a composite
// literal built in a variable of its own (scope := Scope{tags: make(...)};
// return &scope builds Scope{...} in a local and copies it into the new
// variable), whose fields are only written, each with a value that holds
// no pointer or with an allocation made for it alone (madeFor), and which
// nothing but this load reads: the copy then holds the only references to
// what the literal made, as if the new variable had been filled directly.
func literalValue(load *ssa.UnOp) bool {
	lit, ok := load.X.(*ssa.Alloc)
	if load.Op != token.MUL || !ok || lit.Heap {
		return false
	}
	for _, ref := range *lit.Referrers() {
		switch ref := ref.(type) {
		case *ssa.FieldAddr:
			for _, u := range *ref.Referrers() {
				switch u := u.(type) {
				case *ssa.DebugRef:
				case *ssa.Store:
					if u.Addr != ref || !PointerFree(u.Val.Type()) && !madeFor(u.Val, u) {
						return false
					}
				default:
					return false // the field read, or its address handed on
				}
			}
		case *ssa.DebugRef:
		default:
			if ref != ssa.Instruction(load) {
				return false
			}
		}
	}
	return true
}

// pointerFree reports whether values of type t hold no pointer: booleans,
// numbers, strings and arrays and structs of them.
func PointerFree(t types.Type) bool {
	switch t := t.Underlying().(type) {
	case *types.Basic:
		return t.Kind() != types.UnsafePointer
	case *types.Array:
		return PointerFree(t.Elem())
	case *types.Struct:
		for i := range t.NumFields() {
			if !PointerFree(t.Field(i).Type()) {
				return false
			}
		}
		return true
	}
	return false
}

// cellStaysHome reports whether every closure that captures the local
// variable cell runs on the goroutine that declared it: closures that are
// only called, or handed to functions outside the package that are not
// known to start goroutines (the goroutines analyzer makes contexts of
// those that are).
func (r *Result) cellStaysHome(cell *ssa.Alloc) bool {
	for _, ref := range *cell.Referrers() {
		mc, ok := ref.(*ssa.MakeClosure)
		if !ok {
			continue
		}
		fn := mc.Fn.(*ssa.Function)
		if isEntry(r.Goroutines, fn) || !callsOnly(mc) {
			return false
		}
		// Captured again by a closure nested in this one.
		for _, fv := range fn.FreeVars {
			for _, fref := range *fv.Referrers() {
				if _, ok := fref.(*ssa.MakeClosure); ok {
					return false
				}
			}
		}
	}
	return true
}

// callsOnly reports whether the closure value mc is only called or passed
// as an argument, never stored, sent or returned.
func callsOnly(mc *ssa.MakeClosure) bool {
	for _, u := range *mc.Referrers() {
		switch u := u.(type) {
		case ssa.CallInstruction:
			if _, isGo := u.(*ssa.Go); isGo {
				return false
			}
		case *ssa.ChangeType:
			if !callsOnlyValue(u) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func callsOnlyValue(v ssa.Value) bool {
	for _, u := range *v.Referrers() {
		if _, ok := u.(ssa.CallInstruction); !ok {
			return false
		}
		if _, isGo := u.(*ssa.Go); isGo {
			return false
		}
	}
	return true
}

func parentOf(v ssa.Value) *ssa.Function {
	switch v := v.(type) {
	case ssa.Instruction:
		return v.Parent()
	case *ssa.Parameter:
		return v.Parent()
	}
	return nil
}

func isEntry(g *goroutines.Result, fn *ssa.Function) bool {
	for _, c := range g.Contexts[1:] {
		if c.Entry == fn {
			return true
		}
	}
	return false
}

func (r *Result) mayRunBefore(e, at ssa.Instruction) bool {
	return e == at || r.Goroutines.Flow.MayFollow(e, at)
}

// escapesBefore reports whether the pointer v (or a conversion of it) may
// have escaped its function before at executes: stored to memory, sent on
// a channel, captured, passed to a call or returned. When v is made by the
// instruction alloc, escapes of the objects made by earlier executions of
// alloc (in earlier loop iterations) do not count. With entering set, at
// is a call handing v to a callee, and that hand-off does not count (see
// freshAt).
//
// A store of v to a local variable that closures capture is no escape by
// itself when the variable stays home (see homeCell): what a later read
// of the variable gives is followed as v, and each call of a closure that
// captures it counts as an escape there, since the closure may do
// anything with the value it reads.
//
// A call that hands v to a function that only reads and writes fields of
// it is no escape either (see keptByCallee); with fills set (constructs
// and allocates, which ask what the object holds as well), only fields
// that hold no pointer.
func (r *Result) escapesBefore(v ssa.Value, at, alloc ssa.Instruction, entering, fills bool) bool {
	seen := map[ssa.Value]bool{}
	// escapesAt reports whether an escape at ref may come before at;
	// handOff says that ref is a call handing the value over as one
	// argument only, which does not count at at itself when entering.
	escapesAt := func(ref ssa.Instruction, handOff bool) bool {
		return ref == at && !(entering && handOff) || r.Goroutines.Flow.MayFollowAvoiding(ref, at, alloc)
	}
	var visit func(v ssa.Value) bool
	visit = func(v ssa.Value) bool {
		if seen[v] {
			return false
		}
		seen[v] = true
		refs := v.Referrers()
		if refs == nil {
			return false
		}
		for _, ref := range *refs {
			escape, handOff := false, false
			switch ref := ref.(type) {
			case *ssa.ChangeType, *ssa.MakeInterface, *ssa.Convert, *ssa.Phi, *ssa.Slice:
				if visit(ref.(ssa.Value)) {
					return true
				}
			case *ssa.Store:
				if ref.Val != v {
					break
				}
				loads, calls, ok := homeCell(ref.Addr)
				if !ok {
					// A variable that closures capture: the value
					// escapes where a closure that can read it is
					// made, and wherever the declaring function's
					// own reads of it escape.
					loads, makes, ok := capturingCell(ref.Addr)
					if !ok {
						escape = true
						break
					}
					for _, load := range loads {
						if visit(load) {
							return true
						}
					}
					for _, mc := range makes {
						if mc == at || r.Goroutines.Flow.MayFollow(mc, at) {
							return true
						}
					}
					break
				}
				for _, load := range loads {
					if visit(load) {
						return true
					}
				}
				for _, call := range calls {
					if escapesAt(call, false) {
						return true
					}
				}
			case *ssa.MapUpdate:
				escape = ref.Value == v || ref.Key == v
			case *ssa.Send:
				escape = ref.X == v
			case *ssa.Select:
				for _, st := range ref.States {
					escape = escape || st.Send == v
				}
			case *ssa.MakeClosure, *ssa.Panic:
				escape = true
			case *ssa.Return:
				// Returning is handing the value to the caller: no
				// escape at at itself when entering (constructs).
				escape, handOff = true, count(ref.Results, v) == 1
			case ssa.CallInstruction:
				escape = isArg(ref.Common(), v) && !r.keptByCallee(ref, v, fills)
				common := ref.Common()
				handOff = common.Value != v && !common.IsInvoke() && count(common.Args, v) == 1
			}
			if escape && escapesAt(ref, handOff) {
				return true
			}
		}
		return false
	}
	return visit(v)
}

// homeCell reports whether addr is a local variable that closures capture
// but that stays on its goroutine while they run: only the declaring
// function writes it, and every closure that captures it only reads it
// and is only called, directly, by that function (never started, deferred,
// stored or handed to another function). It returns the declaring
// function's reads of the variable and the calls of those closures.
func homeCell(addr ssa.Value) (loads []ssa.Value, calls []ssa.Instruction, ok bool) {
	cell, isAlloc := addr.(*ssa.Alloc)
	if !isAlloc || !cell.Heap {
		return nil, nil, false
	}
	for _, ref := range *cell.Referrers() {
		switch ref := ref.(type) {
		case *ssa.Store:
			if ref.Addr != cell {
				return nil, nil, false
			}
		case *ssa.UnOp:
			if ref.Op != token.MUL {
				return nil, nil, false
			}
			loads = append(loads, ref)
		case *ssa.DebugRef:
		case *ssa.MakeClosure:
			fn, isFn := ref.Fn.(*ssa.Function)
			if !isFn {
				return nil, nil, false
			}
			for i, b := range ref.Bindings {
				if b == cell && !onlyRead(fn.FreeVars[i]) {
					return nil, nil, false
				}
			}
			for _, u := range *ref.Referrers() {
				if _, isDebug := u.(*ssa.DebugRef); isDebug {
					continue
				}
				call, isCall := u.(*ssa.Call)
				if !isCall || call.Call.Value != ref || slices.Contains(call.Call.Args, ssa.Value(ref)) {
					return nil, nil, false
				}
				calls = append(calls, call)
			}
		default:
			return nil, nil, false
		}
	}
	return loads, calls, true
}

// capturingCell reports whether addr is a local variable that closures
// capture and that is used in no other way: the declaring function
// stores to it, reads it and makes closures of it, and never takes its
// address otherwise. It returns the declaring function's reads and the
// closures made. A value stored to such a variable can reach another
// goroutine only through a read of it or through a closure, and a closure
// can read it only once it is made, so one made after a write keeps the
// write local (newSuspicion fills s's map before it makes s.timeoutFn).
// The closures may do anything, so each counts as an escape wherever it
// may have been made before, even by an earlier loop turn; that is what
// separates this from homeCell, whose closures stay home.
func capturingCell(addr ssa.Value) (loads []ssa.Value, makes []ssa.Instruction, ok bool) {
	cell, isAlloc := addr.(*ssa.Alloc)
	if !isAlloc || !cell.Heap {
		return nil, nil, false
	}
	for _, ref := range *cell.Referrers() {
		switch ref := ref.(type) {
		case *ssa.Store:
			if ref.Addr != cell || ref.Val == ssa.Value(cell) {
				return nil, nil, false
			}
		case *ssa.UnOp:
			if ref.Op != token.MUL {
				return nil, nil, false
			}
			loads = append(loads, ref)
		case *ssa.DebugRef:
		case *ssa.MakeClosure:
			if _, isFn := ref.Fn.(*ssa.Function); !isFn {
				return nil, nil, false
			}
			makes = append(makes, ref)
		default:
			return nil, nil, false
		}
	}
	return loads, makes, true
}

// onlyRead reports whether a closure's free variable fv is only loaded.
func onlyRead(fv *ssa.FreeVar) bool {
	for _, u := range *fv.Referrers() {
		switch u := u.(type) {
		case *ssa.UnOp:
			if u.Op != token.MUL {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// freshArg reports whether the argument arg of the call site is fresh when
// the callee starts. A read of a local variable that only its declaring
// function writes gives one of the values stored to it that reach the
// read (ssavalue.ReachingStores), not every value it ever held: a loop
// that makes a new object each turn and hands it to a helper hands a
// fresh one.
func (r *Result) freshArg(arg ssa.Value, site ssa.Instruction, depth int) bool {
	if load, ok := arg.(*ssa.UnOp); ok && ssavalue.CapturedCell(load) != nil {
		if stored, ok := ssavalue.ReachingStores(load); ok && len(stored) > 0 {
			for _, sv := range stored {
				if !r.freshAt(Root(sv), site, depth, true) {
					return false
				}
			}
			return true
		}
	}
	return r.freshAt(Root(arg), site, depth, true)
}

// callsKnown reports whether every call of the closure fn is a call site
// in the package's call graph: each closure value made of it is only
// called directly, or returned by an unexported function of the package
// (one that is not itself a closure, is not handed to code outside the
// package, and is only called by name) whose result is in turn only
// called directly, as a function that builds a helper closure for its
// caller is used.
func (r *Result) callsKnown(fn *ssa.Function) bool {
	if len(fn.FreeVars) == 0 {
		return false // a function value with no MakeClosure to follow
	}
	found := false
	for _, b := range fn.Parent().Blocks {
		for _, instr := range b.Instrs {
			mc, ok := instr.(*ssa.MakeClosure)
			if !ok || mc.Fn != fn {
				continue
			}
			found = true
			for _, u := range *mc.Referrers() {
				switch u := u.(type) {
				case *ssa.Call:
					if u.Call.Value != mc || slices.Contains(u.Call.Args, ssa.Value(mc)) {
						return false
					}
				case *ssa.Return:
					if !r.onlyCalledResult(mc.Parent(), u) {
						return false
					}
				case *ssa.DebugRef:
				default:
					return false
				}
			}
		}
	}
	return found
}

// onlyCalledResult reports whether the function p, which returns a closure
// by ret, is unexported, runs only where the package calls it by name, and
// each of its callers only calls the closure it returns.
func (r *Result) onlyCalledResult(p *ssa.Function, ret *ssa.Return) bool {
	if p.Parent() != nil || p.Object() == nil || p.Object().Exported() || len(ret.Results) != 1 ||
		isEntry(r.Goroutines, p) || len(r.Goroutines.RefSites(p)) > 0 {
		return false
	}
	callers := r.Goroutines.CallGraph.Callers(p)
	if len(callers) == 0 {
		return false
	}
	for _, e := range callers {
		call, ok := e.Site.(*ssa.Call)
		if !ok || callgraph.StaticCallee(&call.Call) != p {
			return false
		}
		for _, u := range *call.Referrers() {
			c, ok := u.(*ssa.Call)
			if !ok || c.Call.Value != ssa.Value(call) || slices.Contains(c.Call.Args, ssa.Value(call)) {
				return false
			}
		}
	}
	return true
}

// count returns how many of vs are v.
func count(vs []ssa.Value, v ssa.Value) int {
	n := 0
	for _, x := range vs {
		if x == v {
			n++
		}
	}
	return n
}

// keptByCallee reports whether the call site hands v only to parameters
// of its static callee that the callee uses for nothing but loads of its
// fields and stores to them (kcp-go's newUDPSession calls
// sess.initPlatform(), which stores a batch connection in a field of the
// session, before it fills the session's other fields). Such a callee
// lets the object go nowhere, so no other goroutine can reach it through
// the call. With fills set the fields must hold no pointer (nbio's
// newConn calls wsc.EnableWriteCompression(on), which sets a bool): the
// callee then puts no pointer into the object either, so what the object
// holds stays what its maker put there (constructs asks that). A go
// statement or a deferred call is refused: the first runs beside the
// caller, the second after the caller's return. So are an interface
// method, a call of v itself and a function without a body, whose uses
// are not known, but for runtime.AddCleanup's ptr (see cleanupPtr).
//
// A call of a function value (not an interface method) keeps v when the
// call graph gives it callees and each keeps v: the functional options a
// constructor applies to the object it is building (go-mail's NewMsg
// calls each MsgOption on its new message; every option the package
// makes sets a field). An option made outside the package has no edge.
func (r *Result) keptByCallee(site ssa.CallInstruction, v ssa.Value, fills bool) bool {
	call, ok := site.(*ssa.Call)
	if !ok || call.Call.Value == v {
		return false
	}
	fn := call.Call.StaticCallee()
	if cleanupPtr(fn, call.Call.Args, v) {
		return true
	}
	callees := []*ssa.Function{fn}
	if fn == nil {
		if call.Call.IsInvoke() {
			return false
		}
		callees = r.Goroutines.CallGraph.Callees(call)
	}
	for _, fn := range callees {
		if fn == nil || fn.Blocks == nil || len(fn.Params) != len(call.Call.Args) {
			return false
		}
		for i, arg := range call.Call.Args {
			if arg != v {
				continue
			}
			if fills && !onlyFields(fn.Params[i], false) || !fills && !r.keeps(fn.Params[i], maxKeepDepth) {
				return false
			}
		}
	}
	return len(callees) > 0
}

// cleanupPtr reports whether fn is runtime.AddCleanup and v its ptr
// argument alone: the runtime keeps ptr only to see when it becomes
// unreachable, and runs the cleanup then with arg, not ptr (AddCleanup's
// doc: the cleanup must not reach ptr), so no goroutine gets the object
// from the call (kcp-go's newUDPSession adds its deadlines' cleanups
// before it sets the session's header size and starts its read loop).
func cleanupPtr(fn *ssa.Function, args []ssa.Value, v ssa.Value) bool {
	if fn == nil || len(args) != 3 || args[0] != v || slices.Contains(args[1:], v) {
		return false
	}
	if o := fn.Origin(); o != nil {
		fn = o
	}
	return fn.Pkg != nil && fn.Pkg.Pkg.Path() == "runtime" && fn.Name() == "AddCleanup"
}

// onlyFields reports whether the pointer p is used only to address its
// fields, and each field only loaded or stored to: with pointers set,
// fields of any type, through fields of fields too (p.platform.conn);
// without, only fields whose values hold no pointer, addressed from p
// itself.
func onlyFields(p ssa.Value, pointers bool) bool {
	for _, ref := range *p.Referrers() {
		switch ref := ref.(type) {
		case *ssa.DebugRef:
		case *ssa.FieldAddr:
			if !pointers && !PointerFree(ref.Type().(*types.Pointer).Elem()) || !loadedOrStored(ref, pointers, false) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// loadedOrStored reports whether the field address addr is only loaded
// and stored to, or, with nested set, addresses fields of its own that
// are (see onlyFields); with syncCalls set, it may also be handed to a
// function of sync or sync/atomic, which keeps no pointer (a mutex of the
// object locked: see keeps).
func loadedOrStored(addr *ssa.FieldAddr, nested, syncCalls bool) bool {
	for _, u := range *addr.Referrers() {
		switch u := u.(type) {
		case *ssa.DebugRef:
		case *ssa.UnOp:
			if u.Op != token.MUL {
				return false
			}
		case *ssa.Store:
			if u.Addr != ssa.Value(addr) {
				return false
			}
		case *ssa.FieldAddr:
			if !nested || !loadedOrStored(u, nested, syncCalls) {
				return false
			}
		case *ssa.Call:
			fn := u.Call.StaticCallee()
			if !syncCalls || fn == nil || fn.Pkg == nil || u.Call.Value == ssa.Value(addr) {
				return false
			}
			if path := fn.Pkg.Pkg.Path(); path != "sync" && path != "sync/atomic" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func isArg(call *ssa.CallCommon, v ssa.Value) bool {
	return call.Value == v || slices.Contains(call.Args, v)
}

type sharedKey struct {
	a *Access
	c *goroutines.Context
}

// SharedIn reports whether all goroutines of the Multi context c that
// execute a touch one and the same object, so that two of them may
// conflict on it.
func (r *Result) SharedIn(a *Access, c *goroutines.Context) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := sharedKey{a, c}
	if v, ok := r.shared[k]; ok {
		return v
	}
	v := a.Loc.Kind == Global
	if !v && a.Base != nil {
		v = r.sharedIn(a.Base, c, maxSharingDepth)
	}
	r.shared[k] = v
	return v
}

// holdsSame reports whether the variable cell, declared in the loop that
// starts c's goroutines and captured by them, is stored once, with a value
// that is the same object for every goroutine the loop starts (see
// invariantArg).
func (r *Result) holdsSame(cell *ssa.Alloc, c *goroutines.Context) bool {
	if c.Site == nil || cell.Parent() != c.Site.Parent() || !isCaptured(cell) {
		return false
	}
	stored := ssavalue.StoresTo(cell)
	return len(stored) == 1 && r.invariantArg(stored[0], c, maxSharingDepth-1)
}

func (r *Result) sharedIn(v ssa.Value, c *goroutines.Context, depth int) bool {
	if depth == 0 {
		return false
	}
	k := depthKey{v: v, c: c, depth: depth}
	if s, ok := r.sharedAt[k]; ok {
		return s
	}
	s := r.computeSharedIn(v, c, depth)
	r.sharedAt[k] = s
	return s
}

func (r *Result) computeSharedIn(v ssa.Value, c *goroutines.Context, depth int) bool {
	switch v := v.(type) {
	case *ssa.Global:
		return true
	case *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeSlice:
		return r.madeOutside(v.(ssa.Instruction), c)
	case *ssa.Alloc:
		if !isCaptured(v) {
			return r.madeOutside(v, c)
		}
		if slices.Contains(r.Goroutines.Of(v.Parent()), c) {
			// Declared on the goroutine itself: one variable each.
			return false
		}
		site := startIn(c, v.Parent())
		if site != nil && oncePerCell(v, site, r.Goroutines.Flow) {
			// Declared anew for each closure that starts one
			// goroutine, once.
			return false
		}
		if site == nil || v.Parent() != site.Parent() {
			// Declared outside the function that starts the
			// goroutines: the same variable for all of them.
			return true
		}
		// Declared in the spawning function: shared only by the
		// goroutines started in one loop, and only if the start can
		// run again without declaring it anew (declared outside that
		// loop, or in an outer one). Or each has its own variable,
		// holding the same object for all (`h := s.h; go func() {
		// h.Handle(b) }()`).
		flow := r.Goroutines.Flow
		return flow.InLoop(site) && (flow.MayFollowAvoiding(site, site, v) || r.holdsSame(v, c))
	case *ssa.FreeVar:
		// The receiver of a method value the goroutine runs (`f :=
		// s.Stop; go f()`): the one bound where the value is made.
		if recv := boundAt(c, v); recv != nil {
			return r.invariantArg(recv, c, depth-1)
		}
	case *ssa.Parameter:
		fn := v.Parent()
		idx := slices.Index(fn.Params, v)
		if idx < 0 {
			return false
		}
		if fn == c.Entry {
			switch {
			case c.Kind == goroutines.Handler:
				return fn.Signature.Recv() != nil && idx == 0
			case c.Site == nil:
				return false
			}
			args := c.Site.Common().Args
			if c.Site.Common().IsInvoke() || idx >= len(args) {
				return false
			}
			if onceOwned(c.Site, args[idx]) {
				return false
			}
			return r.invariantArg(args[idx], c, depth-1)
		}
		var callers []*xcallgraph.Edge
		for _, e := range r.Goroutines.CallGraph.Callers(fn) {
			if slices.Contains(r.Goroutines.Of(e.Caller.Func), c) {
				callers = append(callers, e)
			}
		}
		if len(callers) == 0 {
			return false
		}
		for _, e := range callers {
			switch e.Site.(type) {
			case *ssa.Go, *ssa.Defer:
				return false // runs later, when the object may have gone
			}
			args := e.Site.Common().Args
			if e.Site.Common().IsInvoke() || idx >= len(args) {
				return false
			}
			if !r.sharedIn(Root(args[idx]), c, depth-1) {
				return false
			}
		}
		return true
	}
	return false
}

// oncePerCell reports whether the goroutines that the `go` statement site
// starts each see their own cell: site lies in a function literal made in
// cell's function, outside any loop of the literal; the cell is declared
// anew between two makings of the literal (or it is made once); and each
// closure made is called at most once, directly or by a callee that
// calls its parameter at most once per call, as engine.io's test
//
//	for range 8 {
//		closed := make(chan struct{})
//		Run(func() bool {
//			go func() { close(closed) }()
//			return true
//		})
//		<-closed
//	}
//
// with Run's `return initialize()`: each closure captures the cell of its
// own turn, runs once and starts one goroutine, so no two goroutines
// close one channel. A closure called twice, or in a loop, or handed on,
// kept or called by a callee that does (or that may call it more than
// once), may start two goroutines on one cell, as may a literal made in
// a loop that does not declare the cell anew.
func oncePerCell(cell *ssa.Alloc, site ssa.Instruction, flow *ssaflow.Graph) bool {
	lit := site.Parent()
	if _, isGo := site.(*ssa.Go); !isGo || lit.Parent() != cell.Parent() || flow.InLoop(site) {
		return false
	}
	mcs := onlyMakeClosure(lit)
	for _, mc := range mcs {
		if flow.MayFollowAvoiding(mc, mc, cell) || !calledOnce(mc, flow) {
			return false
		}
	}
	return len(mcs) > 0
}

// calledOnce reports whether the closure that mc makes is called at most
// once: mc goes only into calls, each run at most once per making, that
// call it (a call, defer or go) or pass it, once, to a static callee
// with a body that uses that parameter only to call it, at most once per
// invocation (see callsOnce).
func calledOnce(mc *ssa.MakeClosure, flow *ssaflow.Graph) bool {
	calls := 0
	for _, r := range *mc.Referrers() {
		if _, ok := r.(*ssa.DebugRef); ok {
			continue
		}
		call, ok := r.(ssa.CallInstruction)
		if !ok || flow.MayFollowAvoiding(call, call, mc) {
			return false
		}
		common := call.Common()
		switch idx := slices.Index(common.Args, ssa.Value(mc)); {
		case common.Value == mc && idx < 0:
		case common.Value != mc && idx >= 0 && !slices.Contains(common.Args[idx+1:], ssa.Value(mc)):
			callee := common.StaticCallee()
			if callee == nil || callee.Blocks == nil || len(callee.Params) != len(common.Args) || !callsOnce(callee.Params[idx], flow) {
				return false
			}
		default:
			return false
		}
		calls++
	}
	return calls <= 1
}

// callsOnce reports whether the function parameter p is used only as the
// callee of calls (a call, defer or go) of which one invocation runs one
// at most: none may follow another, or itself in a loop. engine.io's
// withTransportInitialization calls its initialize on two paths, `return
// initialize(...)` early and `!initialize(aborted)` later, once either
// way.
func callsOnce(p *ssa.Parameter, flow *ssaflow.Graph) bool {
	var calls []ssa.CallInstruction
	for _, r := range *p.Referrers() {
		if _, ok := r.(*ssa.DebugRef); ok {
			continue
		}
		call, ok := r.(ssa.CallInstruction)
		if !ok || call.Common().Value != p || slices.Contains(call.Common().Args, ssa.Value(p)) {
			return false
		}
		for _, c := range append(calls, call) {
			if flow.MayFollow(c, call) || flow.MayFollow(call, c) {
				return false
			}
		}
		calls = append(calls, call)
	}
	return len(calls) > 0
}

// boundAt returns the receiver bound into the method value whose wrapper
// c's goroutines run, fv being that wrapper's free variable, when c's
// spawn site calls or hands over method values of one receiver.
func boundAt(c *goroutines.Context, fv *ssa.FreeVar) ssa.Value {
	if c.Site == nil || fv.Parent() != c.Entry || ssavalue.BoundMethod(c.Entry) == nil {
		return nil
	}
	common := c.Site.Common()
	var recv ssa.Value
	for _, v := range append([]ssa.Value{common.Value}, common.Args...) {
		for _, src := range ssavalue.Sources(v) {
			mc, ok := src.(*ssa.MakeClosure)
			if !ok || mc.Fn != c.Entry || len(mc.Bindings) != 1 {
				continue
			}
			if recv != nil && recv != mc.Bindings[0] {
				return nil
			}
			recv = mc.Bindings[0]
		}
	}
	return recv
}

// onceOwned reports whether the `go` statement site runs in a function
// literal handed to a sync.Once's Do, where the Once is a package variable
// or a field of the object arg is (go-sse's Joe: `j.initDone.Do(func() {
// ...; go j.start() })`): at most one goroutine of the statement ever
// runs, or one per object that arg is, so two goroutines of its context
// never get the same arg.
func onceOwned(site ssa.CallInstruction, arg ssa.Value) bool {
	if _, ok := site.(*ssa.Go); !ok {
		return false
	}
	lit := site.Parent()
	if lit.Parent() == nil {
		return false
	}
	// The literal is made once and only handed to Do: a literal also
	// called directly, or kept, may start its goroutine again.
	mcs := onlyMakeClosure(lit)
	if len(mcs) != 1 {
		return false
	}
	var do *ssa.Call
	for _, u := range *mcs[0].Referrers() {
		if _, ok := u.(*ssa.DebugRef); ok {
			continue
		}
		call, ok := u.(*ssa.Call)
		if !ok || do != nil || model.CalleeName(&call.Call) != model.OnceDo || len(call.Call.Args) != 2 || call.Call.Args[1] != mcs[0] {
			return false
		}
		do = call
	}
	if do == nil {
		return false
	}
	switch once := do.Call.Args[0].(type) {
	case *ssa.Global:
		return true
	case *ssa.FieldAddr:
		return Root(once.X) == Root(arg)
	}
	return false
}

// onlyMakeClosure returns the MakeClosure instructions that make the
// function literal lit (none when lit is referred to otherwise).
func onlyMakeClosure(lit *ssa.Function) []*ssa.MakeClosure {
	var out []*ssa.MakeClosure
	for _, b := range lit.Parent().Blocks {
		for _, instr := range b.Instrs {
			if mc, ok := instr.(*ssa.MakeClosure); ok && mc.Fn == lit {
				out = append(out, mc)
			}
		}
	}
	return out
}

// madeOutside reports whether the object made by alloc is the same for
// all goroutines of c: made in the function that starts them, which can
// start another without making it anew (made outside the loop that
// starts them, or in an outer one).
func (r *Result) madeOutside(alloc ssa.Instruction, c *goroutines.Context) bool {
	site := startIn(c, alloc.Parent())
	if site == nil || alloc.Parent() != site.Parent() {
		return false
	}
	flow := r.Goroutines.Flow
	return flow.InLoop(site) && flow.MayFollowAvoiding(site, site, alloc)
}

// startIn returns the instruction that starts the goroutines of c: its
// Site, or, when fn is the spawner whose own `go` statement starts c's
// wrapper (Context.Wrapper: c is rooted at a call of fn), that
// statement, since each invocation of fn starts its goroutines there and
// fn's variables and allocations are that invocation's.
func startIn(c *goroutines.Context, fn *ssa.Function) ssa.Instruction {
	if c.Wrapper == nil || c.Wrapper.Parent() != fn {
		if c.Site == nil {
			return nil
		}
		return c.Site
	}
	var found ssa.Instruction
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			mc, ok := instr.(*ssa.MakeClosure)
			if !ok || mc.Fn != c.Wrapper {
				continue
			}
			for _, u := range *mc.Referrers() {
				if g, ok := u.(*ssa.Go); ok && g.Call.Value == mc {
					if found != nil {
						return c.Site
					}
					found = g
				}
			}
		}
	}
	if found == nil {
		return c.Site
	}
	return found
}

// viaUnwrittenFields returns the value v is loaded from through pointer
// fields alone (s in s.srv.h), when fn stores to none of those fields of
// any object; or nil. Each read in fn then gives what the last one did,
// unless a callee or another goroutine wrote the field between them.
func viaUnwrittenFields(v ssa.Value, fn *ssa.Function) ssa.Value {
	base := v
	for range maxSharingDepth {
		ld, ok := base.(*ssa.UnOp)
		if !ok || ld.Op != token.MUL {
			break
		}
		fa, ok := ld.X.(*ssa.FieldAddr)
		if !ok || writesField(fn, ssavalue.Field(fa)) {
			return nil
		}
		base = fa.X
	}
	if base == v {
		return nil
	}
	return base
}

// writesField reports whether fn stores to the field f of any object.
func writesField(fn *ssa.Function, f *types.Var) bool {
	if f == nil {
		return true
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if st, ok := instr.(*ssa.Store); ok {
				if fa, ok := st.Addr.(*ssa.FieldAddr); ok && ssavalue.Field(fa) == f {
					return true
				}
			}
		}
	}
	return false
}

// invariantArg reports whether the argument arg of c's spawn site is the
// same object for every goroutine of c.
func (r *Result) invariantArg(arg ssa.Value, c *goroutines.Context, depth int) bool {
	site := c.Site
	flow := r.Goroutines.Flow
	if def, ok := arg.(ssa.Instruction); ok && flow.InLoop(site) && !flow.MayFollowAvoiding(site, site, def) {
		// Computed anew before each start: the same object only when
		// read through fields that the spawner never writes from one
		// that is (`go s.h.Handle(b)`).
		base := viaUnwrittenFields(arg, site.Parent())
		return base != nil && r.invariantArg(base, c, depth)
	}
	switch root := Root(arg).(type) {
	case *ssa.Global, *ssa.Alloc, *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeSlice:
		return r.sharedIn(root, c, depth)
	case *ssa.Parameter:
		// The spawner's own receiver is taken to be the long-lived
		// object that owns the goroutines (s in `go s.loop()`); its
		// other parameters differ from call to call, but not between
		// the goroutines one call starts in a loop.
		fn := root.Parent()
		return fn.Signature.Recv() != nil && len(fn.Params) > 0 && fn.Params[0] == root ||
			fn == site.Parent() && flow.InLoop(site)
	}
	return false
}

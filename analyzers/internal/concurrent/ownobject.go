package concurrent

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/srcfuncs"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// ownObject returns, for an access that touches an object its function's
// invocation made, the allocation that made it: a goroutine's execution
// of the access touches the object of the invocation running on that
// goroutine. Two accesses with the same allocation on two goroutines
// therefore run in two invocations and touch two objects, whatever the
// allocation site's points-to set says (prometheus's coalescing gatherer:
// every Gather that leads a cycle makes cy and closes cy.ready, normally
// or in a deferred closure, and only the maker closes it; two Gathers
// close two channels).
//
// The access must run in the allocating function f, or in a closure of f
// that f only calls or defers (so it runs on the invocation's goroutine),
// or in the closure that f's one `go` statement starts, when the statement
// is in no loop of f and the closure is made only for it (and in what
// that closure only calls or defers): each invocation of f starts at most
// one such goroutine, so two goroutines running it come from two
// invocations and touch two objects (a spawner's `done := make(chan
// struct{}); go func() { defer close(done); f() }()`, started by every
// caller of the spawner; see ownKey), or in a function that such a `go`
// statement alone calls, unexported, reaching the object through the
// parameter the statement passes it as (`go s.run()` in the constructor
// that made s; see startedWith). It must reach the object as
//   - the allocation itself (a field of &T{...}, a map made by make, the
//     cell of a local variable that a closure captures, accessed by f:
//     hedgedhttp's resultIdx, read by a closure handed to a worker pool
//     at f's return, written and used by f, which the pool's goroutines
//     call too), or a
//     read of a local variable every store to which is such an allocation
//     of f (a variable captured by a deferred closure), or a captured
//     variable never reassigned whose value is such an allocation, or a
//     local that f re-points at such allocations (a phi of them and nil,
//     see ownMerge), through a field of an embedded struct too (see
//     enclosing); two accesses through different allocations of one f
//     are still one invocation's (see oneInvocation);
//   - or the contents of a channel, map or slice held in a field of that
//     object, when every store to that field in the package puts there a
//     container made for it alone (make(...) used by nothing else, as a
//     composite literal's), the field is unexported and values of the
//     struct type are never copied whole, so that no two objects share a
//     container.
func (e *Env) ownObject(a *sharedloc.Access) ownKey {
	if v, ok := e.own[a]; ok {
		return v
	}
	v := e.computeOwnObject(a)
	e.own[a] = v
	return v
}

// An ownKey is what ownObject found for an access: the allocation, and
// the `go` statement of the allocating function whose goroutine runs the
// access (nil when it runs on the invocation's own goroutine). Two
// accesses touch two objects on two goroutines only when both keys are
// equal: one on the invocation's goroutine and one on the goroutine it
// started may touch the same object at once.
type ownKey struct {
	root ssa.Value
	via  *ssa.Go
}

func (e *Env) computeOwnObject(a *sharedloc.Access) ownKey {
	obj := e.ownObjectOf(a)
	if obj == nil {
		return ownKey{}
	}
	if k, ok := e.madeInKey(a, obj); ok {
		return k
	}
	if o, ok := obj.(*ssa.Parameter); ok {
		// A parameter of a function that only one `go` statement
		// calls, in no loop, with an object its own function made:
		// each invocation of that function starts at most one
		// goroutine with its own object.
		g, arg := e.startedWith(o)
		if g == nil || o.Parent() != a.Fn() || !isMade(arg) || arg.(ssa.Instruction).Parent() != g.Parent() {
			return ownKey{}
		}
		return ownKey{arg, g}
	}
	root := ownRoot(obj)
	if root == nil {
		return ownKey{}
	}
	home := root.(ssa.Instruction).Parent()
	var via *ssa.Go
	for fn := a.Fn(); fn != home; fn = fn.Parent() {
		if fn.Parent() == nil {
			return ownKey{}
		}
		if runsHome(fn) {
			continue
		}
		g := e.startedOnce(fn)
		if g == nil || via != nil || fn.Parent() != home {
			return ownKey{}
		}
		via = g
	}
	return ownKey{root, via}
}

// ownObjectOf returns the value that names the object a touches, for
// ownObject: the container of an element access (or the object holding
// the field that holds it), the cell of a captured variable, or the
// object whose field a touches; nil when a touches memory reached
// otherwise.
func (e *Env) ownObjectOf(a *sharedloc.Access) ssa.Value {
	if a.Loc.Elem {
		c := a.Ptr
		if load, ok := c.(*ssa.UnOp); ok && load.Op == token.MUL && ssavalue.CapturedCell(load) == nil {
			fa, ok := load.X.(*ssa.FieldAddr)
			if !ok || !e.ownField(ssavalue.Field(fa)) {
				return nil
			}
			return fa.X
		}
		// The container itself, or a captured variable that holds it.
		return c
	}
	if cell, ok := a.Ptr.(*ssa.Alloc); ok {
		// The cell of a local variable that a closure captures,
		// accessed by the function that declares it.
		return cell
	}
	fa, ok := a.Ptr.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	return enclosing(fa.X)
}

// ownRoot returns the allocation that obj (ownObjectOf's value) always
// is in the invocation that reads it, or nil: an allocation itself, a
// merge of its function's allocations (ownMerge), a captured variable
// never reassigned that is bound to one, or a read of a captured
// variable every store to which is one made by the declaring function.
func ownRoot(obj ssa.Value) ssa.Value {
	switch o := obj.(type) {
	case *ssa.Alloc, *ssa.MakeChan, *ssa.MakeMap, *ssa.MakeSlice:
		return o
	case *ssa.Phi:
		if !ownMerge(o) {
			return nil
		}
		return o
	case *ssa.FreeVar:
		// A captured variable never reassigned: the value it was
		// bound to, through the closures that pass it on.
		var v ssa.Value = o
		for range ssavalue.MaxDepth {
			fv, ok := v.(*ssa.FreeVar)
			if !ok {
				break
			}
			if v = ssavalue.Binding(fv); v == nil {
				return nil
			}
		}
		if !isMade(v) {
			return nil
		}
		return v
	case *ssa.UnOp:
		cell := ssavalue.CapturedCell(o)
		if cell == nil {
			return nil
		}
		stored := ssavalue.StoresTo(cell)
		if len(stored) == 0 {
			return nil
		}
		for _, s := range stored {
			if !isMade(s) || s.(ssa.Instruction).Parent() != cell.Parent() {
				return nil
			}
		}
		return cell
	}
	return nil
}

// startedOnce returns the `go` statement that starts the closure fn, when
// fn's parent makes fn's closure once, only to start it there (`go
// func() { ... }()`), in a block on no cycle of its control flow: each
// invocation of the parent starts at most one goroutine running fn.
// Otherwise nil.
func (e *Env) startedOnce(fn *ssa.Function) *ssa.Go {
	found := startedBy(fn)
	if found == nil || e.Goroutines.Flow.InLoop(found) {
		return nil
	}
	return found
}

// startedWith returns the `go` statement that alone calls p's function,
// and the value it passes as p, when the package's own calls are all of
// the function's, the call graph shows no other, and the statement sits
// in no loop of its function
// (go s.run() in a constructor; see callsOnly). Otherwise nil.
func (e *Env) startedWith(p *ssa.Parameter) (*ssa.Go, ssa.Value) {
	fn := p.Parent()
	if !e.callsOnly(fn) {
		return nil, nil
	}
	callers := e.Goroutines.CallGraph.Callers(fn)
	if len(callers) != 1 {
		return nil, nil
	}
	g, ok := callers[0].Site.(*ssa.Go)
	if !ok || g.Call.StaticCallee() != fn || e.Goroutines.Flow.InLoop(g) {
		return nil, nil
	}
	i := slices.Index(fn.Params, p)
	if i < 0 || i >= len(g.Call.Args) {
		return nil, nil
	}
	return g, g.Call.Args[i]
}

func isMade(v ssa.Value) bool {
	switch v.(type) {
	case *ssa.Alloc, *ssa.MakeChan, *ssa.MakeMap, *ssa.MakeSlice:
		return true
	}
	return false
}

// runsHome reports whether the closure fn runs only on the goroutine of
// the invocation of its parent that made it: every closure value of fn
// made in the parent is only called or deferred there, directly.
func runsHome(fn *ssa.Function) bool {
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
					if u.Call.Value != mc || isArg(&u.Call, mc) {
						return false
					}
				case *ssa.Defer:
					if u.Call.Value != mc || isArg(&u.Call, mc) {
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

func isArg(c *ssa.CallCommon, v ssa.Value) bool {
	for _, x := range c.Args {
		if x == v {
			return true
		}
	}
	return false
}

// ownField reports whether every object's field f holds a container made
// for that object alone (see ownObject).
func (e *Env) ownField(f *types.Var) bool {
	return e.fieldFact(e.ownFields, f, e.computeOwnField)
}

// fieldFact returns compute(f), memoized in m, for an unexported field f
// of the analysed package, whose every write the package's own code
// shows; false for any other field, which importers may write too.
func (e *Env) fieldFact(m map[*types.Var]bool, f *types.Var, compute func(*types.Var) bool) bool {
	if f == nil || f.Exported() || f.Pkg() != e.Pass.Pkg {
		return false
	}
	if v, ok := m[f]; ok {
		return v
	}
	v := compute(f)
	m[f] = v
	return v
}

// packageFuncs returns the functions of the analysed package's source,
// and its init, which holds the package variables' initializers.
func (e *Env) packageFuncs() []*ssa.Function {
	in := e.Pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
	return append(slices.Clip(srcfuncs.Of(in)), in.Pkg.Func("init"))
}

func (e *Env) computeOwnField(f *types.Var) bool {
	owner := e.ownerStruct(f)
	if owner == nil {
		return false
	}
	if e.copiedWhole(owner) {
		return false
	}
	funcs := e.packageFuncs()
	for _, fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				fa, ok := instr.(*ssa.FieldAddr)
				if !ok || ssavalue.Field(fa) != f {
					continue
				}
				for _, u := range *fa.Referrers() {
					switch u := u.(type) {
					case *ssa.UnOp:
						if u.Op != token.MUL {
							return false
						}
					case *ssa.Store:
						if u.Addr != fa || !e.madeFor(u) {
							return false
						}
					case *ssa.DebugRef:
					default:
						return false // its address escapes
					}
				}
			}
		}
	}
	return true
}

// copiedWhole reports whether some code of the package handles a value of
// the struct type owner whole (a load, store or copy of the struct, but
// for a composite literal's), which writes every field at once.
func (e *Env) copiedWhole(owner types.Type) bool {
	return e.fieldIndex().copied[owner]
}

// A fieldsIndex holds what one scan of the package's code finds about its
// struct types and fields: the named struct types handled whole
// (copiedWhole), and the writes of each field (phaseValues).
type fieldsIndex struct {
	copied map[types.Type]bool
	phases map[*types.Var]*phaseField
}

// fieldIndex returns the package's fieldsIndex, built once: Phased and
// OneRun ask about every field, and a scan of the package's code per
// field took a fifth of precog vet's time on net/http.
func (e *Env) fieldIndex() *fieldsIndex {
	if e.fieldsIdx != nil {
		return e.fieldsIdx
	}
	x := &fieldsIndex{copied: make(map[types.Type]bool), phases: make(map[*types.Var]*phaseField)}
	whole := func(v ssa.Value) {
		if _, named := v.Type().(*types.Named); !named {
			return
		}
		if _, isStruct := v.Type().Underlying().(*types.Struct); !isStruct {
			return
		}
		if _, isConst := v.(*ssa.Const); !isConst && !literalCopy(v) {
			x.copied[v.Type()] = true
		}
	}
	var ops []*ssa.Value
	for _, fn := range e.packageFuncs() {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if v, ok := instr.(ssa.Value); ok {
					whole(v)
				}
				ops = instr.Operands(ops[:0])
				for _, op := range ops {
					if *op != nil {
						whole(*op)
					}
				}
				if fa, ok := instr.(*ssa.FieldAddr); ok {
					x.addField(fa)
				}
			}
		}
	}
	e.fieldsIdx = x
	return x
}

// addField records the uses of the field address fa: loads, and stores of
// constants (a composite literal's apart); any other use marks the field
// bad (see phaseField).
func (x *fieldsIndex) addField(fa *ssa.FieldAddr) {
	f := ssavalue.Field(fa)
	pf := x.phases[f]
	if pf == nil {
		pf = &phaseField{}
		x.phases[f] = pf
	}
	if pf.bad {
		return
	}
	for _, u := range *fa.Referrers() {
		switch u := u.(type) {
		case *ssa.UnOp:
			if u.Op != token.MUL {
				pf.bad = true
			}
		case *ssa.Store:
			c, isConst := u.Val.(*ssa.Const)
			switch {
			case u.Addr != fa || !isConst || c.Value == nil:
				pf.bad = true
			case !literalInit(u, fa):
				pf.stores = append(pf.stores, u)
			}
		case *ssa.DebugRef:
		default:
			pf.bad = true // its address goes elsewhere
		}
	}
}

// madeFor reports whether the store st puts a container made by make
// that nothing else holds: the make's other uses only operate on it
// (close, send, receive, len, cap), as go-imap's Enable closes the done
// channel it then stores in a command, and the store runs once per make
// (in the make's block, or in no loop).
func (e *Env) madeFor(st *ssa.Store) bool {
	switch v := st.Val.(type) {
	case *ssa.MakeChan, *ssa.MakeMap, *ssa.MakeSlice:
	case *ssa.Const:
		return v.IsNil() // no container at all (a test resetting the field)
	default:
		return false
	}
	if st.Block() != st.Val.(ssa.Instruction).Block() && e.Goroutines.Flow.InLoop(st) {
		return false
	}
	for _, u := range *st.Val.Referrers() {
		switch u := u.(type) {
		case *ssa.DebugRef:
		case *ssa.Send:
			if u.X == st.Val {
				return false
			}
		case *ssa.UnOp:
			if u.Op != token.ARROW {
				return false
			}
		case *ssa.Call:
			b, ok := u.Call.Value.(*ssa.Builtin)
			if !ok || (b.Name() != "close" && b.Name() != "len" && b.Name() != "cap") {
				return false
			}
		default:
			if u != st {
				return false
			}
		}
	}
	return true
}

// literalCopy reports whether v, a struct value, is the one copy of a
// composite literal built in a local variable: a load of the literal's
// cell, which nothing else reads or takes the address of but to set its
// fields, stored once (go-imap's `*baseCmd = commandBase{done: make(...)}`).
// The copy's containers are then the literal's, held by one object.
func literalCopy(v ssa.Value) bool {
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return false
	}
	cell, ok := load.X.(*ssa.Alloc)
	if !ok || cell.Heap || cell.Comment != "complit" {
		return false
	}
	for _, u := range *cell.Referrers() {
		switch u := u.(type) {
		case *ssa.FieldAddr:
			for _, w := range *u.Referrers() {
				if st, ok := w.(*ssa.Store); !ok || st.Addr != u {
					if _, isDebug := w.(*ssa.DebugRef); !isDebug {
						return false
					}
				}
			}
		case *ssa.DebugRef:
		default:
			if u != load {
				return false
			}
		}
	}
	stores := 0
	for _, u := range *load.Referrers() {
		switch u := u.(type) {
		case *ssa.Store:
			if u.Val != load {
				return false
			}
			stores++
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return stores == 1
}

// ownerStruct returns the named struct type of the package that declares
// the field f, or nil. The package's fields are indexed once.
func (e *Env) ownerStruct(f *types.Var) types.Type {
	if e.owners == nil {
		e.owners = make(map[*types.Var]types.Type)
		scope := e.Pass.Pkg.Scope()
		for _, name := range scope.Names() {
			if tn, ok := scope.Lookup(name).(*types.TypeName); ok && !tn.IsAlias() {
				if st, ok := tn.Type().Underlying().(*types.Struct); ok {
					for sf := range st.Fields() {
						e.owners[sf] = tn.Type()
					}
				}
			}
		}
	}
	return e.owners[f]
}

// building reports whether a, on goroutines of context c, touches an
// object that its goroutine allocated a few calls up and has not let go
// yet (sharedloc.Result.FreshIn): a constructor's initializer filling the
// object it is building, which no other goroutine can reach, whatever
// other objects of the same allocation site they hold. The object is the
// one ownObject would name: the object whose field a touches, or the one
// holding, in a field of its own (ownField), the container a touches.
func (e *Env) building(a *sharedloc.Access, c *goroutines.Context) bool {
	obj := e.ownObjectOf(a)
	return obj != nil && e.Shared.FreshIn(obj, a.Instr, c)
}

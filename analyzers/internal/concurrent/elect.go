package concurrent

import (
	"go/constant"
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// Elected is a Safe predicate: both accesses run only on the goroutine
// that won one election on the object they touch, so they are on one
// goroutine. An election is a CompareAndSwap on a one-shot flag of the
// object (see oneShot: an atomic whose CompareAndSwaps all start from
// one value that no write ever puts back), as in
//
//	func (tx *Tx) Commit() error {
//		if !tx.done.CompareAndSwap(false, true) {
//			return ErrTxDone
//		}
//		... tx.txi.Commit() ...  // read
//		tx.close()               // stores nil to tx.txi
//	}
//
// where Rollback wins the same flag before it calls close too: whichever
// wins, the other returns, so the read and the nil store never meet.
// An access is elected when its block lies on the winning branch of the
// CompareAndSwap on the flag of its own base object (made there or by a
// helper that returns it) or on a local flag paired with its base (see
// paired: engine.io's resolve, which sends on and closes the channel
// of its maker's call after winning that call's state), or when every call
// site of its function in the package is elected for the argument that
// becomes the base (up to electDepth calls), or, in a closure that runs
// in its maker's goroutines, when the closure is made on a winning branch.
func (e *Env) Elected(p Pair) bool {
	wa := e.wins(p.A.Instr, p.A.Base, electDepth)
	if len(wa) == 0 {
		return false
	}
	for _, f := range e.wins(p.B.Instr, p.B.Base, electDepth) {
		if slices.Contains(wa, f) {
			return true
		}
	}
	return false
}

const electDepth = 3

// wins returns the one-shot flags of base's object that the goroutine
// running instr must have won.
func (e *Env) wins(instr ssa.Instruction, base ssa.Value, depth int) []sharedloc.Loc {
	if base == nil || instr.Block() == nil {
		return nil
	}
	out := e.winsHere(instr, base)
	if len(out) > 0 || depth == 0 {
		return out
	}
	fn := instr.Parent()
	if fn.Parent() != nil && outer(fn, base) {
		// A closure's access to a variable of its maker, which
		// sharedloc names by the maker's value.
		return e.closureWins(fn, func(*ssa.MakeClosure) ssa.Value { return base }, depth)
	}
	switch b := base.(type) {
	case *ssa.Parameter:
		idx := slices.Index(fn.Params, b)
		callers := e.Goroutines.CallGraph.Callers(fn)
		if idx < 0 || len(callers) == 0 || len(e.Goroutines.RefSites(fn)) > 0 {
			return nil
		}
		var common []sharedloc.Loc
		for n, edge := range callers {
			site := edge.Site
			if _, isGo := site.(*ssa.Go); isGo || site.Common().IsInvoke() || callgraph.StaticCallee(site.Common()) != fn {
				return nil
			}
			got := e.wins(site, sharedloc.Root(site.Common().Args[idx]), depth-1)
			if n == 0 {
				common = got
			} else {
				common = intersectLocs(common, got)
			}
			if len(common) == 0 {
				return nil
			}
		}
		return common
	case *ssa.FreeVar:
		idx := slices.Index(fn.FreeVars, b)
		if fn.Parent() == nil || idx < 0 {
			return nil
		}
		return e.closureWins(fn, func(mc *ssa.MakeClosure) ssa.Value { return sharedloc.Root(mc.Bindings[idx]) }, depth)
	}
	return nil
}

// winsHere returns the one-shot flags of base's object that instr's own
// function must have won, in the invocation that runs instr, before it.
func (e *Env) winsHere(instr ssa.Instruction, base ssa.Value) []sharedloc.Loc {
	var out []sharedloc.Loc
	for d := instr.Block(); d != nil; d = d.Idom() {
		if len(d.Preds) != 1 {
			continue
		}
		i := d.Preds[0]
		ifi, ok := i.Instrs[len(i.Instrs)-1].(*ssa.If)
		if !ok || i.Succs[0] != d {
			continue
		}
		call, ok := ifi.Cond.(*ssa.Call)
		if !ok {
			continue
		}
		for _, a := range e.Shared.ByInstr[call] {
			if (a.Base == base || paired(a.Base, base)) && isCAS(call) && e.oneShot(a.Loc) {
				out = append(out, a.Loc)
			}
		}
		out = append(out, e.helperWins(call, base)...)
	}
	return out
}

// ElectedBefore is a Safe predicate for an access that must not follow
// another (a send, and a close of its channel): both run in one
// invocation of their function, the one that won an election (see
// Elected) on the flag that guards both there, and A cannot follow B
// within it. One invocation at most wins each flag, so A and B run only
// in that one, on one goroutine, with no A after a B. Accesses elected only through the
// calls of their function are not: the winner may make two calls.
func (e *Env) ElectedBefore(p Pair) bool {
	a, b := p.A.Instr, p.B.Instr
	if a.Parent() != b.Parent() || e.Goroutines.Flow.MayFollow(b, a) {
		return false
	}
	wa := e.winsHere(a, p.A.Base)
	for _, f := range e.winsHere(b, p.B.Base) {
		if slices.Contains(wa, f) {
			return true
		}
	}
	return false
}

// helperWins returns the one-shot flags of base's object that call wins
// when it returns true, call being to a helper whose every return is the
// result of its own CompareAndSwap on a flag of one of its parameters, as
// goleveldb's
//
//	func (db *DB) setClosed() bool {
//		return atomic.CompareAndSwapUint32(&db.closed, 0, 1)
//	}
//
// guards Close with `if !db.setClosed() { return ErrClosed }`: a helper
// that may return true by another path elects nobody.
func (e *Env) helperWins(call *ssa.Call, base ssa.Value) []sharedloc.Loc {
	fn := call.Call.StaticCallee()
	if fn == nil || fn.Blocks == nil || len(call.Call.Args) != len(fn.Params) {
		return nil
	}
	var common []sharedloc.Loc
	n := 0
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		if len(ret.Results) != 1 {
			return nil
		}
		cas, ok := ret.Results[0].(*ssa.Call)
		if !ok {
			return nil
		}
		var got []sharedloc.Loc
		for _, a := range e.Shared.ByInstr[cas] {
			p, ok := a.Base.(*ssa.Parameter)
			if !ok || !isCAS(cas) || !e.oneShot(a.Loc) {
				continue
			}
			if i := slices.Index(fn.Params, p); i >= 0 && sharedloc.Root(call.Call.Args[i]) == base {
				got = append(got, a.Loc)
			}
		}
		if n == 0 {
			common = got
		} else {
			common = intersectLocs(common, got)
		}
		if len(common) == 0 {
			return nil
		}
		n++
	}
	return common
}

// outer reports whether v belongs to a function that encloses fn.
func outer(fn *ssa.Function, v ssa.Value) bool {
	var owner *ssa.Function
	switch v := v.(type) {
	case *ssa.Parameter:
		owner = v.Parent()
	case ssa.Instruction:
		owner = v.Parent()
	default:
		return false
	}
	return source.Within(fn, owner)
}

// closureWins returns the flags won at every place that makes the closure
// fn, for the object base gives there, provided that fn runs on its
// maker's goroutine: no goroutine starts in it, and each closure made is
// only passed to calls (a callback such as withLock's), never stored.
func (e *Env) closureWins(fn *ssa.Function, base func(*ssa.MakeClosure) ssa.Value, depth int) []sharedloc.Loc {
	parent := fn.Parent()
	for _, c := range e.Goroutines.Of(fn) {
		if c.Entry == fn {
			return nil // runs on a goroutine of its own
		}
	}
	var common []sharedloc.Loc
	n := 0
	for _, blk := range parent.Blocks {
		for _, in := range blk.Instrs {
			mc, ok := in.(*ssa.MakeClosure)
			if !ok || mc.Fn != fn {
				continue
			}
			for _, u := range *mc.Referrers() {
				if _, call := u.(*ssa.Call); !call {
					return nil
				}
			}
			got := e.wins(mc, base(mc), depth-1)
			if n == 0 {
				common = got
			} else {
				common = intersectLocs(common, got)
			}
			n++
		}
	}
	return common
}

// oneShot reports whether the flag loc elects one goroutine at most in
// each object: every write to it in the package is a CompareAndSwap from
// one constant old value (the same for all of them) to a value that is
// never that constant, or a Store or Swap of such a value, and one at
// least is a CompareAndSwap. Once a CompareAndSwap wins, the flag never
// holds the old value again, so no later one wins; a flag that goes back
// (state.Store(pending)), or is added to, elects nobody. It sees the
// writes sharedloc records, the package's sync/atomic calls on the field
// or variable: it assumes that code outside the package does not write
// an exported field's flag, and that the package writes none through a
// pointer it handed elsewhere (a paired local's flag is checked for
// that, see onlyAtomic).
func (e *Env) oneShot(loc sharedloc.Loc) bool {
	var old constant.Value
	var stores []ssa.Value
	for _, a := range e.Shared.ByLoc[loc] {
		if a.Op == sharedloc.AtomicLoad {
			continue
		}
		call, ok := a.Instr.(*ssa.Call)
		if !ok || a.Op != sharedloc.AtomicStore {
			return false
		}
		args := call.Call.Args
		switch {
		case isCAS(call):
			o, ok := args[1].(*ssa.Const)
			if !ok || o.Value == nil || old != nil && !constant.Compare(old, token.EQL, o.Value) {
				return false
			}
			old = o.Value
			stores = append(stores, args[2])
		case len(args) == 2 && isStoreOrSwap(call):
			stores = append(stores, args[1])
		default:
			return false
		}
	}
	if old == nil {
		return false
	}
	for _, v := range stores {
		if !never(v, old, electDepth) {
			return false
		}
	}
	return true
}

// isCAS reports whether call is a CompareAndSwap of sync/atomic, as a
// function (address, old, new) or a method (receiver, old, new).
func isCAS(call *ssa.Call) bool {
	name := model.CalleeName(&call.Call)
	return atomicName(name) && strings.Contains(name, "CompareAndSwap") && len(call.Call.Args) == 3
}

// isStoreOrSwap reports whether call is a Store or Swap of sync/atomic.
func isStoreOrSwap(call *ssa.Call) bool {
	name := model.CalleeName(&call.Call)
	return atomicName(name) && !strings.Contains(name, "CompareAndSwap") && (strings.Contains(name, "Store") || strings.Contains(name, "Swap"))
}

func atomicName(name string) bool {
	return strings.HasPrefix(name, "sync/atomic.") || strings.HasPrefix(name, "(*sync/atomic.")
}

// never reports whether v, a value stored to a flag, is never the
// constant c: a constant of another value, or a parameter of a closure
// whose every call (see closureCalls) passes such a value, up to depth
// closures deep (resolve(canceled) and resolve(ready) for
// `state.CompareAndSwap(pending, result)` in resolve).
func never(v ssa.Value, c constant.Value, depth int) bool {
	switch v := v.(type) {
	case *ssa.Const:
		return v.Value != nil && v.Value.Kind() == c.Kind() && !constant.Compare(v.Value, token.EQL, c)
	case *ssa.Parameter:
		fn := v.Parent()
		idx := slices.Index(fn.Params, v)
		if depth == 0 || idx < 0 {
			return false
		}
		calls, ok := closureCalls(fn)
		if !ok || len(calls) == 0 {
			return false
		}
		for _, call := range calls {
			args := call.Common().Args
			if len(args) != len(fn.Params) || !never(args[idx], c, depth-1) {
				return false
			}
		}
		return true
	}
	return false
}

// closureCalls returns every call of the closure fn, when all of them
// can be found: each closure made of it is only called, or kept in local
// variables (captured ones too) that are only loaded to be called. It
// reports false when a closure goes anywhere else (an argument, a field,
// a result), where unknown code may call it.
func closureCalls(fn *ssa.Function) ([]ssa.CallInstruction, bool) {
	if fn.Parent() == nil {
		return nil, false
	}
	var calls []ssa.CallInstruction
	var callee func(v ssa.Value, depth int) bool // v's uses are calls of it
	var cell func(addr ssa.Value, depth int) bool
	callee = func(v ssa.Value, depth int) bool {
		for _, r := range *v.Referrers() {
			switch r := r.(type) {
			case ssa.CallInstruction:
				if r.Common().Value != v || slices.Contains(r.Common().Args, v) {
					return false
				}
				calls = append(calls, r)
			case *ssa.Store:
				c := ssavalue.Cell(r.Addr)
				if r.Val != v || c == nil || !cell(c, depth) {
					return false
				}
			case *ssa.DebugRef:
			default:
				return false
			}
		}
		return true
	}
	// cell reports whether the variable at addr (a cell, or a closure's
	// free variable bound to it) is only stored to, and loaded to call.
	cell = func(addr ssa.Value, depth int) bool {
		if depth == 0 {
			return false
		}
		for _, r := range *addr.Referrers() {
			switch r := r.(type) {
			case *ssa.Store:
				if r.Addr != addr || r.Val == addr {
					return false
				}
			case *ssa.UnOp:
				if r.Op != token.MUL || !callee(r, depth-1) {
					return false
				}
			case *ssa.MakeClosure:
				g := r.Fn.(*ssa.Function)
				for i, b := range r.Bindings {
					if b == addr && !cell(g.FreeVars[i], depth-1) {
						return false
					}
				}
			case *ssa.DebugRef:
			default:
				return false
			}
		}
		return true
	}
	for _, b := range fn.Parent().Blocks {
		for _, in := range b.Instrs {
			if mc, ok := in.(*ssa.MakeClosure); ok && mc.Fn == fn && !callee(mc, ssavalue.MaxDepth) {
				return nil, false
			}
		}
	}
	return calls, true
}

// paired reports whether the local flag and the local variable base,
// both captured cells, come one of each from every run of the block that
// declares them, with base holding only channels, maps or slices made
// for it: then each flag elects one goroutine for the objects of the
// variable declared with it, as in engine.io's
//
//	var state atomic.Uint32
//	permission := make(chan bool, 1)
//	resolve := func(result uint32) bool {
//		if !state.CompareAndSwap(pending, result) {
//			return false
//		}
//		... permission <- true ... close(permission)
//	}
//
// A closure sees the cells of one run of their block: its bindings are
// those of the run that reached its making (or of its own maker's). The
// flag's address goes only into sync/atomic calls (see onlyAtomic), and
// base's nowhere but into loads and stores, each storing a value made
// there and put nowhere else, so that no other variable holds its
// objects: a channel the caller hands in (permission := ch) may be
// another call's too.
func paired(flag, base ssa.Value) bool {
	f, ok1 := flag.(*ssa.Alloc)
	b, ok2 := base.(*ssa.Alloc)
	if !ok1 || !ok2 || f == b || !f.Heap || !b.Heap || f.Block() != b.Block() || !onlyAtomic(f, ssavalue.MaxDepth) {
		return false
	}
	if _, escapes := ssavalue.Loaders(b); escapes {
		return false
	}
	stores := ssavalue.Stores(b)
	for _, st := range stores {
		switch st.Val.(type) {
		case *ssa.MakeChan, *ssa.MakeMap, *ssa.MakeSlice:
		default:
			return false
		}
		for _, r := range *st.Val.Referrers() {
			if _, debug := r.(*ssa.DebugRef); r != st && !debug {
				return false
			}
		}
	}
	return len(stores) > 0
}

// onlyAtomic reports whether the address of the variable at addr (a
// cell, or a closure's free variable bound to it) goes only into
// sync/atomic calls, as their first operand, and closures, so that the
// package's atomic operations on it are all its writes.
func onlyAtomic(addr ssa.Value, depth int) bool {
	if depth == 0 {
		return false
	}
	for _, r := range *addr.Referrers() {
		switch r := r.(type) {
		case *ssa.Call:
			args := r.Call.Args
			if !atomicName(model.CalleeName(&r.Call)) || len(args) == 0 || args[0] != addr || slices.Contains(args[1:], addr) {
				return false
			}
		case *ssa.MakeClosure:
			g := r.Fn.(*ssa.Function)
			for i, b := range r.Bindings {
				if b == addr && !onlyAtomic(g.FreeVars[i], depth-1) {
					return false
				}
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

func intersectLocs(a, b []sharedloc.Loc) []sharedloc.Loc {
	var out []sharedloc.Loc
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

package concurrent

import (
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// onceGuard returns the store that sets f's once-guard on the object its
// parameter p points to, or nil when f has none. A once-guard is a bool
// field of *p tested and set in one critical section, never cleared:
//
//	c.connectCalledMu.Lock()
//	if c.connectCalled {
//		c.connectCalledMu.Unlock()
//		return errors.New("connect must only be called once")
//	}
//	c.connectCalled = true // the store returned
//	c.connectCalledMu.Unlock()
//
// (paho.golang's Client.Connect). Past the store, at most one invocation
// of f per object runs, whatever the callers: two invocations that reach
// it would each have read the flag false while holding the mutex, and the
// first to hold it set the flag before releasing it, so the second read
// true; nothing sets it false again. What it requires, each a fact of the
// code:
//   - the load of p.flag and the store of the constant true to it are in
//     f, the store in the successor of the load's If where the flag is
//     false, which the If alone leads to, and no call lies between them
//     (nothing unlocks);
//   - the last call before the load, in its block, locks a sync.Mutex or
//     sync.RWMutex (in write mode) that is a field of *p or a package
//     variable: one mutex for every invocation on the object;
//   - the flag is an unexported field of a struct of this package whose
//     address is only loaded or stored the constant true (neverCleared);
//     a whole value of the struct, or of a type holding it by value, is
//     stored only into a variable made just before in the same block (a
//     composite literal's initialization), and never copied into or
//     cleared in a slice with copy or clear: nothing resets the flag of an
//     existing object. Code outside the package cannot name the field
//     (reflect and unsafe aside); it can store a whole zero value over a
//     live object (*c = pkg.Client{}), which also zeroes the fields the
//     object's goroutines still read: a race of its own on every field,
//     outside what this rule takes as one object.
func (e *Env) onceGuard(f *ssa.Function, p *ssa.Parameter) *ssa.Store {
	for _, b := range f.Blocks {
		iff, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		cond, clear := iff.Cond, 1 // the successor where the flag is false
		if not, ok := cond.(*ssa.UnOp); ok && not.Op == token.NOT {
			cond, clear = not.X, 0
		}
		load, ok := cond.(*ssa.UnOp)
		if !ok || load.Op != token.MUL || load.Block() != b {
			continue
		}
		fa, ok := load.X.(*ssa.FieldAddr)
		if !ok || rootParam(fa.X, f) != p || !e.neverCleared(ssavalue.Field(fa)) {
			continue
		}
		if !lockedBefore(load, p, f) {
			continue
		}
		succ := b.Succs[clear]
		if len(succ.Preds) != 1 || callBetween(b.Instrs[slices.Index(b.Instrs, ssa.Instruction(load))+1:]) {
			continue
		}
		for i, instr := range succ.Instrs {
			if st, ok := instr.(*ssa.Store); ok && isTrue(st.Val) {
				if sfa, ok := st.Addr.(*ssa.FieldAddr); ok && ssavalue.Field(sfa) == ssavalue.Field(fa) && rootParam(sfa.X, f) == p {
					return st
				}
			}
			if callBetween(succ.Instrs[i : i+1]) {
				break
			}
		}
	}
	return nil
}

// lockedBefore reports whether the last call before load in its block
// locks, in write mode, a mutex field of what p points to or a package
// variable.
func lockedBefore(load ssa.Instruction, p *ssa.Parameter, f *ssa.Function) bool {
	instrs := load.Block().Instrs
	for i := slices.Index(instrs, load) - 1; i >= 0; i-- {
		call, ok := instrs[i].(ssa.CallInstruction)
		if !ok {
			continue
		}
		if _, plain := call.(*ssa.Call); !plain {
			return false
		}
		callee := call.Common().StaticCallee()
		if callee == nil || callee.Name() != "Lock" || callee.Pkg == nil || callee.Pkg.Pkg.Path() != "sync" ||
			len(call.Common().Args) != 1 {
			return false
		}
		switch mu := call.Common().Args[0].(type) {
		case *ssa.Global:
			return true
		case *ssa.FieldAddr:
			return rootParam(mu.X, f) == p
		}
		return false
	}
	return false
}

// callBetween reports whether instrs hold a call (which may unlock).
func callBetween(instrs []ssa.Instruction) bool {
	for _, instr := range instrs {
		if _, ok := instr.(ssa.CallInstruction); ok {
			return true
		}
	}
	return false
}

func isTrue(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.Value != nil && c.Value.Kind() == constant.Bool && constant.BoolVal(c.Value)
}

// rootParam returns the parameter of f that v is, directly or read from
// the variable f keeps it in once a closure captures it, or nil.
func rootParam(v ssa.Value, f *ssa.Function) *ssa.Parameter {
	if load, ok := v.(*ssa.UnOp); ok && load.Op == token.MUL {
		v = load.X
	}
	if cell, ok := v.(*ssa.Alloc); ok && cell.Parent() == f {
		if stored, ok := storedOnce(cell); ok {
			v = stored
		}
	}
	if p, ok := v.(*ssa.Parameter); ok && p.Parent() == f {
		return p
	}
	return nil
}

// neverCleared reports whether nothing sets the bool field flag back to
// false once it is true (see onceGuard).
func (e *Env) neverCleared(flag *types.Var) bool {
	return e.fieldFact(e.guardFlags, flag, e.computeNeverCleared)
}

func (e *Env) computeNeverCleared(flag *types.Var) bool {
	owner := e.ownerStruct(flag)
	if owner == nil {
		return false
	}
	for _, fn := range e.packageFuncs() {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch instr := instr.(type) {
				case *ssa.FieldAddr:
					if ssavalue.Field(instr) != flag {
						continue
					}
					for _, u := range *instr.Referrers() {
						switch u := u.(type) {
						case *ssa.UnOp:
							if u.Op != token.MUL {
								return false
							}
						case *ssa.Store:
							if u.Addr != instr || !isTrue(u.Val) {
								return false
							}
						case *ssa.DebugRef:
						default:
							return false // its address escapes
						}
					}
				case *ssa.Store:
					if holds(instr.Val.Type(), owner) && !initializes(instr) {
						return false
					}
				case *ssa.Call:
					if bi, ok := instr.Call.Value.(*ssa.Builtin); ok && (bi.Name() == "copy" || bi.Name() == "clear") {
						for _, arg := range instr.Call.Args {
							if s, ok := arg.Type().Underlying().(*types.Slice); ok && holds(s.Elem(), owner) {
								return false
							}
						}
					}
				}
			}
		}
	}
	return true
}

// initializes reports whether st stores into a variable made just before
// it in its block: each time it runs, it fills a new variable.
func initializes(st *ssa.Store) bool {
	cell, ok := st.Addr.(*ssa.Alloc)
	if !ok || cell.Block() != st.Block() {
		return false
	}
	instrs := st.Block().Instrs
	return slices.Index(instrs, ssa.Instruction(cell)) < slices.Index(instrs, ssa.Instruction(st))
}

// holds reports whether a value of type t contains a value of type owner
// (itself, or in a field or array element, not behind a pointer).
func holds(t, owner types.Type) bool {
	if types.Identical(t, owner) {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		for f := range u.Fields() {
			if holds(f.Type(), owner) {
				return true
			}
		}
	case *types.Array:
		return holds(u.Elem(), owner)
	}
	return false
}

// oncePast reports whether a and b both touch, in one function f or in
// closures f makes and only calls, the object f's parameter points to,
// each past f's once-guard on it (see onceGuard): only one invocation of
// f per object gets there, and it runs on one goroutine, so the two never
// run at once (two Connects of one client that both close its channel on
// their early return).
func (e *Env) oncePast(a, b *sharedloc.Access) bool {
	f := source.Outermost(a.Fn())
	if f != source.Outermost(b.Fn()) {
		return false
	}
	var p *ssa.Parameter
	var ats []ssa.Instruction
	for _, x := range []*sharedloc.Access{a, b} {
		obj, ok := e.accessObject(x)
		if !ok {
			return false
		}
		r, at, ok := e.traceUp(obj, x.Fn(), x.Instr, f, nil)
		if !ok {
			return false
		}
		q := rootParam(r, f)
		if q == nil || p != nil && q != p {
			return false
		}
		p, ats = q, append(ats, at...)
	}
	set := e.onceGuard(f, p)
	if set == nil {
		return false
	}
	for _, at := range ats {
		if !ssaflow.Dominates(set, at) {
			return false
		}
	}
	return true
}

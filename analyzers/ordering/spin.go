package ordering

import (
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// gateBefore orders a before b by an atomic flag that b's function finds
// set before b runs, a local variable of a's function F that every store
// able to set comes after a (protoactor's startTimer):
//
//	var t *time.Timer
//	var state int32
//	t = time.AfterFunc(d, func() {
//		for atomic.LoadInt32(&state) == stateInit { // the gate
//			runtime.Gosched()
//		}
//		t.Reset(interval) // b
//	})
//	// a: the Store of t above
//	atomic.StoreInt32(&state, stateReady)
//
// b runs only past the edge of an atomic load of the flag that found it
// other than its zero value, so that load read a value some store wrote,
// and every store of such a value comes after a: in F, where a dominates
// it and no path leads from it back to a, or in a closure that F makes
// after a in the same way (its code runs only once the closure exists).
// The store that was read happens before the load (atomic operations
// are sequentially consistent), so a happens before b. What it requires,
// each a fact of the code:
//   - the gate is an If in b's function B whose condition compares an
//     atomic load of the flag with its zero value (or is the load of a
//     bool, or its negation), and the successor where the flag is set has
//     the If alone as its predecessor and dominates b;
//   - the flag is a variable of F that closures capture, B is a closure
//     F makes, each of F's closure values of B binding that variable, so
//     B's load reads the cell of the invocation of F that made it;
//   - the variable's address goes only into atomic operations on it,
//     plain loads and stores, and closures F makes that do the same
//     (nested closures are refused); every store of anything other than
//     the zero value comes after a as said above;
//   - a is in F, and both a and b touch only variables of F that closures
//     capture: the two touch one variable only in one invocation of F,
//     the one whose flag b found set.
//
// The hand-off of a closure that stores the flag to another goroutine is
// taken to be synchronized, as any race-free hand-off of a value is; a
// racy one is a race on the variable that carries it.
func (r *Result) gateBefore(a, b ssa.Instruction) (Edge, bool) {
	f := a.Parent()
	fb := b.Parent()
	if fb.Parent() != f || !r.capturedOf(a, f) || !r.capturedOf(b, f) {
		return Edge{}, false
	}
	for _, blk := range fb.Blocks {
		iff, ok := blk.Instrs[len(blk.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		load, set := gateLoad(iff)
		if load == nil {
			continue
		}
		open := blk.Succs[set]
		if len(open.Preds) != 1 || !open.Dominates(b.Block()) {
			continue
		}
		fv, ok := load.Call.Args[0].(*ssa.FreeVar)
		if !ok {
			continue
		}
		cell := boundCell(fv, f)
		if cell == nil || !r.storesAfter(cell, a) {
			continue
		}
		return Edge{Rule: Atomic, Pos: load.Pos()}, true
	}
	return Edge{}, false
}

// gateLoad returns the atomic load that iff's condition tests against the
// loaded variable's zero value, and the index of the successor taken when
// the value loaded is not the zero value; or nil.
func gateLoad(iff *ssa.If) (*ssa.Call, int) {
	cond, set := iff.Cond, 0
	if not, ok := cond.(*ssa.UnOp); ok && not.Op == token.NOT {
		cond, set = not.X, 1
	}
	if call := atomicLoad(cond); call != nil {
		if b, ok := call.Type().Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
			return call, set
		}
		return nil, 0
	}
	bin, ok := cond.(*ssa.BinOp)
	if !ok || bin.Op != token.EQL && bin.Op != token.NEQ {
		return nil, 0
	}
	x, c := bin.X, bin.Y
	if _, isConst := x.(*ssa.Const); isConst {
		x, c = c, x
	}
	call := atomicLoad(x)
	if call == nil || !isZero(c) {
		return nil, 0
	}
	if bin.Op == token.EQL {
		set = 1 - set // equal to zero: the flag is clear on the true edge
	}
	return call, set
}

// atomicLoad returns v when it is a sync/atomic load of an integer or
// bool variable, its address the call's first argument.
func atomicLoad(v ssa.Value) *ssa.Call {
	call, ok := v.(*ssa.Call)
	if !ok || len(call.Call.Args) != 1 {
		return nil
	}
	if op, ok := sharedloc.AtomicOp(model.CalleeName(&call.Call)); !ok || op != sharedloc.AtomicLoad {
		return nil
	}
	if b, ok := call.Type().Underlying().(*types.Basic); !ok || b.Info()&(types.IsInteger|types.IsBoolean) == 0 {
		return nil
	}
	return call
}

// isZero reports whether v is a constant zero or false.
func isZero(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil {
		return false
	}
	switch c.Value.Kind() {
	case constant.Int:
		return constant.Sign(c.Value) == 0
	case constant.Bool:
		return !constant.BoolVal(c.Value)
	}
	return false
}

// boundCell returns the variable of f that every closure value of fv's
// function made in f binds to fv, or nil.
func boundCell(fv *ssa.FreeVar, f *ssa.Function) *ssa.Alloc {
	fn := fv.Parent()
	i := -1
	for j, x := range fn.FreeVars {
		if x == fv {
			i = j
		}
	}
	var cell *ssa.Alloc
	for _, blk := range f.Blocks {
		for _, instr := range blk.Instrs {
			mc, ok := instr.(*ssa.MakeClosure)
			if !ok || mc.Fn != fn {
				continue
			}
			c, ok := mc.Bindings[i].(*ssa.Alloc)
			if !ok || cell != nil && c != cell {
				return nil
			}
			cell = c
		}
	}
	return cell
}

// capturedOf reports whether every access at instr touches a variable of
// f that closures capture.
func (r *Result) capturedOf(instr ssa.Instruction, f *ssa.Function) bool {
	accs := r.shared.ByInstr[instr]
	for _, acc := range accs {
		cell, ok := acc.Loc.Cell.(*ssa.Alloc)
		if acc.Loc.Kind != sharedloc.Captured || !ok || cell.Parent() != f {
			return false
		}
	}
	return len(accs) > 0
}

// storesAfter reports whether every use of cell's address is an atomic
// operation on it, a plain load or a store, in f or in a closure f makes
// (not nested), and every store that may leave it other than zero comes
// after a in f (see gateBefore).
func (r *Result) storesAfter(cell *ssa.Alloc, a ssa.Instruction) bool {
	flow := r.gr.Flow
	after := func(at ssa.Instruction) bool {
		return at != a && flow.Dominates(a, at) && flow.Precedes(a, at)
	}
	var uses func(v ssa.Value, at ssa.Instruction) bool
	uses = func(v ssa.Value, at ssa.Instruction) bool {
		for _, u := range *v.Referrers() {
			switch u := u.(type) {
			case *ssa.DebugRef:
			case *ssa.UnOp:
				if u.Op != token.MUL {
					return false
				}
			case *ssa.Store:
				if u.Addr != v {
					return false
				}
				if !isZero(u.Val) && !after(pick(at, u)) {
					return false
				}
			case *ssa.MakeClosure:
				if at != nil {
					return false // nested
				}
				fn := u.Fn.(*ssa.Function)
				for i, bound := range u.Bindings {
					if bound == v && !uses(fn.FreeVars[i], u) {
						return false
					}
				}
			case *ssa.Call:
				args := u.Call.Args
				op, ok := sharedloc.AtomicOp(model.CalleeName(&u.Call))
				if !ok || len(args) == 0 || args[0] != v {
					return false
				}
				for _, x := range args[1:] {
					if x == v {
						return false
					}
				}
				if op == sharedloc.AtomicStore && !isZero(args[len(args)-1]) && !after(pick(at, u)) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return uses(cell, nil)
}

// pick returns at, the point of f that stands for a closure's code, or,
// for f's own instructions, instr.
func pick(at, instr ssa.Instruction) ssa.Instruction {
	if at != nil {
		return at
	}
	return instr
}

package spawnfacts

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
)

// SyncCallsFact marks a function that calls some of its function-typed
// parameters only on the calling goroutine, before it returns: a
// container's Each or Walk (creachadair/mds's queue.Queue.Each, called by
// jrpc2's server with its lock held). Params are indexes into the call's
// arguments, receiver first for methods. A parameter counts when each of
// its uses is a call of it (deferred too), a comparison with nil, or an
// argument of a function known to call it that way (this fact, of the
// same or another package, or the model's sort.Slice, sync.Once.Do, ...);
// any other use (a store, a closure that captures it, a go statement, a
// conversion, a return) may run it later or elsewhere, and the parameter
// does not count. A lock held around the call is then held in the
// function handed to it.
type SyncCallsFact struct {
	Params []int
}

// AFact marks SyncCallsFact as an analysis.Fact.
func (*SyncCallsFact) AFact() {}

func (f *SyncCallsFact) String() string {
	s := make([]string, len(f.Params))
	for i, p := range f.Params {
		s[i] = fmt.Sprint(p)
	}
	return "calls(" + strings.Join(s, ",") + ")"
}

// SyncArgs returns the argument indexes of call whose function values the
// callee calls only on the calling goroutine before it returns: from the
// model of known libraries (every function-typed argument), the
// SyncCallsFacts of other packages, and this package's functions.
func (r *Result) SyncArgs(call *ssa.CallCommon) []int {
	if call.IsInvoke() {
		return nil
	}
	callee := call.StaticCallee()
	if callee == nil {
		return nil
	}
	if model.SyncCallback(model.Name(callee)) {
		var args []int
		for i, a := range call.Args {
			if _, ok := a.Type().Underlying().(*types.Signature); ok {
				args = append(args, i)
			}
		}
		return args
	}
	return calleeFact(callee, r.syncs, r.syncImported, func(f *SyncCallsFact) []int { return f.Params })
}

// CallsSync reports whether call hands fn to its callee only in arguments
// that the callee calls on the calling goroutine before it returns (see
// SyncArgs), and in at least one.
func (r *Result) CallsSync(call *ssa.CallCommon, fn *ssa.Function, funcs func(ssa.Value) []*ssa.Function) bool {
	args := r.SyncArgs(call)
	found := false
	for i, a := range call.Args {
		if !slices.Contains(funcs(a), fn) {
			continue
		}
		if !slices.Contains(args, i) {
			return false
		}
		found = true
	}
	return found
}

// findSyncCalls computes SyncCallsFacts for the package's named functions,
// iterating because a function may hand its parameter to another one of
// the package that calls it: a parameter counts once every function it is
// handed to is known to call it synchronously, so a cycle of such
// hand-offs never counts.
func (b *builder) findSyncCalls(funcs []*ssa.Function) {
	growParams(funcs, b.res.syncs, b.syncCalledParams)
	for _, fn := range funcs {
		k := funcKey(fn)
		if k == nil || len(b.res.syncs[k]) == 0 || fn.Parent() != nil {
			continue
		}
		if obj, ok := fn.Object().(*types.Func); ok && obj.Exported() {
			b.pass.ExportObjectFact(obj, &SyncCallsFact{Params: b.res.syncs[k]})
		}
	}
}

// syncCalledParams returns the indexes of fn's function-typed parameters
// (in call-argument order, receiver first) that fn only calls, compares
// with nil, or hands to functions that call them synchronously.
func (b *builder) syncCalledParams(fn *ssa.Function) []int {
	if len(fn.Blocks) == 0 {
		return nil
	}
	var out []int
	for i, p := range fn.Params {
		if _, ok := p.Type().Underlying().(*types.Signature); !ok {
			continue
		}
		if b.onlyCalled(p) {
			out = append(out, i)
		}
	}
	return out
}

// onlyCalled reports whether every use of the function value v is a call
// of it on the calling goroutine (a deferred one too), a comparison, an
// argument that the callee calls that way, or a capture by a closure that
// is itself only called so and only calls v.
func (b *builder) onlyCalled(v ssa.Value) bool {
	refs := v.Referrers()
	if refs == nil || b.visiting[v] {
		// A value met again while its uses are being followed (a
		// closure that calls itself through the variable it is kept
		// in): not known to be only called.
		return false
	}
	b.visiting[v] = true
	defer delete(b.visiting, v)
	for _, r := range *refs {
		switch r := r.(type) {
		case *ssa.Call:
			if !b.callsSync(&r.Call, v) {
				return false
			}
		case *ssa.Defer:
			if r.Call.Value != v || slices.Contains(r.Call.Args, v) {
				return false
			}
		case *ssa.BinOp:
			if r.Op != token.EQL && r.Op != token.NEQ {
				return false
			}
		case *ssa.MakeClosure:
			// A closure that captures v, itself only called or handed
			// to such functions, and that only calls v in turn.
			if !b.capturedOnlyCalled(r, v, b.onlyCalled) {
				return false
			}
		case *ssa.Store:
			// v spilled to the variable a closure captures (go/ssa's
			// form of Visit's q.Each(func(x T) bool { f(x); return
			// true })): the variable is set once, to v.
			if r.Val != v || !b.varOnlyCalled(r.Addr, r) {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// capturedOnlyCalled reports whether the closure mc, which captures v,
// is itself only called (see onlyCalled) and uses its free variable for v
// only as ok says.
func (b *builder) capturedOnlyCalled(mc *ssa.MakeClosure, v ssa.Value, ok func(ssa.Value) bool) bool {
	fn, isFn := mc.Fn.(*ssa.Function)
	i := slices.Index(mc.Bindings, v)
	if !isFn || i < 0 || i >= len(fn.FreeVars) || slices.Index(mc.Bindings[i+1:], v) >= 0 {
		return false
	}
	return b.onlyCalled(mc) && ok(fn.FreeVars[i])
}

// varOnlyCalled reports whether the variable at addr (an Alloc, or a
// closure's free variable holding one) is set only by init (nil for a
// free variable) and every value loaded from it is only called.
func (b *builder) varOnlyCalled(addr ssa.Value, init *ssa.Store) bool {
	switch addr.(type) {
	case *ssa.Alloc, *ssa.FreeVar:
	default:
		return false
	}
	refs := addr.Referrers()
	if refs == nil || b.visiting[addr] {
		return false
	}
	b.visiting[addr] = true
	defer delete(b.visiting, addr)
	for _, r := range *refs {
		switch r := r.(type) {
		case *ssa.Store:
			if r != init {
				return false
			}
		case *ssa.UnOp:
			if r.Op != token.MUL || !b.onlyCalled(r) {
				return false
			}
		case *ssa.MakeClosure:
			if !b.capturedOnlyCalled(r, addr, func(fv ssa.Value) bool { return b.varOnlyCalled(fv, nil) }) {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// callsSync reports whether call runs v on the calling goroutine before it
// returns: v is the function called, or every argument that is v goes to
// a parameter that the callee calls that way.
func (b *builder) callsSync(call *ssa.CallCommon, v ssa.Value) bool {
	var args []int
	for i, a := range call.Args {
		if a == v {
			args = append(args, i)
		}
	}
	if len(args) == 0 {
		return call.Value == v
	}
	if call.Value == v {
		return false // f(f): f may keep itself
	}
	sync := b.res.SyncArgs(call)
	for _, i := range args {
		if !slices.Contains(sync, i) {
			return false
		}
	}
	return true
}

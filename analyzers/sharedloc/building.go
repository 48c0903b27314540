package sharedloc

import (
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
)

// maxBuildDepth bounds the calls FreshIn follows up from an access to the
// function that allocates its object: a constructor commonly fills its
// object through a chain of initialisers (casbin's NewEnforcer, then
// InitWithFile, InitWithAdapter, InitWithModelAndAdapter, initialize and
// initRmMap, five calls down).
const maxBuildDepth = 8

// FreshIn reports whether the object v names, a value of at's function,
// is reachable only from the goroutine that runs at when at executes, on
// goroutines of context c: on every chain of calls by which c's goroutines
// reach at's function, the object was allocated a few calls up and passed
// down, as an argument, without being let go anywhere on the way.
//
// It is Local asked of one context. Local needs every call of an
// unexported function to pass a fresh object, and refuses an exported
// one; a helper that a constructor calls on the object it is building
// and that an API method calls again later, on a published object, is
// local only on the goroutines that call it from the constructor alone: a
// test that makes a new enforcer in each turn of a loop, and starts
// goroutines that use it, writes the enforcer's role map in its own
// initializer while the last turn's goroutines read theirs (casbin's
// TestSyncedEnforcerAddPoliciesEx; go-mail's testMessage, whose headers
// the helper sets on a new message before the goroutine that sends it
// starts). The allocation sites are one, the objects are not.
//
// The calls followed are those the call graph gives from functions that
// run on c's goroutines, each a plain static call (not go or defer, not
// through an interface), to a function whose value is never taken (so no
// call goes unseen); the chain must end in the allocation (see freshAt),
// in no function that starts c's goroutines or is the entry of a context.
func (r *Result) FreshIn(v ssa.Value, at ssa.Instruction, c *goroutines.Context) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.freshIn(v, at, c, maxBuildDepth, false)
}

func (r *Result) freshIn(v ssa.Value, at ssa.Instruction, c *goroutines.Context, depth int, entering bool) bool {
	if depth == 0 || at.Parent() != parentOf(v) {
		return false
	}
	p, isParam := v.(*ssa.Parameter)
	if !isParam {
		if call, i, ok := resultOf(v); ok && r.returnsNew(call, i) {
			// A new object each call, which the caller has not let
			// go on any path to at.
			return !r.escapesBefore(v, at, call, entering, false)
		}
		return r.freshAt(v, at, min(depth, maxSharingDepth), entering)
	}
	k := depthKey{v: v, at: at, c: c, depth: depth, entering: entering}
	if f, ok := r.fresh[k]; ok {
		return f
	}
	r.fresh[k] = false // a recursive chain is no evidence
	f := r.computeFreshIn(p, at, c, depth, entering)
	r.fresh[k] = f
	return f
}

func (r *Result) computeFreshIn(p *ssa.Parameter, at ssa.Instruction, c *goroutines.Context, depth int, entering bool) bool {
	fn := p.Parent()
	idx := slices.Index(fn.Params, p)
	if idx < 0 || fn.Parent() != nil || fn == c.Entry || isEntry(r.Goroutines, fn) || len(r.Goroutines.RefSites(fn)) > 0 {
		return false
	}
	found := false
	for _, edge := range r.Goroutines.CallGraph.Callers(fn) {
		if !slices.Contains(r.Goroutines.Of(edge.Caller.Func), c) {
			continue // not on c's goroutines
		}
		call, ok := edge.Site.(*ssa.Call)
		if !ok || call.Call.IsInvoke() || call.Call.StaticCallee() != fn || idx >= len(call.Call.Args) {
			return false
		}
		if !r.freshIn(ssavalue.Unconverted(call.Call.Args[idx]), call, c, depth-1, true) {
			return false
		}
		found = true
	}
	return found && !r.escapesBefore(p, at, nil, entering, false)
}

// resultOf returns the call whose i-th result v is (the call itself for a
// function of one result).
func resultOf(v ssa.Value) (*ssa.Call, int, bool) {
	switch v := v.(type) {
	case *ssa.Call:
		return v, 0, true
	case *ssa.Extract:
		call, ok := v.Tuple.(*ssa.Call)
		return call, v.Index, ok
	}
	return nil, 0, false
}

// returnsNew reports whether call's callee, a function of the package,
// returns as its i-th result, at every return, an object it allocated
// there (new or &T{...}, not captured by a closure) and let go nowhere
// before, or nil: each call returns an object of its own. What the object
// was filled with may be shared (unlike constructs, which asks that too);
// the object itself is not, until the caller lets it go.
func (r *Result) returnsNew(call *ssa.Call, i int) bool {
	fn := call.Call.StaticCallee()
	if fn == nil || fn.Blocks == nil || i >= fn.Signature.Results().Len() {
		return false
	}
	made := false
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		res := ssavalue.Unconverted(ret.Results[i])
		if c, ok := res.(*ssa.Const); ok && c.IsNil() {
			continue
		}
		alloc, ok := res.(*ssa.Alloc)
		if !ok || isCaptured(alloc) || r.escapesBefore(alloc, ret, alloc, true, false) {
			return false
		}
		made = true
	}
	return made
}

// maxKeepDepth bounds the calls keeps follows down from a parameter.
const maxKeepDepth = 4

// keeps reports whether the function of the pointer parameter p lets the
// object p points to go nowhere: p is used only to address its fields,
// each field only loaded, stored to, or handed to a function of sync or
// sync/atomic (a mutex of the object locked), or p is passed on, as the
// same argument, to plain static calls whose callees keep it in turn, up
// to maxKeepDepth calls down. go-mail's testMessage sets the sender of
// its new message with From, which calls SetAddrHeader, which writes the
// message's own header map: the message goes nowhere until the helper
// returns it. A recursive call counts as letting it go.
func (r *Result) keeps(p *ssa.Parameter, depth int) bool {
	if v, ok := r.kept[p]; ok {
		return v
	}
	if depth == 0 {
		return false
	}
	if r.kept == nil {
		r.kept = make(map[*ssa.Parameter]bool)
	}
	r.kept[p] = false // a recursive chain is no evidence
	v := r.computeKeeps(p, depth)
	r.kept[p] = v
	return v
}

func (r *Result) computeKeeps(p *ssa.Parameter, depth int) bool {
	for _, ref := range *p.Referrers() {
		switch ref := ref.(type) {
		case *ssa.DebugRef:
		case *ssa.FieldAddr:
			if !loadedOrStored(ref, true, true) {
				return false
			}
		case *ssa.Call:
			fn := ref.Call.StaticCallee()
			if fn == nil || fn.Blocks == nil || ref.Call.Value == ssa.Value(p) || len(fn.Params) != len(ref.Call.Args) {
				return false
			}
			for i, arg := range ref.Call.Args {
				if arg == ssa.Value(p) && !r.keeps(fn.Params[i], depth-1) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

package sharedloc

import (
	"slices"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
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
		v = a.Fn() == cell.Parent() && !r.escapesBefore(cell, a.Instr, cell) || r.cellStaysHome(cell)
	default:
		v = a.Base != nil && r.freshAt(a.Base, a.Instr, maxSharingDepth)
	}
	r.local[a] = v
	return v
}

// freshAt reports whether the object v denotes is reachable only from the
// current goroutine when at executes.
func (r *Result) freshAt(v ssa.Value, at ssa.Instruction, depth int) bool {
	if depth == 0 || at.Parent() != parentOf(v) {
		return false
	}
	k := depthKey{v: v, at: at, depth: depth}
	if f, ok := r.fresh[k]; ok {
		return f
	}
	f := r.computeFreshAt(v, at, depth)
	r.fresh[k] = f
	return f
}

func (r *Result) computeFreshAt(v ssa.Value, at ssa.Instruction, depth int) bool {
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
			if !ok || s.Parent() != at.Parent() || !r.freshAt(Root(stored[0]), at, depth-1) {
				return false
			}
			for _, ref := range *v.Referrers() {
				if _, ok := ref.(*ssa.MakeClosure); ok && r.mayRunBefore(ref, at) {
					return false
				}
			}
			return true
		}
		return !r.escapesBefore(v, at, v)
	case *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeSlice:
		return !r.escapesBefore(v, at, v.(ssa.Instruction))
	case *ssa.Parameter:
		fn := v.Parent()
		if fn.Parent() != nil || isEntry(r.Goroutines, fn) || (fn.Object() != nil && fn.Object().Exported()) {
			return false
		}
		idx := slices.Index(fn.Params, v)
		callers := r.Goroutines.CallGraph.Callers(fn)
		if idx < 0 || len(callers) == 0 {
			return false
		}
		for _, e := range callers {
			if _, isGo := e.Site.(*ssa.Go); isGo {
				return false
			}
			args := e.Site.Common().Args
			if e.Site.Common().IsInvoke() || idx >= len(args) {
				return false
			}
			if !r.freshAt(Root(args[idx]), e.Site, depth-1) {
				return false
			}
		}
		return !r.escapesBefore(v, at, nil)
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
// alloc (in earlier loop iterations) do not count.
func (r *Result) escapesBefore(v ssa.Value, at, alloc ssa.Instruction) bool {
	seen := map[ssa.Value]bool{}
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
			escape := false
			switch ref := ref.(type) {
			case *ssa.ChangeType, *ssa.MakeInterface, *ssa.Convert, *ssa.Phi, *ssa.Slice:
				if visit(ref.(ssa.Value)) {
					return true
				}
			case *ssa.Store:
				escape = ref.Val == v
			case *ssa.MapUpdate:
				escape = ref.Value == v || ref.Key == v
			case *ssa.Send:
				escape = ref.X == v
			case *ssa.Select:
				for _, st := range ref.States {
					escape = escape || st.Send == v
				}
			case *ssa.MakeClosure, *ssa.Return, *ssa.Panic:
				escape = true
			case ssa.CallInstruction:
				escape = isArg(ref.Common(), v)
			}
			if escape && (ref == at || r.Goroutines.Flow.MayFollowAvoiding(ref, at, alloc)) {
				return true
			}
		}
		return false
	}
	return visit(v)
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
		site := c.Site
		if site == nil || v.Parent() != site.Parent() {
			// Declared outside the function that starts the
			// goroutines: the same variable for all of them.
			return true
		}
		// Declared in the spawning function: shared only by the
		// goroutines started in one loop, and only if declared
		// outside that loop.
		flow := r.Goroutines.Flow
		return flow.InLoop(site) && !(flow.MayFollow(site, v) && flow.MayFollow(v, site))
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
			return r.invariantArg(args[idx], c, depth-1)
		}
		var callers []*callgraph.Edge
		for _, e := range r.Goroutines.CallGraph.Callers(fn) {
			if slices.Contains(r.Goroutines.Of(e.Caller.Func), c) {
				callers = append(callers, e)
			}
		}
		if len(callers) == 0 {
			return false
		}
		for _, e := range callers {
			if _, isGo := e.Site.(*ssa.Go); isGo {
				return false
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

// madeOutside reports whether the object made by alloc is the same for
// all goroutines of c: made in the function that starts them, outside the
// loop that does.
func (r *Result) madeOutside(alloc ssa.Instruction, c *goroutines.Context) bool {
	site := c.Site
	if site == nil || alloc.Parent() != site.Parent() {
		return false
	}
	flow := r.Goroutines.Flow
	return flow.InLoop(site) && !(flow.MayFollow(site, alloc) && flow.MayFollow(alloc, site))
}

// invariantArg reports whether the argument arg of c's spawn site is the
// same object for every goroutine of c.
func (r *Result) invariantArg(arg ssa.Value, c *goroutines.Context, depth int) bool {
	site := c.Site
	flow := r.Goroutines.Flow
	if def, ok := arg.(ssa.Instruction); ok && flow.InLoop(site) && flow.MayFollow(site, def) && flow.MayFollow(def, site) {
		return false // computed anew in the loop that spawns
	}
	switch root := Root(arg).(type) {
	case *ssa.Global, *ssa.Alloc, *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeSlice:
		return r.sharedIn(root, c, depth)
	case *ssa.Parameter:
		// The spawner's own receiver is taken to be the long-lived
		// object that owns the goroutines (s in `go s.loop()`); its
		// other parameters differ from call to call.
		fn := root.Parent()
		return fn.Signature.Recv() != nil && len(fn.Params) > 0 && fn.Params[0] == root
	}
	return false
}

package concurrent

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/locksets"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// Lifting limits: an access through a parameter is viewed from the call
// sites of its function, up to maxLiftDepth calls up; a function with
// more than maxLiftSites call sites gets one view, with the locks held at
// all of them (see liftMerged).
const (
	maxLiftDepth = 2
	maxLiftSites = 8
)

// A View is one way an access is reached: from its own function, or
// through a call site of it when the access goes through a parameter. A
// small helper such as
//
//	func (b *buffer) clean() { b.len = 0 }
//
// called as c.header.clean() under one lock and c.incoming.clean() under
// another has one view per call, each with the locks held there and the
// field (header or incoming) its receiver is. So has a helper that ranges
// over a container parameter, or over the containers in its elements,
//
//	func notifyAll[T any](ls []chan T, v T) { for _, c := range ls { c <- v } }
//
// called as notifyAll(c.listeners, x) under c.m and as
// notifyAll(ch.flows, y) under ch.notifyM: sharedloc names the send once
// per container the call sites pass (confirms.listeners[],
// Channel.flows[]), and each is viewed only from the call sites passing
// that container, with the lock held there, rather than from the helper
// with the locks all its callers hold. An argument that is a field of the
// caller's own parameter (cloneMap(tc.Exchanges) in tc's Clone) is viewed
// again from the caller's call sites, which hold the lock the map's
// writers hold.
type View struct {
	// Fn is the function whose goroutine contexts the view runs in.
	Fn *ssa.Function
	// Locks are the mutexes held at the access on this view.
	Locks locksets.Set
	// LibLocks are those held on goroutines that run no test code (see
	// locksets.Result.AtOutsideTests); Overlap uses them for contexts
	// without a Test.
	LibLocks locksets.Set
	// Arg is, for a view through a call site, the argument the access's
	// pointer parameter receives there; Field is the field the access
	// selects from it (nil if the parameter itself is the pointer). Arg
	// is nil when the access goes through an element of the parameter:
	// its objects are then the access's own.
	Arg   ssa.Value
	Field *types.Var
	// Site is, for a view through call sites, the call of the access's
	// own function it goes through (the first one up), or nil.
	Site ssa.CallInstruction
}

// Views returns the ways a is reached.
func (e *Env) Views(a *sharedloc.Access) []View {
	views := e.viewsIn(a, e.Locks.All())
	for i, lib := range e.viewsIn(a, e.Locks.OutsideTests()) {
		views[i].LibLocks = lib.Locks
	}
	return views
}

// viewsIn returns the ways a is reached, with the locks of one solution
// of the lock sets; the views are the same for every solution, only
// their locks differ.
func (e *Env) viewsIn(a *sharedloc.Access, s *locksets.Solution) []View {
	base := View{Fn: a.Fn(), Locks: s.At(a.Instr)}
	p, field := directParam(a)
	via := lifting{field: field}
	if p == nil {
		p = elemParam(a)
		via.elem = true
	}
	if p == nil {
		return []View{base}
	}
	if a.Loc.Elem && (via.elem || field == nil) {
		via.loc, via.byLoc = a.Loc, true
	}
	local := base.Locks.Minus(s.Entry(a.Fn()))
	views := e.lift(s, p, via, local, maxLiftDepth)
	if len(views) == 0 {
		return []View{base}
	}
	return views
}

// lifting is how an access reaches memory through the parameter that
// lift views it through.
type lifting struct {
	// field is the field the access selects from the parameter (p.f), or
	// nil.
	field *types.Var
	// elem is set when the access goes through a container loaded from
	// an element of the parameter (c in `for _, c := range p`): the
	// view's objects are then the access's own, not the argument's.
	elem bool
	// byLoc is set when the access's location is the contents of the
	// container the parameter receives (or of one loaded from its
	// elements): sharedloc names it after what the call sites pass, one
	// access per location, so only the call sites passing a container
	// of loc reach it (see passes).
	byLoc bool
	loc   sharedloc.Loc
}

// lift views an access through parameter p, holding local locks of its
// own, from each call site of p's function that passes what the access
// touches. An argument that is the caller's own parameter, or a field of
// it (cloneMap(tc.Exchanges) in a method of tc), is viewed again from the
// caller's call sites, with the locks held there: a helper's callers that
// each hold a lock of their own at the call keep it, rather than the
// intersection over all callers that the helper's entry set is.
func (e *Env) lift(s *locksets.Solution, p *ssa.Parameter, via lifting, local locksets.Set, depth int) []View {
	fn := p.Parent()
	idx := slices.Index(fn.Params, p)
	if depth == 0 || idx < 0 || len(e.Goroutines.RefSites(fn)) > 0 || isEntry(e, fn) {
		return nil
	}
	callers := e.Goroutines.CallGraph.Callers(fn)
	if len(callers) == 0 {
		return nil
	}
	for _, edge := range callers {
		site := edge.Site
		if _, isGo := site.(*ssa.Go); isGo || site.Common().IsInvoke() || wrapper(site.Parent()) || idx >= len(site.Common().Args) {
			return nil
		}
	}
	if via.byLoc {
		// Only the call sites passing the access's location.
		var kept []*callgraph.Edge
		for _, edge := range callers {
			if e.passes(edge.Site.Common().Args[idx], via.loc) {
				kept = append(kept, edge)
			}
		}
		if len(kept) == 0 {
			return nil
		}
		callers = kept
	}
	if len(callers) > maxLiftSites {
		return e.liftMerged(s, fn, callers, local)
	}
	var views []View
	for _, edge := range callers {
		site := edge.Site
		locks := s.At(site).Union(e.Locks.AtCall(local, site))
		arg := site.Common().Args[idx]
		view := View{Fn: site.Parent(), Locks: locks, Arg: arg, Field: via.field, Site: site}
		if via.elem {
			view.Arg, view.Field = nil, nil
		}
		up := locks.Minus(s.Entry(site.Parent()))
		if q, ok := arg.(*ssa.Parameter); ok {
			// Passed straight through: lift again.
			if ups := e.lift(s, q, via, up, depth-1); len(ups) > 0 {
				for _, v := range ups {
					v.Site = site
					views = append(views, v)
				}
				continue
			}
		} else if q := fieldOfParam(arg); q != nil {
			// A field of the caller's parameter: lift again for the
			// locks, keeping this call's argument for the objects.
			if ups := e.lift(s, q, lifting{}, up, depth-1); len(ups) > 0 {
				for _, v := range ups {
					v.Arg, v.Field, v.Site = view.Arg, view.Field, site
					views = append(views, v)
				}
				continue
			}
		}
		views = append(views, view)
	}
	return views
}

// passes reports whether arg, passed to a parameter through which an
// access reaches location loc, may hold a container whose contents are
// loc, or whether sharedloc cannot tell what it holds.
func (e *Env) passes(arg ssa.Value, loc sharedloc.Loc) bool {
	k := passKey{arg, loc}
	if v, ok := e.passMemo[k]; ok {
		return v
	}
	locs := e.Shared.Objects(arg)
	v := len(locs) == 0 || slices.ContainsFunc(locs, func(l sharedloc.Loc) bool { return l.Contents() == loc })
	e.passMemo[k] = v
	return v
}

type passKey struct {
	arg ssa.Value
	loc sharedloc.Loc
}

// fieldOfParam returns the parameter q of which v is a field (q.f, or
// its address &q.f), or nil.
func fieldOfParam(v ssa.Value) *ssa.Parameter {
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		v = u.X
	}
	fa, ok := v.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	q, _ := fa.X.(*ssa.Parameter)
	return q
}

// liftMerged is lift for a function with more than maxLiftSites call
// sites: one view, in fn itself, that holds the locks held at every call
// site the solution does not leave out (see locksets.Solution.Skips: a
// test's call site of a helper, made without the package's locks, is not
// on the stacks of the package's own goroutines), each with the access's
// own locks added. It is the entry set locksets gives a function only the
// package calls, for an exported one: what lift's views would give with
// no limit, less the objects each call site passes and the locks one of
// them holds and another does not, so it pairs at least the accesses
// they would pair. When the solution leaves out every call site, the
// view holds fn's entry set and the access's own locks.
func (e *Env) liftMerged(s *locksets.Solution, fn *ssa.Function, callers []*callgraph.Edge, local locksets.Set) []View {
	locks, first := s.Entry(fn).Union(local), true
	for _, edge := range callers {
		site := edge.Site
		if s.Skips(site) {
			continue
		}
		at := s.At(site).Union(local)
		if first {
			locks, first = at, false
		} else {
			locks = locks.Intersect(at)
		}
	}
	return []View{{Fn: fn, Locks: locks}}
}

// in returns the view as seen on goroutines of context c: with the locks
// held outside tests when c runs no test code.
func (v View) in(c *goroutines.Context) View {
	if c.Test == nil {
		v.Locks = v.LibLocks
	}
	return v
}

// inTest returns the view v (the i-th of Views(a)) as seen on goroutines
// of c's test, with the test-only call sites of other tests left out (see
// locksets.Result.InTest), and whether that changes its locks. It costs
// a pass of the lock-set solver the first time a test asks, so Overlap
// asks only for pairs it would otherwise report.
func (e *Env) inTest(a *sharedloc.Access, v View, i int, c *goroutines.Context) (View, bool) {
	if c.Test == nil || equalSets(v.Locks, v.LibLocks) {
		return v, false
	}
	views := e.viewsIn(a, e.Locks.InTest(c.Test, e.Budget))
	if i >= len(views) || equalSets(views[i].Locks, v.Locks) {
		return v, false
	}
	v.Locks = views[i].Locks
	return v, true
}

// inContext returns the view v (the i-th of Views(a)) as seen on the
// goroutines of context c alone, with the locks held on every chain of
// calls that runs on them (see locksets.Result.InContext) added to its
// own, and whether that adds any. Like inTest it costs a pass of the
// lock-set solver the first time c is asked for, so Overlap asks only for
// pairs it would otherwise report.
func (e *Env) inContext(a *sharedloc.Access, v View, i int, c *goroutines.Context) (View, bool) {
	s := e.Locks.InContext(c, e.Budget)
	if s == nil {
		return v, false
	}
	views := e.viewsIn(a, s)
	if i >= len(views) {
		return v, false
	}
	more := views[i].Locks.Minus(v.Locks)
	if len(more) == 0 {
		return v, false
	}
	v.Locks = v.Locks.Union(more)
	return v, true
}

func equalSets(s, t locksets.Set) bool {
	return slices.EqualFunc(s, t, func(x, y locksets.Held) bool { return x.Mutex == y.Mutex && x.Mode == y.Mode })
}

// wrapper reports whether fn is a synthetic wrapper that calls a method:
// of a method value, of a method expression, or (*T).m of a value or
// promoted method, which an interface holding a *T runs. No lock sets are
// computed in it; locksets gives the method the entry set of the
// wrapper's call sites, so an access is viewed in its own function.
func wrapper(fn *ssa.Function) bool {
	return ssavalue.BoundMethod(fn) != nil || ssavalue.ThunkMethod(fn) != nil || ssavalue.WrappedMethod(fn) != nil
}

func isEntry(e *Env, fn *ssa.Function) bool {
	for _, c := range e.Goroutines.Contexts[1:] {
		if c.Entry == fn {
			return true
		}
	}
	return false
}

// directParam returns the parameter through which a accesses memory
// directly (p in p.f, or a container parameter p in p[k]), and the field
// selected (nil for containers).
func directParam(a *sharedloc.Access) (*ssa.Parameter, *types.Var) {
	if fa := fieldAddrOf(a); fa != nil {
		p, _ := fa.X.(*ssa.Parameter)
		return p, ssavalue.Field(fa)
	}
	if p, ok := a.Ptr.(*ssa.Parameter); ok && a.Loc.Elem {
		return p, nil
	}
	return nil, nil
}

// elemParam returns the container parameter p from whose elements a
// loads the container it accesses (c in `for _, c := range p { c <- v }`),
// when sharedloc names a's location after what p's call sites pass (see
// sharedloc.Result.Objects), or nil.
func elemParam(a *sharedloc.Access) *ssa.Parameter {
	if !a.Loc.Elem {
		return nil
	}
	v, elem := a.Ptr, false
	for range ssavalue.MaxDepth {
		switch x := v.(type) {
		case *ssa.UnOp:
			ia, ok := x.X.(*ssa.IndexAddr)
			if x.Op != token.MUL || !ok {
				return nil
			}
			v, elem = ia.X, true
		case *ssa.Slice:
			v = x.X
		case *ssa.ChangeType:
			v = x.X
		case *ssa.Parameter:
			if !elem {
				return nil
			}
			return x
		default:
			return nil
		}
	}
	return nil
}

func fieldAddrOf(a *sharedloc.Access) *ssa.FieldAddr {
	fa, _ := a.Addr().(*ssa.FieldAddr)
	return fa
}

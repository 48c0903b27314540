package conclosed

import (
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/ordering"
)

// joinedByCallers reports whether ret, a return of the helper that starts
// g (a function taking the test's t), hands its callers a function that
// joins g, and every caller calls it before it returns, so that the test
// does not return before call, on g, runs (gowarc's drainErrChan starts a
// goroutine that reports the errors it drains with t.Errorf and returns
// `func() { wg.Wait() }`, which each of its 18 tests calls after the
// writers are done):
//
//   - the helper is a named function whose every call the package shows
//     (unexported: an exported one, even in a _test.go file, may be called
//     by the external test package), each a plain call outside loops,
//     and g's `go` statement runs once per invocation of it (outside
//     loops), on a function literal;
//   - the helper returns, at ret, a function literal of its own whose Wait
//     on a WaitGroup runs on every path to its return, the WaitGroup being
//     a variable of the helper's invocation that g's literal captures too
//     (the same cell: each invocation's returned function waits for that
//     invocation's goroutine, not for another call's), Added to before the
//     `go` statement;
//   - that Wait joins g after call: ordering's Join edge at it, which
//     asks g's Done after call and no Add of g's own;
//   - every caller calls the result it got (its only uses are calls of
//     it), and such a call dominates each of the caller's returns that may
//     follow its call of the helper (a test's t.Fatal does not return).
//
// A caller that may return without the call, a result left uncalled (the
// helper called twice, one result dropped), a Wait on another WaitGroup
// or on one path only keep the report.
func (c *checker) joinedByCallers(call ssa.Instruction, g *goroutines.Context, ret *ssa.Return) bool {
	flow := c.env.Goroutines.Flow
	h := ret.Parent()
	site, ok := g.Site.(*ssa.Go)
	if !ok || site.Parent() != h || h.Parent() != nil || h.Object() == nil || flow.InLoop(site) {
		return false
	}
	if h.Object().Exported() {
		return false
	}
	gmc, ok := site.Call.Value.(*ssa.MakeClosure)
	if !ok {
		return false
	}
	idx := -1
	var lit *ssa.Function
	for i, v := range ret.Results {
		mc, ok := v.(*ssa.MakeClosure)
		if !ok {
			continue
		}
		if fn := mc.Fn.(*ssa.Function); fn.Parent() == h && c.waitsFor(call, g, fn, mc, gmc) {
			idx, lit = i, fn
			break
		}
	}
	if lit == nil {
		return false
	}
	edges := c.env.Goroutines.CallGraph.Callers(h)
	if len(edges) == 0 {
		return false
	}
	for _, e := range edges {
		s, ok := e.Site.(*ssa.Call)
		if !ok || callgraph.StaticCallee(&s.Call) != h || flow.InLoop(s) {
			return false
		}
		if !c.callsResultBeforeReturns(s, idx, len(ret.Results)) {
			return false
		}
	}
	return true
}

// waitsFor reports whether lit, a literal of the helper made by mc, waits
// on every path to its return on the WaitGroup cell that g's literal
// (made by gmc) captures too, Added to before g's `go` statement, and
// that Wait joins g after call (ordering's Join edge at it).
func (c *checker) waitsFor(call ssa.Instruction, g *goroutines.Context, lit *ssa.Function, mc, gmc *ssa.MakeClosure) bool {
	flow := c.env.Goroutines.Flow
	rets := ssaflow.Returns(lit)
	if len(rets) == 0 {
		return false
	}
	for _, b := range lit.Blocks {
		for _, instr := range b.Instrs {
			w, ok := instr.(*ssa.Call)
			if !ok || model.CalleeName(&w.Call) != model.WaitGroupWait || len(w.Call.Args) != 1 {
				continue
			}
			cell := binding(lit, mc, w.Call.Args[0])
			if cell == nil || !slices.Contains(gmc.Bindings, cell) || !c.addedBefore(cell, g.Site) {
				continue
			}
			if slices.ContainsFunc(rets, func(r *ssa.Return) bool { return !flow.Dominates(w, r) }) {
				continue // the Wait may be skipped on the way to a return
			}
			ctxs := c.env.Goroutines.Of(g.Site.Parent())
			joins := len(ctxs) > 0
			for _, tc := range ctxs {
				for _, r := range rets {
					e, ok := c.env.Order.Before(call, g, r, tc)
					if !ok || e.Rule != ordering.Join || e.Pos != w.Pos() {
						joins = false
					}
				}
			}
			if joins {
				return true
			}
		}
	}
	return false
}

// binding returns the value that mc binds to v, a free variable of lit
// (mc's function), when that value is an allocation of lit's enclosing
// function: a variable of the invocation that made mc.
func binding(lit *ssa.Function, mc *ssa.MakeClosure, v ssa.Value) ssa.Value {
	fv, ok := v.(*ssa.FreeVar)
	if !ok {
		return nil
	}
	i := slices.Index(lit.FreeVars, fv)
	if i < 0 || i >= len(mc.Bindings) {
		return nil
	}
	a, ok := mc.Bindings[i].(*ssa.Alloc)
	if !ok || a.Parent() != lit.Parent() {
		return nil
	}
	return a
}

// addedBefore reports whether a call of Add on the WaitGroup cell, outside
// loops, dominates site.
func (c *checker) addedBefore(cell ssa.Value, site ssa.Instruction) bool {
	flow := c.env.Goroutines.Flow
	for _, u := range *cell.Referrers() {
		a, ok := u.(*ssa.Call)
		if ok && model.CalleeName(&a.Call) == model.WaitGroupAdd && len(a.Call.Args) == 2 && a.Call.Args[0] == cell &&
			!flow.InLoop(a) && flow.Dominates(a, site) {
			return true
		}
	}
	return false
}

// callsResultBeforeReturns reports whether the result number i (of n) of
// the call s is only called (not stored, passed or deferred), and such a
// call dominates every return of s's function that may follow s.
func (c *checker) callsResultBeforeReturns(s *ssa.Call, i, n int) bool {
	flow := c.env.Goroutines.Flow
	var r ssa.Value = s
	if n > 1 {
		r = nil
		for _, u := range *s.Referrers() {
			if x, ok := u.(*ssa.Extract); ok && x.Index == i {
				if r != nil {
					return false
				}
				r = x
			}
		}
		if r == nil {
			return false // the result is dropped
		}
	}
	var calls []*ssa.Call
	for _, u := range *r.Referrers() {
		switch u := u.(type) {
		case *ssa.DebugRef:
		case *ssa.Call:
			if u.Call.Value != r || slices.Contains(u.Call.Args, r) {
				return false
			}
			calls = append(calls, u)
		default:
			return false
		}
	}
	for _, rt := range ssaflow.Returns(s.Parent()) {
		if !flow.MayFollow(s, rt) {
			continue
		}
		if !slices.ContainsFunc(calls, func(cr *ssa.Call) bool { return flow.Dominates(cr, rt) }) {
			return false
		}
	}
	return true
}

package conclosed

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
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

// joinedByResult reports whether g, a literal of the test handed to a
// helper that runs it on a goroutine of its own (g's Site is the call of
// the helper), is joined by a function the helper returns, which the test
// calls before it returns (cmd/go's lockedfile tests: `wait :=
// mustBlock(t, func() { ... t.Errorf(...) })`, then `wait(t)`). The
// helper, a named function of the package whose every call the package
// shows, hands the parameter it gets the literal in to one `go`
// statement's literal alone, outside loops, which calls it and then
// closes a done channel of the helper's invocation, last; the helper
// returns a literal that receives from that channel on every path to its
// return (receivesFor); and the test calls that result on every path to
// its returns (callsResultBeforeReturns).
func (c *checker) joinedByResult(g *goroutines.Context) bool {
	s, ok := g.Site.(*ssa.Call)
	if !ok || g.Kind != goroutines.Detached {
		return false
	}
	h := callgraph.StaticCallee(&s.Call)
	if h == nil || h.Parent() != nil || h.Object() == nil || h.Object().Exported() || len(c.env.Goroutines.CallGraph.Callers(h)) == 0 {
		return false
	}
	arg := slices.IndexFunc(s.Call.Args, func(a ssa.Value) bool {
		mc, ok := a.(*ssa.MakeClosure)
		return ok && mc.Fn == g.Entry
	})
	if arg < 0 || arg >= len(h.Params) {
		return false
	}
	gmc := runsParamLast(h, h.Params[arg])
	if gmc == nil || c.env.Goroutines.Flow.InLoop(gmc) {
		return false
	}
	for _, ret := range ssaflow.Returns(h) {
		for i, v := range ret.Results {
			mc, ok := resultClosure(v, h)
			if !ok {
				continue
			}
			if fn := mc.Fn.(*ssa.Function); fn.Parent() == h && c.receivesFor(fn, mc, gmc) {
				return c.callsResultBeforeReturns(s, i, len(ret.Results)) && !c.exitsFirst(s, i, len(ret.Results))
			}
		}
	}
	return false
}

// exitsFirst reports whether the test may end before it calls the result
// number i (of n) of s, the call of the helper: a call of s's function
// that may stop the test (a method of testing that never returns, t.Fatal
// and friends, or any call that t, the function's testing parameter, is
// handed to, which may make one: a second helper's own Fatal) can run
// after s without a call of the result before it. The goroutine then
// outlives the test (cmd/go's TestSpuriousEDEADLK: the second mustBlock's
// Fatal skips the first one's wait).
func (c *checker) exitsFirst(s *ssa.Call, i, n int) bool {
	fn := s.Parent()
	t := testingParam(fn)
	r := resultOf(s, i, n)
	var waits []ssa.Instruction
	if r != nil {
		for _, u := range *r.Referrers() {
			if call, ok := u.(*ssa.Call); ok && call.Call.Value == r {
				waits = append(waits, call)
			}
		}
	}
	flow := c.env.Goroutines.Flow
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(ssa.CallInstruction)
			if !ok || instr == ssa.Instruction(s) || slices.Contains(waits, instr) {
				continue
			}
			stops := model.NoReturn(model.CalleeName(call.Common()))
			if callee := call.Common().StaticCallee(); !stops && t != nil && (callee == nil || callee.Pkg == nil || callee.Pkg.Pkg.Path() != "testing") {
				stops = slices.ContainsFunc(call.Common().Args, func(a ssa.Value) bool { return fromValue(a, t) })
			}
			if stops && flow.MayFollowAvoidingAny(s, instr, waits) {
				return true
			}
		}
	}
	return false
}

// fromValue reports whether v is root, a parameter, or an address within
// it (&t.common for a method of testing.common on t), also through the
// cell of a closure that captures the parameter.
func fromValue(v ssa.Value, root *ssa.Parameter) bool {
	for {
		switch x := v.(type) {
		case *ssa.FieldAddr:
			v = x.X
			continue
		case *ssa.UnOp:
			if x.Op == token.MUL {
				v = x.X
				continue
			}
		case *ssa.Alloc:
			stored := ssavalue.StoresTo(x)
			return len(stored) == 1 && stored[0] == ssa.Value(root)
		}
		return v == ssa.Value(root)
	}
}

// resultClosure returns the function literal that v, a result h returns,
// is: made there, or held by a named result that h stores it to once (a
// function with a defer returns its named results from their cells).
func resultClosure(v ssa.Value, h *ssa.Function) (*ssa.MakeClosure, bool) {
	if load, ok := v.(*ssa.UnOp); ok && load.Op == token.MUL {
		if cell, ok := load.X.(*ssa.Alloc); ok && cell.Parent() == h && ssavalue.OnlyOwnerWrites(cell) {
			if stored := ssavalue.StoresTo(cell); len(stored) == 1 {
				v = stored[0]
			}
		}
	}
	mc, ok := v.(*ssa.MakeClosure)
	return mc, ok
}

// runsParamLast returns the literal that a `go` statement of h starts
// when h's parameter p goes nowhere but into it (bound, or stored once in
// the variable's cell that the literal captures), and the literal only
// calls it; nil otherwise.
func runsParamLast(h *ssa.Function, p *ssa.Parameter) *ssa.MakeClosure {
	var held ssa.Value = p // what the literal captures: p, or its cell
	refs := *p.Referrers()
	if len(refs) != 1 {
		return nil
	}
	if st, ok := refs[0].(*ssa.Store); ok {
		cell, ok := st.Addr.(*ssa.Alloc)
		if !ok || cell.Parent() != h {
			return nil
		}
		held, refs = cell, nil
		for _, u := range *cell.Referrers() {
			if u != st {
				refs = append(refs, u)
			}
		}
		if len(refs) != 1 {
			return nil
		}
	}
	mc, ok := refs[0].(*ssa.MakeClosure)
	if !ok || len(*mc.Referrers()) != 1 {
		return nil
	}
	if g, ok := (*mc.Referrers())[0].(*ssa.Go); !ok || g.Call.Value != mc {
		return nil
	}
	fn := mc.Fn.(*ssa.Function)
	i := slices.Index(mc.Bindings, held)
	if i < 0 {
		return nil
	}
	fv := fn.FreeVars[i]
	calledOnly := func(v ssa.Value) bool {
		for _, u := range *v.Referrers() {
			call, ok := u.(*ssa.Call)
			if !ok || call.Call.Value != v || slices.Contains(call.Call.Args, v) {
				return false
			}
		}
		return true
	}
	if held == ssa.Value(p) {
		if !calledOnly(fv) {
			return nil
		}
		return mc
	}
	for _, u := range *fv.Referrers() {
		load, ok := u.(*ssa.UnOp)
		if !ok || load.Op != token.MUL || !calledOnly(load) {
			return nil
		}
	}
	return mc
}

// receivesFor reports whether lit, a literal of the helper made by mc,
// receives on every path to its return from a done channel of the
// helper's invocation that g's literal (made by gmc) closes as its last
// action (cmd/go's lockedfile tests: mustBlock starts f on a goroutine
// that closes done after it, and returns a wait function whose select
// ends in a receive from done on each of its cases). The channel's cell
// is the helper's, stored once with a channel the helper makes, and g's
// literal does nothing with it but close it, last: once a receive of the
// wait function returns, g has run to the end of its literal. (A close
// lets every receive through, so the helper's own receives take nothing
// from the wait function.)
func (c *checker) receivesFor(lit *ssa.Function, mc, gmc *ssa.MakeClosure) bool {
	if len(lit.Blocks) == 0 {
		return false
	}
	// The channel: the cell of the helper that lit receives from.
	var cell ssa.Value
	for _, b := range lit.Blocks {
		for _, instr := range b.Instrs {
			var chans []ssa.Value
			switch x := instr.(type) {
			case *ssa.UnOp:
				if x.Op == token.ARROW {
					chans = append(chans, x.X)
				}
			case *ssa.Select:
				for _, st := range x.States {
					if st.Dir == types.RecvOnly {
						chans = append(chans, st.Chan)
					}
				}
			}
			for _, ch := range chans {
				if v := binding(lit, mc, ssaflow.ChannelVar(ch)); v != nil {
					if cell != nil && v != cell {
						return false
					}
					cell = v
				}
			}
		}
	}
	if cell == nil || !madeOnce(cell) {
		return false
	}
	i := slices.Index(gmc.Bindings, cell)
	if i < 0 {
		return false
	}
	gfn := gmc.Fn.(*ssa.Function)
	if !ssaflow.SignalsLast(gfn, gfn.FreeVars[i]) || !onlyCloses(gfn.FreeVars[i]) {
		return false
	}
	return joinsOnEveryPath(lit, func(ch ssa.Value) bool { return binding(lit, mc, ssaflow.ChannelVar(ch)) == cell })
}

// joinsOnEveryPath reports whether every path from fn's entry to one of
// its returns receives from a channel done accepts: a plain receive, or a
// select that takes its case receiving from one (go/ssa tests the chosen
// index against each case's in turn; a case with an empty body jumps to
// the select's end, shared with the other cases, so the case is an edge,
// not an instruction).
func joinsOnEveryPath(fn *ssa.Function, done func(ssa.Value) bool) bool {
	// taken returns the block a select's case receiving from done
	// leads to from b, when b ends in that case's index test.
	taken := func(b *ssa.BasicBlock) *ssa.BasicBlock {
		ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			return nil
		}
		cmp, ok := ifi.Cond.(*ssa.BinOp)
		if !ok || cmp.Op != token.EQL {
			return nil
		}
		ex, ok := cmp.X.(*ssa.Extract)
		k, ok2 := cmp.Y.(*ssa.Const)
		if !ok || !ok2 || ex.Index != 0 {
			return nil
		}
		sel, ok := ex.Tuple.(*ssa.Select)
		if !ok {
			return nil
		}
		idx := int(k.Int64())
		if idx < 0 || idx >= len(sel.States) || sel.States[idx].Dir != types.RecvOnly || !done(sel.States[idx].Chan) {
			return nil
		}
		return b.Succs[0]
	}
	seen := make(map[*ssa.BasicBlock]bool)
	stack := []*ssa.BasicBlock{fn.Blocks[0]}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b] {
			continue
		}
		seen[b] = true
		joined := false
		for _, instr := range b.Instrs {
			if r, ok := instr.(*ssa.UnOp); ok && r.Op == token.ARROW && done(r.X) {
				joined = true
				break
			}
			if _, ok := instr.(*ssa.Return); ok {
				return false
			}
		}
		if joined {
			continue
		}
		skip := taken(b)
		for _, succ := range b.Succs {
			if succ != skip {
				stack = append(stack, succ)
			}
		}
	}
	return true
}

// madeOnce reports whether cell, a variable of its function, is stored
// once, with a channel that function makes.
func madeOnce(cell ssa.Value) bool {
	a, ok := cell.(*ssa.Alloc)
	if !ok {
		return false
	}
	stored := ssavalue.StoresTo(a)
	if len(stored) != 1 || !ssavalue.OnlyOwnerWrites(a) {
		return false
	}
	mk, ok := stored[0].(*ssa.MakeChan)
	return ok && mk.Parent() == a.Parent()
}

// onlyCloses reports whether the goroutine's literal uses its free
// variable fv, a channel's cell, only to load the channel and close it.
func onlyCloses(fv *ssa.FreeVar) bool {
	for _, u := range *fv.Referrers() {
		load, ok := u.(*ssa.UnOp)
		if !ok || load.Op != token.MUL {
			return false
		}
		for _, lu := range *load.Referrers() {
			call, ok := lu.(ssa.CallInstruction)
			if !ok {
				return false
			}
			if b, ok := call.Common().Value.(*ssa.Builtin); !ok || b.Name() != "close" {
				return false
			}
		}
	}
	return true
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
	r := resultOf(s, i, n)
	if r == nil {
		return false // the result is dropped
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

// resultOf returns the value of the call s's result number i (of n): s
// itself for one result, its one Extract otherwise; nil when the result
// is dropped (or extracted twice).
func resultOf(s *ssa.Call, i, n int) ssa.Value {
	if n == 1 {
		return s
	}
	var r ssa.Value
	for _, u := range *s.Referrers() {
		if x, ok := u.(*ssa.Extract); ok && x.Index == i {
			if r != nil {
				return nil
			}
			r = x
		}
	}
	return r
}

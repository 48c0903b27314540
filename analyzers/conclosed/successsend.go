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
)

// beforeOrHung reports whether call, a testing call on the goroutine of
// g, runs before the test returns or on a path where the test never
// returns, because the goroutine's success is a send the test waits for
// (go-kit's testServer):
//
//	response := make(chan *http.Response)
//	go func() {
//		resp, err := http.Get(server.URL)
//		if err != nil {
//			t.Error(err)
//			return
//		}
//		response <- resp
//	}()
//	return response // the test returns only after <-response
//
// It holds when the goroutine's function (started once: g is not Multi)
// makes the only send on a channel made by the function that starts it,
// that send cannot run before call (no path leads from it to call), the
// channel goes nowhere but to that send, to local variables, to the
// closure's captured variables, to the starter's results and to
// receives, nothing closes it (but a Cleanup that the starter, a test
// keeping the channel, registers on its T: the close runs after the test
// returned), and every static caller of the starter
// (or the starter itself, when it is a test) receives from it on every
// path from the call (the go statement) to each of its returns and to
// each call that may end it early (t.Fatal and the other calls that do
// not return, and any call handed a testing value, which may call them).
// Then, if call runs, either the send comes after it, and the test's
// receive and return after that, or the send never comes, and the test,
// waiting on a channel no one else sends on or closes, never returns (go
// test's -timeout ends the run): call is not after the test's return.
func (c *checker) beforeOrHung(call *ssa.Call, g *goroutines.Context) bool {
	gf := g.Entry
	if g.Multi || g.Site == nil || gf == nil || call.Parent() != gf || gf.Parent() == nil {
		return false
	}
	starter := g.Site.Parent()
	var send *ssa.Send
	for _, b := range gf.Blocks {
		for _, in := range b.Instrs {
			s, ok := in.(*ssa.Send)
			if !ok {
				continue
			}
			if send != nil {
				return false // more than one send: not the one success send
			}
			send = s
		}
	}
	if send == nil || reachesInstr(send, call) {
		return false
	}
	mk, ok := madeChan(send.Chan, gf)
	if !ok || mk.Parent() != starter {
		return false
	}
	flow, ok := chanFlow(mk, send)
	if !ok {
		return false
	}
	if len(flow.results) == 0 {
		// The starter keeps the channel: it must be the test's own wait.
		recv := flow.receives[starter]
		return testingParam(starter) != nil && len(recv) > 0 && receivesBeforeExit(starter, g.Site, recv)
	}
	if endsEarly(starter, g.Site) {
		return false // the starter may end the test before it returns the channel
	}
	callers := c.env.Goroutines.CallGraph.Callers(starter)
	if len(callers) == 0 || len(c.env.Goroutines.RefSites(starter)) > 0 || !onlyCalled(c.env.Goroutines.Funcs(), starter) {
		return false
	}
	for _, edge := range callers {
		site, ok := edge.Site.(*ssa.Call)
		if !ok || callgraph.StaticCallee(&site.Call) != starter {
			return false
		}
		recv, ok := resultReceives(site, flow.results)
		if !ok || len(recv) == 0 || !receivesBeforeExit(site.Parent(), site, recv) {
			return false
		}
	}
	return true
}

// reachesInstr reports whether a path leads from just after from to to
// in their function.
func reachesInstr(from, to ssa.Instruction) bool {
	seen := map[*ssa.BasicBlock]bool{}
	start := from.Block()
	for _, in := range start.Instrs[slices.Index(start.Instrs, from)+1:] {
		if in == to {
			return true
		}
	}
	work := slices.Clone(start.Succs)
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[b] {
			continue
		}
		seen[b] = true
		if slices.Contains(b.Instrs, to) {
			return true
		}
		work = append(work, b.Succs...)
	}
	return false
}

// madeChan returns the make of the channel that v, in the closure fn,
// is: a load of a captured variable whose one store puts the make there,
// or the make captured by value.
func madeChan(v ssa.Value, fn *ssa.Function) (*ssa.MakeChan, bool) {
	if l, ok := v.(*ssa.UnOp); ok && l.Op == token.MUL {
		v = l.X
	}
	fv, ok := v.(*ssa.FreeVar)
	if !ok {
		return nil, false
	}
	idx := slices.Index(fn.FreeVars, fv)
	var bound ssa.Value
	for _, mc := range closuresOf(fn) {
		if idx >= len(mc.Bindings) || bound != nil && mc.Bindings[idx] != bound {
			return nil, false
		}
		bound = mc.Bindings[idx]
	}
	switch b := bound.(type) {
	case *ssa.MakeChan:
		return b, true
	case *ssa.Alloc:
		var mk *ssa.MakeChan
		for _, st := range storesTo(b) {
			m, ok := st.Val.(*ssa.MakeChan)
			if !ok || mk != nil {
				return nil, false
			}
			mk = m
		}
		return mk, mk != nil
	}
	return nil, false
}

// closuresOf returns the MakeClosure instructions that make fn.
func closuresOf(fn *ssa.Function) []*ssa.MakeClosure {
	var out []*ssa.MakeClosure
	if fn.Parent() == nil {
		return nil
	}
	for _, b := range fn.Parent().Blocks {
		for _, in := range b.Instrs {
			if mc, ok := in.(*ssa.MakeClosure); ok && mc.Fn == fn {
				out = append(out, mc)
			}
		}
	}
	return out
}

// storesTo returns the stores to the local cell a.
func storesTo(a *ssa.Alloc) []*ssa.Store {
	var out []*ssa.Store
	for _, u := range *a.Referrers() {
		if st, ok := u.(*ssa.Store); ok && st.Addr == a {
			out = append(out, st)
		}
	}
	return out
}

// chanUses is where a channel goes: the receives from it, by function,
// and the result indexes of the starter that return it.
type chanUses struct {
	receives map[*ssa.Function][]ssa.Instruction
	results  []int
	// cleanupClose is set when a Cleanup of the starter closes the
	// channel (see cleanupCloses).
	cleanupClose bool
}

// chanFlow follows the channel mk through local variables, captured
// variables, conversions to a receive-only channel and the starter's
// returns; ok is false when it goes anywhere else (a call, a field, a
// close but one in a Cleanup of the starter, another send than send).
func chanFlow(mk *ssa.MakeChan, send *ssa.Send) (chanUses, bool) {
	u := chanUses{receives: map[*ssa.Function][]ssa.Instruction{}}
	seen := map[ssa.Value]bool{}
	var visit func(v ssa.Value) bool
	visitCell := func(cell ssa.Value) bool {
		for _, r := range *cell.Referrers() {
			switch r := r.(type) {
			case *ssa.Store:
				if r.Addr != cell {
					return false
				}
			case *ssa.UnOp:
				if r.Op != token.MUL || !visit(r) {
					return false
				}
			case *ssa.MakeClosure:
				i := slices.Index(r.Bindings, cell)
				fn := r.Fn.(*ssa.Function)
				if i < 0 || !visit(fn.FreeVars[i]) {
					return false
				}
			case *ssa.DebugRef:
			default:
				return false
			}
		}
		return true
	}
	visit = func(v ssa.Value) bool {
		if seen[v] {
			return true
		}
		seen[v] = true
		if _, ok := v.(*ssa.FreeVar); ok {
			if _, isPtr := v.Type().Underlying().(*types.Pointer); isPtr {
				return visitCell(v)
			}
		}
		for _, r := range *v.Referrers() {
			switch r := r.(type) {
			case *ssa.DebugRef:
			case *ssa.Send:
				if r != send || r.X == v {
					return false
				}
			case *ssa.UnOp:
				if r.Op != token.ARROW {
					return false
				}
				u.receives[r.Parent()] = append(u.receives[r.Parent()], r)
			case *ssa.ChangeType: // to a receive-only channel
				if !visit(r) {
					return false
				}
			case *ssa.Store:
				cell, ok := r.Addr.(*ssa.Alloc)
				if !ok || r.Val != v || !visitCell(cell) {
					return false
				}
			case *ssa.MakeClosure:
				i := slices.Index(r.Bindings, v)
				fn := r.Fn.(*ssa.Function)
				if i >= 0 && r.Parent() == mk.Parent() && cleanupCloses(r, fn.FreeVars[i]) {
					u.cleanupClose = true
					continue
				}
				if i < 0 || !visit(fn.FreeVars[i]) {
					return false
				}
			case *ssa.Return:
				if r.Parent() != mk.Parent() {
					return false
				}
				for i, x := range r.Results {
					if x == v && !slices.Contains(u.results, i) {
						u.results = append(u.results, i)
					}
				}
			default:
				return false
			}
		}
		return true
	}
	if !visit(mk) || u.cleanupClose && len(u.results) > 0 {
		return u, false
	}
	// The starter returns it from every return, or from none.
	if len(u.results) > 0 {
		for _, ret := range ssaflow.Returns(mk.Parent()) {
			for _, i := range u.results {
				if !seen[ret.Results[i]] {
					return u, false
				}
			}
		}
	}
	return u, true
}

// cleanupCloses reports whether the closure mk does nothing with its
// captured channel fv but close it, and is made only to be handed to a
// Cleanup on the testing parameter of the function that makes it: the
// close runs after that test has ended, so after every receive that
// function makes before it returns, which then takes the success send
// or waits for ever (gue's TestShutdown: `t.Cleanup(func() {
// close(chDone) })` beside `<-chDone`). chanFlow allows it only for a
// starter that keeps the channel and receives from it itself.
func cleanupCloses(mk *ssa.MakeClosure, fv *ssa.FreeVar) bool {
	refs := *mk.Referrers()
	if len(refs) != 1 {
		return false
	}
	call, ok := refs[0].(*ssa.Call)
	if !ok || !model.Cleanup(model.CalleeName(&call.Call)) || !slices.Contains(call.Call.Args, ssa.Value(mk)) ||
		!callsOn(call, testingParam(mk.Parent())) {
		return false
	}
	for _, r := range *fv.Referrers() {
		switch r := r.(type) {
		case *ssa.DebugRef:
		case *ssa.Call:
			if b, ok := r.Call.Value.(*ssa.Builtin); !ok || b.Name() != "close" || len(r.Call.Args) != 1 || r.Call.Args[0] != fv {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// resultReceives returns the receives in site's function from the
// channel that the call returns as one of results; ok is false when the
// result goes anywhere else.
func resultReceives(site *ssa.Call, results []int) ([]ssa.Instruction, bool) {
	var vals []ssa.Value
	if len(results) == 1 && site.Call.Signature().Results().Len() == 1 {
		vals = []ssa.Value{site}
	} else {
		for _, r := range *site.Referrers() {
			if x, ok := r.(*ssa.Extract); ok && slices.Contains(results, x.Index) {
				vals = append(vals, x)
			}
		}
	}
	var out []ssa.Instruction
	for _, v := range vals {
		for _, r := range *v.Referrers() {
			switch r := r.(type) {
			case *ssa.DebugRef:
			case *ssa.UnOp:
				if r.Op != token.ARROW {
					return nil, false
				}
				out = append(out, r)
			default:
				return nil, false
			}
		}
	}
	return out, len(out) > 0
}

// receivesBeforeExit reports whether every path in fn from from to a
// return, or to a call that may end the test early (a call that does not
// return, or one handed a testing value), passes one of recv.
func receivesBeforeExit(fn *ssa.Function, from ssa.Instruction, recv []ssa.Instruction) bool {
	return !exitBefore(fn, from, recv, true)
}

// endsEarly reports whether a path in fn from from reaches a call that
// may end the test (see receivesBeforeExit).
func endsEarly(fn *ssa.Function, from ssa.Instruction) bool {
	return exitBefore(fn, from, nil, false)
}

// exitBefore reports whether a path in fn from just after from reaches a
// call that may end the test, or a return when rets is set, without
// passing one of recv.
func exitBefore(fn *ssa.Function, from ssa.Instruction, recv []ssa.Instruction, rets bool) bool {
	seen := map[*ssa.BasicBlock]bool{}
	type at struct {
		b *ssa.BasicBlock
		i int
	}
	work := []at{{from.Block(), slices.Index(from.Block().Instrs, from) + 1}}
	for len(work) > 0 {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		stopped := false
		for _, in := range w.b.Instrs[w.i:] {
			if slices.Contains(recv, in) {
				stopped = true
				break
			}
			switch in := in.(type) {
			case *ssa.Return:
				if rets {
					return true
				}
			case ssa.CallInstruction:
				if _, isGo := in.(*ssa.Go); !isGo && mayEndTest(in.Common()) {
					return true
				}
			}
		}
		if stopped {
			continue
		}
		for _, s := range w.b.Succs {
			if !seen[s] {
				seen[s] = true
				work = append(work, at{s, 0})
			}
		}
	}
	return false
}

// mayEndTest reports whether the call cc may end the test's goroutine:
// a function that does not return (t.Fatal, runtime.Goexit), or a call
// handed a testing value (a helper, testify's require), which may call
// one.
func mayEndTest(cc *ssa.CallCommon) bool {
	if model.NoReturn(model.CalleeName(cc)) {
		return true
	}
	vals := cc.Args
	if cc.IsInvoke() {
		vals = append([]ssa.Value{cc.Value}, vals...)
	}
	for _, a := range vals {
		if isTestingType(a.Type()) {
			return true
		}
	}
	return false
}

// isTestingType reports whether t is *testing.T, *testing.B, *testing.F
// or testing.TB.
func isTestingType(t types.Type) bool {
	switch types.TypeString(t, nil) {
	case "*testing.T", "*testing.B", "*testing.F", "testing.TB":
		return true
	}
	return false
}

// onlyCalled reports whether the package's code uses fn only as the
// callee of calls, never as a value.
func onlyCalled(funcs []*ssa.Function, fn *ssa.Function) bool {
	for _, g := range funcs {
		for _, b := range g.Blocks {
			for _, instr := range b.Instrs {
				for i, op := range instr.Operands(nil) {
					if *op != ssa.Value(fn) {
						continue
					}
					if c, isCall := instr.(ssa.CallInstruction); !isCall || i != 0 || c.Common().Value != ssa.Value(fn) {
						return false
					}
				}
			}
		}
	}
	return true
}

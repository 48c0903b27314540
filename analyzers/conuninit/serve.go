package conuninit

import (
	"fmt"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
)

// maxSenderSearch bounds the functions that sendsRequest visits from one
// call; a search that reaches the bound answers that the call may send.
const maxSenderSearch = 500

// A request is what may send a request to the test server that serves a
// handler before a write of its starter (see requestBefore).
type request struct {
	// at is the instruction that may send it or hand the server's
	// address on, nil when the handler's server is not the starter's own
	// test server (then the registration itself is the start).
	at ssa.Instruction
	// assume is the assumption that the request is not sent before the
	// write, or "" when nothing rules it out.
	assume string
}

// requestBefore decides whether the handler registered at site, a
// ServeMux.HandleFunc call of the function that writes at w, can serve a
// request before w. A handler runs only for a request, so its goroutines
// start at the first request that reaches it, not at its registration.
// When the mux is the starter's own (made by http.NewServeMux in the same
// function), used only to register handlers and to build httptest
// servers, those servers are the only way in, and a request needs their
// address: a fresh loopback port, which only code given the server (or a
// value derived from it: its URL, listener, client, a request built on
// them) can learn. The check follows those values through the function,
// flow-insensitively, and judges the instructions that may run before w:
//
//   - a go statement, or a call of a RequestSenders function or of code
//     of the package that calls one (through the call graph), handed such
//     a value: the request may come first, at the default confidence;
//   - another call handed one, or a store of one where the function's own
//     allocations do not hold it (a field of a parameter's object, a
//     global), a send or a map update: the report assumes that the code
//     given the address sends no request before the write;
//   - otherwise the handler cannot run before w (false).
//
// The rule assumes that no other process sends a request to the port in
// the short time between the server's start and w. Any other mux (a
// parameter, a global, http.DefaultServeMux, one handed to another call
// or served by http.Serve on a known address) keeps the registration as
// the start, a request of the default confidence with no instruction.
func (c *checker) requestBefore(site ssa.CallInstruction, w ssa.Instruction) (request, bool) {
	key := [2]ssa.Instruction{site, w}
	if a, ok := c.requests[key]; ok {
		return a.req, a.may
	}
	req, may := c.findRequest(site, w)
	c.requests[key] = answer{req, may}
	return req, may
}

// An answer is a cached result of requestBefore.
type answer struct {
	req request
	may bool
}

// findRequest computes requestBefore.
func (c *checker) findRequest(site ssa.CallInstruction, w ssa.Instruction) (request, bool) {
	servers, ok := ownTestServers(site)
	if !ok {
		return request{}, true
	}
	fn := site.Parent()
	flow := c.env.Goroutines.Flow
	derived := make(map[ssa.Value]bool)
	var work []ssa.Value
	add := func(v ssa.Value) {
		if v != nil && !derived[v] {
			derived[v] = true
			work = append(work, v)
		}
	}
	for _, s := range servers {
		add(s)
	}
	var low request
	for len(work) > 0 {
		v := work[0]
		work = work[1:]
		refs := v.Referrers()
		if refs == nil {
			continue
		}
		for _, ref := range *refs {
			before := flow.MayFollow(ref, w)
			switch ref := ref.(type) {
			case *ssa.DebugRef, *ssa.Defer, *ssa.If, *ssa.Return, *ssa.Panic:
				// A deferred call, a return or a panic runs after w.
			case *ssa.Go:
				if before {
					return request{at: ref}, true
				}
			case *ssa.Call:
				req, sends := c.call(ref, derived, add)
				if !before {
					continue
				}
				if sends {
					return request{at: ref}, true
				}
				if req.assume != "" && low.at == nil {
					low = req
				}
			case *ssa.Store:
				if ref.Val != v {
					continue // a write into the server or a derived place
				}
				if places, ok := localBase(ref.Addr, fn); ok {
					for _, a := range places {
						add(a)
					}
					continue
				}
				if before && low.at == nil {
					low = c.published(ref, site)
				}
			case *ssa.Send, *ssa.MapUpdate:
				if before && low.at == nil {
					low = c.published(ref, site)
				}
			case *ssa.Select:
				for _, st := range ref.States {
					if st.Send == v && before && low.at == nil {
						low = c.published(ref, site)
					}
				}
				add(ref)
			case ssa.Value:
				add(ref)
			}
		}
	}
	if low.at != nil {
		return low, true
	}
	return request{}, false
}

// call judges a call handed a value derived from the server: it reports
// whether it may send a request (a RequestSenders function, or package
// code that calls one), and otherwise the assumption that it sends none,
// "" for the AddressViews and MuxRegistrations calls, which send none.
// It derives the call's result, and, from a call that is not a view, the
// values it was handed, where it may have stored the address.
func (c *checker) call(call *ssa.Call, derived map[ssa.Value]bool, add func(ssa.Value)) (request, bool) {
	common := call.Common()
	if _, ok := common.Value.(*ssa.Builtin); ok {
		add(call) // append, a conversion of the slice: derived
		return request{}, false
	}
	name := model.CalleeName(common)
	switch {
	case model.MuxRegistrations[name]:
		return request{}, false
	case model.AddressViews[name]:
		add(call)
		return request{}, false
	case model.RequestSenders[name]:
		return request{}, true
	}
	add(call)
	var code []*ssa.Function
	if callee := common.StaticCallee(); callee != nil && len(callee.Blocks) > 0 {
		code = append(code, callee)
	}
	for _, op := range append([]ssa.Value{common.Value}, common.Args...) {
		if !derived[op] {
			continue
		}
		if mc, ok := op.(*ssa.MakeClosure); ok {
			code = append(code, mc.Fn.(*ssa.Function))
		}
	}
	for _, op := range common.Args {
		if places, ok := localBase(op, call.Parent()); ok && pointerLike(op) {
			for _, a := range places {
				add(a)
			}
		}
	}
	if c.sendsRequest(code) {
		return request{}, true
	}
	what := name
	if callee := common.StaticCallee(); callee != nil {
		what = source.FuncName(callee)
	}
	if what == "" {
		what = "the function called"
	}
	return request{at: call, assume: fmt.Sprintf("that %s, handed the test server or its address at %s, sends it no request before the set",
		what, c.where(call.Pos(), call.Parent().Pos()))}, false
}

// published returns the assumption of a store, send or map update at
// ref that puts a value derived from the server where code other than
// the function's own may read it.
func (c *checker) published(ref ssa.Instruction, site ssa.CallInstruction) request {
	return request{at: ref, assume: fmt.Sprintf("that no code sends the test server a request through the address stored at %s before the set",
		c.where(ref.Pos(), site.Pos()))}
}

// sendsRequest reports whether one of fns, or a function of the package
// that they call (through the call graph), calls a RequestSenders
// function, or whether the search passes maxSenderSearch functions.
func (c *checker) sendsRequest(fns []*ssa.Function) bool {
	cg := c.env.Goroutines.CallGraph
	seen := make(map[*ssa.Function]bool)
	for len(fns) > 0 {
		fn := fns[0]
		fns = fns[1:]
		if seen[fn] || len(fn.Blocks) == 0 {
			continue
		}
		if seen[fn] = true; len(seen) > maxSenderSearch {
			return true
		}
		for _, blk := range fn.Blocks {
			for _, instr := range blk.Instrs {
				if call, ok := instr.(ssa.CallInstruction); ok && model.RequestSenders[model.CalleeName(call.Common())] {
					return true
				}
			}
		}
		for _, e := range cg.Out(fn) {
			fns = append(fns, e.Callee.Func)
		}
	}
	return false
}

// ownTestServers returns the httptest servers that serve site's mux,
// when the mux is made by http.NewServeMux in site's function and used
// there only to register handlers and, as an http.Handler, to build
// httptest servers (model.TestServers); otherwise false.
func ownTestServers(site ssa.CallInstruction) ([]ssa.Value, bool) {
	common := site.Common()
	if model.CalleeName(common) != "(*net/http.ServeMux).HandleFunc" || len(common.Args) == 0 {
		return nil, false
	}
	mux, ok := common.Args[0].(*ssa.Call)
	if !ok || mux.Parent() != site.Parent() || model.CalleeName(mux.Common()) != "net/http.NewServeMux" {
		return nil, false
	}
	var servers []ssa.Value
	for _, ref := range *mux.Referrers() {
		switch ref := ref.(type) {
		case *ssa.DebugRef:
		case *ssa.Call:
			if rc := ref.Common(); !model.MuxRegistrations[model.CalleeName(rc)] || rc.Args[0] != mux {
				return nil, false
			}
		case *ssa.MakeInterface:
			for _, use := range *ref.Referrers() {
				call, ok := use.(*ssa.Call)
				if _, debug := use.(*ssa.DebugRef); debug {
					continue
				}
				if !ok || !model.TestServers[model.CalleeName(call.Common())] || len(call.Common().Args) != 1 {
					return nil, false
				}
				servers = append(servers, call)
			}
		default:
			return nil, false
		}
	}
	return servers, len(servers) > 0
}

// localBase returns the allocations of fn that addr points into, through
// field and element addresses, when there are such: what is stored there
// stays in fn's own variables, followed as their referrers. An address
// loaded from a variable of fn (`h := &state{}`, captured by a literal,
// lives in a cell) points into the one allocation stored there, when the
// cell is stored only that allocation (see onlyStored); both the cell and
// the allocation are returned, so that loads of the cell are followed
// too.
func localBase(addr ssa.Value, fn *ssa.Function) ([]ssa.Value, bool) {
	for {
		switch a := addr.(type) {
		case *ssa.FieldAddr:
			addr = a.X
		case *ssa.IndexAddr:
			addr = a.X
		case *ssa.UnOp:
			cell, ok := a.X.(*ssa.Alloc)
			if a.Op != token.MUL || !ok || cell.Parent() != fn {
				return nil, false
			}
			obj, ok := onlyStored(cell)
			if !ok {
				return nil, false
			}
			return []ssa.Value{obj, cell}, true
		case *ssa.Alloc:
			return []ssa.Value{a}, a.Parent() == fn
		default:
			return nil, false
		}
	}
}

// onlyStored returns the allocation of cell's function that is the one
// value stored in cell: one store, in the function itself, and no other
// use of the cell's address than loads, here or in the function literals
// that capture it (ssavalue.Loaders).
func onlyStored(cell *ssa.Alloc) (*ssa.Alloc, bool) {
	stores := ssavalue.Stores(cell)
	if _, escapes := ssavalue.Loaders(cell); escapes || len(stores) != 1 || stores[0].Parent() != cell.Parent() {
		return nil, false
	}
	obj, ok := stores[0].Val.(*ssa.Alloc)
	return obj, ok && obj.Parent() == cell.Parent()
}

// pointerLike reports whether a call handed v may write through it.
func pointerLike(v ssa.Value) bool {
	switch v.Type().Underlying().(type) {
	case *types.Pointer, *types.Slice:
		return true
	}
	return false
}

package goroutines

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
)

// Starts returns the instructions that every goroutine of c runs after,
// one of them for each goroutine: the serve calls that serve an HTTP
// handler, when the function that roots it hands the handler to nothing
// else (see serveCalls); otherwise Start, or nothing when Start is nil.
func (c *Context) Starts() []ssa.Instruction {
	if len(c.serves) > 0 {
		return c.serves
	}
	if s := c.Start(); s != nil {
		return []ssa.Instruction{s}
	}
	return nil
}

// StartApart reports whether the goroutines of cb that code of context pc
// starts at start never run while code of context ca runs, for the
// reasons MayOverlap gives for two contexts, those goroutines taken to
// belong to pc's test, or to no test. A context whose goroutines several
// starters start (an HTTP handler that the package's API entry serves,
// and each test serves on a test server of its own) may thus overlap none
// of the code of ca, though its goroutines, taken together, overlap all
// of it:
//
//   - pc is the Caller context and start is in code the package's
//     initializer does not reach, while ca belongs to a test: in a test
//     binary that code (an API entry no test calls) does not run;
//   - pc's goroutines are only the package's callers' (Context.outside)
//     and ca belongs to a test, or the other way round;
//   - ca is the Caller context and pc belongs to a test: in a test binary
//     the Caller's code is the initializer's, which runs before the tests;
//   - cb is an HTTP handler, and pc and ca belong to two tests that do
//     not both run in parallel, pc's test serving handlers only on test
//     servers that it closes (ClosesServers): Close returns once every
//     request has been handled, before the test ends. (Goroutines that a
//     helper several tests call starts are otherwise taken to outlive
//     the test that called it, as a leaked goroutine would.)
func (r *Result) StartApart(ca, pc, cb *Context, start ssa.Instruction) bool {
	switch {
	case ca == pc:
		return false
	case pc.Index == 0:
		return ca.Test != nil && !r.init[start.Parent()]
	case ca.Index == 0:
		return pc.Test != nil
	case pc.outside:
		return ca.Test != nil
	case ca.outside:
		return pc.Test != nil
	}
	return cb.Kind == Handler && pc.Test != nil && ca.Test != nil && pc.Test != ca.Test &&
		!(pc.TestParallel && ca.TestParallel) && r.closes[pc.Test]
}

// findClosers sets, for each test that some context belongs to, whether
// it closes its servers (see closesServers), in a package with HTTP
// handlers: each test's walk of the code it reaches is paid only there.
func (b *builder) findClosers() {
	b.res.closes = make(map[*ssa.Function]bool)
	if !slices.ContainsFunc(b.res.Contexts, func(c *Context) bool { return c.Kind == Handler }) {
		return // StartApart asks only about handlers
	}
	for _, c := range b.res.Contexts {
		if t := c.Test; t != nil {
			if _, done := b.res.closes[t]; !done {
				b.res.closes[t] = b.closesServers(t)
			}
		}
	}
}

// closesServers reports whether the code that test reaches (by calls, go
// statements and the function values it makes) serves HTTP handlers only
// on httptest servers, at least one, each closed by a call that the
// function making it defers (`ts := httptest.NewServer(mux); defer
// ts.Close()`): no other call that serves (model.ServeCalls,
// model.ServerServes), and no registration on http.DefaultServeMux or on a
// mux loaded from a variable or a field, which a server started elsewhere
// (by TestMain, say) may serve.
func (b *builder) closesServers(test *ssa.Function) bool {
	seen := make(map[*ssa.Function]bool)
	work := []*ssa.Function{test}
	servers := 0
	for len(work) > 0 {
		fn := work[len(work)-1]
		work = work[:len(work)-1]
		if fn == nil || seen[fn] {
			continue
		}
		seen[fn] = true
		for _, e := range b.res.CallGraph.Out(fn) {
			work = append(work, e.Callee.Func)
		}
		work = append(work, b.refs[fn]...)
		for _, blk := range fn.Blocks {
			for _, instr := range blk.Instrs {
				call, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				common := call.Common()
				name := model.CalleeName(common)
				_, serves := model.ServeCalls[name]
				switch {
				case serves || model.ServerServes[name] || name == "net/http.HandleFunc" || name == "net/http.Handle":
					return false
				case model.MuxRegistrations[name]:
					if len(common.Args) == 0 {
						return false
					}
					if load, ok := common.Args[0].(*ssa.UnOp); ok && load.Op == token.MUL {
						return false
					}
				case model.TestServers[name]:
					v, ok := call.(*ssa.Call)
					if !ok || !closedByDefer(v) {
						return false
					}
					servers++
				}
			}
		}
	}
	return servers > 0
}

// closedByDefer reports whether the function that makes the test server
// srv defers its Close: on srv itself, or on a load of the variable that
// holds it, when a closure captures it (`defer ts.Close()`, with ts used
// in a helper literal), the variable stored nothing else.
func closedByDefer(srv *ssa.Call) bool {
	isClose := func(ref ssa.Instruction, v ssa.Value) bool {
		d, ok := ref.(*ssa.Defer)
		return ok && model.CalleeName(d.Common()) == "(*net/http/httptest.Server).Close" &&
			len(d.Common().Args) == 1 && d.Common().Args[0] == v
	}
	for _, ref := range *srv.Referrers() {
		if isClose(ref, srv) {
			return true
		}
		st, ok := ref.(*ssa.Store)
		if !ok || st.Val != srv {
			continue
		}
		cell, ok := st.Addr.(*ssa.Alloc)
		if !ok || cell.Parent() != srv.Parent() || len(ssavalue.Stores(cell)) != 1 {
			continue
		}
		for _, use := range *cell.Referrers() {
			load, ok := use.(*ssa.UnOp)
			if !ok || load.Op != token.MUL || load.Referrers() == nil {
				continue
			}
			for _, lr := range *load.Referrers() {
				if isClose(lr, load) {
					return true
				}
			}
		}
	}
	return false
}

// findServes sets the serve calls of the Handler contexts (Starts).
func (b *builder) findServes() {
	for _, c := range b.res.Contexts[1:] {
		if c.Kind != Handler {
			continue
		}
		switch {
		case c.conv != nil:
			c.serves = serveCalls(c.conv.(ssa.Value))
		case c.Site != nil && model.CalleeName(c.Site.Common()) == "(*net/http.ServeMux).HandleFunc":
			if mux, ok := ownMux(c.Site.Common().Args[0], c.Site.Parent()); ok {
				c.serves = serveCalls(mux)
			}
		}
	}
}

// serveCalls returns the calls that serve the handler h (a conversion to
// http.HandlerFunc, or a mux that ownMux accepts) and start its
// goroutines, net/http's server starting every handler goroutine inside
// the call that serves (model.ServeCalls, model.ServerServes): `fill();
// http.ListenAndServe(addr, mux)` fills before every request, wherever
// the handlers were registered. It follows h through h's function only:
// conversions, registrations on a mux made there with
// http.NewServeMux, the Handler field of an http.Server allocated there,
// and the calls that serve either. Any other use (a call of a wrapper,
// a store elsewhere, a return, a serve in a `go` statement or a deferred
// one) may hand the handler to a server started earlier, or later on
// another goroutine: then nil, and the registration or conversion is
// the start. So is it when no call serves the handler.
func serveCalls(h ssa.Value) []ssa.Instruction {
	fn := h.Parent()
	var serves []ssa.Instruction
	seen := map[ssa.Value]bool{h: true}
	work := []ssa.Value{h}
	push := func(v ssa.Value) {
		if !seen[v] {
			seen[v] = true
			work = append(work, v)
		}
	}
	for len(work) > 0 {
		v := work[0]
		work = work[1:]
		if v.Referrers() == nil {
			return nil
		}
		if _, server := v.(*ssa.Alloc); server {
			ss, ok := serverUses(v)
			if !ok {
				return nil
			}
			serves = append(serves, ss...)
			continue
		}
		for _, ref := range *v.Referrers() {
			switch ref := ref.(type) {
			case *ssa.DebugRef:
			case *ssa.MakeInterface:
				push(ref)
			case *ssa.ChangeType:
				push(ref)
			case *ssa.Call:
				common := ref.Common()
				name := model.CalleeName(common)
				if i, ok := model.ServeCalls[name]; ok && len(common.Args) > i && common.Args[i] == v && !uses(common.Args[:i], v) {
					serves = append(serves, ref)
					continue
				}
				if !model.MuxRegistrations[name] || len(common.Args) != 3 || common.Args[1] == v {
					return nil
				}
				if common.Args[0] == v {
					continue // a registration of another handler on the mux
				}
				mux, ok := ownMux(common.Args[0], fn)
				if !ok {
					return nil
				}
				push(mux)
			case *ssa.Store:
				fa, ok := ref.Addr.(*ssa.FieldAddr)
				if !ok || ref.Val != v || !isServerField(fa, "Handler") {
					return nil
				}
				srv, ok := fa.X.(*ssa.Alloc)
				if !ok || srv.Parent() != fn {
					return nil
				}
				push(srv)
			default:
				return nil
			}
		}
	}
	return serves
}

// serverUses returns the serve calls made on srv, an http.Server that h's
// function allocates, when its only other uses are stores into its
// fields and calls, deferred or not, of the ServerControls methods.
func serverUses(srv ssa.Value) ([]ssa.Instruction, bool) {
	var serves []ssa.Instruction
	for _, ref := range *srv.Referrers() {
		switch ref := ref.(type) {
		case *ssa.DebugRef:
		case *ssa.FieldAddr:
			for _, use := range *ref.Referrers() {
				if st, ok := use.(*ssa.Store); !ok || st.Addr != ref {
					return nil, false
				}
			}
		case *ssa.Call, *ssa.Defer:
			// A deferred Close or Shutdown (but no deferred serve).
			common := ref.(ssa.CallInstruction).Common()
			name := model.CalleeName(common)
			if len(common.Args) == 0 || common.Args[0] != srv || uses(common.Args[1:], srv) {
				return nil, false
			}
			_, call := ref.(*ssa.Call)
			switch {
			case model.ServerServes[name] && call:
				serves = append(serves, ref)
			case model.ServerControls[name]:
			default:
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return serves, true
}

// ownMux returns v when it is a mux that fn makes with http.NewServeMux.
func ownMux(v ssa.Value, fn *ssa.Function) (ssa.Value, bool) {
	call, ok := v.(*ssa.Call)
	return call, ok && call.Parent() == fn && model.CalleeName(call.Common()) == "net/http.NewServeMux"
}

// isServerField reports whether fa addresses the named field of an
// http.Server.
func isServerField(fa *ssa.FieldAddr, name string) bool {
	ptr, ok := fa.X.Type().Underlying().(*types.Pointer)
	if !ok || typeString(ptr.Elem()) != "net/http.Server" {
		return false
	}
	st, ok := ptr.Elem().Underlying().(*types.Struct)
	return ok && st.Field(fa.Field).Name() == name
}

func uses(vs []ssa.Value, v ssa.Value) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

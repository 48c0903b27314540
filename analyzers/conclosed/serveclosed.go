package conclosed

import (
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
)

// serveClosedAssumption returns what a report of the testing call assumes
// when the call runs only if a server's Serve returned another error than
// ErrServerClosed, and the test that starts the serving goroutine closes
// that server in a function it registers with t.Cleanup or defers (wish's
// testsession.Listen: `if err := srv.Serve(l); err != nil && err !=
// ssh.ErrServerClosed { tb.Fatalf(...) }`, with `tb.Cleanup(func() {
// srv.Close() })`), or "" when it does not. Serve returns ErrServerClosed
// once the server is closed, and the Cleanup closes it before the test
// ends: the call runs only on an error Serve returned while the test ran,
// and reaches the test's T after its end only if the goroutine is that
// slow to get from Serve's return to the call, which the analysis cannot
// rule out.
func (c *checker) serveClosedAssumption(call *ssa.Call, test *ssa.Function, t *ssa.Parameter) string {
	servers := guardingServers(call)
	if len(servers) == 0 {
		return ""
	}
	if !closesServer(c, test, t, servers) {
		return ""
	}
	return "that the goroutine calls it while the test runs when Serve fails otherwise than with ErrServerClosed: once the test's Cleanup closed the server, Serve returns ErrServerClosed and the call does not run"
}

// guardingServers returns the receivers' sources of the Serve calls whose
// error the call's function compares with an ErrServerClosed on a branch
// that dominates call and that the error is not ErrServerClosed on.
func guardingServers(call *ssa.Call) []ssa.Value {
	var servers []ssa.Value
	for _, b := range call.Parent().Blocks {
		iff, ok := lastIf(b)
		if !ok {
			continue
		}
		recv, otherSucc := servedErrCheck(iff.Cond)
		if recv == nil || otherSucc < 0 {
			continue
		}
		if succ := b.Succs[otherSucc]; len(succ.Preds) == 1 && succ.Dominates(call.Block()) {
			servers = append(servers, ssavalue.Sources(recv)...)
		}
	}
	return servers
}

func lastIf(b *ssa.BasicBlock) (*ssa.If, bool) {
	if len(b.Instrs) == 0 {
		return nil, false
	}
	iff, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
	return iff, ok
}

// servedErrCheck reads cond as a test of a Serve call's error against an
// ErrServerClosed variable (err != X.ErrServerClosed, err ==
// X.ErrServerClosed, errors.Is(err, X.ErrServerClosed) and their
// negations), and returns the serving call's receiver and the index of
// the If's successor where the error is another, or nil and -1.
func servedErrCheck(cond ssa.Value) (ssa.Value, int) {
	switch v := cond.(type) {
	case *ssa.UnOp:
		if v.Op == token.NOT {
			if recv, i := servedErrCheck(v.X); recv != nil {
				return recv, 1 - i
			}
		}
	case *ssa.BinOp:
		if v.Op != token.NEQ && v.Op != token.EQL {
			break
		}
		x, y := v.X, v.Y
		if serverClosedErr(x) {
			x, y = y, x
		}
		if !serverClosedErr(y) {
			break
		}
		if recv := servingReceiver(x); recv != nil {
			if v.Op == token.NEQ {
				return recv, 0
			}
			return recv, 1
		}
	case *ssa.Call:
		if model.CalleeName(&v.Call) != "errors.Is" || len(v.Call.Args) != 2 || !serverClosedErr(v.Call.Args[1]) {
			break
		}
		if recv := servingReceiver(v.Call.Args[0]); recv != nil {
			return recv, 1
		}
	}
	return nil, -1
}

// serverClosedErr reports whether v is the value of a package-level
// variable named ErrServerClosed (net/http's, gliderlabs/ssh's, and the
// many servers that copy the convention).
func serverClosedErr(v ssa.Value) bool {
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return false
	}
	g, ok := load.X.(*ssa.Global)
	return ok && g.Name() == "ErrServerClosed"
}

// servingReceiver returns the receiver of the Serve-like method call
// (Serve, ServeTLS, ListenAndServe, ListenAndServeTLS) whose result err
// is, or nil.
func servingReceiver(err ssa.Value) ssa.Value {
	srcs := ssavalue.Sources(err)
	if len(srcs) != 1 {
		return nil
	}
	c, ok := srcs[0].(*ssa.Call)
	if !ok {
		return nil
	}
	var name string
	var recv ssa.Value
	switch {
	case c.Call.IsInvoke():
		name, recv = c.Call.Method.Name(), c.Call.Value
	case c.Call.StaticCallee() != nil && c.Call.StaticCallee().Signature.Recv() != nil && len(c.Call.Args) > 0:
		name, recv = c.Call.StaticCallee().Name(), c.Call.Args[0]
	default:
		return nil
	}
	if !strings.HasPrefix(name, "Serve") && !strings.HasPrefix(name, "ListenAndServe") {
		return nil
	}
	return recv
}

// closesServer reports whether test, whose testing parameter is t, closes
// one of servers (Close, Shutdown, Stop or GracefulStop on it) in a
// function it registers with t.Cleanup, or in a call it defers.
func closesServer(c *checker, test *ssa.Function, t *ssa.Parameter, servers []ssa.Value) bool {
	for _, b := range test.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Call:
				if !model.Cleanup(model.CalleeName(&in.Call)) || !callsOn(in, t) {
					continue
				}
				// The registered function: RefTargets finds it
				// where Cleanup is a method of a concrete type,
				// not on a testing.TB.
				fns := c.env.Goroutines.RefTargets(in)
				if args := in.Call.Args; len(args) > 0 {
					fns = append(fns, ssavalue.Funcs(args[len(args)-1])...)
				}
				for _, f := range fns {
					if closesIn(f, servers) {
						return true
					}
				}
			case *ssa.Defer:
				if closing(in.Common(), servers) {
					return true
				}
				for _, f := range ssavalue.Funcs(in.Call.Value) {
					if closesIn(f, servers) {
						return true
					}
				}
			}
		}
	}
	return false
}

// closesIn reports whether fn's own code closes one of servers.
func closesIn(fn *ssa.Function, servers []ssa.Value) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			if call, ok := in.(ssa.CallInstruction); ok && closing(call.Common(), servers) {
				return true
			}
		}
	}
	return false
}

// closing reports whether the call is a Close, Shutdown, Stop or
// GracefulStop method call on one of servers.
func closing(call *ssa.CallCommon, servers []ssa.Value) bool {
	var name string
	var recv ssa.Value
	switch {
	case call.IsInvoke():
		name, recv = call.Method.Name(), call.Value
	case call.StaticCallee() != nil && call.StaticCallee().Signature.Recv() != nil && len(call.Args) > 0:
		name, recv = call.StaticCallee().Name(), call.Args[0]
	default:
		return false
	}
	switch name {
	case "Close", "Shutdown", "Stop", "GracefulStop":
	default:
		return false
	}
	return slices.ContainsFunc(ssavalue.Sources(recv), func(v ssa.Value) bool { return slices.Contains(servers, v) })
}

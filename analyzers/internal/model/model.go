// Package model is precog's built-in knowledge of the standard library and
// of popular concurrency libraries: which calls start goroutines, take and
// release locks, wait, publish atomically, or release a resource. Analyzers
// consult it instead of hoping that a driver analyzed those packages (the
// way x/tools' ctrlflow knows its no-return intrinsics).
//
// Functions are named by types.Func.FullName of their generic origin, for
// example "(*sync.WaitGroup).Go" or
// "(*github.com/sourcegraph/conc/pool.ResultPool[T]).Go".
package model

import (
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Name returns the full name of fn's generic origin, as used by the tables
// of this package, or "" for functions without a types.Func (closures,
// wrappers of anonymous functions).
func Name(fn *ssa.Function) string {
	if fn == nil {
		return ""
	}
	if o := fn.Origin(); o != nil {
		fn = o
	}
	obj, ok := fn.Object().(*types.Func)
	if !ok {
		return ""
	}
	return obj.Origin().FullName()
}

// CalleeName returns the full name of the function a call statically
// calls, or of the interface method it invokes, or "".
func CalleeName(call *ssa.CallCommon) string {
	if call.IsInvoke() {
		return call.Method.Origin().FullName()
	}
	return Name(call.StaticCallee())
}

// SpawnKind says how a goroutine started by a library call relates to
// the code that starts it.
type SpawnKind int

const (
	// Task is a function run on a new goroutine and joined by a Wait on
	// the same receiver (errgroup, conc, sync.WaitGroup.Go).
	Task SpawnKind = iota + 1
	// Detached is a function run on a new goroutine that nothing joins
	// (time.AfterFunc, context.AfterFunc).
	Detached
	// Handler is an HTTP handler function, which the server runs on a
	// goroutine per request.
	Handler
	// Subtest is the function of t.Run, which runs on its own goroutine
	// concurrently with its siblings only if it calls t.Parallel.
	Subtest
)

// A Spawner describes a library function that runs one of its function
// arguments on another goroutine.
type Spawner struct {
	Kind SpawnKind
	// Arg is the index, in the call's arguments (receiver first for
	// methods), of the function that runs on the new goroutine.
	Arg int
	// Join names the method on the same receiver that waits for the
	// spawned function to return, or "" if none does.
	Join string
}

var spawners = map[string]Spawner{
	"(*sync.WaitGroup).Go":                        {Task, 1, "(*sync.WaitGroup).Wait"},
	"(*golang.org/x/sync/errgroup.Group).Go":      {Task, 1, "(*golang.org/x/sync/errgroup.Group).Wait"},
	"(*golang.org/x/sync/errgroup.Group).TryGo":   {Task, 1, "(*golang.org/x/sync/errgroup.Group).Wait"},
	"(*github.com/sourcegraph/conc.WaitGroup).Go": {Task, 1, "(*github.com/sourcegraph/conc.WaitGroup).Wait"},
	"(*github.com/sourcegraph/conc/pool.Pool).Go": {Task, 1, "(*github.com/sourcegraph/conc/pool.Pool).Wait"},
	"(*github.com/sourcegraph/conc/pool.ErrorPool).Go": {
		Task, 1, "(*github.com/sourcegraph/conc/pool.ErrorPool).Wait"},
	"(*github.com/sourcegraph/conc/pool.ContextPool).Go": {
		Task, 1, "(*github.com/sourcegraph/conc/pool.ContextPool).Wait"},
	"(*github.com/sourcegraph/conc/pool.ResultPool[T]).Go": {
		Task, 1, "(*github.com/sourcegraph/conc/pool.ResultPool[T]).Wait"},
	"(*github.com/sourcegraph/conc/pool.ResultErrorPool[T]).Go": {
		Task, 1, "(*github.com/sourcegraph/conc/pool.ResultErrorPool[T]).Wait"},
	"(*github.com/sourcegraph/conc/pool.ResultContextPool[T]).Go": {
		Task, 1, "(*github.com/sourcegraph/conc/pool.ResultContextPool[T]).Wait"},
	"(*github.com/sourcegraph/conc/stream.Stream).Go": {
		Task, 1, "(*github.com/sourcegraph/conc/stream.Stream).Wait"},
	"time.AfterFunc":                  {Detached, 1, ""},
	"context.AfterFunc":               {Detached, 1, ""},
	"net/http.HandleFunc":             {Handler, 1, ""},
	"(*net/http.ServeMux).HandleFunc": {Handler, 2, ""},
	"(*testing.T).Run":                {Subtest, 2, ""},
	"(*testing.B).Run":                {Subtest, 2, ""},
}

// SpawnerOf returns the model of a library function that starts goroutines.
func SpawnerOf(name string) (Spawner, bool) {
	s, ok := spawners[name]
	return s, ok
}

// JoinCalls returns the calls of the method join (a Task spawner's Join)
// made on the very SSA value recv that the spawner was called on. The
// value stands for one group in one run of its function even when the
// group has no object the analysis can name: errgroup.WithContext's Group
// is allocated in the dependency, and `eg, ctx := errgroup.WithContext(ctx);
// eg.Go(f); eg.Wait()` is joined all the same.
func JoinCalls(recv ssa.Value, join string) []ssa.Instruction {
	refs := recv.Referrers()
	if refs == nil {
		return nil
	}
	var out []ssa.Instruction
	for _, ref := range *refs {
		call, ok := ref.(ssa.CallInstruction)
		if !ok {
			continue
		}
		if cc := call.Common(); !cc.IsInvoke() && len(cc.Args) > 0 && cc.Args[0] == recv && CalleeName(cc) == join {
			out = append(out, ref)
		}
	}
	return out
}

// IsJoin reports whether name is the Join method of some spawner.
func IsJoin(name string) bool {
	for _, s := range spawners {
		if s.Join == name && name != "" {
			return true
		}
	}
	return false
}

// ParallelMethods are the testing methods that make a test or subtest run
// in parallel with its siblings.
var ParallelMethods = map[string]bool{
	"(*testing.T).Parallel": true,
}

// HTTPHandlerFunc is the named function type whose values the HTTP server
// calls on a goroutine per request.
const HTTPHandlerFunc = "net/http.HandlerFunc"

// TestServers are net/http/httptest's server constructors. Each server
// listens on a fresh loopback port, chosen when it starts, so only code
// that learns its address from the server (its URL, its listener, the
// client it configures) can send it a request.
var TestServers = map[string]bool{
	"net/http/httptest.NewServer":          true,
	"net/http/httptest.NewTLSServer":       true,
	"net/http/httptest.NewUnstartedServer": true,
}

// ServeCalls are the net/http functions that serve the handler they are
// handed, each at the argument index given: the server starts every
// handler goroutine inside the call, after the code that precedes it on
// the calling goroutine, and never before the call.
var ServeCalls = map[string]int{
	"net/http.ListenAndServe":    1,
	"net/http.ListenAndServeTLS": 3,
	"net/http.Serve":             1,
	"net/http.ServeTLS":          1,
}

// ServerServes are the (*http.Server) methods that serve the server's
// Handler field, starting its goroutines inside the call (ServeCalls).
var ServerServes = map[string]bool{
	"(*net/http.Server).ListenAndServe":    true,
	"(*net/http.Server).ListenAndServeTLS": true,
	"(*net/http.Server).Serve":             true,
	"(*net/http.Server).ServeTLS":          true,
}

// ServerControls are the (*http.Server) methods that neither serve nor
// keep the server or its handler anywhere.
var ServerControls = map[string]bool{
	"(*net/http.Server).Close":                true,
	"(*net/http.Server).Shutdown":             true,
	"(*net/http.Server).SetKeepAlivesEnabled": true,
}

// MuxRegistrations are the ServeMux methods that register a handler on
// the receiver: they hand it to no server and send no request.
var MuxRegistrations = map[string]bool{
	"(*net/http.ServeMux).HandleFunc": true,
	"(*net/http.ServeMux).Handle":     true,
}

// RequestSenders are the calls that send a request, or open a
// connection, to the URL or address they are handed (directly, inside
// a request, or as the client's target).
var RequestSenders = map[string]bool{
	"net/http.Get":                      true,
	"net/http.Head":                     true,
	"net/http.Post":                     true,
	"net/http.PostForm":                 true,
	"(*net/http.Client).Do":             true,
	"(*net/http.Client).Get":            true,
	"(*net/http.Client).Head":           true,
	"(*net/http.Client).Post":           true,
	"(*net/http.Client).PostForm":       true,
	"(*net/http.Transport).RoundTrip":   true,
	"(net/http.RoundTripper).RoundTrip": true,
	"net.Dial":                          true,
	"net.DialTimeout":                   true,
	"(*net.Dialer).Dial":                true,
	"(*net.Dialer).DialContext":         true,
}

// AddressViews are calls that neither send a request nor keep what they
// are handed: given a test server or its address, they return a value
// derived from it (the listener's address, its string, a parsed URL, a
// request not yet sent, the server's client) or nothing (Close, Start),
// and whatever they return reaches the server only through a later call.
var AddressViews = map[string]bool{
	"(*net/http/httptest.Server).Close":                  true,
	"(*net/http/httptest.Server).CloseClientConnections": true,
	"(*net/http/httptest.Server).Start":                  true,
	"(*net/http/httptest.Server).StartTLS":               true,
	"(*net/http/httptest.Server).Client":                 true,
	"(*net/http/httptest.Server).Certificate":            true,
	"(net.Listener).Addr":                                true,
	"(net.Addr).String":                                  true,
	"net.SplitHostPort":                                  true,
	"net/url.Parse":                                      true,
	"(*net/url.URL).String":                              true,
	"net/http.NewRequest":                                true,
	"net/http.NewRequestWithContext":                     true,
	"(*net/http.Transport).Clone":                        true,
	"fmt.Sprintf":                                        true,
	"fmt.Sprint":                                         true,
	"strings.TrimPrefix":                                 true,
	"strings.Replace":                                    true,
	"strings.ReplaceAll":                                 true,
}

// Package goroutines defines an analyzer that finds which functions of a
// package can run on which goroutines. It reports nothing; the checks use
// its result to pair accesses that can run at the same time.
//
// # Analyzer goroutines
//
// goroutines: find the goroutine contexts each function can run in
//
// A goroutine context is a static stand-in for the goroutines started at
// one place in the code. Its roots are:
//
//   - `go` statements, one context per statement and callee;
//   - calls that hand a function to a library that runs it on another
//     goroutine: (*sync.WaitGroup).Go, errgroup's Group.Go and TryGo,
//     sourcegraph/conc's WaitGroup.Go and the pool and stream Go methods,
//     time.AfterFunc and context.AfterFunc, and any function that the
//     spawnfacts analyzer found to run a function parameter on a new
//     goroutine, in this package or another;
//   - t.Run and b.Run subtests whose function calls t.Parallel, and
//     top-level tests that call t.Parallel;
//   - HTTP handlers: ServeHTTP methods of the package's types, functions
//     converted to http.HandlerFunc and functions given to HandleFunc,
//     which the server runs on a goroutine per request. Their
//     goroutines start at the registration or conversion, or, when the
//     function that makes it hands the handler only to calls that serve
//     it (http.ListenAndServe, an http.Server's Serve), inside those
//     calls (Context.Starts). Result.StartApart tells when the
//     handler goroutines that one context's code starts never run with
//     another's code (an API entry that no test calls and a test; two
//     sequential tests, the starting one serving only on httptest
//     servers it closes by a deferred Close).
//
// Everything else runs in the Caller context: the goroutine that calls
// into the package (main, init, a test, or a user of the package's API).
// A function's contexts are those of the roots that reach it through the
// call graph (see the callgraph analyzer), not counting edges of `go`
// statements. The Caller context enters the package at the functions no
// other function of it calls (apart from `go` statements), and at the
// exported ones that only code they reach themselves calls back (a
// function whose goroutines call it again, directly or through others):
// nothing in the package enters those, so their importers do. An exported
// function that other code of the package calls is taken to run only
// where that code runs. A function value handed to a function without a
// body in this package (sort.Slice, sync.Once.Do, a t.Run without
// t.Parallel) is assumed to run on the goroutine that made the call.
// A function handed to a testing Cleanup ((*testing.T).Cleanup, B's,
// F's, testing.TB's) runs once the test has ended, on the test's
// goroutine: when a goroutine of another kind than the Caller or a
// parallel test registers it, it runs in the context of the test that
// goroutine belongs to (the Caller's when it belongs to no one test),
// not in the registering goroutine's, which may still run then. (When it
// runs, not where, is the ordering analyzer's business.)
// A function literal of a test (TestXxx, BenchmarkXxx, FuzzXxx,
// ExampleXxx) is not followed into the Caller context of another test or
// of the package's API users, though the call graph resolves a call
// through a field of funcs to every literal stored in such a field: it
// exists only while its own test runs, and no code outside the package
// can name it. This assumes a test hands its literals neither to another
// test through package-level state nor to code outside the package that
// calls back into the package with them.
//
// A context is Multi when several goroutines of it may run at once: its
// `go` statement is in a loop or in a function that is itself called in a
// loop or runs in a Multi context, or it is an HTTP handler.
// It is also Unsure when it is Multi only through recursion (a function
// that may call itself back counts as repeating), or, for a go statement
// in a closure made in a test function, only through another test's code:
// the checks report such a pair at low confidence.
// A spawner of this package's own `go` statement (`go func() { defer
// wg.Done(); f() }()`, f its parameter) is rooted where the spawner is
// called, one context per function handed to it; the closure the
// statement starts runs on that goroutine too, so it is in those
// contexts (Context.Wrapper). When no call in the package stands for
// the statement's goroutines (the spawner is called only from outside,
// a caller hands it a function the analysis cannot name, or it has
// several such statements), the statement is a root of its own, as any
// `go` statement, without following the calls through the parameter.
// A function handed to a spawner of this package that runs it only by
// calling it from function literals it hands to a Task spawner of the
// library model (`g.Go(func() error { defer close(c); return walk(c) })`,
// walk the parameter) gets no context at the spawner's call: the Task
// context of each literal reaches it through that call, and a second
// context would take the literal's own work around the call for another
// goroutine's.
// A `go` statement through a function value makes one context per
// function the value may hold; each run of the statement starts one
// goroutine running one of them, so when the contexts are not Multi they
// do not run at the same time (MayOverlap).
//
// The analysis is unsound where goroutines are started by code it cannot
// see (reflection, callbacks stored and invoked by other packages), and it
// merges all goroutines started at one place into one context.
//
// Cost: each context walks the call graph once with an explicit stack
// (each function once per context), and the fixed points that mark
// contexts Multi or give them a test only ever set a flag, so they take
// at most as many passes as there are contexts. Whether a function
// repeats is memoized per function.
package goroutines

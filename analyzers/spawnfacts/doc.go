// Package spawnfacts defines an analyzer that finds the functions that run
// one of their function parameters on a new goroutine, those that call one
// only on the calling goroutine before they return, and those that wrap a
// sync.WaitGroup's Add, Done or Wait, and exports that as facts for the
// packages that call them. It reports nothing.
//
// # Analyzer spawnfacts
//
// spawnfacts: find functions that run a function parameter on a goroutine
//
// A package's own `func Go(f func())` helper, errgroup's Group.Go or
// testing.B.RunParallel start goroutines that run what they are given.
// Their callers' goroutine contexts (see the goroutines analyzer) need to
// know: the closure handed to such a helper runs on another goroutine. A
// function spawns its parameter if a `go` statement calls it (directly, or
// from inside the closure the statement starts) or if it hands it to
// another spawner. SpawnsFact also records whether the function waits
// for what it started before returning: with sync.WaitGroup.Wait on a
// WaitGroup the goroutine is done on last, or by receiving from a channel
// the goroutine closes or sends on last, and only there (also in a select
// whose other cases panic or call t.Fatal, a test helper's timeout; in
// each turn of a loop that starts one per turn), or, for a Task of
// errgroup or conc, with the group's Wait (the literal a Task runs spawns
// what it calls as a goroutine's literal does);
// the function literals its goroutines run must wait for theirs in turn
// (pubsub's Receive: errgroup tasks that wait for a goroutine per
// message, each waiting for the callback's).
//
// WaitGroupFact marks the functions that call Add, Done or Wait on a
// sync.WaitGroup reached from one of their parameters, directly or
// through such a function of the same or another package: ristretto's
// z.Closer (AddRunning, Done, Wait, SignalAndWait, on the closer's
// waiting field), or a helper handed the *sync.WaitGroup. The fact names
// the parameter and the struct fields from it to the WaitGroup, so that
// the ordering analysis takes a call for the operation on the WaitGroup
// its argument reaches. It records a Wait only when it runs on every
// path to the function's returns, a Done only when the function makes
// exactly one, outside loops, in its own body, and every Add (in
// closures too; "!" when on every path): what a call may stand for.
//
// SyncCallsFact marks the functions that call some of their function
// parameters only on the calling goroutine, before they return: a
// container's Each (creachadair/mds's queue.Queue.Each, which jrpc2's
// server calls with its lock held to cancel each queued request). Every
// use of such a parameter is a call of it (deferred too), a comparison
// with nil, a capture by a closure that is itself used only so and only
// calls it, or an argument of a function known to call it so (this fact,
// of the same or another package, or the model's sort.Slice,
// sync.Once.Do, ...); a store, a return, a go statement or any other use
// disqualifies it. The lock sets take a lock held around the call as held
// in the function handed over.
//
// TaskLoopFact marks the functions R(x, f) that hand f to the one
// goroutine of a task loop of x and wait for it (pion/ice's internal
// taskloop: Run sends task{f, done} on l.tasks, an unexported channel set
// once, in the constructor that starts runLoop on the same object with
// one go statement outside loops; runLoop, the channel's only receiver,
// calls t.fn and then closes t.done, which Run receives from on every path
// after the send). TaskLoopStartFact marks that constructor, naming the
// function parameters it hands only to the loop's goroutine, which only
// calls them (ice's onClose). The lock sets take two tasks of one loop as
// mutually exclusive.
//
// StartsFact marks the functions that may start a goroutine: with a go
// statement of their own, or by a static call of one that may (calls
// through interfaces and function values are not followed). The result's
// StartCalls lists the package's calls of such functions of other
// packages: precog's instrumenter marks those into packages it does not
// instrument (shim.MarkF), so that a goroutine they create is ordered
// after what its creator did before the call.
//
// The analyzer is separate from the goroutines analyzer, which needs the
// package's call graph, so that dependencies analyzed only for their facts
// (under go vet, and by precog vet) cost an SSA build and nothing more.
// It builds that SSA form itself rather than require buildssa, and drops
// it when it returns: buildssa's result, with the control-flow graphs and
// syntax inspector it requires, would stay in memory until a driver such
// as precog vet is done with every package. A package that is checked
// too has its SSA form built twice, once here and once by buildssa.
package spawnfacts

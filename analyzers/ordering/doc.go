// Package ordering defines an analyzer that answers whether one
// instruction plainly happens before another on a different goroutine. It
// reports nothing.
//
// # Analyzer ordering
//
// ordering: find static happens-before order between goroutines
//
// The analyzer is not a full happens-before analysis. It recognizes the
// synchronization that most code uses to order work between goroutines,
// enough to drop pairs of accesses that are plainly ordered:
//
//   - spawn: code that runs before a `go` statement (or a library Go call,
//     or a t.Run of a parallel subtest) happens before everything the
//     started goroutine does, unless it may run again after the start: on
//     another goroutine of its context, or in the same function or loop
//     turn when that repeats. Code before a loop whose turns call a
//     function literal that starts the goroutine (`for i := range n {
//     func(i int) { t.Run(..., f) }(i) }`) runs once, before every start:
//     the literal repeats, the code before the loop does not (see
//     rerunAfter). An HTTP handler's goroutines start inside the call
//     that serves it (http.ListenAndServe, http.Serve, an http.Server's
//     ListenAndServe or Serve, their TLS forms): when the function that
//     registers the handler on a mux it made, or converts it to
//     http.HandlerFunc, hands it only to such calls (directly or through
//     an http.Server it allocates), code before each of those calls
//     happens before every request, though the registration came first;
//     otherwise the conversion or the registration stands for the start
//     (goroutines.Context.Starts). A serve in a `go` statement, or a
//     mux or server handed anywhere else, keeps the registration: a
//     server started earlier may serve it already;
//   - join: a goroutine's work happens before a Wait on a sync.WaitGroup it
//     calls Done on (deferred, or after the work), and a task given to an
//     errgroup, conc or sync.WaitGroup.Go happens before a Wait on the
//     same receiver returns (the same object, or the very SSA value the
//     Go was called on, which stands for one group in one run of its
//     function even when the group was allocated in a dependency, as
//     errgroup.WithContext's is). "After the work" includes a Done on each
//     branch, and an early return without Done (the Wait cannot return
//     for that goroutine at all): the goroutine calls Done only in its
//     entry function, outside loops, and never before the work; or in a
//     function literal that its entry defers (outside loops), which runs
//     after the entry's body and after what precedes the Done in it. Code
//     after a Wait is joined when the Wait dominates it, or when every
//     path from the `go` statement to it passes the Wait (a Wait per
//     batch in the loop that starts the batches). A goroutine that calls
//     Add for the goroutines it starts does not void the join when it was
//     counted before it started and its own Done is deferred. A call of
//     a function with a WaitGroupFact (see spawnfacts: a wrapper of this
//     package or a dependency, such as ristretto's z.Closer, whose Done
//     calls lc.waiting.Done() and whose SignalAndWait ends in
//     lc.waiting.Wait()) stands for the Add, Done or Wait it makes on the
//     WaitGroup its argument reaches: the field at the end of the fact's
//     path (one location for every instance, as sharedloc names fields),
//     or the argument's own objects when it is the *sync.WaitGroup. Only
//     a Wait on every path, a Done made at most once per call, and every
//     Add (those not on every path count against the join, never for
//     it) are in the facts. Goroutines joined within every call of the
//     function F that starts them (JoinedWithin) happen before code that
//     runs only after a call of F on its goroutine, though F's Wait does
//     not dominate F's returns (an early return before the `go`
//     statement); as for a Wait, the call is any call of F on that
//     context, not told apart from the others;
//   - channel: code before every send on (or close of) a channel happens
//     before code that follows a receive from it (follows: on every path
//     the constants allow, so that code after a loop with a constant
//     bound, `for i := 0; i < workers; i++ { <-done }`, follows the
//     receive in its body, which the loop runs at least once; a
//     receive in a loop is taken to collect the sends of every
//     goroutine of a context that starts many; see
//     ssaflow.Graph.RunsFirst); and code before every
//     close of a channel happens before code that runs only past a
//     receive that found it closed (after a range over it, or on the !ok
//     branch of v, ok := <-ch), whatever was sent before (the Go memory
//     model orders a close before a receive that returns because of it;
//     see closedBefore); a receive from the channel a call of a spawner
//     returns (`_, d := spawn(f); <-d`), made by that call and closed or
//     sent on only by the goroutine that call started, follows what
//     that goroutine did before (a deferred close in the spawner's
//     goroutine function runs after everything the handed function did),
//     whatever the spawner's other calls' goroutines do with theirs (see
//     returnedBefore). A close through a struct field of the channel a
//     constructor made, stored in the struct it returns and returned
//     beside it (tusd's part producer: `p, ch := newProducer(); go
//     p.produce(); for c := range ch {...}; return p.err`, produce
//     writing p.err and then closing p.files), counts as a close of the
//     returned channel: the goroutines whose struct came from another
//     call close another channel, and the one started beside the
//     receive, once per run of its function, closes this run's (see
//     fieldCloseAfter). A goroutine never receives its own send on an
//     unbuffered channel (the send completes only with another
//     goroutine's receive), so the sends of the receiver's goroutine are
//     left out of "every send" when every make that reaches the
//     receive's channel has capacity 0 and that goroutine's context runs
//     one goroutine at a time (the handshake `c <- nil; <-c`; see
//     ownSend). A close of the channel that runs only after a receive
//     from it has returned on the closing goroutine (fx's signal
//     relayer: `case <-r.finished: close(r.finished)`) is left out of
//     "every send" too: by induction on the time receives return, the
//     first receive let through by such a close follows an earlier
//     receive that took a value, from one of the other sends (see
//     closeAfterReceive). A send asked about itself (con-closed's send
//     against a close) counts as before the receive that takes its
//     value when its goroutine runs it at most once (see onceOn). SomeBefore, asked by a check that wants some write
//     before a read (conuninit), also orders a write before code after a
//     receive when every send on the channel runs on the writer's one
//     goroutine only after the write has run there (a write then a send
//     in a loop: the send the receive took followed some run of the
//     write), the write's address being the same at every run (see
//     sentAfterWrite). SentAfterOwnWrite, a query of its own that only
//     conuninit asks (Before and SomeBefore do not use it), orders
//     some write before a read through an object that follows a
//     receive, in the read's function, from that object's own channel
//     (`<-entry.done`, or through a getter of it, `<-entry.Done()`; see
//     objectPath), when every send and close the receive may take is made after a
//     write of the read's location through the object whose channel it
//     closes, on every path to it (mcp-go's task table: completeTask
//     sets entry.result, then closes entry.done, on one goroutine per
//     task), and the channel's field (unexported) only ever holds
//     channels made for fields, so that every close goes through one;
//     the object ties each close to its write, however many goroutines
//     and functions close. And the other way, the memory model's rule
//     that a receive from an unbuffered channel is synchronized before
//     the completion of its send: code that runs only after a plain send
//     returned follows what the receiving goroutine did before the
//     receive, when the send's channel is made with capacity 0 and goes
//     nowhere but into channel operations and the closures and local
//     variables that carry it (so every receive from it is in sight),
//     and every receive from it runs on one context, after that code and
//     with no run of it after the receive (a sampler that returns on the
//     stop function's send, `case <-stop: return`, while stop reads its
//     results after `stop <- struct{}{}`). A buffered channel's send does
//     not wait; a Multi receiving context counts only with a channel and
//     objects per goroutine (see completionBefore);
//   - counted per element: the goroutines that a `go` statement starts
//     at most once per element of a slice s (in a range over s, or a
//     loop counted up to len(s), in no loop inside it; the statement
//     may be a spawner's of this package, whose goroutine calls the
//     function handed to it before its send), each sending once on a
//     channel that run of the function made (nothing else sends on it or
//     closes it), happen before code that follows a loop of that
//     function receiving from it until a counter reaches len(s), the
//     counter starting at 0 or at a count of the receives made before
//     (raised by one only after a receive in the same block): kad-dht's
//     lookup, which receives results, may stop early and drains the rest
//     with `for i := completed; i < len(peers); i++ { <-doneCh }`. At
//     most len(s) goroutines start and each sends once, so len(s)
//     receives took every send (see sliceSent);
//   - turns: the goroutines that a loop starts one per turn, each sending
//     on (or closing) a channel the loop's function made at most once,
//     while every path back to the start passes a plain receive from it
//     (and the branch where it found the channel closed leaves the
//     loop), send and close one at a time: the k-th receive takes the
//     k-th goroutine's send before the next start (golang-queue's worker
//     loop; see turnOrdered), and a close is the last goroutine's;
//   - hand-off through a value that carries its reply channel (pion/dtls's
//     reader and handshake goroutines): goroutine A does x, sends a value
//     v on ch and at once receives from a channel in a field of v, made
//     for that send (`s := state{done: make(chan T)}; ch <- s; <-s.done`);
//     goroutine B receives v and does y before it closes or sends on
//     v.done (`v := <-ch; y(); close(v.done)`). When A's goroutine makes
//     every send on ch (each its own ch when its context is Multi; no one
//     closes ch), and the field's channel goes nowhere but to receives
//     and to such closes and sends by holders of values received from ch
//     (stored only into fresh objects, as made channels), B runs y, on
//     every path of calls up to the receive (up to eight calls), only
//     while A waits: each run of y follows the send before it and
//     precedes A's code after the receive, so Ordered answers that the
//     two never overlap (a direction that depends on the run; see
//     handoffOrdered), and Before orders y before A's code that no send on
//     ch may follow on A's goroutine (a deferred close after A's loop; see
//     heldBefore). A channel that an interface method returns is the one
//     its callees return, counting only the methods of the types the
//     interface value holds on B's goroutine (through parameters): a
//     test's fake of the interface, with a channel of its own, is left out
//     (see handedLoc);
//   - testify's Eventually and EventuallyWithT: every run of its
//     condition, each on a goroutine of its own, one at a time, has
//     ended when it returns true (Never returns true on a timeout, with a
//     run possibly going, and is not modelled), so what the condition does happens before code that
//     runs only after require.Eventually (a timeout ends the test with
//     FailNow) or on the true branch of assert.Eventually made once per
//     run of its goroutine (reported as a wait; see eventuallyBefore);
//   - once: the function given to sync.Once.Do happens before code that
//     follows any Do on the same Once, and before goroutines started
//     after such a Do (on every context that starts them, or by
//     goroutines that are themselves started after it). A function runs
//     inside a Do when every caller that can run does (up to
//     MaxCallDepth calls up); unexported package-level functions that
//     the package names only inside other such functions never run and
//     are left out (a bundled copy's unused wrappers). Goroutines that
//     start goroutines of their own kind (a dial that, failing, dials
//     again) start after the Do when the other starts on the cycle do.
//     Separately, OnceOrderedBeyondCallers takes every start reached
//     from code calling into the package as after the Do when one path
//     to the goroutine's start runs it first: the checks then report at
//     low confidence, since the order in which an importer calls the
//     package is outside it;
//   - in-flight flag: goroutines that one function F starts only past a
//     guard that finds a flag field clear (`if sc.writing { panic(...) }`)
//     and after setting it, that each end by sending on one channel (no
//     one else sends on it, none closes it), where every store that
//     clears the flag follows a receive from that channel or lies in F
//     on a path that starts none of them: at most one such goroutine is
//     in flight, so what one does before its send happens before every
//     later one, and before the code of F between the set and any start
//     or call that may lead back to F (http2's serverConn writes one
//     frame at a time this way). It assumes the flag itself is used by
//     one goroutine at a time, as the protocol does.
//   - atomic flag: work of a function F comes before code of a closure F
//     makes that runs only past an atomic load of a variable of F that
//     found it other than its zero value (a spin-wait or an early
//     return), when every store that can set the variable comes after
//     the work, in F or in a closure F makes after it, and both sides
//     touch only variables of F that closures capture, so one invocation
//     of F (protoactor's startTimer publishes t this way; see gateBefore);
//   - synctest.Wait: testing/synctest's Wait returns once every other
//     goroutine of the caller's bubble is durably blocked (on the
//     bubble's channels, a select, sync.Cond.Wait, WaitGroup.Wait,
//     time.Sleep) or has ended. Work that a goroutine started by a `go`
//     statement before the Wait (in the function that calls it, which
//     runs on one goroutine) does before anything that may block durably
//     (a channel operation, a blocking select, a call through a value or
//     of another package's function but sync/atomic, a mutex and the
//     testing methods that report) happens before the code after the
//     Wait: the goroutine has done it by then, or never will. What it
//     writes after it may block (a result after a call that waits) is
//     not ordered: it may be blocked before the write when Wait returns
//     (see bubbleBefore);
//   - synctest.Test: Test returns only once every goroutine of its bubble
//     has ended, so everything a goroutine started in the bubble does
//     (by a `go` statement in the bubble's function, a literal used only
//     as the function of one Test call outside loops, or in a function
//     that runs only on goroutines of that bubble) happens before the
//     code after the call (a join, reported as a wait). A goroutine that
//     a t.Run subtest starts is not joined by t.Run;
//   - cleanup: a function handed to a testing Cleanup ((*testing.T).Cleanup
//     and its B, F and testing.TB kin) runs after the test function
//     returned, its deferred calls and its subtests (parallel ones too)
//     included, by a return, a panic or a t.Fatal. Its call site, the
//     Cleanup call, stands for a run after everything the registering
//     function does, not at the call, when that function is the function
//     of a test (or of a parallel subtest) run once on its goroutine
//     (testEntry): code of that function (or called by it) happens before
//     the Cleanup's, and the Cleanup's code follows a receive made before
//     the registration or before every way out after it (as for a
//     deferred call), and such a receive never takes a close that runs
//     only in such a Cleanup (gue's TestShutdown: `t.Cleanup(func() {
//     close(chDone) })`, then `<-chDone`, which the goroutine's send
//     alone satisfies; see closedAtEnd). A Cleanup's code happens before
//     nothing, and one registered elsewhere (a helper, a goroutine) is
//     ordered neither way. This assumes, as for deferred calls, that no
//     runtime panic ends the test first, and that a channel closed in
//     one run of a test is not used by a later run (go test -count);
//   - restart after a join (not an order the checks drop a pair on):
//     RestartedAfterJoin tells the goroutines of one `go` statement
//     (outside loops) that each defer Done on a WaitGroup in their entry,
//     where every context other than the Caller that runs the statement
//     reaches it, on some path of calls, after a Wait on that WaitGroup
//     (a reconnect that waits for the old reader before starting a new
//     one). Such goroutines look started one at a time; the checks report
//     a pair of two of them at low confidence, since the path around the
//     Wait (a flag) and two starters at once are not ruled out;
//   - joined within a caller's call (not an order, a pair that never
//     overlaps): JoinedInCaller tells the goroutines of a `go` statement
//     in a function F that runs only on Caller goroutines, that defer
//     Done on a WaitGroup local to F, counted before the statement, with
//     a Wait on every path from the statement to F's returns (or on a
//     WaitGroup field of the value the statement passes them, which F
//     Adds to before it and waits on the same way; or the
//     tasks given to a group allocated in F, errgroup's or
//     sync.WaitGroup.Go's, with a Wait on it on every path from the
//     spawning call to F's returns and to the group's allocation run
//     again, or a done channel made in F that the goroutine signals
//     last and F receives from on every path to its returns, which no
//     other literal of F can signal first: a test's Cleanup, a goroutine
//     started after the receive; see JoinedWithin): they live within one
//     call of F, so code of the Caller
//     outside F and what F calls never runs at once with them (the
//     Caller context is one goroutine to the checks);
//   - started apart (not an order, a pair that never overlaps):
//     StartedApart tells an access a from the goroutines of a context
//     whose every start either comes after a on the goroutine that makes
//     it (as for spawn) or is made by code that never runs with a's:
//     the package's API entry that no test calls, against a test's code
//     (in a test binary the entry does not run, unless the initializer
//     reaches the start); the package's callers' code against a test's
//     goroutines; and, for HTTP handlers, a test's code against another
//     test's, the two not both parallel, when the starting test serves
//     handlers only on httptest servers it closes with a deferred Close
//     (which returns once every request has been handled; see
//     goroutines.Result.StartApart: other goroutines that a helper
//     several tests call starts are taken to outlive the test, as a
//     leaked goroutine would). One context may stand for the
//     handlers that an API entry serves after filling what they read,
//     and that each test serves on a test server of its own (mailpit's
//     server): a's fill and the handlers then never run at once, though
//     neither comes before the other in every binary. A conversion to
//     http.HandlerFunc that its function only returns starts nothing
//     where the caller only calls the handler it gets (a middleware that
//     another handler, or a test with a recorder, calls directly): those
//     callers are not starts (see startParents; spawn uses the same
//     rule). conuninit does not ask it: a write that never runs with a
//     read does not initialize it;
//
// "Before" and "after" are decided on the control-flow graph within a
// function (see ssaflow) and followed through call sites for up to
// MaxCallDepth calls: work in a function that a goroutine's entry calls
// before its send or close (go func() { p.Next(); close(done) }()) comes
// before the send, unless the entry is also called on that goroutine (a
// recursive entry, whose nested call may run the work after the first
// call's send). A deferred call runs when its function returns, not
// where it is deferred: it comes after everything else the function does
// (and before calls deferred ahead of it), so a call deferred before a
// `go` statement does not run before the goroutine starts. A call
// deferred before the receive (defer p.Stop(), then
// <-done) runs after it when every way out of the function comes after
// the receive: every return, and every panic, call that never returns
// (t.Fatal, runtime.Goexit) or call handed a value with a FailNow method
// or a struct holding one (*testing.T, testing.TB, testify's TestingT
// and *require.Assertions: a helper that may fail the test), unless it
// follows another receive from the same channel (a select's case). A
// runtime panic (a nil dereference, an index out of range) before the
// receive is not considered. A receive in a callee that returns an error
// orders the caller's code that runs only where the call returned nil
// (the else of `if err != nil`, the then of `if err == nil`) when the
// receive comes before every return of a nil error and every other
// return gives an error that cannot be nil: an interface made of a
// concrete value, a package-level error variable, errors.New or
// fmt.Errorf, or ctx.Err() in the case of a select that received from the
// same context's Done (a getter called twice, cc.Context(), gives one
// context), as in a wait helper that selects on ctx.Done() and the
// channel. Objects (wait groups, channels, Onces) are named by
// their locations, as in the sharedloc analyzer.
//
// Cost: following call sites branches at each of them, so one query
// follows at most a fixed number of calls (maxQuerySteps) and answers
// "not ordered" past it, as past MaxCallDepth; the call sites of a
// function in a context are computed once, as are the receives a context
// may run after and each before query's answer. The checks spend the
// package's budget on every pair of accesses they ask about, and every
// query spends one unit of it per call site it follows, so that the
// budget bounds the queries too; once it has run out, a query answers
// "not ordered" at once, and nothing more is reported.
//
// Mutexes do not order anything. The analysis is unsound in the
// direction the checks want: when it claims an order, a check stays
// silent, so it claims order only for the shapes above and never guesses
// one.
package ordering

// Package locksets defines an analyzer that computes, for each instruction
// of the package, the mutexes held on every path to it. It reports nothing.
//
// # Analyzer locksets
//
// locksets: compute the mutexes held at each instruction
//
// A mutex is named by the location that holds it (see the sharedloc
// analyzer): a struct field of all instances of its type, a package
// variable or a captured variable. Lock and Unlock are recognized by
// their types.Func, not by name: sync.Mutex and sync.RWMutex methods
// (with read and write modes kept apart), sync.Locker, promoted methods
// of embedded mutexes, and method values. TryLock and TryRLock hold the
// lock on the branch where they returned true. A deferred Unlock keeps the
// lock held until the function returns.
//
// The analysis is a forward must-analysis over each function's control-
// flow graph, meeting paths by intersection. It is interprocedural in two
// ways: a function's entry lock set is the intersection of the sets held
// at all of its call sites in the package (the empty set for functions
// code outside the package can call, goroutine entries and functions
// called from elsewhere; the body of a range over a function gets the set held at the range), and
// a call to a function of the package applies that function's net effect
// (a lock() helper acquires, an unlock() helper releases). A function
// whose last result is an error and that holds more at the returns that
// may return a nil error than at those returning one that is not nil
// (a Begin that locks and, where it fails, unlocks and returns an error,
// as tidwall/buntdb's) acquires the more on the branch where its caller
// tested that error, right after the call, and found it nil. A function
// that lets its caller's mutex go and takes it again before it returns
// (around a callback, in a loop that may run no iteration or where a
// condition says: pion/sctp's resetStreamsIfAny and restartAssociation)
// does not release it: a mutex counts as released only when the
// function, entered holding it, may return without it. A range loop that
// locks one mutex on every iteration and unlocks it on none (a sharded
// structure's "lock every shard": ccache's halt, `for _, b := range
// c.buckets { b.Lock() }`) holds it past the loop's end, for every element
// it went over: the path that ran no iteration held nothing, but had no
// element to hold either. A loop that may skip the Lock (a branch or a
// continue before it) holds nothing past its end. A deferred Lock or
// RLock that runs at every return, after every deferred unlock of the
// same mutex (mu.Unlock(); defer mu.Lock(), or uber-go/tally's upgrade
// RUnlock; defer RLock; Lock; defer Unlock), holds the mutex again at the
// return. What runs between the Unlock and the Lock holds it not. A callback
// given to a library function known to call it before returning
// (sync.Once.Do, sort.Slice, filepath.WalkDir, ...), or to a function of
// another package whose SyncCallsFact (see spawnfacts) says it calls that
// parameter only so (creachadair/mds's queue.Queue.Each, called by jrpc2's
// stopLocked with the server's lock held), gets the set held at that
// call. So do the methods of a value converted to an interface that
// goes only into calls of container/heap (Init, Push, Pop, Remove, Fix)
// or sort (Sort, Stable, IsSorted): those call Len, Less, Swap, Push and
// Pop before they return, on the caller's goroutine, and keep nothing
// (kcp-go's shardHeap, pushed and popped under its session's lock); such
// a conversion does not count as the type's values leaving the package
// (see internal/exposed), and each of those calls is a call site of the
// methods it runs.
//
// A function handed to a task loop of another package (a call R(x, f) of
// a function whose TaskLoopFact, see spawnfacts, says R sends f to the
// one goroutine of x's loop, which calls it and only then signals the done
// channel R waits for: pion/ice's a.loop.Run(ctx, func(ctx) {...})) holds
// what R's caller holds and one more lock, named by the location x is
// loaded from (a field of all instances of its type, or a package
// variable): two tasks of one loop exclude each other, code outside them
// does not. So does a function handed to the loop's constructor as one its
// goroutine calls (TaskLoopStartFact: ice's taskloop.New(onClose), stored
// to a.loop), which holds only that lock. A loop in a local variable names
// no lock; a loop that runs tasks on goroutines of their own, is started
// twice per object or in a loop, or an R that does not wait, gets no fact.
//
// A function whose last result is a bool, that returns the constant true
// where a try (TryLock, a channel lock's send in a select, a call that
// acquires where it succeeds) took a mutex and false elsewhere, holds it
// on the branch where its caller found true. A function whose last result
// is an error and that releases a mutex only at returns of an error that
// is not nil (a read loop that unlocks its caller's lock where it meets a
// close frame, and fails; an `if err != nil { return err }` counts as
// such a return, and so does a named result reloaded after the deferred
// calls ran, when no deferred call or closure can reach it: go/ssa's
// form of a return in a function that defers) releases it only on the
// branch where its caller, right after the call, found the error not nil.
//
// A channel of capacity 1 can be a mutex: a send that completes fills it,
// so no other send completes until a receive empties it (coder/websocket's
// mu: lock sends in a select with ctx.Done and the connection's closed
// channel, unlock receives in a select with a default, Close takes it with
// a plain send and never gives it back). Such a channel is held by the
// location it is kept in (an unexported field of a type of the package,
// or a captured variable), when every channel stored there is made with
// the constant capacity 1 for that store alone and goes nowhere but into
// sends, receives, selects, len and cap (so not closed, not copied out
// where unseen code could receive). A send acquires it; a send that is one case of a select
// acquires it on that case's branch only (a select with a default that
// did not send holds nothing); a receive, alone or in a select, releases
// it. Once the lock sets are solved, every receive is checked: one that
// blocks must hold the channel on every path to it, one in a select with
// a default ("release if held") on some path (an acquisition in its
// function, or in every chain of callers, may come before it; an exported
// function or a go statement holds nothing on entry). A channel received
// from otherwise is a signal or a semaphore, not a mutex, and the package
// is solved again without it. Assumed, not checked: where such a "release
// if held" runs on a path that no longer holds the channel, no other
// goroutine holds it (else it would take that goroutine's token); and a
// function reached only through a value the call graph does not follow
// may hold it. Like a mutex field, the channel of every instance of the
// type is one lock, and so are two fields of one wrapper type (websocket's
// read and write locks are both mu.ch): the analysis errs toward
// "protected".
//
// A channel of capacity 1 is a token lock the other way round: its maker
// puts one token in, a receive takes it (acquires) and a send gives it
// back (releases) (open-feature's multi-provider: lifecycleLock :=
// make(chan struct{}, 1); lifecycleLock <- struct{}{}; its lifecycle
// methods receive in a select with ctx.Done and defer the send; kcp-go's
// writeGate, whose token goes in through sess.writeGate just after the
// store). It is held at the same locations, when every channel stored
// there gets its token from its maker: a send on the channel made, in the
// block that makes it, or one send on the location just stored, in the
// store's block, where the location is a field of an object allocated in
// that block (reached directly, or through a variable only its function
// writes that holds it: kcp's sess, captured by a closure that reads it)
// or a variable declared there (so each channel gets exactly one token
// from a goroutine that took none). No receive from it may use
// the value taken (a channel that hands on what it carries is no lock),
// and a select may send to at most one such channel. A receive acquires;
// a receive that is one case of a select acquires on that case's branch
// only; a send, alone or in a select, releases. Once the lock sets are
// solved, every send must hold the token on every path to it, a send in
// a select with a default too (where the goroutine does not hold the
// token, such a send would put a second one in); else the channel is
// no lock and the package is solved again without it. So the tokens in
// the buffer and the goroutines between a receive and their send back are
// never more than one, and the code between them excludes every other
// such section. A function that takes the token in a select whose other
// case returns ctx.Err() after ctx.Done() (not nil once Done is closed)
// acquires it where its caller found a nil error, as a lock that may fail;
// a deferred call holds what every return after its defer statement
// holds (a return before it runs no such call).
//
// The flow is path-sensitive in a function's boolean values that two or
// more branches test, when the function locks or unlocks itself (at most
// three such values, 2^3 states per block): with
//
//	if lockAndLoad { c.mu.Lock() }
//	elem := c.get(key)
//	if lockAndLoad { c.mu.Unlock() }
//
// (jellydator/ttlcache's getWithOpts) the function neither holds c.mu on
// return nor releases it without having locked it, so a caller that
// passes false under its own lock still holds it after the call. A value
// of SSA form is the same at every use after its definition; where a
// loop defines it again, the states that differ only in it are merged.
// A boolean parameter that such a function tests, even once, is kept
// apart too, and where call sites pass it as a constant, each valuation
// starts from the meet of the sets held at the call sites that agree
// with it (a value that is not constant agrees with both): netpoll's
// closeCallback(needLock bool) takes the lock under `needLock &&
// !c.lock(processing)`, and its callers that pass false hold it already,
// so past that test the lock is held on both paths. A callback that
// such a function calls through its function parameter holds, for each
// call of the function that hands it over, the set at that call of the
// parameter under the valuations that agree with the constants the
// handing call passes: inbucket's mem store takes a mailbox's lock with
// `if writeLock { mb.Lock() } else { mb.RLock() }` and then runs f(mb),
// so AddMessage's callback, handed over with true, holds it for writing
// and GetMessages', handed over with false, for reading (a callback
// handed over by a call whose argument is not constant, or by calls
// passing both, holds what every valuation holds). A parameter that a
// closure captures (the deferred unlock that tests writeLock again) is
// tested through loads of the cell go/ssa spills it to; each load is the
// parameter's value when the cell is stored once, with the parameter, in
// the entry block before any load, and only its own function writes it.
//
// So is a boolean field that two branches test, each loading it afresh
// (river's riverdbtest: `if !opts.DisableSchemaSharing { ...; Lock();
// defer Unlock() }`, a call, then `if !opts.DisableSchemaSharing {
// m[k] = v }`, so the write holds the lock), after those values and
// parameters, in the slots left. The tests load one field of a named
// struct type through the same SSA value (fields held by value between:
// s.cfg.flag), each in the block of its If, and the field keeps the
// value the first found until something may write it, where flow
// forgets it: a store to the field or of a value holding its struct, the
// object's address being defined again (a loop's next element), and,
// where the package may write the field after its object is made, any
// call or channel operation (another goroutine's write may be seen
// after one). A field whose address goes anywhere but into loads and
// stores is never so tested. The package may write the field when it
// stores to it, or stores, copies or appends whole values holding its
// struct, other than into an allocation of its own function that
// nothing has seen yet on any path there (a composite literal, a local
// copy filled in before it is handed on); or when a value through which
// the struct is reached by pointer goes into an interface, an
// unsafe.Pointer, a function of another package, a call through a
// function value or an interface, or a generic parameter typed by a type
// parameter (json.Unmarshal(b, &cfg)). Assumed, not checked: code
// outside the package (an importer's callback, reflection on a value it
// keeps) does not write the field of the object between the two tests,
// and no goroutine writes it unsynchronized (a race on the field itself).
//
// An exported method of an unexported type is called only by the
// package when the type's values never leave it (see
// internal/exposed: no conversion to an interface, no exported function,
// variable, field or method signature that holds one, no embedding, no
// type argument): its entry set is taken at the package's call sites, as
// an unexported function's (memberlist's (*suspicion).Confirm, called
// only with the node lock held).
//
// A second solution (AtOutsideTests, EntryOutsideTests) leaves out the
// call sites in functions that only tests run (written in a _test.go file,
// and every goroutine context of the function belongs to a test): it is the lock set on goroutines that
// run no test code, which never have such a call site on their stack. A
// helper that every caller in the package calls with the lock held, and a
// sequential test calls without it, then holds the lock on the package's
// own goroutines. The checks use it for contexts without a Test. For the
// goroutines of one test, InTest leaves out only the call sites in
// test-only functions that never run for that test (another test's
// unlocked call of the helper is not on this test's stacks); the checks
// ask for it, one more solution per test asked, only for a pair the
// first solution would report and the second would not.
//
// A solution per goroutine context (InContext) takes a function's entry
// set as the meet over the call sites in the functions that run in that
// context alone, to a fixed point, several calls up: interface and
// function-value calls as the call graph resolves them (VTA seeded by
// CHA), deferred calls with what is held when they run, recursion as a
// call site like any other. There an exported function is entered only
// through those call sites: kcp-go's (*KCP).Input, called by the tests
// without a lock, holds the session's s.mu on the goroutines of the
// session's readLoop, whose only chain to it goes through kcpInput's
// locked calls; grpc's channelz entries' methods, called through an
// interface with the channel map's lock held, hold it there. The context's
// entry holds what it holds in the other solutions (a goroutine starts
// with nothing but a handed lock), and a function whose value is stored or
// handed to code that may call it later gets the empty set, as there.
// Assumed: code outside the package that the goroutine calls out to (an
// interface method an importer implements, a function value it passed)
// does not call back into the package's exported functions on the same
// objects without the lock; the call graph, from which the goroutines
// analysis takes the functions that run in a context, does not follow such
// code either. On the Caller context, where code importing the package
// calls its exported functions, those hold nothing on entry; its other
// functions take the call sites on that goroutine alone. The checks ask
// for a context's solution only for a pair the others would report.
//
// A method value (s.m stored in a field or handed to a helper) runs
// through a bound-method wrapper that no analyzed function contains; the
// method's entry set is taken at the wrapper's call sites instead (a
// wrapper that starts goroutines or that nothing in the package calls
// leaves the method's callers unknown). A method expression ((*T).m in a
// table of handlers called as handlers[k](s, x)) runs through a thunk the
// same way, and its entry set is taken at the thunk's call sites (a thunk
// handed to code outside the package leaves them unknown). So is a method
// that an interface holding a *T runs through go/ssa's wrapper (*T).m: one
// with a value receiver, or promoted from an embedded field (looplab/fsm's
// transitionerStruct.transition, called through the transitioner
// interface with eventMu held, held it nowhere before). A function whose
// callers are all unknown or outside the analyzed code (only such a thunk
// or wrapper calls it) gets the empty entry set; before, it got no lock
// sets at all, not even of the locks it takes itself.
//
// A mutex can be handed to a goroutine: its starter locks it and the
// goroutine unlocks it when done (prometheus's summary.asyncFlush:
// s.mtx.Lock(); go func() { s.flushColdBuf(); s.mtx.Unlock() }()). When
// every goroutine of a function is started by a go statement of the
// package, the function releases the mutex without locking it, and every
// other function that releases it (by Unlock or through a callee) locked
// it itself first on every path, the mutex is held in the goroutine from
// its start to that Unlock: the go statements act as its call sites, for
// those mutexes only. This assumes nothing beyond the model (no other
// code releases a mutex it did not lock, which the package's own code is
// checked for), so the pairs it removes are not given a lower confidence.
// After a go statement, the starter no longer holds any mutex the
// goroutine releases.
//
// A flag can be a try-lock: a CompareAndSwap from 0 (false) to a constant
// that is not succeeds for one goroutine, and no other succeeds until the
// flag is 0 again (Workiva/go-datastructures' palm and hilbert trees run
// a batch only after CompareAndSwapUint64(&tree.running, 0, 1); reset,
// the batch's last call, on the goroutine the winner started, stores 0).
// Such a flag is an unexported field of a type of the package, of an
// integer or boolean type or a sync/atomic integer or Bool, whose address
// goes only into sync/atomic's Load, CompareAndSwap from 0 to another
// constant (a TryLock) and Store of 0 (an Unlock), and that no store or
// copy() of a whole struct value sets back to 0. It is handed to a
// goroutine that stores 0 without having swapped, as a mutex is, without
// the condition on other releasers: once the lock sets are solved, every
// store of 0 must hold the flag on every path to it, or the flag is a
// signal and the package is solved again without it. So only the holder
// clears it, and the code between a winning swap and the store excludes
// every other such section.
//
// A re-entrant dispatch locks a mutex around a call on one path and makes
// the call without it on a path that skips the lock because a flag says
// its caller holds it already (alicebob/miniredis's withTx: `if
// ctx.nested { cb(c, ctx); return }`, then cb under m.Lock; the flag is
// set only on the context a Lua script's nested call makes, inside a
// command that holds m). The must-analysis meets that path with nothing
// held, so every callback handed to the helper holds nothing on entry;
// the flag's value per call chain goes through interfaces and other
// packages, so neither holding nor not holding can be proved. Such a
// call (the function locks the mutex itself, not by TryLock; no path to
// the call passes an Unlock of it; and some path to the call holds it, or
// the function makes the same call, to the same function or through the
// same value, with it held) is solved a second time with the mutex taken
// as held at it (Reentrant), once a check asks, and a pair that only that
// solution protects is reported at low confidence, naming the assumption.
//
// A call through a helper's
// function parameter that none of the helper's callers (each of which
// hands it functions known by name) hands fn is no call site of fn.
//
// Because instances of a type share one location, two accesses guarded by
// the mutexes of two different objects look guarded by the same mutex:
// the analysis errs toward "protected", which keeps the checks quiet.
//
// A mutex locked through a pointer (an unexported field of a type of the
// package, or an unexported package variable, of type *sync.Mutex or
// *sync.RWMutex) is named by the mutex it points to when that is one
// location: every store to the pointer, in the package's functions and
// its initializer, stores the address of one field or package variable
// that holds a mutex by value, seen through the parameters of unexported
// functions to their call sites, and the pointer's address goes nowhere
// but into those stores and loads (pubsub's pstest: each subscription's
// mu is &s.mu of the server whose handler makes it, so the subscription's
// goroutine, locking sub.mu, and the server's handlers, locking s.mu,
// take one lock, GServer.mu). Every non-nil pointer there then points to
// the mutex of some instance of that field, which already names all of
// them as one lock: the mapping conflates nothing that naming by field
// does not. A pointer also stored nil, a mutex of its own (new(sync.Mutex),
// a test's &sync.Mutex{}), the parameter of an exported function, two
// locations, or a pointer whose address is handed on, keeps its own name.
//
// A reader-biased read-write mutex (BRAVO: theine's RBMutex, a copy of
// puzpuzpuz/xsync's) takes no lock in its RLock's fast path: while a bias
// flag is on, it bumps an atomic reader slot and checks the flag again;
// its Lock takes an inner sync.RWMutex for writing, turns the flag off
// and spins until every slot is zero. Such an RLock holds the inner
// mutex's field for reading (the type's Lock holds it for writing), when
// the type's code has that shape, whatever its name: Lock locks the
// field, then atomically stores 0 to a flag field and, in a block that
// store dominates, spins (a branch that only comes back) on an atomic load
// of a slots field; RLock (or a function of the package it calls) read-
// locks the field and atomically increments the slots, then loads the
// flag after the increment; RUnlock read-unlocks the field and adds to the
// slots; Unlock unlocks it. A Lock that looks at each slot once, or an
// RLock that does not look at the flag again after its increment, keeps
// the fast path holding nothing. Assumed, not checked: the spin covers
// every slot, the re-check rolls back where it found the flag off, RLock
// returns without the inner mutex only from its fast path, and the flag
// is turned on again only under the inner mutex.
//
// Cost: the interprocedural fixed point makes at most MaxIterations passes
// over the package's functions, each pass one forward flow per function,
// so the analysis is linear in the package's instructions times the size
// of the largest lock set; a package with test-only functions solves it
// twice, plus once per test that a check asks InTest about, and once per
// goroutine context asked InContext about, over the functions that run in
// that context. Each solution
// makes one more flow per function when some goroutine releases a mutex
// (the hand-off check), and solves again once if some functions were
// left with unknown callers.
package locksets

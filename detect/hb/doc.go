// Package hb computes, for one recorded trace, the happens-before order of
// its events and the locks held at each event, keeping the two apart as
// ConMem (conmem.txt §4.1, "synchronization analysis") and OSCS (oscs.txt
// §3) require: vector clocks come from order synchronization only, and
// mutual exclusion gives lock sets, never order. A mutex therefore orders
// nothing here: two critical sections of one lock are concurrent unless
// something else orders them, which is exactly what lets the checkers
// predict an interleaving in which they run the other way round.
//
// # Order
//
// Analyze walks the events in the global order of the trace (see the
// trace package's "Order") and gives every goroutine a vector clock. These
// edges order events of different goroutines:
//
//   - a go statement (EvFork, or EvTaskGo for errgroup/conc tasks) before
//     the child's first event;
//   - the end of a goroutine before the Wait of the task group it belongs
//     to (EvTaskWait); testify's Eventually, EventuallyWithT and Never
//     come as such a group (shim/api_cond.go): the caller forks the
//     condition's first run where it passes the condition, each run forks
//     the next one just before its end (testify starts a run only after
//     it received the previous one's result), and the caller's EvTaskWait
//     after the call acquires the end of every run that had ended: so the
//     caller's code before the call is before every run, the runs are
//     one after the other, and the runs that ended are before the
//     caller's code after the call; WaitGroup.Done (and Add with a negative delta)
//     before a later Wait on the same WaitGroup;
//   - a send on a channel before the receive that got its element: the
//     earliest unpaired send with the receive's element fingerprint
//     (EvChanSend's and EvChanRecv's elem), else the k-th send before the
//     k-th receive that got a value, counted per channel from its make
//     (channels.pair); the k-th receive before the
//     (k+cap)-th send completes (the Go memory model's rule, which for an
//     unbuffered channel makes the receive precede the completion of its
//     own send); the completion is the sender's next event after the send,
//     and, while the walk has not reached that receive (the shim records a
//     send when it arrives, so the sender's next events can come first in
//     the trace's order), each later event of the sender until it has;
//     for a send on an unbuffered channel whose receive is not in the
//     trace (the shim records a receive, or a select, after it returned,
//     and the process may exit before the receiver records it: fgprof's
//     stop function and its sampler), the last recorded event of each
//     goroutine that could have received it unrecorded (one with no
//     EvEnd that recorded nothing from the send on) before the send's
//     completion: what the receiver recorded came before its receive,
//     and it is one of them unless it recorded events after the send's
//     seq (or is not instrumented); see "Approximations" for the others;
//   - a close before each receive that found the channel closed; for a
//     channel closed where no close was recorded (a context's Done, which
//     the context package closes), every call of a context's cancel
//     function before the receive (EvCancel) — all of them, since the
//     trace does not say which context a cancel function belongs to;
//   - the first Once.Do to return before every later one (the first to
//     return is taken to be the one that ran f);
//   - Signal and Broadcast before the return of a later Cond.Wait on the
//     same Cond;
//   - a sync.Pool's Put of an object before the Get that returned it (the
//     memory model's rule for Pool: one owner's use of a pooled object
//     before the next owner's reset): the latest Put of that object (the
//     interface's data word) to that pool not yet matched by a Get, when
//     the Put and the Get are in one GC epoch (across a collection the
//     address may be another object's, one that the Get's New made where
//     a freed one was; an object that survived in the pool's victim
//     cache then loses its edge);
//   - an atomic store (or add, swap, successful CAS) before an atomic load
//     that read the value it stored (the latest of the last few stores of
//     that value to that address; or, when the last store before the load
//     wrote another value, the first later store of the value by another
//     goroutine, since the shim takes an atomic's seq after the operation
//     and a load can take its seq before the store it read);
//   - a test's goroutine, up to its t.Run, before the subtest's first
//     event, and a subtest's end before the next subtest of the same parent
//     starts (matched by test name, since the testing package's goroutines
//     are not instrumented: the parent is the longest prefix before a '/'
//     that names a test still running, as t.Run's own name may hold '/'),
//     and before its parent's next event when the
//     parent recorded nothing while the subtest ran (an instrumented
//     t.Run's return records EvRan, that next event, so that the parent's
//     accesses after the call carry a seq of their own; it waited in t.Run;
//     a parallel subtest, or one another goroutine's t.Run started, lets
//     it go on; Graph.Joined names the subtests joined at an event, for
//     the checks that judge it without its own acquire, as con-uninit's
//     Wait before Add); a fuzz target's seed inputs come as such subtests
//     (FuzzX/seed#0 and so on: go test without -fuzz runs them one after
//     another, each on a goroutine of its own, and the instrumenter makes
//     the fuzz function record TestStart of its T, as the target does of
//     its F); runtime.main's goroutine (the shim's logical
//     id 0: package initialization, TestMain before m.Run) up to a
//     top-level test's start before that test's first event;
//   - for a subtest that testing.T.Run started for code that is not
//     instrumented (testify's suite.Run calls t.Run and then the suite's
//     methods, which name no *testing.T; the shim reads the goroutine's
//     creator off its stack when it first sees it, and records an EvBegin
//     naming the goroutine blocked in Run as parent with no EvFork), the
//     parent's events so far and the earlier such subtests' before the
//     subtest's first event, and those subtests before the parent's next
//     event: Run returns only once its subtest ended or called t.Parallel,
//     and a paused parallel subtest resumes after its parent's function
//     returned. A parallel subtest's accesses after it resumed that carry
//     the seq of its last sync event before t.Parallel are walked before
//     its later siblings and ordered before them (a missed race, never a
//     false one);
//   - for a goroutine that code precog does not instrument started (a
//     server's connection goroutine, whose handler is the module's code:
//     no EvFork names it, and its EvBegin has no parent), what came before
//     the go statement (or T.Run) that started its nearest recorded
//     ancestor, which the shim names in an EvBelow after the EvBegin
//     (shim/ancestry.go: the runtime's "created by" lines, followed up
//     through goroutines the shim does not record): it began after that
//     ancestor began. Not what the ancestor did since: the go statement
//     that started the goroutine's line ran where nothing is recorded, at
//     a time the trace does not show. A test that runs `go srv.Serve(l)`
//     so orders its handlers after what it did before that statement; a
//     server that httptest.NewServer started, whose ancestor is the
//     test's own goroutine, gains nothing;
//   - for such a goroutine whose creator the shim records and created it
//     during a call into a package that precog does not instrument (an
//     EvAfter naming the creator and a site, after the EvBelow), what the
//     creator did before its first mark at that site (EvMark, recorded
//     before the first such call from the site's line; the shim matched
//     the line of the creator's frame at the creation, which the runtime
//     shows with GODEBUG=tracebackancestors: shim/mark.go). Every call
//     from that line comes after its first mark there, in a loop too;
//     the mark releases like a fork, so what the creator does after it
//     stays unordered with the goroutine. httptest.NewServer's handlers
//     so come after what the test did before it called NewServer;
//   - for a goroutine's first run of a function literal that another
//     goroutine handed to such a package (an EvAfter among its events,
//     naming the hander and the site: shim/hand.go), what the hander did
//     before its first handing at the site (its EvMark there): the
//     literal's value exists only from its evaluation, so every run of it
//     comes after the handing, on whatever goroutine the package runs it
//     (a handler registered with ServeMux.HandleFunc after the server
//     started);
//   - httptest.Server.Close as the join of the HTTP/1 handlers it waits
//     for, with the task-group edge above (no event of its own): an
//     instrumented handler's return on an HTTP/1 connection's goroutine
//     of an httptest server forks a task of the group named by the
//     server's *http.Server that begins and ends at once (EvTaskGo from
//     the handler's goroutine), and ServeClose records that group's
//     EvTaskWait after Close returned (shim/served.go says which
//     handlers: not HTTP/2's, not a hijacked connection's, not those of
//     a server whose ConnState hook is not httptest's);
//   - an HTTP/1 request and its response, with the same task-group edge
//     (shim/respond.go, "HTTP/1 responses"): the client's GotConn forks a
//     task of a fresh group kept as its TCP 4-tuple's latest request
//     release, which the handler's entry on the connection's goroutine
//     joins while its response's header is not written; each call handed
//     the ResponseWriter, and the handler's return, fork a task of a fresh
//     group kept as the 4-tuple's latest response release while the header
//     is not written, and the client joins, after Do returned, the latest
//     one at the response's first byte (HTTP/1 is serial on a connection:
//     that is the response's own release or an earlier one);
//   - with Options.LockOrder only (for detect/races), each Unlock of a
//     mutex before every later Lock of it, an RUnlock before later Locks
//     and an Unlock before later RLocks: the memory model's order, in the
//     trace's order of the critical sections; a Cond.Wait unlocks the
//     locks its goroutine holds after its previous event (an EvGCEpoch
//     aside: one recorded for a collection during the Wait comes after
//     it returned) and locks them again before it returns (the trace does
//     not say which lock is the Cond's); and every atomic store (or add, swap, successful CAS)
//     after the earlier ones to its address, since a read-modify-write
//     reads them (a plain Store is ordered too: the trace does not tell
//     the two apart);
//   - a take out of a slot under a mutex: the section that stored the
//     value before the write that cleared it (see "Hand-offs" below;
//     Options.NoTakes leaves it out);
//   - the caller's extra edges (Options.Edges), for synchronization that a
//     checker infers from the trace, such as a spin loop left on a flag.
//
// Vector clocks are the FastTrack-style representation: a goroutine's own
// component increases after each release, and a snapshot of the clock is
// kept only when an acquire changed it, so a lock-heavy trace costs one
// snapshot per acquire that brought news, not one per event.
//
// The clocks are persistent radix trees (clock.go) rather than flat
// vectors: a release, a go statement and a snapshot share the clock's
// nodes instead of copying one component per goroutine, a change copies
// the path to the component it changes. A clock costs memory for the
// goroutines it has heard of, not for every goroutine of the trace; with
// flat vectors every release and snapshot cost a word per goroutine, and
// a test that started 100,000 goroutines needed tens of gigabytes. A
// snapshot is a copy only now and then (a base); the snapshots between
// hold the few components in which they differ from their goroutine's base,
// or from the base of the goroutine it last heard from, so that a trace
// whose every event changes a clock (an unbuffered channel's two ends)
// does not keep a copied path per event.
//
// A join does not compare the two clocks component by component: each
// clock also keeps what it learned from whom (the copies it joined, each
// with what its goroutine had learned by then), as tree clocks do (Mathur,
// Pavlogiannis, Tunç, Viswanathan, ASPLOS 2022), and a join follows that
// only as far as it brings news: it stops at a goroutine the joining clock
// already knew at that time, and at what that goroutine had learned before
// it. So a worker's Done, whose clock heard of every earlier worker
// through its parent, costs the WaitGroup's clock what it did not know,
// not a pass over the workers. A join that raises many components at once
// joins the rest by comparing the trees (taking whole subtrees where one
// holds all of the other's), which is then the cost: in a test where every
// goroutine hears of all earlier ones the components that rise are
// quadratic in the goroutines, whatever the representation. The walk's
// results are the flat vectors' (flat_test.go compares the two;
// "Knowledge" in clock.go says why the stops are sound).
//
// # Bubbles
//
// Inside a testing/synctest bubble time is virtual: the bubble's clock
// moves only when every goroutine of the bubble is durably blocked, so
// virtual time orders goroutines. A bubble starts at the EvBubble of the
// goroutine that runs synctest.Test's (or Run's) function; the goroutines
// it and its bubble goroutines start with an instrumented go statement are
// in the bubble. Bubble goroutines read the bubble's clock where it can
// move under them: at time.Sleep's call and return (EvSleep, EvWake), and
// just before a channel operation, select, WaitGroup.Wait, Cond.Wait or
// their end, and just after such an operation returned at a later time
// than before it (EvClock). Timers, tickers, time.After and context
// deadlines need nothing of their own: their firing is a send on, or a
// close of, a channel the waiting goroutine receives from, so the
// receive's EvClock carries the time they fired at.
//
// The rules:
//
//   - a reading of time T (any of EvSleep, EvWake, EvClock, EvSyncWait)
//     acquires, from every goroutine of the bubble, its clock at each
//     EvSleep or EvClock it recorded at a time before T;
//   - synctest.Wait's return (EvSyncWait) acquires the current clock of
//     every other goroutine of the bubble, ended ones included;
//   - the goroutine that runs the function passed to synctest.Test begins
//     with the goroutine that called Test as parent and no EvFork (the
//     shim's BubbleFunc names the caller), as a subtest that T.Run started
//     for uninstrumented code does: it begins with the caller's clock, and
//     the caller's next event, after Test returned, acquires the clock of
//     every goroutine of the bubble, since Test returns only once all of
//     them ended.
//
// A goroutine that uninstrumented code started below a goroutine of a
// bubble (its EvBelow) is in the bubble too: every goroutine started from
// inside a bubble is.
//
// Soundness of the first: a goroutine that read s before blocking had done
// everything before the reading at a time no later than s; a goroutine that
// read T > s goes on at a time no earlier than T. For the clock to pass s
// every goroutine of the bubble had to be durably blocked, so all of the
// first came before all of the second, in every run of the program (virtual
// time never runs backwards, and the runtime cannot reorder across an
// advance of the clock). Where the readings come from does not matter:
// the rule needs only that a reading bounds the time of what came before
// it from above and of what comes after it from below, so a goroutine that
// blocked inside uninstrumented code is still ordered by its readings (it
// only loses the order that a reading there would have given).
//
// Soundness of the second: Wait returns once every other goroutine of the
// bubble is durably blocked or has ended; the clock does not move while its
// caller runs, and a durably blocked goroutine can be woken only by a
// goroutine of its bubble (or a timer of it), so none of them has run
// between Wait's return and its event, which takes its seq right after the
// return. What each of them recorded before that seq is before the return.
// A goroutine blocked on a channel or mutex made outside the bubble, or in
// a system call, is not durably blocked and Wait does not return while one
// is; the one exception is a sync.Cond that a goroutine outside the bubble
// signals in the instant between Wait's return and its event, which would
// give an edge the run did not have.
//
// What stays unordered: goroutines that read the same time (the runtime
// runs goroutines woken at one instant in any order, and goroutines that
// never block at all); what a goroutine did after its last reading before
// the clock moved (a store followed by no blocking operation of its own,
// the end of the bubble's root goroutine, which is not recorded); what a
// goroutine did after Wait returned, towards the Wait; goroutines started
// by uninstrumented code and goroutines started by them (a time.AfterFunc
// callback's run is recorded as a fork at the AfterFunc call, or at the
// Reset that scheduled it, and reads the clock when it starts; a run the
// shim cannot tell whose it is, as a run fired but not begun when Reset
// armed the next, is not). Each of these only loses order: checkers may
// report what cannot happen, never miss what can. Outside bubbles none of
// these events adds an edge: real time orders nothing.
//
// # Hand-offs
//
// A mutex orders nothing here, yet a queue, a ring buffer or a list under
// a mutex hands objects from one goroutine to another: a producer stores
// a task in a slot under the lock, a worker takes it out under the same
// lock and runs it (the shape of pond's task queue, a generic ring buffer
// in a package of its own, as kernels genericring and genericringlate
// model it; golang-lru's expirable cache, whose cleanup takes entries
// that Add linked in; puddle's idle stack, pushed with append). A list
// under a mutex publishes them too: a goroutine fills a fresh object,
// appends it under the lock, and another gets it by index under the same
// lock and reads it, leaving it where it is (an agent's log of the
// requests it parsed, kernel publishbefore; a ring that does not clear
// the slot it pops, ringnoclear). The
// trace holds a push's store of the slot when the program writes the slot
// itself, or appends to a shared slice of pointer-shaped elements, whose
// added elements the rewriter records as writes (shim.Append), and the
// instrumenter counts those as writes of the slice's elements when it
// chooses the reads to record (a slice filled only by append has its
// element reads recorded).
// Without an edge the worker's use of the task is concurrent with
// everything the producer did before the push, and the checkers predict
// the worker running first (pond: a Done before its Add).
//
// The edge. A take is a read r of a location s by goroutine C, inside a
// critical section S_C of a lock L that C holds in write mode, followed by
// a write c of the zero value to s by C in the same section S_C (r reads
// the slot, c clears it: `t := q.slots[i]; q.slots[i] = nil`), where:
// r's site reads a pointer-shaped value (trace.UsePointer: a pointer,
// map, channel, func, interface or a type parameter's value, by the
// static type); the last write w to s before r in the trace's order
// stored a non-zero value; and w's goroutine P is not C and held L in
// write mode at w, in its section S_P. No Cond.Wait may come between r
// and c. The edge goes from the Unlock that ended S_P to c: everything P
// did up to the end of S_P happens before c and everything C does after.
//
// Why it holds. r read the value w stored (w is the last write to s before
// r in the trace, and both hold L, so that is the run's real order). S_P
// and S_C exclude each other, and w is inside S_P, so in any run in which
// r reads w's value, all of S_P comes before S_C. What C does from c on
// acts on what it took: the slot held P's object, so C's use of that
// object exists only in runs where it found it, and those runs order S_P
// first. A run in which C's section comes first finds the slot empty
// (zero) and takes nothing. The read r itself is not ordered: a checker
// may still pair w with r, the order violation of a consumer that does
// not look before it uses.
//
// The get. A read r as a take's, but that C need not hold L in write
// mode nor follow with a clear: C got the value and left it in the slot.
// The edge goes from the Unlock that ended S_P to C's first event after
// the end of S_C, the section in which it read (the Unlock's clock is
// S_P's; C's Unlock itself acquires nothing). S_P held L in write mode,
// so it excludes S_C in either mode, and in any run in which r reads w's
// value all of S_P comes before S_C, which ends before C's next event.
// What C does after its section with the object it got (the agent's
// packet read by the test) exists only in runs where it got it.
// Nothing of S_C is ordered, neither r nor what C does after r in the
// same section: in the run OSCS predicts, the one in which S_C comes
// first, r reads another value and C goes on in its section with that
// (mozilla3x's Run, whose poll gives up before Shutdown posts the
// wake-up, then dereferences the nil it read): the two sections stay
// unordered for it, as they are for a take up to its clear.
//
// What it hides. (1) Everything C does after the take (after the section
// of a get), not only its use of the object: a later access of C
// unrelated to the slot is ordered after P's section as well, so a bug
// between P's events before S_P and such an access is missed; a get makes
// this more common than a take, since any pointer-shaped read under L of
// a value another section of L stored is one (C reads a registered
// pointer, finds it set, and goes on to unrelated work; in the run in
// which C came first it found nil and went on all the same). (2) A pointer that is moved out of a slot but
// also shared by other means (C takes it, P keeps using it after S_P:
// that use stays unordered, as the bug it is; but P's uses before S_P are
// ordered before C's, which is right only if P's object is not reachable
// otherwise). (3) A pointer-shaped flag reset under the lock: `if
// c.waiter != nil { w := c.waiter; c.waiter = nil; w.wake() }` is a take
// of the waiter, and orders the waiter's section before the wake (which
// it is, when the waiter was found; the run in which the notifier comes
// first and finds nil is not predicted from this edge, but from the pair
// of w and r, which stays). Scalars are never taken: a counter or bool
// read and reset in one section (KB1's reset, a flag cleared by its
// reader) is state, and its order is what OSCS and ConMem look at. A
// slot read under a read lock, or cleared in another section or by
// another goroutine, is no take but a get; and a take or get of a value
// stored without the lock, or by C itself, adds no edge. A get misses
// what C does with the object inside its own section (`mu.Lock(); p :=
// list[i]; f := p.Flags; mu.Unlock()` keeps the read of p.Flags
// concurrent with the fill), and an element that an append copied into
// a grown array: the copy is not recorded, so the read of the copy has
// no last write.
//
// # Locks handed between goroutines
//
// Go mutexes have no owner: one goroutine may unlock a mutex another
// locked, and the critical section runs from the Lock to that Unlock,
// whatever goroutines the work between them is on. Held sets per
// goroutine would give the accesses of the goroutine that did not lock
// no lock, and ConMem would predict them against every other section of
// the mutex. Two shapes are modeled (handedLocks, a pre-pass over the
// trace, finds them; Section.Handed marks their sections).
//
// Handed at a go statement: some code locks a mutex and hands it to a
// goroutine it starts, which unlocks it when done (`mu.Lock(); go func()
// { defer mu.Unlock(); add(s) }()`: watermill's GoChannel.Subscribe,
// prometheus's summary flush). When a goroutine's first release of a
// mutex is an Unlock (RUnlock) of a lock it did not take, and its parent
// held that lock at the go statement and has not released it since, the
// parent's section ends at the fork and the child holds the lock from its
// first event to that Unlock.
//
// Adopted: any other Unlock (RUnlock) of a lock its goroutine B did not
// take, which goroutine A took at Lock event L (otlptracegrpc's
// client.Stop takes its lock on a helper goroutine, which closes a
// channel once it has it, and waits for the close, or for its context,
// before it clears the client under the lock and unlocks). B holds the
// lock from its first event that L happens before up to its Unlock U: such
// an event e has L before it and U after it in program order, so it runs
// while the lock is held, in every run in which the goroutines
// synchronize as they did (the definition of a section without owners,
// L before e before U, restricted to B's events, which is what the
// shapes met need). A's section ends at that first event of B: A handed
// the lock on there, and what A does afterwards is not ordered before U,
// so it runs outside the section in some run. The walk takes A's events
// up to that point in the trace's order as inside, those that came after
// A's last release B acquired among them (which can hide a pair between
// such an event and a section of the mutex, as held sets per goroutine
// always did). A hand-off through synchronization the trace does not
// hold orders nothing before U: no section opens on B, and U ends A's
// section, as per-goroutine held sets do.
//
// Both are what the run did: no other Lock of the mutex could succeed in
// between. Stream has no pre-pass and keeps the held sets per goroutine,
// as Options.LockOrder and Options.NoHandedLocks do. OSCS reports no pair
// with a handed section: the section is no one function's operation.
//
// # Approximations (what this is sound for)
//
// The trace gives sends their seq before the send (it may block) and
// receives theirs after the receive returned, so when several goroutines
// send on one channel at once, the k-th send in seq order need not be the
// one the k-th receive got; the same holds for several receivers. The shim
// orders plain sends and receives by per-channel locks, but not selects;
// the element fingerprints pair a receive with its send whatever the
// order, unless two sends pending at once had equal fingerprints (equal
// values, the same pointer twice, a collision of 32 bits) or the shim did
// not see one side's element (a select's clause it could not name, a
// struct whose padding differs between the copies): those are paired in
// seq order, and the matching may then be wrong, and so may the edges; the
// capacity rule stays in seq order. A select's send case is
// recorded after the send completed; when its receive comes first in the
// trace, the edge is taken from the sender's clock before the select. For a
// channel whose make was not recorded the capacity is unknown, and only the
// send-before-receive edges are added. A send on an unbuffered channel
// whose receive is not in the trace completes after the last events of
// every goroutine that could have received it unrecorded: all but one of
// them (all, if the receiver is not instrumented or recorded events
// after the send's seq before its receive) were not the receiver, and
// their order with the sender's later events is one the run need not
// have had. Cond.Wait acquires every Signal and
// Broadcast before its return, including ones that woke another waiter.
// Atomic read-modify-write operations are recorded as stores: they release
// but do not acquire. So the order can miss true edges (more events look
// concurrent: checkers may report what cannot happen) and, for the Cond,
// Once and unrecorded-receive rules, contain edges the run did not have
// (checkers may miss bugs, never report one the run could not have).
//
// Lock sets are exact for the recorded Lock, RLock, TryLock and Unlock
// events (a Cond.Wait keeps the lock in the set throughout, although Wait
// releases it while it sleeps). Locks taken by uninstrumented code are not
// seen.
//
// # Locations
//
// The garbage collector may reuse an address after a collection, so a
// location is an address within a GC epoch (Loc); a checker that keys by
// Loc never relates two accesses to different objects that shared an
// address. Accesses to one object on both sides of a collection are then
// different locations, which can hide a bug but not invent one.
//
// The epochs lag: the shim counts collections in a finalizer, and an
// object freed by a collection can have its address handed to a new one
// before a goroutine sees the epoch change. Allocations recorded by
// instrumented code close the gap (Loc.Gen): a map's or channel's
// operations count the EvMapMake or EvChanMake events at its address
// before them, and a read, write, atomic, WaitGroup or Once event counts
// the EvNew events (&T{...} or new(T) of a struct; an append that grew a
// shared slice) whose object covered its 8-byte word since an access
// first touched the word. Words no access touched get no generation, so
// the walk holds one per word accessed, at most MaxTouchedWords; an EvNew
// starts anew at most MaxNewWords words of its object (32 KiB), and a
// word shared with a neighbor of the runtime's tiny allocator starts anew
// for the neighbor too, which may hide its race. Objects that the
// recording does not see made (arrays made by make or by a plain append,
// objects of packages that are not instrumented) rely on the epochs alone.
//
// # Streaming
//
// Analyze holds the events and per-event data for random access. Stream
// walks a trace of any length instead, calling back per event with what
// the walk knows then (a Step: goroutine, clock as a persistent tree, lock
// set, epoch, stack, open Locks, instance), and keeps nothing per event.
// Four rules look ahead of the walk in Analyze: a send's completion waits
// for its receive, a select's send case is recorded after its receive, an
// atomic load may read a store recorded after it (lateStores, within
// lateStoreReach events), and a Cond.Wait's return releases the locks
// after its goroutine's previous event. Stream runs these matches over a
// window of StreamOptions.Window events ahead of the walk, so that a match
// within it is Analyze's. Past it, Stream chooses only what cannot make
// two events look concurrent that Analyze orders: the receiver's clock now
// where Analyze takes it at the receive (more order); a release of the
// held locks after any event whose goroutine's next event is past the
// window (more order, as if a Cond.Wait followed); and for a send, receive
// or load whose match is not in the window, the goroutine's clock is
// marked unsettled (Context.Unsettled), a mark every clock that acquires
// it inherits. An unbuffered send whose receive is not in the trace is
// known as such only once the window reaches the trace's end: until
// then it is one whose match is past the window (unsettled); from then
// on Stream orders it as Analyze does. A checker reports nothing found at an unsettled event
// (detect/races withholds and counts it): at a settled one, the order is at
// least Analyze's (TestStream). Hand-offs through a container are
// matched as the walk comes to them (their edge's two ends are both behind
// it at the take, and at the event after a get's section;
// TestStreamTakes); locks handed between goroutines (the
// Unlock may come any time later) and extra edges are not
// streamed: the race checker, which uses LockOrder, needs none of them.
package hb

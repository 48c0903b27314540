// Package conmem predicts, from one recorded run, the concurrency bugs that
// crash Go programs through memory: ConMem (Zhang, Lu, Jiang; "ConMem:
// Detecting Crash-Triggering Concurrency Bugs through an Effect-Oriented
// Approach", TOSEM 2013; ../shared/papers/conmem.txt), §4, Table VI, in
// its Go form. The bug does not have to happen in the recorded run: each
// check finds the ingredients of a bug (a nil store and a dereference, a
// read and an initialization, a close and a send, an index and a write)
// and asks the happens-before order and lock sets of detect/hb whether
// another interleaving can put them in the crashing order.
//
// The entry point is Check. Findings are predicted: nothing here forces
// the interleaving (the paper's ConMem-v, §5, is later work).
//
// # The checks
//
// con-null (§4.2, Con-NULL). The ingredients are a nil store wp (an
// EvWrite with value 0) and a read rp of the same location, on another
// goroutine, whose value is dereferenced. The paper tells pointers from
// integers by the values stored; the trace records only "nil or not" for
// pointer-shaped values, so the read's site says it instead: the
// instrumenter marks reads whose value is dereferenced without a nil check
// of that same value (trace.UseDeref), and a location with such a read
// holds a pointer. A suspect is pruned when (order) rp happens before wp,
// or, by the paper's two-candidate heuristic, a non-nil write is strictly
// ordered between them: rp's goroutine's last write before rp (rp-p),
// happening after wp, or wp's goroutine's next write after wp (wp-f),
// happening before rp; or when (mutual exclusion) a lock held across
// {rp-p, rp} is held at wp, or a lock held across {wp, wp-f} is held at
// rp. For the lock test rp-p is the last access before rp, a read as well
// as a write: Go's `if x.p != nil { use(x.p.f) }` re-reads the field it
// checked, and a lock held across the check and the use keeps the nil
// store out of the window, which the paper's C code got from the write.
// A read that itself observed nil is pruned (§4.2 "Discussions"). Reads
// carry no value in the trace, so what a read observed is derived: the
// value of the last write to the location before it in the trace's order,
// if that write happens before the read, or of a later write in that
// order that happens before the read and after every such write: the
// trace's order is not always one of happens-before's (a send is recorded
// when it arrives, so on an unbuffered channel the sender's accesses
// after it can come before the receiver's events that precede the
// receive, which happen before them). A read that races with the write
// it follows (or follows none and is preceded by none) observed an
// unknown value and is kept.
//
// Atomic loads and stores take part too, on the locations that an atomic
// load marked deref reads: the instrumenter marks the Load calls of
// atomic.Pointer and atomic.Value and atomic.LoadPointer whose value is
// dereferenced unchecked (a field, a call, a type assertion without
// comma-ok), and shim/rt records sync.Map's operations as atomic loads and
// stores of a location per key, a Load whose ok is not used marked like
// those (a Delete is then the nil store). An atomic store of nil is a nil
// store, and an atomic load carries the value it read, so what it observed
// is known. detect/hb orders a store before the load that read its value,
// so the pairs left are those no such edge orders: a check and a
// dereference as two loads, a nil store between them (MySQL-2 through an
// atomic.Pointer). con-uninit takes a goroutine's first atomic load of such
// a location, if it is marked deref, as its read, and orders an init
// before it only by the clock of the goroutine's event before the load:
// the load's own acquire is the order the recorded run happened to have
// (it read the store), and a load that comes first reads nil
// (Transmission through an atomic.Pointer stored after the go statement).
// Other atomics (counters, flags) are not indexed.
//
// con-uninit (§4.3, Con-UnInit). The Initializer table holds each
// goroutine's first initializing write of each location; the first read
// of a location by each goroutine that has not written it is reported
// when it is concurrent with every other goroutine's initializing write.
// Go zeroes memory, and the allocation that does it (new, make, a
// composite literal) is not an event: so an initializing write is one of
// a non-zero value (a zero store leaves what an "uninitialized" read sees
// unchanged), and a read whose goroutine writes the location later is not
// checked, because there the zero value is the start of the goroutine's
// own running state (a counter or index it updates from what it read),
// not a missing initialization; the paper's C version saw the allocating
// goroutine's initialization, which ordered such reads. For the same
// reason a read is reported only when a goroutine it races with
// initializes it and one of the two started the other (directly or not):
// the goroutine that starts another and initializes afterwards
// (Transmission), or the started goroutine that initializes what its
// starter reads before joining (FFT). When neither started the other, the
// object they share was created by an ancestor of both before it started
// them, and its unrecorded composite literal is the initialization the
// read sees (on the corpus this removed ten false reports and one true
// order violation, which OSCS reports). A read that holds a lock in
// common with every initializing write is not reported either: Table VI
// says a lock does not prevent Con-UnInit by itself, but in Go a read
// under the lock that guards the initialization is the lazy-initialization
// idiom (`if g.m == nil { g.m = make(...) }` in one critical section) or
// lock-guarded state whose zero value is its start (golang.org/x/sync's
// singleflight and semaphore), which both orders handle. The same check runs on
// WaitGroups, Go's negative-counter crash: Add with a positive delta
// initializes the counter, Done (and a negative Add) reads it. And Go's
// rule that an Add finding the counter at zero must happen before Wait:
// such an Add (the counter summed in trace order) concurrent with another
// goroutine's Wait is reported, the Wait as the read (it may return before
// the work the Add counts).
//
// con-closed (§4.4, Con-Dangling). Go has no free; a channel's close is
// its release, and a send on it afterwards ("send on closed channel") or
// a second close ("close of closed channel") is the dangling use. A close
// and a send on another goroutine are reported unless the send happens
// before the close; two closes on different goroutines always are. As
// Table VI says, only order synchronization prevents it: locks are not
// consulted. A test's end (EvTestEnd) is a release too: the shim records
// t.Log, Logf, Error, Fatal, Skip and Fail calls (on a *testing.T, a
// testing.TB or any interface holding one) as reads of the test's T, and a
// call on another goroutine that does not happen before the test's end is
// reported ("Log in goroutine after TestX has completed"). The other
// releases of DESIGN.md's table cannot be seen in the trace and are not
// checked: Reset is not an event, and sync.Pool's Put is one only for
// detect/hb's order (a Put before the Get that returns its object).
//
// con-index (§4.5, Con-Overflow). A data race (concurrent, no common
// lock) between a read whose value flows into an index or slice bound, or
// is the slice indexed or sliced, and another goroutine's write of the
// same location. The paper finds the index variables with a second,
// dependence-tracking run; here the instrumenter marks those reads
// (trace.UseIndex) from go/ssa, as analyzers/conindex reasons: the read's
// value reaches an IndexAddr, Index or Slice operand through at most a
// few arithmetic steps and conversions.
//
// con-map (Go only). Two accesses of one map on different goroutines, one
// a write, concurrent and with no common lock: the runtime's fatal
// "concurrent map writes" (or "read and map write", "iteration and map
// write"), which no recover stops.
//
// # Spin loops (§4.6)
//
// Optional and on by default (Options.NoSpinLoops turns it off). The
// paper finds loops and their loop-exit reads statically (CodeSurfer) and
// calls a loop a synchronization loop when every exit in the run read a
// value another thread wrote; that write becomes an order edge to the
// exit, and the paper re-stamps the clocks. Here the instrumenter marks
// the loop-exit reads from go/ssa (trace.UseLoopExit: a read that runs on
// every iteration and decides an If that leaves the loop); a loop
// instance is a run of such a read's executions by one goroutine on one
// location with no write of that goroutine to the location in between,
// its last execution is the exit, and the exit's defining write is the
// last write to the location before it in the trace's order. A loop whose
// every exit was defined by another goroutine gets those edges, passed to
// hb.Analyze as Options.Edges, and its reads and defining writes count as
// synchronization, not data: the checks skip them (a flag read before it
// is set is no uninitialized read). The trace orders accesses of
// different goroutines only through their sync events, so the defining
// write is known when the loop polls under a lock (Fig. 10(b), Fig.
// 12(b)'s queue); a plain variable polled with no sync event in the loop
// has all its reads ordered before the write and gets no edge (in Go that
// is a data race; Fig. 10(a)'s volatile flag is an atomic in Go, which
// detect/hb orders by itself). The paper's rule that a value turning from
// non-exiting to exiting more than once marks a custom lock needs the
// reads' values, which the trace does not hold, and is not applied. On
// the kernel corpus the inference adds 4 edges and removes 3 false
// reports (spinflag's two, prodcons' one) and no true one.
//
// # Soundness
//
// Like the paper's, the analysis is neither sound nor complete. It misses
// bugs on paths the recorded run did not take, accesses the instrumenter
// did not record (composite-literal initializations, code outside the
// instrumented packages) and, for con-null and con-uninit, reads whose
// uses the static analysis could not place. It reports what cannot happen
// when the program orders goroutines by means detect/hb does not model
// (custom synchronization, control dependences: the paper's Fig. 12(a))
// and, for con-index, races whose values cannot leave the bounds. A
// location is an address within a GC epoch, so no finding rests on a
// recycled address, except a WaitGroup's: its Adds, Dones and Waits at one
// address are one location across epochs while its counter is above zero
// (an Add that starts a count at zero in a later epoch begins a new one:
// another WaitGroup may have the recycled address). A worker that its
// starter counted (Add, then the go statement) and that runs through a
// collection does its Done in a later epoch than the Add that counted it;
// split at the epoch, its Done was checked against the starter's first Add
// of the new epoch, a later one it is concurrent with (pond's submit: a
// false Done-before-Add on every worker that saw a collection), and the
// counter that addWait sums started again at zero. Unsound for it: a
// WaitGroup that a collection freed and another took the address of is
// taken for the same one when the goroutine of the new one's first Add had
// not yet noticed the collection (an epoch is a lower bound), and a
// WaitGroup whose counter came to zero, then counts again after a
// collection, is taken for two: a Wait before the collection is not
// checked against the new count's Adds. One finding is reported per kind
// and set of site lines (role, file, line), however many dynamic instances
// the trace holds: the two reads of one slice expression are one bug.
//
// # Cost
//
// Check indexes the accesses by location with one map lookup per access
// and a counting sort, keeps only locations that two goroutines touch,
// and folds the accesses of one goroutine at one site between two of its
// sync events (they share a vector clock and a lock set) before pairing.
// A location with more than MaxInstances such accesses after folding is
// skipped and counted in Stats.Skipped (precog test says so in a note).
// con-uninit does not fold: it checks each goroutine's first read against
// each other goroutine's first initialization, deciding the cheap
// conditions (a related goroutine, a common lock, lines already reported)
// first and trying the initializations most likely to be ordered with the
// read first (its starters', the last one that was, the nearest in the
// trace), which makes a read cost about one order check on the shapes
// measured; at most MaxUninitChecks checks a run, past which reads are
// counted in Stats.UninitUnchecked (and a note). Its time per million events, beside
// hb.Analyze's, is in bench/RESULTS.md ("Detection time and memory per
// checker", from go -C bench/detect run .).
package conmem

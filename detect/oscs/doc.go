// Package oscs finds order-sensitive critical sections in a recorded
// trace: OSCS, from Huang, Halberg and Suh, "Non-Race Concurrency Bug
// Detection Through Order-Sensitive Critical Sections" (ISCA 2013;
// ../shared/papers/oscs.txt §2-3).
//
// A data race detector stays silent once every access holds a lock; the
// bug then hides in the order of the critical sections. Two critical
// sections of one lock are order-sensitive when they touch a location with
// at least one write, nothing orders them, and their two orders can leave
// different state. OSCS reports such pairs as predicted bugs: atomicity
// violations (a goroutine's two critical sections with another's in
// between, Fig. 3c), order violations (a flag checked before it is set,
// Fig. 4) and multi-variable ones, none of which is a data race.
//
// # Algorithm
//
// Check walks the events of one trace in order (Fig. 8). For each read or
// write inside a critical section it looks up the most recent conflicting
// accesses of other goroutines to the location (writes; for a write also
// reads) and keeps a pair when both hold a common lock (the paper's CSList
// intersection; read locks do not exclude each other) and then passes it
// through the §2.4 filters:
//
//   - ordered: order synchronization (go, channels, WaitGroup, Once, Cond,
//     atomics; detect/hb) puts one access before the other, or one side's
//     critical section began (its Lock) before the other side's access by
//     the program's own synchronization (not by the flag edges below, nor
//     hb's hand-offs, which hold only where a read sees a given value):
//     that section then runs first in every execution, since the other
//     cannot have taken the lock before it nor while it holds it (a
//     goroutine, or a time.AfterFunc callback, started inside its
//     creator's section, or rearmed by Reset inside a section, and taking
//     the same lock). A mutex orders nothing
//     (hb keeps mutual exclusion apart from order).
//   - no conflict: two reads never pair.
//   - redundant write (§3.2.4): two writes of the same value, or a read
//     against a write that stored the value the location already held
//     (EvWrite carries the value word; the value before it is the last
//     write in trace order, which for accesses in critical sections of one
//     lock is the real order). Also a read against a write when the read's
//     goroutine wrote the location earlier in the read's section (`e.cur =
//     s; use(e.cur)` under one lock): the read sees that write in either
//     order of the sections; the two sections' writes are a pair of their
//     own.
//   - lazy initialization and nil guard: two filters of our own for Go's
//     idioms (below, under "What changed for Go").
//   - commutative (§3.2.3): both critical sections hold a read-write
//     sequence on the location (CSRWFlag). When the earlier side has one
//     and the current side has none yet, the pair goes on the current
//     goroutine's DetectionList and is checked again when it leaves its
//     last critical section (update_release).
//
// Both histories of the paper are here (Options.Algorithm):
//
//   - Base (Fig. 8): per location and goroutine, the most recent read and
//     write, of every access.
//   - Opt (§3.4): per location, the two most recent reads and two most
//     recent writes from different goroutines, only of accesses inside
//     critical sections and only for shared locations (two goroutines
//     access them in critical sections, one writing). The hardware finds
//     shared locations from coherence traffic; with the whole trace at
//     hand, a first pass finds them (Stats.SharedBytes is its table).
//
// A third, OSCS-HW (§4), is Opt with the history the paper's hardware would
// hold (Options.Hardware): only accesses to cache lines tagged shared are
// recorded, in Access History Buffers that drop entries when full. Package
// hwmodel replays a trace through a model of that hardware and provides
// the history; an access it missed never makes a report (a pair whose
// commutativity rests on a missed access is dropped, not reported).
//
// Opt is the default, by measurement on the kernels in testdata/kernels:
// it reports every finding Base reports and one more, a true bug (mysql2:
// Base's one read per goroutine is overwritten by the goroutine's later
// unlocked read of the same field, so the locked check that pairs with
// the nil store is gone; Opt keeps only accesses in critical sections),
// and it keeps less history: over the 54 kernel traces 108 entries (19.7
// KiB, its shared-location table included) against Base's 585 (52.3 KiB);
// on golang.org/x/sync's tests 3.1 KiB against 11.7 KiB at the peak; on a
// million generated events of 8 workers (BenchmarkCheck) 1.0 MB against
// 3.9 MB when the private work is locked and 168 bytes when it is not,
// at about twice Base's speed there.
// It can lose a pair when three or more goroutines interleave on one
// location, as the paper also measured (Table 3: 61 injected bugs against
// Base's 62).
//
// Nested critical sections: a goroutine's critical section is its
// outermost open section (the paper's CSList holds them all; the outermost
// contains the rest), the common-lock test uses every lock held, and the
// DetectionList is checked when the goroutine releases its last lock.
//
// # What changed for Go, and why
//
//   - Offline, not online: the walk is over a trace, so "the most recent
//     access" is the most recent in the trace's order, which for accesses
//     inside critical sections of one lock is the real order. Timestamps
//     are event indices; the vector clocks are hb's.
//   - CSRWFlag is kept per critical section, not only per goroutine: the
//     paper's flag of the earlier goroutine is its current one, which a
//     later read-only critical section of the same goroutine clears, so
//     `s.n += d` in one section followed by a read of s.n in the next
//     made the commutative `+=` pair look order-sensitive (kb2). Each
//     history record keeps the flag of its own critical section.
//   - Sites and deduplication: a finding is a set of sites (the two
//     accesses and the Lock sites of their critical sections); the first
//     pair of a set is reported, once per trace.
//   - Map accesses and atomics are left out: a map's events name the map,
//     not the key (two goroutines inserting different keys under a lock
//     are not a conflict), and detect/conmem checks maps; atomics are
//     synchronization.
//   - Awaited flags are synchronization by default (Options.NoCondFlags
//     and NoSpinFlags restore the paper's measured behavior). §2.1
//     assumes that custom synchronization is identified and §5.3 names
//     flags awaited with a condition variable as the cause of most of its
//     false positives (Fig. 12). Two kinds are inferred from the trace: a
//     location read in a critical section right before a Cond.Wait and
//     written by another goroutine before a Signal or Broadcast
//     (CondFlagEdges), and a location whose locked read decides a loop
//     exit (the instrumenter's static fact) and that another goroutine
//     writes under a common lock (SpinFlagEdges, a polling loop). A flag's
//     accesses are then synchronization, not data, and each releasing
//     write happens before the first read of its value by every other
//     goroutine: order edges that Check feeds to hb.Analyze again. On the
//     kernels this silences radix (Fig. 12), fifo (Fig. 13, whose indices
//     are awaited in wait loops), and ConMem's spinflag and prodcons
//     controls (5 false findings), and changes no true finding.
//   - Lazy initialization is order-insensitive (Options.NoLazyInit turns
//     the filter off). The shape is Go's initialization on first use
//     under a lock, `mu.Lock(); if g.m == nil { g.m = make(...) }; ...
//     g.m[k] ...; mu.Unlock()` (golang.org/x/sync singleflight.go:92-96):
//     whichever critical section runs first makes the map, and the
//     others find it made, so the order does not change the outcome.
//     The paper's filters report the write against every read of the
//     other sections: the initializing section has a read-write sequence,
//     a section that found the map made has only reads (x/sync: five
//     findings). A write is an initialization on first use when it
//     stores a non-zero value, its goroutine's last access of the
//     location was a read in the same critical section, and that read
//     observed the zero value. Reads carry no value, so what a read
//     observed is the value of the last write before it in trace order,
//     or zero if the location was never written (the other accesses of
//     a location under one lock are in their real order). A pair of such
//     a write with a read is dropped when the location is pointer-shaped
//     (some read of it in the trace is dereferenced, trace.UseDeref: a
//     counter's first increment and Fig. 5's maximum also read zero and
//     write non-zero, and stay reported) and the reading critical
//     section does not begin its use of the location with a dereference
//     without a nil check (a section that would crash on the zero value,
//     had it run first, stays reported). Pairs of the write with other
//     writes stay reported: a reset to nil against an initialization
//     decides what is left. On the kernels it changes nothing; on x/sync
//     it drops the five singleflight findings.
//   - A pair whose later access ran only because a check in its own
//     critical section found what the earlier access's section changed
//     is order-insensitive (Options.NoSwitched keeps it): the check's
//     read, before the access in the same section of the common lock,
//     switches the branch that leads to the access (the instrumenter's
//     trace.Site.Switches: the condition is the value read, its negation
//     or its comparison with nil, values the trace records exactly as
//     0 and 1), and it found the value the earlier section left, which
//     differs from the value before that section. Had the later section
//     run first, the check would have taken the other edge and the
//     access would not have run (dns's ShutdownContext reads the
//     connections' map past `if !srv.started { return }`, and the
//     section that made the map set started). The flag's own pair, the
//     check against the write of what it checks, is not hidden by this:
//     Fig. 4's flag checked before it is set stays the flag's pair.
//   - A nil store against a reader that checks for nil is
//     order-insensitive (Options.NoNilGuard turns the filter off). The
//     shape is a pointer cleared under a lock and, under the same lock,
//     `if p.f != nil { use(*p.f) }` (the controls kernel's MutexTHD,
//     SHOW PROCESSLIST during a statement): the reader prints the value
//     or skips it, whichever order the sections run in, and cannot crash.
//     A pair of a write of zero with a read is dropped when the reading
//     critical section's first access of the location is a read that is
//     not dereferenced without a nil check (the instrumenter marks the
//     others trace.UseDeref) and a later read in the same critical
//     section is dereferenced: the check and the use are both under the
//     lock, and the dereference makes the location a pointer. A section
//     that found nil skipped its use; for it, a dereferenced read site of
//     the same expression in the same function, after the check and
//     before the section's Unlock in the source (anywhere after the check
//     when the Unlock is deferred or elsewhere), stands for the use
//     (perturbed runs often show the process list after the statement).
//     A section that dereferences first stays reported (Mozilla-1's
//     compile, Fig. 3c), and so does one that checks and lets go of the
//     lock before the use (MySQL-2's KILL: the check is its only access
//     under the lock, the dereference is after its Unlock). On the
//     kernels it silences controls' TestMutexProcInfo (one false finding
//     in the normal run, two over ten perturbed runs) and changes no true
//     finding.
//
// A Cond waited once rather than in a loop (`if len(q.items) == 0 {
// q.cond.Wait() }; s := q.items[0]`) is an atomicity violation that the
// source writes as one critical section: Wait unlocks the lock while it
// sleeps and locks it again before it returns, so the check and the use
// are two sections, and a goroutine woken by the same Broadcast (or one
// that did not wait) can take the lock between them. hb keeps the lock
// held through Wait and the location is a cond flag, so the pair walk
// cannot see it; waitUses (condwait.go) reports it from the Wait's two
// sides: a check before the Wait, a use after it that indexes or
// dereferences the location with no loop's check between, another
// goroutine's write of it that no Signal or Broadcast follows (a
// consumer), and a producer's write before the check that nothing orders
// (the finding's pair, with the Lock sites; no Unlock on the waiting
// side, so that validation holds the producer until the waiter checked).
// A `for` loop's re-check after Wait keeps it silent (testdata's condq
// and its RIGHT version).
//
// # Lock-per-operation structures
//
// A cache, a pool or a queue whose every method takes the structure's
// lock once and does its whole work under it is the paper's worst case:
// Add and Get of an LRU are unordered critical sections that conflict on
// the list and the buckets, few of them hold a read-write sequence on
// every location they touch, and the commutativity filter explains none
// (golang-lru: 25 findings, all false). Yet each such section takes the
// state as it finds it and leaves it consistent (its invariant holds at
// both ends), so either order is a valid history. The bugs OSCS is for
// have another shape: a goroutine that splits one piece of work over two
// critical sections, with another goroutine's write in between (the
// atomicity shape: Mozilla-1, MySQL1-A, KB1, Fig. 3c), or that decides
// in one section and acts in the next (the order violation: Mozilla-3).
// So a pair is dropped (Options.NoWholeOp keeps it) when both of its
// critical sections of the common lock are whole operations, defined on
// the trace (the shim records no call stacks by default, so functions are
// those of the sites):
//
//   - the section was released, and its Lock and Unlock sites are in one
//     function (a deferred Unlock's site is its defer statement), or it
//     is one of the sections of one call that a callee splits by letting
//     its caller's lock go and taking it again (an Unlock, then a Lock of
//     the same lock expression below it in the source, in a function
//     that takes that lock nowhere above the Unlock: sctp's
//     processAcknowledgement unlocks the association around each
//     stream's onBufferReleased), when the run of such sections began at
//     a Lock of the function whose Unlock ended it. Those sections are one
//     call's two, as a function's two Lock sites make them (below); the
//     callee's author let the lock go where the state is whole, and what
//     the call carries across the window is the next rule's question;
//   - it reads something (a section that only writes is a setter, one
//     part of an update whose other parts are other sections: jsstring's
//     setLength and setChars, called one after the other by Concat),
//     unless it is a lone setter against a lone section: each is the
//     only section of its call (its function takes locks at one site,
//     and neither the goroutine's nearest section of the lock past the
//     calls of the same operation nor its nearest section of any lock
//     is a two-step with it, trace.Site.After, unless every such step
//     of its call commutes with the other side's section, itself alone:
//     they share no location that one of them writes; and the other
//     side's is no such step of another update: no check of what the
//     step checks, at its site or a getter of the same state at another,
//     whose goroutine stored, by atomics since its previous section, what
//     the step's goroutine loaded so, or whose previous section, not
//     itself such a check, was taken at the site of the one before the
//     step, or conflicts with that one). A reset that makes a
//     structure's state anew in one section (hystrix-go's metric
//     collectors' Reset, under Flush) against a getter's one section
//     leaves the getter the old state or the new, as two whole
//     operations do; a reader that spans several sections of one call
//     (mysqlslave's Status, with Rotate's section between its first and
//     third) or a setter that is one step of its caller's update
//     (jsstring; kb4's two locks) is not alone. A reader whose function
//     takes the lock at other sites too is alone enough against a lone
//     setter when no other section of its call touches what the setter
//     writes and the sections taken next to it at its own site (a
//     loop's iterations, each taken whole: Lock above Unlock in the
//     source) touch just what it touches of it: each iteration reads
//     all it takes afresh, and the setter's one section falls before or
//     after it (paho's DefaultPinger.Run, marked running in a first
//     section, reads on every tick the timestamps that PacketSent,
//     PacketReceived and PingResp set). A setter whose caller compared
//     the value first (`if s != p.Status() { p.setStatus(s) }`,
//     open-feature's multi-provider) against a getter polled in a loop
//     is such a pair: the comparison only reads, so the poll run
//     between it and the set finds what it finds run before both. A
//     setter whose function takes other locks at other sites too is
//     alone against a getter alone only when its goroutine's whole
//     extent commutes with the getter's section: the trace has no
//     calls, so every event of the goroutine, and of the goroutines it
//     handed work to and heard back from (what happens between its
//     first event and its last), stands for the call's; none may write
//     what the getter's section touches or touch what it writes, plain
//     accesses, atomics, map operations and channels alike (its other
//     sections at the setter's Lock site but for what the setter writes
//     too: other calls of the same operation), and no section before
//     the set, back to the goroutine's last one at the setter's site,
//     may be the getter's counterpart in another update (pubsub's
//     recvMessages sets the response time under pingMu and reads and
//     sets the exactly-once setting under eoMu, against checkServer; a
//     count of the response that the getter reads with the time, taken
//     in a callee's section, by an atomic or by a map write, keeps the
//     pair: review A's programs). A
//     section whose read
//     of the location only decides branches (trace.UseBranch) is a check
//     whose action the order decides (Fig. 4's flag, checked before it
//     is set: a notifier that finds no waiter yet), not a getter;
//   - if the goroutine's previous or next section of the same lock was
//     taken at another Lock site of the same function (in source order:
//     one call of a function with two Lock sites, KB1's Insert,
//     Mozilla-3's Run; a function that is called again, or loops, at one
//     site is not), or it began at the Lock of a callee's window that
//     ended it (above), the other side's section does not break what the call
//     carries from its first section into its second (the paper's
//     order-sensitivity, for a read in one section whose value flows to a
//     write or a decision in the next, against a remote write between):
//     the other side writes a location that the first section wrote and
//     the second accesses (the second finds another's value where it left
//     its own: KB1's count, Mozilla-1's gCurrentScript), or reads one that
//     the first wrote and the second writes again (it sees the call half
//     done), or writes a location that the first section read, when that
//     read's value goes on past the section (the instrumenter's static
//     fact trace.UseBranch is not on its site: it is kept, returned,
//     passed or stored) or only decides branches and the second section
//     does not read the location again (a decision taken on a premise
//     that the other side then changes: a resource added to a pool
//     after Close, testdata's poolclose). A second section whose first
//     access of a location checks it (a read that only decides
//     branches), updates it in place (`l.count--`) or overwrites it
//     takes nothing from what the first left there (redigo's GetContext
//     pops idle connections in a loop and relocks at the loop's end: a
//     Put between two iterations is the next connection popped), and a
//     first section that read a pointer and then overwrote its location
//     took what it carries out (a pop), which is no premise either; nor
//     does a first section whose Unlock the instrumenter found sealed
//     (trace.UseSealed: one region of its function, nothing it computed
//     used past the Unlock but as a timer's or a sleep's duration) carry
//     one, unless the second reads what the first wrote (ttlcache's
//     expiration loop reads the earliest deadline, sleeps that long and
//     looks at the queue afresh; a Purge between the two sections
//     changes when it wakes, not what it does then). A
//     call whose second section
//     reads the premise again (puddle's CreateResource re-checks
//     p.closed after it relocks), or whose first section hands on nothing
//     that the other side changes (fastcache's Save: a cleaning section,
//     then a snapshot section that reads everything it saves again), is
//     two operations. A later section that reads and then writes every
//     location it touches and nothing else takes no premise from the
//     first either (puddle's acquire, which counts an acquisition at
//     either of its two Lock sites: updates that commute whatever ran
//     between). Nor does a call that waited for the other side's section
//     between its two: the other's Lock happens before the second
//     section's by synchronization the goroutine acquired after its first
//     section (pion/transport's pingPong.EnqueueMessage finds the batch
//     full, unlocks, receives on the channel that the batch swap closes
//     in its section, and relocks to take the new batch): the other
//     section then runs between the two in every execution in which it
//     does not run before both, and the order the pair stands for, the
//     other section after both, cannot run;
//   - the function does not access the pair's expression again after the
//     Unlock in the source (MySQL-2: a check under the lock and a
//     dereference after it carries the value out of the section), other
//     than after a later Lock of the same lock expression in the function
//     (a second section of its own, judged by the rule above) or past the
//     return that an early exit's Unlock reaches next (trace.Site.ExitLine:
//     `if c.closed { mu.Unlock(); return }; c.closed = true`, an idempotent
//     Close called twice: the set below runs in the other call);
//   - if its function takes the lock again at a later Lock site and the
//     call stopped after this section (it ended at an Unlock above that
//     site, and its next section of the lock is not the call's second),
//     the other side writes no location that the section read to decide
//     and that the function does not check again after the later Lock
//     (a Withdraw that finds the balance short and returns, against a
//     Deposit that would have let it go on);
//   - except that the last two rules, a value carried past the Unlock and
//     a call that stopped on a premise, do not count when the other side's
//     section reads a location this section writes, or sends, receives,
//     selects on or closes a channel this section made: the section left
//     word of itself that the other looks for, and the later of the two
//     handles either order (go-datastructures' Queue.Poll, finding no
//     item, makes a waiter's channel, registers it, unlocks and waits,
//     then reads the items again past its Unlock once the Put that found
//     the waiter has sent on its channel; Dispose wakes the waiters it
//     finds);
//   - if it only reads, the goroutine's previous and next sections of the
//     lock touch no location that the other side's section writes (a
//     getter whose caller goes on with a second section over the state the
//     other goroutine changed in between: StringBuffer's Length then
//     GetChars, Vector's Size then CopyInto, against SetLength or
//     RemoveLast); a neighbor taken at the section's own Lock site, in
//     a function that takes no lock elsewhere, is another call of the
//     same operation (a periodic task: bigcache's cleanUp on every tick)
//     and does not count, nor, in a function with other Lock sites, does
//     a neighbor at the same site when both sections are a loop's
//     iterations taken whole (Lock above Unlock in the source: paho's
//     pinger on every tick); a loop that holds the lock across its back
//     edge and reopens it (mozilla3x's Run polling for its wake-up, each
//     poll ended at the Unlock above its Lock) is one call whose polls
//     count, but the
//     section beyond such a run of calls does (a caller's loop of At(i)
//     below the Len it read first: the last At's neighbor is another At,
//     the generic vector of testdata's genvector), and
//     neither does one that is not a two-step's other step: the earlier
//     section's Lock site must be in the later one's trace.Site.After,
//     the instrumenter's static fact that some function outside _test.go
//     files calls the earlier operation and then the later one on the
//     same object (Append calls other.Length(), then other.GetChars; a
//     function that takes the lock at two sites, or at one in a loop, is
//     its own two-step). A test's loop that drives the structure (Set,
//     then Get, then Set: fastcache's and puddle's workers, testdata's
//     seatloop) makes none, so its calls are separate operations.
//     Nor does the previous neighbor when the read-only section checks
//     again, before it relies on them, the locations that the other side
//     writes (its first access of each only decides branches, updates it
//     in place or overwrites it, as a call's second section that takes
//     nothing): serf's handleQueryResponse asks Finished and then calls
//     sendResponse, which tests r.closed under the lock before it sends,
//     and with Close between the two it finds the flag set, as when Close
//     runs before both. A next neighbor that checks still counts: the
//     getter's value goes on into it (Len, then a Pop that panics on the
//     empty queue Len said was not).
//
// A write and a read are order-insensitive, whatever the sections are,
// when the reader reads the location again (before it writes it) in a
// later section that its goroutine takes at the read section's Lock site
// and that the write's section happens before by the program's own
// synchronization: the writer, past its Unlock, wakes the reader (a send,
// a close, a Signal) before it takes the lock again. An event loop that
// recomputes from the state on every pass, woken by the writer after its
// write (sctp's timerLoop reads the RACK and PTO deadlines at the top of
// each pass and waits on timerUpdateCh, which startPTOTimer pokes after
// it set a deadline): had the pass run before the write, the pass the
// wake-up starts reads the new value; the order decides when the loop
// sees it, not whether.
//
// Two pairs of whole operations stay reported: two writes neither of
// whose sections read the location before writing it (a lost update, the
// later write discarding the earlier unseen: oscsloop), unless the later
// write stores through a pointer that its section read from where the
// earlier section stored it (`l.front.prev = pc`, after another push set
// l.front: in the other order it would have reached another node, so the
// two writes meet in one order only), or unless the later write runs
// only on the edge of a branch on a value that the earlier section
// changed (the instrumenter's trace.Site.Guards; the value found
// directly, or through updates in place such as a count's `--`: redigo's
// pop clears the list's back when its count reaches zero, a push having
// set the back when it found the count zero: the later write is a
// decision on the earlier section's result, not made unseen of it), or
// unless each
// stores a copy of one location that both sections read and then write
// (bigcache's push: `q.tail += n`, then `q.rightMargin = q.tail`; the
// write's site stores a value loaded as it is, the instrumenter's
// trace.UseCopy, its goroutine's last read in the section before it is of
// that location, and it stores the value the section last wrote there:
// whichever section runs last stores the location's value after both
// updates, which commute by §3.2.3's heuristic), or unless both writes
// are stores of the Swap, Push or Pop methods of one type that implements
// container/heap.Interface (trace.UseHeap: `pq[i].index = i`, `item.index
// = -1`; go-generics-cache's expiration and LFU queues, 12 findings): an
// item's position, which each heap operation, whole under the lock,
// leaves in step with the heap's order, so either order of the sections
// leaves it the item's place in the heap they make (this one holds
// whichever other section of its goroutine each is split from), or
// unless the location is
// scratch space: each section reads back something it wrote at its
// write's site, and no read in the trace finds a value a write at either
// site left without its own goroutine having written the location since
// its last lock operation (pubsub's distribution fills a slice of running
// sums under the lock and binary-searches it in the same section: the
// leftover is read by no one, so which fill is lost changes nothing read;
// a getter that reads the leftover, or a write its section does not read
// back, as oscsloop's count, keeps the pair), and a nil store
// against a section that begins its use of the location with an unchecked
// dereference (a crash in one order), or a lone setter's store over nil
// (no earlier write of the location in the trace's GC epoch) against
// such a section that came after it. On golang-lru this leaves 3 to 6
// of 25 findings, all false (bench/RESULTS.md); on the kernels it
// silences oscsmax (Fig. 5, a known false positive) and keeps every true
// finding.
//
// Each finding's notes name its shape, from the trace: an atomicity
// violation when one side's goroutine also touches the location in its
// previous or next critical section of the lock (the other side's section
// can fall between its two: Mozilla-1, MySQL1-A, KB1), otherwise an order
// violation (only which section runs first matters: Mozilla-3's flag
// checked before it is set), or, for two writes, a lost update. The
// note prefers the split that the filter above judges one piece of work:
// a neighbor section that is one call's other section, or a caller's
// other step (trace.Site.After) that is not another call of the same
// operation, names the shape before a neighbor that may be a test's
// loop calling the operation again, and so does a reader's step that
// touches another location the other side writes (a renderer that
// calls a tracker's Value and then IsDone, with Increment, which writes
// both, between them: the getter rule's multi-variable shape, which is
// what keeps such a pair of whole operations reported).
//
// # Soundness
//
// OSCS is a heuristic (§2.5) and neither sound nor complete. It reports
// order-sensitivity that may be intended (statistics, logging) or harmless
// (Fig. 5: a maximum whose update one side skips; Fig. 13: a FIFO's head
// and tail read by both sides, each written by one, and Fig. 12: a done
// flag awaited with a condition variable, both when the flag inference
// does not see them awaited, or with it off; a status that a reader shows
// whichever value it finds, when it is not a nil check and a dereference
// under the lock). It
// misses bugs in accesses outside critical sections (those are data
// races), bugs whose pair the commutativity heuristic hides (two
// read-modify-writes that do not commute, such as appends whose order
// matters), pairs the history has already forgotten (Base keeps one read
// and one write per goroutine, Opt two of each per location), and, since
// the shim records pointer-shaped values as nil or non-nil, a pair of
// writes of two different non-nil pointers, which look redundant. hb's
// approximations carry over: a missed order edge can add a report, an
// extra one can hide one. The flag inference can hide a bug on a
// location that a loop or a wait awaits; it needs one wait in the trace
// for a cond flag (a run in which the write came first and nobody waited
// shows none), and it re-runs hb.Analyze, with the events and the site
// table only, when it finds a flag.
//
// The wake-up rule takes a loop's pass for a provisional decision that
// the next pass revises: a pass that acts on the value it read in a way
// the next pass cannot undo (a message sent, a resource released on a
// stale deadline) is dropped with it. And a wake-up that the writer did
// not send because one was pending (a poke with a default case) makes no
// order edge in the trace: such a pair stays reported.
//
// A callee's window is taken for a point where the caller's state is
// whole: a caller that carries a value across it (a local computed before
// the callee's Unlock and used after its Lock) on a location the other
// side changes is judged by the footprints as one call's two sections
// are, which miss a premise the trace does not show flowing (a value
// kept in a register, not read again).
//
// The whole-operation filter hides an atomicity violation whose two
// sections are two calls of a caller (`if !c.Contains(k) { c.Add(k) }`,
// or setters of one field each called by one function) when the trace
// does not show the shape above: the shim records no call stacks, so a
// read-write section per call looks like a whole operation, and so does
// a read-only one whose neighbor sections share no location with the
// other side, or that were taken at the same Lock site of a function with
// no other (a caller that reads the same getter twice and expects one
// answer; one call that relocks at its only Lock site in a loop and
// carries a value from one iteration to the next). It also hides a lost
// update in which one side reads the location before writing and the
// other does not, and a function whose second section only updates
// counters on a decision its first section took from state that another
// goroutine changes in between (a count of uses kept after a close that
// the first section checked for): the trace shows what the second
// section touches, not why it runs. For one call's two sections, a read
// that the second section makes again is taken to check the first's
// premise anew, wherever in the section it comes and whatever the section
// does with it (a second section that adds the resource and then reads
// the flag only to count is taken for one that checks), and a read whose
// value only decides branches is taken to carry nothing else: a branch
// that stores a constant the second section relies on carries the
// premise through memory, which the first two cases see only when the
// other side touches that location. The copy exception to the lost-update
// rule trusts the read-write sequence as §3.2.3 does: two updates of the
// copied location that do not commute (appends whose order matters) make
// the copies differ by order, and the pair is still dropped. The scratch
// exception knows only the reads the trace holds: a leftover that code
// precog did not instrument reads, or that the program reads past what
// the test ran, makes the lost update seen, and the pair is dropped all
// the same. A call that
// waited for the other side's section is taken to rely on what that
// section leaves: a stale premise carried across the wait fails in the
// order that always runs, where a test sees it, and no report names it.
// A getter
// that checks again is taken to decide afresh, though its check may
// compare the location with what its caller's first step returned (Size,
// then a Get(i) whose first access of the count is `if i >= v.count {
// panic(...) }`, with a RemoveLast between): that pair is dropped. The
// getter rule's two-step fact is
// about functions, not calls (a run records no call stacks by default):
// a test's loop that calls two operations in an order some library
// function also calls them in looks like that function's two steps and
// stays reported, and a caller's two steps are missed when the fact
// does not see them: calls through interfaces or function values, a
// caller in test code or in a package that is not analyzed, the two
// objects reached by different paths (a local copy of a field against
// the field), or the second call on no path after the first in the
// caller's control flow graph. The lone-setter rule leans on the same
// fact: a setter that is one step of a caller's update looks alone when
// the caller is test code or calls through an interface, or when the
// steps are two calls of one function (two setters of one field), and
// its steps that commute with the other side are judged by the trace's
// footprints: a getter whose caller acts on what it read (an update that
// compared the status with Status, found it unchanged and stopped, while
// another update's comparison and set ran) is told from a poll only by
// the section its goroutine ran just before it (another update's, at the
// same site or touching what it wrote) or the atomics it ran since (a
// store of what the other update loaded), and is dropped against the
// other's set when it has neither (an update's first step, or one that
// follows a getter; one whose state is a plain variable or a channel's,
// or was stored atomically before a section) and its call's second step
// is not in the trace. A getter is one section of a function with one
// Lock site that reads and writes nothing else: two getters that read the
// same locations are one check, so a getter that also reads a field the
// other does not is another check (a poll of the two in turn is then told
// from an update by its previous section alone). The atomic steps are
// judged by location: a poll that bumps an atomic counter which the
// update loads (a version number read back) is taken for another update,
// and its pair stays reported. A lone setter's store over nil is known as such only within a GC epoch: a store that
// replaces a value written before the last collection, against a later
// reader that dereferences it, stays reported. The loop rules take a
// check, an update in place, an overwrite or a pointer carried out for
// what the trace shows: a second section that checks a location and then
// relies on the value its first section left there (`if c.n == mine`), a
// pointer that stays shared after the pop that carried it out, and an
// update in place whose result the section then uses look harmless to
// them. The reached exception does not compare pointers (the shim records
// them as nil or non-nil): an earlier section that stored the pointer its
// location already held lets the later write reach the same node in
// either order. The answered exception trusts any read of
// what the section wrote, or use of a channel it made, as the other side
// looking for it: a section that bumps a statistic the other side also
// reads, or a channel the other uses for something else, drops a check
// carried past the Unlock that the other side does break.
//
// The guard facts are about one function's control flow: a check in a
// caller, or a value carried through a phi or a call before the branch,
// guards nothing, which only keeps pairs. The decided exception takes a
// changed value of the check for a decision on it, though another value
// may take the same edge (a count of 2 instead of 1 against `== 0`), and
// it follows updates in place as if each were one-to-one (`x *= 0` is
// not); both it and the switched filter take a location that the trace
// never saw written for zero (a composite literal's value is not
// recorded), and the value the later check would have found in the other
// order for the value before the earlier section (no third section
// between).
//
// The Go filters of "What changed for Go" can hide bugs too. The lazy-initialization filter
// hides a reader that checks the location and then relies on it being
// set, or clear, after the lock is released (it sees nil had it run
// first, and acts on that outside the section); a write after a read of
// a location that a composite literal had set, which the trace does not
// show, looks like an initialization (the read seems to observe zero); and
// an initialization undone by a reset that a third section performs is
// judged pair by pair. The nil-guard filter hides a section that checks
// the pointer, then dereferences a value it read before the check or
// that it leaks out of the section (a copy kept past the unlock and used
// after a nil store), and a reader whose nil branch is itself wrong
// (it proceeds as if the object had never existed when the order matters
// to it); both filters take "not dereferenced" for "checked", so a read
// whose value goes somewhere the instrumenter cannot follow (a call
// argument, a return) counts as a check.
//
// The known false-positive shapes have kernels of their own in
// testdata/kernels: oscsmax (Fig. 5), radix (Fig. 12) and fifo (Fig. 13).
package oscs

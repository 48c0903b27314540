// Package hwmodel replays a recorded trace through a simulated multicore
// with the hardware of OSCS-HW, from Huang, Halberg and Suh, "Non-Race
// Concurrency Bug Detection Through Order-Sensitive Critical Sections"
// (ISCA 2013; ../shared/papers/oscs.txt §4 and §5), to answer the paper's
// questions on Go programs: what would an always-on hardware OSCS catch,
// what would it miss and why, and at what cost.
//
// # The machine
//
// Replay walks the trace's events in their global order (detect/hb's
// graph of them) on a machine of Config (Default is Table 1):
//
//   - cores: goroutines are placed on Cores cores in the recorded
//     order; a goroutine keeps its core until it may block or ends
//     (scheduler, in sched.go, has the policy and its limits);
//   - caches (hwmodel/cache, §4.1): private L1 and L2, a shared
//     inclusive L3, MESI, the one-bit shared tag per block set on
//     M→S, M→I, E→S, E→I and S→I and cleared when the block leaves
//     the chip. Each recorded read or write is an access to its address;
//     so is each Lock and Unlock (the mutex word), channel operation (the
//     channel's lock), atomic, WaitGroup or Cond operation and map
//     access (the map header): a lock next to the data it guards shares
//     its line, as in the real program;
//   - the checker of each core (checker.go, §4.2): the running
//     goroutine, its vector clock and current critical section; a read
//     or write inside a critical section whose line is tagged shared is
//     looked up and recorded in the core's AHB; the vector clocks of
//     ordering objects are read and written through the caches;
//   - the AHBs (hwmodel/ahb, §4.3): per core, 256 entries in 8-way
//     sets, LRU, entries moving between cores coherently and thrown
//     away when evicted.
//
// OSCS-HW is then detect/oscs's OSCS-Opt with the hardware's history
// (oscs.Options.Hardware, which Machine implements): an access the
// checker did not record is neither checked nor remembered, and a history
// whose AHB entry was evicted is gone. Everything else, the order of
// vector clocks, the commutativity flag, the redundant-write check and
// precog's Go filters, is the same in both, so Compare's differences are
// the hardware's limits alone: a lost finding has a Reason (the line not
// tagged yet, tagged on one core only, its tag lost with the line, the
// AHB entry evicted, the two-slot history). Timing (timing.go, §5.4) adds
// up the cycles of the replayed operations and of the bookkeeping.
//
// # Sound for, unsound for
//
// An AHB miss finds no history, so it can lose a pair but never make one:
// every pair OSCS-HW reports is of two accesses the hardware recorded and
// still held, and passed the same filters as software's. It can report a
// pair software's OSCS-Opt does not (Verdict HardwareOnly): a history that
// missed an access keeps an older one that software's two-slot history had
// replaced.
//
// The model is faithful to the paper's mechanism, not to a real chip:
//
//   - The trace records the shared locations' accesses and the
//     synchronization, not the program's private data, stack,
//     allocation or initialization (a composite literal's stores). The
//     caches see fewer lines than a real run's, so lines leave the chip
//     later (fewer tag-lost losses than real hardware would have). And a
//     line would be untagged until two cores touch it in the trace,
//     although the goroutine that allocated and initialized the object
//     touched it first, often on another core: Config.InitByParent (on
//     by default) guesses that the goroutine that started a line's first
//     user made its object. Without the guess, in a test whose goroutines
//     each run a critical section once, the first section touches a line
//     no other core has and the hardware cannot see it; it catches a bug
//     when the critical sections repeat, as in the paper's benchmarks,
//     or when another core used the line first.
//   - Sizes of accesses are not in the trace: an AHB entry is one
//     location (one address), its set chosen by the word.
//   - The checker's critical section is hb's (every lock held; the
//     outermost section), as in software; the paper's checker keeps the
//     most recent one only, which would lose pairs in nested sections.
//   - The hardware sees addresses only: software's locations (and so the
//     hardware's here) also tell apart GC epochs and variable names.
//   - Goroutine placement follows the recorded interleaving with the
//     policy above, not Go's scheduler; the tag cannot tell two
//     goroutines on one core apart, and a goroutine that migrates tags
//     its own lines (§4.1's caveat; the paper's remedy, a thread ID per
//     block, is not modeled).
//   - Timing is additive latency with one instruction per event, summed
//     over cores; the overhead is an upper bound because the baseline
//     lacks the unrecorded work (Timing).
package hwmodel

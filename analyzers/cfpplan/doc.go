// Package cfpplan defines an analyzer that decides which functions' entries
// and exits the cheap run of CFP-guided detection must log, and which it
// can skip without losing a concurrent function pair. It reports nothing;
// the instrumenter reads its result.
//
// # Analyzer cfpplan
//
// cfpplan: plan which function entries and exits CFP needs logged
//
// CFP (Deng, Zhang and Lu, "Efficient Concurrency-Bug Detection Across
// Inputs", OOPSLA 2013) measures which pairs of functions a test runs
// concurrently from a trace of function entries and exits and sync
// operations. Section 3.2.3 prunes that trace statically; this analyzer
// implements its two optimizations and the future-work item after them:
//
//   - Opt1: a function that touches no shared memory (no access of the
//     sharedloc analyzer that is not Local) cannot hold half of a race or
//     an atomicity violation; its pairs would guide nothing.
//   - Opt2: f2 inherits the concurrent functions of f1 when f1 calls f2 at
//     a site that post-dominates f1's entry (see the postdom analyzer) and
//     neither f1 nor its other callees synchronize: every function
//     concurrent with f1 is then concurrent with f2 (the paper's proof,
//     Fig. 5). When every call of f2 is such a call, f2's entry and exit
//     are not logged; the trace analysis adds f2's pairs back from its
//     callers'. The callers must be logged themselves or inherit in turn,
//     never in a cycle. With -loops (the default, as in the paper) every
//     loop is assumed to run at least once, so that lu0's call of daxpy
//     in Fig. 4 qualifies; this may add pairs that never happen, which
//     costs detection time but never a finding.
//   - Pre: a function that runs only during the package's initialization,
//     before any goroutine of the package starts, is concurrent with
//     nothing.
//   - Test: the functions of _test.go files are the suite's inputs, not
//     the program whose interleavings CFP measures; their pairs would make
//     every test look unique (each has its own closures). Guided detection
//     records their accesses in every selected test.
//
// Synchronization means what the shim records: go statements, channel
// operations, select, close, the methods of sync's types, sync/atomic,
// task groups and subtests. A call that may reach such an operation in
// instrumented code synchronizes: a call of another function of the
// package that does, a dynamic call (an interface method or a function
// value), and a call of a function of another package of the same module.
// A call into the standard library or another module does not, unless it
// is handed a function value (sort.Slice's less, sync.Once.Do's f), since
// their own locks are not instrumented and CFP cannot see them anyway.
// Interface values handed to such calls (an io.Writer whose Write locks)
// are not followed: that shape can make Opt2 skip a function whose pairs
// then include one too many.
//
// Only unexported functions and closures whose every caller the package's
// call graph (see the callgraph analyzer) knows, through static calls, are
// skipped by Opt2 or Pre; Opt1 applies to any function.
//
// Cost. One pass over each function's instructions, a fixed point of the
// package's call graph for the sync summaries (each round marks at least
// one more function), and a post-dominator tree per caller of a candidate
// (postdom's bounds apply: a caller without a tree does not qualify). The
// analyzer spends each function's instructions from the package's budget
// (see the budget analyzer) before planning; if the budget cannot pay,
// every function is logged, which costs the cheap run time but loses no
// pair, and the budget's skips say so.
package cfpplan

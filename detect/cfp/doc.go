// Package cfp measures Concurrent Function Pairs, the interleaving coverage
// metric of Deng, Zhang and Lu, "Efficient Concurrency-Bug Detection Across
// Inputs" (OOPSLA 2013, ../shared/papers/cfp.txt), from precog traces, and
// selects the tests and functions that cover a suite's pairs.
//
// Two functions are a concurrent pair under a test when one goroutine can
// be in the first (or a function it calls) while another is in the second.
// Measure decides it from one recorded run, as §3.2 does: it pairs each
// function entry with its exit (an instance), computes the lock set at the
// entry and the locks held from entry to exit in one critical section, and
// the vector clocks of the entry and exit from order synchronization only
// (detect/hb: go statements, channels, WaitGroups, ..., never mutexes).
// Instance a can start inside instance b (Fig. 3) when they are on
// different goroutines, no lock held at a's entry is held by b from its
// entry to its exit, a's entry does not happen before b's, and b's exit
// does not happen before a's entry. The pair is concurrent when either
// can start inside the other. (Fig. 3's pseudo-code joins the two
// directions with "and"; read literally it would reject main and the
// SlaveStart it starts, which §3.3.1 counts as a pair, so the directions
// are alternatives here.) Instances with the same function, goroutine,
// lock sets and clocks are grouped first (§3.2.2); the pair check is then
// quadratic in the groups of two functions, bounded by Options.MaxChecks
// (within a pair of functions too). Two functions whose every instance
// holds one lock from entry to exit (not both for reading) are not
// compared at all: no instance of one can start inside one of the other.
//
// A run of one function on two goroutines at once is the pair {f, f}:
// two instances of one worker race as often as two functions do.
//
// Functions whose entry and exit the cheap run did not log because a
// static plan (analyzers/cfpplan) found they inherit their callers'
// concurrent functions (the paper's Optimization 2) get their pairs back
// from the callers' (Plan.Inherits): a skipped f2 ran if one of its
// callers did, and pairs with whatever its callers pair with. Functions
// skipped for touching no shared memory (Optimization 1) or for running
// only before any goroutine starts have no pairs, by design.
//
// Select is §4.3's greedy selection: the test covering the most pairs not
// yet covered, then the next, until the union is covered; each selected
// test's functions are those of the pairs it adds (Fig. 8). Fluctuation
// measures the stability of a test's pairs over repeated runs (§4.2).
//
// The measure is sound for the recorded run's synchronization as the
// trace shows it: synchronization in uninstrumented code is invisible (it
// adds pairs that cannot happen, which costs detection time, not
// findings), and a function that never returns has an instance open to
// the end of the trace.
package cfp

// Package unicorn localizes the concurrency bug behind a test that fails in
// some runs and passes in others, after Unicorn (Park, Vuduc and Harrold,
// "A Unified Approach for Localizing Non-deadlock Concurrency Bugs",
// ICST 2012; ../shared/papers/unicorn.txt §II–III, Table I, Algorithm 1).
// It finds the memory-access patterns of Table I (order violations P1–P3,
// single-variable atomicity violations P4–P8, multi-variable atomicity
// violations P9–P17) in each recorded run, and ranks them by how well they
// tell the failing runs from the passing ones.
//
// # Steps
//
// Step 1 (Patterns, once per run; the paper does it online, precog over
// the recorded trace, which is the same computation): every memory access
// (Read, Write, MapRead, MapWrite, MapIter, AtomicLoad, AtomicStore) goes
// into a sliding window of its location (Options.AccessWindow accesses,
// default 5, as in the paper's Study 1). When the window is full the
// oldest access is paired with the later accesses in the window: a pair
// is two accesses by different goroutines, at least one a write, with no
// write between them (so the second reads the first's value, or
// overwrites the value the first read or wrote). The pair is P1 (R W), P2
// (W R) or P3 (W W). Accesses are numbered by the global access index,
// the event's place in the trace's global order.
//
// Step 2 (Patterns, offline): pairs are sorted by their first access and
// combined within a window of Options.PairWindow pairs (default 100, the
// paper's). Two pairs of the same two goroutines make a single-variable
// pattern (P4–P8) when the second access of one is the first access of
// the other and the outer two come from one goroutine, and a
// multi-variable pattern (P9–P17) when they are on two locations and their
// four accesses, in the global order, spell one of Table I's rows. A
// pattern is named by its kind and its accesses' sites, read or write and
// goroutine role (1 or 2), not by addresses or goroutine ids, so the same
// pattern is recognised in every run. Each pair is also a pattern itself
// (Algorithm 1, lines 10–12).
//
// Step 3 (Rank): suspiciousness is the Jaccard index of formula (1),
// failed(s) / (totalfailed + passed(s)), where failed(s) and passed(s)
// count the runs whose trace holds pattern s. A failing run with no pair
// at all is left out of totalfailed (and said so in a note): its trace
// knew the order of none of its accesses (plain accesses with no sync
// event between them), so it cannot tell a pattern's absence from its own
// blindness, and counting it would push a pattern seen in the other
// failing runs under MinScore.
//
// # What changed for Go, and why
//
//   - A pair needs an order the trace knows. The paper numbers every
//     access from one global counter; precog's shim gives a seq only to
//     sync events, and a memory access is known only to lie between its
//     goroutine's last sync event and its next one (see "Order" in the
//     doc of shim/trace). So access a is taken to come before access b of
//     another goroutine only if a sync event of a's goroutine at or after
//     a took a smaller seq than a sync event of b's goroutine at or before
//     b (an atomic is its own sync event). Other pairs are dropped
//     (Options.TraceOrder keeps them in the trace's order, which for such
//     pairs is a guess). In practice: accesses inside critical sections
//     are ordered by their Lock and Unlock; plain accesses racing with no
//     sync event between them are not, and Unicorn cannot see their
//     interleaving (go test -race can). The atomics that the shim records
//     after the operation with a gate in between (methods of atomic.Int64
//     and the like) may take their seq late under perturbation, which can
//     misorder them.
//   - A run that targeted perturbation forced (pipeline/predict) knows
//     more: each forced order {x, y} of Options.Forced says that x's
//     goroutine passed x before y's went on from y, so its accesses up to
//     x come before the other's from y on, plain accesses included. The
//     run's order (runOrder) moves y's accesses after x where the trace
//     put them before it, and the pairs and patterns follow that order.
//     Reversible gives the candidates of such runs: Step 1's pairs of a
//     run, the order of plain accesses taken from the trace.
//   - Pairs ordered by synchronization are dropped (Options.KeepOrdered
//     keeps them, as the paper does). A pair whose first access happens
//     before the second by order synchronization (go statement, join,
//     channel, Once, Cond, atomic publication: detect/hb) cannot be
//     reversed by any schedule of the same synchronization, so it says
//     nothing about the interleaving. Without this, a test's failure path
//     (reading shared results after Wait only when it reports an error)
//     makes pairs that occur only in failing runs and rank first. Mutexes
//     order nothing here, as in detect/hb, so MysqlDelete's pairs across
//     LOCK_open and LOCK_log stay.
//   - Locations are addresses within a GC epoch (hb.Loc), so a recycled
//     address never pairs two objects.
//   - Grouping, the paper's future work (§IV-C, §VI): patterns at the top
//     score that share a site and involve the same two goroutines (named
//     by the go statements that started them) are one finding. The finding
//     is the group's largest pattern (most accesses: a pattern explains
//     more than the pairs it is made of, as the paper argues for
//     MysqlSlave; ties go to the lower pattern number, then to the
//     earlier sites); the others are listed in its Notes. TimerThread's
//     order violation and the atomicity patterns that "always appear with"
//     it (Table IV: three at rank 1) become one finding this way.
//
// # Runs analysed in part
//
// A run whose trace is too large to hold (precog test -max-trace) gets
// Patterns on its first events only, and comes to Rank with Run.Cut set. A
// pattern it does not show may lie after the cut. Counting it as absent,
// as a whole run's absence counts, would bias the ranking both ways: a
// failing cut run lowers the score of a pattern it misses, but a passing
// cut run raises it, and can invent a finding (a pattern of the test's
// last steps, in every run, looks failing-only when the passing runs were
// cut before it). So each pattern gets the lowest score the cut runs allow
// (Score.Susp: a failing cut run that does not show it counts as lacking
// it, a passing one as having it) and the highest (Score.High: the other
// way round); a failing cut run is never blind, it counts in totalfailed
// (the lowest score for every pattern; the highest too, for one it may
// have). The ranking and MinScore take the lowest scores, and a group at
// their top is reported only if no pattern outside it has a highest score
// above the group's lowest: in the whole runs, then, no pattern the cut
// runs showed outranks it, and it scores at least what Rank says. Patterns
// that no run showed before its cut are not known, and may outrank it.
// The cost is findings: a pattern found only in failing runs loses a point
// of its lowest score's denominator to each passing cut run, and another
// pattern outside its group whose highest score is above that (one of the
// failing runs that the passing cut runs did not show, for example) keeps
// it from being reported. The finding's notes count the cut runs that did
// not show it. One assumption: the patterns of the first events are
// patterns of the whole run. The first events in the global order are
// each goroutine's events up to some point, but an access just before the
// cut whose order is known only from a sync event after it makes no pair
// there (fewer patterns, which the bounds allow for), and a receive whose
// send came later in the order may lose its edge at the cut, so a pair
// that edge orders is kept, and the pairs whose second access lies after
// the cut are missing, so two pairs around them may come within
// PairWindow and combine (patterns the whole run may not have: more).
//
// # Reporting policy
//
// Unicorn is statistical: it needs runs that failed and runs that passed.
// Rank reports nothing when no run failed (a test that always passes stays
// silent, whatever its patterns) and nothing when every run failed (the
// outcome did not depend on the interleaving, as far as the runs show).
// Otherwise it reports only the groups whose patterns reach the top score,
// and only if that score is at least Options.MinScore (default 0.5: the
// pattern occurs in at least half the failing runs, or clearly more often
// in failing runs than in passing ones). Lower-ranked patterns are never
// reported: the paper's developer reads the top of the list, and precog
// prefers saying nothing to saying something weak.
//
// # Soundness
//
// Neither sound nor complete. Unicorn reports what correlates with
// failure in the runs it was given: it misses a bug whose pattern did not
// occur in a failing run (too few runs, or a window too small: accesses
// farther apart than AccessWindow accesses of their location, or pairs
// farther apart than PairWindow pairs), and a pattern that occurs in every
// failing run by coincidence ranks as high as the cause. Two misses are
// structural (bench/RESULTS.md, issue 10 item 4): plain accesses of two
// goroutines with no sync event between them make no pair unless a forced
// order says which came first (Options.Forced), so a bug that is only a
// data race is invisible to runs with random delays; and a failure that
// ends the process (a panic in a goroutine) before the pattern's last
// access leaves only the pattern's first pair in the failing run, which
// passing runs have too. Each finding is
// Predicted: the runs show correlation, not that forcing the pattern
// fails the test. Preconditions: each RunPatterns comes from one run of
// the same test and the same instrumented build (sites are compared), and
// Failed is that run's outcome.
package unicorn

// Package budget defines an analyzer that hands every other analysis of a
// package one shared budget of time, memory and work, so that precog's
// checks finish on every package: a package that exhausts it is analyzed
// less precisely or not at all, and the limits check says so, instead of
// vet hanging or dying.
//
// # Analyzer budget
//
// budget: share one time, memory and work budget per package
//
// The budget has three dimensions, each a flag of this analyzer, which the
// limits check passes on to the command line (-limits.time, -limits.mem,
// -limits.work under go vet and precog vet):
//
//   - time: time since the first of precog's analyses started spending
//     on the package (after its SSA is built): the lesser of the wall
//     time and the processor time of the process, so that a loaded
//     machine, where the wall time of the same work grows with the load,
//     does not stop the analysis early and fail the vet run with a budget
//     note (a loop that never ends spends both). precog vet analyzes its
//     packages at once, where the time would count the others', so it
//     turns this limit off by default.
//   - mem: how much the live heap of the process (as of the last garbage
//     collection) has grown since the analysis of the package started.
//     Under go vet each package has its own process; precog vet, whose
//     packages share one, turns this limit off by default too.
//   - work: abstract units that the analyses spend as they go (one per
//     points-to fact, per value refined, per pair of accesses compared,
//     per call followed), so that the same package stops at the same place
//     on every machine. Tests pin it.
//
// Analyses spend with Spend and give up with Skip, saying what they left
// out; once the budget is exhausted, every later Spend fails at once, so
// the rest of the package's analysis costs next to nothing.
package budget

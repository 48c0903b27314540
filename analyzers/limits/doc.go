// Package limits defines an analyzer that reports when precog's analyses
// of a package stopped short of a budget, so that a quiet report is not
// mistaken for a clean one.
//
// # Analyzer limits
//
// limits: report analyses that stopped at a budget
//
// Every analysis of a package spends one budget of time, memory and work
// (see the budget analyzer), which the flags -limits.time, -limits.mem
// and -limits.work set. An analysis that runs out gives up part of its
// work: the call graph keeps the coarser CHA graph, the points-to
// analysis stops and the checks stay silent, the context-sensitive
// refinement of points-to sets falls back to the context-insensitive
// sets, a check stops comparing accesses. The call graph also keeps the
// CHA graph for packages too large for VTA whatever the budget. When any
// of that happened, this analyzer reports it in one note at the package
// clause of the package's first file, naming the package, saying why and
// what was given up; the checks' findings for the
// package are then incomplete.
//
// The note comes after every check has run, so this analyzer requires
// them all: turning a check off still runs it when limits is on.
//
// A limit report is not a bug in the user's code. To stop seeing it, raise
// the limits or turn the analyzer off (-limits=false under go vet and
// precog vet).
package limits

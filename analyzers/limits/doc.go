// Package limits defines an analyzer that reports when one of precog's
// analyses stopped at a budget on a package, so that a quiet report is not
// mistaken for a clean one.
//
// # Analyzer limits
//
// limits: report analyses that stopped at a budget
//
// Some analyses bound their work with named limits: the call graph keeps
// the coarser CHA graph above -callgraph.maxvta SSA instructions, and the
// points-to analysis stops after -pointsto.maxfacts facts, after which the
// checks stay silent on the package. Each time a limit is reached, this
// analyzer reports it once, at the package clause, with what was given
// up; the checks' own findings for the package are then incomplete.
//
// A limit report is not a bug in the user's code. To stop seeing it, turn
// the analyzer off (-limits=false under go vet and precog vet).
package limits

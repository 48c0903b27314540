// Package callgraph defines an analyzer that builds the call graph of one
// package, for the other precog analyzers to walk. It reports nothing.
//
// # Analyzer callgraph
//
// callgraph: build the package's call graph with VTA seeded by CHA
//
// The graph covers the functions of the package's SSA program (see
// golang.org/x/tools/go/analysis/passes/buildssa): its source functions,
// closures, wrappers and the callees they reach in imported packages, whose
// bodies are not available here. Dynamic calls are resolved with Variable
// Type Analysis (golang.org/x/tools/go/callgraph/vta), refined from Class
// Hierarchy Analysis (go/callgraph/cha), as in x/tools' own precise
// clients; `go` statements are edges whose Site is an *ssa.Go. A call of
// a generic function goes through go/ssa's instantiation wrapper, a
// synthetic function that only calls the generic body; Callers, Callees
// and Out skip the wrapper (see Unwrap), so that the call site is a caller
// of the body itself, and what its caller holds or passes reaches it. A
// call through a function parameter that VTA leaves without an edge
// (f(k, v) inside a generic body) gets one to each function or closure
// that the function's callers pass as that parameter.
//
// VTA's cost grows with the number of SSA instructions it propagates types
// through. Above DefaultMaxVTAInstructions (-maxvta), or when the
// package's budget cannot pay one unit per instruction, the analyzer keeps
// the CHA graph, which is sound but coarser, and says so in Result.Limit
// and in the budget's skips; the limits check reports that to the user
// rather than cutting the graph silently.
//
// The graph is sound for the code in the package modulo reflection, unsafe
// and calls made by code outside the package (callbacks invoked by an
// imported function have no edge; see the goroutines analyzer for how
// precog accounts for them).
package callgraph

// Package rewrite is precog's source rewriter: given one parsed and
// type-checked Go file, File returns its text with every goroutine start,
// sync operation, channel operation and shared memory access routed
// through the shim (package shim and its helpers in shim/rt), and the site
// table entries (trace.Site) of the points it instrumented.
//
// It is pure: no loading, no file system, no cache. Deciding which
// accesses are shared (Options.Shared, from the static analysis) and
// writing the rewritten files into an overlay are pipeline/instrument's.
// The rewritten text keeps every original token on its line (edit.go), so
// stack traces and positions stay true; File's doc lists the rewrites.
//
// Tests: testdata/golden holds a file per concern with its rewritten text
// (go test -update rewrites them); testdata/e2e is built against the shim
// and run; TestRewriteKernels and TestRewriteCorpus rewrite the bundled
// kernels and real packages and type-check the result.
package rewrite

// Package shim is the runtime library that precog's instrumenter links into
// the program under test: every instrumented goroutine start, sync operation,
// channel operation, shared memory access and test start calls into it, and
// it records these events into a trace file (package shim/trace) named by
// the PRECOG_TRACE environment variable. Without PRECOG_TRACE every call is
// a load and a branch. Accesses to the running goroutine's own stack are
// not recorded: no other goroutine can reach them (stack.go).
//
// The shim imports only the standard library and builds at language version
// go1.22, because precog injects its source into the user's build as a
// module of its own (see the root package precog's ShimSource). Its formats
// live in packages of their own, shim/trace and shim/plan, so that the
// driver reads traces and writes plans without linking the recording
// runtime.
package shim

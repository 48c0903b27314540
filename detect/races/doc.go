// Package races reports data races predicted from one recorded trace: two
// accesses to one memory location by different goroutines, at least one a
// write, that happens-before does not order, so that some interleaving of
// the run brings them together. A plain access and an atomic one of the
// same word race too (the Go memory model makes a program with such a pair
// racy, and go test -race reports it); two atomic accesses never do.
//
// # Algorithm
//
// Check walks the events in trace order over an hb.Graph built with
// hb.Options.LockOrder, the Go memory model's happens-before: go
// statements, channels, WaitGroups, Once, Cond, atomics, task groups,
// tests, and each Unlock before the next Lock of the same mutex. It keeps,
// per location, the accesses that no later write has been ordered after:
// FastTrack's shadow state (Flanagan and Freund, PLDI 2009), with the
// write epoch and the read set of each location kept as event indices,
// whose vector clocks hb.Graph holds. Each access is compared with them in
// O(1) by hb.Graph.HappensBefore, both ways: the trace's order is not
// always one of happens-before's (a send is recorded when it arrives, and
// on an unbuffered channel the sender's events after it, which package hb
// orders after the receive that the send waits for, can come in the trace
// before the receiver's events that precede that receive), so an access
// earlier in the trace may happen after a later one. Unlike go test -race, whose shadow
// memory keeps the last four accesses of each 8-byte word and whose
// history of a goroutine's past is bounded, nothing is forgotten within a
// trace: a race whose two accesses ran seconds apart is found as well as
// one whose accesses ran side by side. A location keeps at most
// maxShadow accesses of different goroutines and sites; past that, the
// oldest are dropped and counted in Stats.Dropped.
//
// # What it is sound for
//
// A race reported is a pair of recorded accesses with no happens-before
// path between them in the run's synchronization, as far as the trace
// records it: the approximations of package hb apply (channel matching
// when several goroutines send at once; Cond.Wait does not reacquire the
// order of its mutex; synchronization in code that was not instrumented
// is not seen, and its absence makes accesses look unordered: a false
// race). Every recorded access of a location counts, but the recording
// covers only the locations the static analysis finds shared (precog
// record -all records every heap and global access), so a race on a
// location the analysis thought local is missed. A location is an
// address within a GC epoch and, for plain accesses, the name of the
// variable or field (hb.Graph.Loc): two accesses through different names
// of one address are not compared.
//
// Happens-before with lock order is the relation of the race detector,
// which predicts races between accesses that did not run close together,
// but not those that a different order of critical sections would
// expose. Weaker relations predict more: WCP (Kini, Mathur and
// Viswanathan, PLDI 2017) orders two critical sections of a lock only when
// they hold conflicting accesses, and SHB (Mathur, Kini and Viswanathan,
// OOPSLA 2018) keeps HB's soundness past the first race. Both are sound
// only when every access inside a critical section is in the trace: WCP
// drops the order between two sections whose conflict it cannot see. The
// shim records only the locations the static analysis finds shared and
// none inside uninstrumented code (the standard library), so on precog's
// traces WCP would drop true orders and report races that cannot happen;
// this package therefore keeps the lock order. SHB's extra edges (from a
// write to the reads that saw it) matter for the races after the first on
// a location, which this package reports all the same.
//
// # Streaming
//
// CheckStream does the same over a trace of any length, read in order
// (trace.OrderedReader) and walked by hb.Stream, each shadow entry keeping
// what its report needs; with a window longer than the trace its findings
// are Check's byte for byte. Its memory is bounded by the goroutines, sync
// objects and at most Options.MaxLocations locations (the oldest dropped
// and counted in Stats.LocationsDropped); races found at accesses that
// hb.Stream marked unsettled are withheld and counted in Stats.Withheld.
//
// # Reporting
//
// One finding per pair of sites (kind race), with both sides' goroutines,
// locks and clocks as evidence and the two events as a witness, which
// pipeline/validate holds at once and forces adjacent in both orders. Findings are
// suppressed like any other kind: //precog:ignore <ID> <reason>, or by
// kind in the driver.
package races

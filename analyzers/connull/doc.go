// Package connull defines an analyzer that reports dereferences of shared
// pointers that another goroutine may set to nil: ConMem's Con-NULL.
//
// # Analyzer connull
//
// connull: report shared pointers another goroutine may set to nil
//
// One goroutine stores nil to a shared pointer, map, function, interface
// or channel (a struct field, a package variable, or a variable captured
// by a goroutine's closure), or to an atomic.Pointer (Store, Swap or
// CompareAndSwap of nil); another reads it (or Loads it) and dereferences
// what it read. A setter that stores its parameter (`e.hook = h`) stores
// nil where a call passes the constant nil (`e.SetHook(nil)`): that store
// counts, seen only from those calls (their goroutines, the locks held at
// them, the order of the call), so a setter called with nil before the
// goroutines start and with a value while they run is not reported; a
// setter that compares its parameter with nil is left out. If the nil store can land just before the read, the program
// crashes with "invalid memory address or nil pointer dereference" (or
// "assignment to entry in nil map", or blocks forever on a nil channel).
// This is the Con-NULL pattern of ConMem (Zhang et al., TOSEM 2013, §4.2),
// found statically instead of from a trace.
//
// The check reports at the dereference when all of these hold:
//   - the nil store and the read run in goroutine contexts that can
//     overlap (see the goroutines analyzer), on the same object;
//   - no mutex is held across both the read and the dereference that is
//     also held at the nil store (which would make the read see either
//     the old value or nil, and nil only if the store comes first, an
//     order the check cannot judge), nor one held from a nil check of the
//     location to the read, with nothing between them that calls or
//     stores, and at the nil store (a Close that checks, copies and
//     clears a field in one critical section and uses the copy after the
//     Unlock: the copy is never nil), or from such a check whose nil branch
//     itself stores a new object there before the read (a lazy
//     initialization under the lock);
//   - no static order (a `go` statement, a WaitGroup, a channel, a
//     sync.Once, a flag that keeps one goroutine in flight: see the
//     ordering analyzer) puts the nil store after the dereference or
//     before it;
//   - the two do not both run only on the winner of one election: a
//     CompareAndSwap from false to true (or from any one value that no
//     write puts back) on a flag of the same object, or on a local
//     variable declared with the variable of made channels, maps or
//     slices that the accesses go through, as
//     database/sql's Tx.done elects the
//     one of Commit and Rollback that may close the Tx (the access lies on
//     the winning branch, in the winner's callee, or in a callback closure
//     the winner makes);
//   - the dereferenced value is not itself compared with nil first (a
//     comparison whose not-nil edge lies on every path from the read to
//     the dereference: a copy checked after the Unlock, then used in
//     loops);
//   - one side is not an invocation's access to an object it made afresh
//     (new, make, or a constructor of the package), made before the
//     invocation starts a goroutine (or calls the function that starts
//     it, handing the object on), and the other that goroutine's access
//     to the object it was handed: each invocation's goroutine has its
//     own object (vbauerster/mpb's per-bar state, a test helper's new
//     agent), and in one invocation the start orders the two. So for an
//     access, before the start, to the object a parameter of the starting
//     function holds when every call of that function passes an object
//     its caller made afresh for it alone (croc's Send on each test's new
//     client);
//   - the nil store does not clear a slice element that the same function
//     then cuts off (s.items[last] = nil; s.items = s.items[:last], or a
//     queue's first s.q[0] = nil; s.q = s.q[1:] or append(s.q[1:], x)) or
//     clears in a reuse buffer that it stores back empty (buf[i] = nil in
//     a loop, then s.buf = buf[:0]): the nil is never visible below the
//     slice's new length, nor at or above its new start. A reader that still holds the old slice, or that
//     appends to the emptied one while another goroutine clears it, is a
//     race on the slice that this check does not report.
//   - the nil store is not reached only from the release whose atomic
//     decrement of the object's reference count returned its last value
//     (-1 for a count that starts at 0, 0 for one that starts at 1: a
//     pool's reset of a released span) while the read is a holder's:
//     made before its goroutine drops its own reference, on an object it
//     was handed or took a reference on (see concurrent's lastReleased,
//     which names what it checks and what it assumes of the count).
//
// The MySQL bug behind Fig. 3a of the paper, in Go:
//
//	// WRONG
//	func (t *THD) logQuery(w io.Writer) {
//		if t.procInfo != nil {
//			fmt.Fprint(w, *t.procInfo) // reads t.procInfo again: may be nil by now
//		}
//	}
//	func (t *THD) endStatement() { t.procInfo = nil } // on another goroutine
//
//	// RIGHT: read once, check, use the same value (and lock if the
//	// value must be current)
//	func (t *THD) logQuery(w io.Writer) {
//		if p := t.procInfo; p != nil {
//			fmt.Fprint(w, *p)
//		}
//	}
//
// Known false-positive shapes: the nil store only happens after the
// reading goroutine has stopped, ordered by synchronization the analysis
// does not model (a condition variable, a custom barrier, an atomic
// flag); or the two goroutines touch different objects of the same type
// that the analysis cannot tell apart. Inside a testing/synctest bubble,
// a nil store after time.Sleep(d), a timer's or time.After's channel, or
// a context's deadline cannot run before a read the test makes at an
// earlier virtual time (the clock advances only when every goroutine of
// the bubble is durably blocked): precog test orders them, this check does
// not know bubbles and reports the pair (kernels bubblecache, bubbletimer).
// A nil store under a mutex that another goroutine locked and handed over
// through a channel (`go func() { mu.Lock(); close(acquired) }();
// <-acquired; defer mu.Unlock()`: otlptracegrpc's client.Stop) holds no
// lock for this check, whose lock sets follow a function's own Lock calls
// and go statements only; precog test's follow the hand-off (kernel
// lockhandoff).
//
// Confidence: a report that assumes when a test, or an importer calling
// the package, does something, which it decides by its own protocol and
// the analysis cannot know, is shown
// only under -all (precog vet -all; under go vet -vettool=precog, whose
// own -all is taken, -connull.all and likewise for each check; the
// golangci-lint setting all: true), with the assumption in its message.
// There are five such assumptions about outside code: the two sides run on two goroutines
// of one HTTP handler written in a _test.go file (that the test sends two
// requests at once); one side is code written in a _test.go file and the
// other is not (test code that installs or clears a hook in a package
// variable, or inspects the package's internals, while goroutines of the
// package still run); the two sides hold a common lock wherever the
// package's own code calls them, and only a test's call without it
// leaves one side unlocked on that test's goroutine (that the test calls
// in while the package's goroutines use the same state); the two sides
// are ordered by a sync.Once once the callers in _test.go files are left
// out (that a test export runs outside the Once while the package's
// goroutines run); the two sides are ordered by a sync.Once once every
// start of a goroutine reached from code calling into the package counts
// as after the Do, where one path of calls to the start runs the Do first
// (that an importer calls the package's exported functions in an order
// that starts the goroutine before anything ran the Do, as a transport
// dialing again when a connection closes, before any round trip). A
// sixth is about the package's own control flow where the analysis
// cannot follow it: the two sides run on two goroutines started at one go
// statement, each of which defers Done on a WaitGroup that the code
// starting the next one waits on, on some path of calls to the start (a
// reconnect loop waiting for the old reader; another path skips the Wait
// behind a flag); the report needs two of them at once
// (ordering.Result.RestartedAfterJoin). The same holds for every precog
// check.
//
// To suppress a report, put
//
//	//precog:ignore con-null <reason>
//
// on the reported line or the line above, or //nolint:precog.
package connull

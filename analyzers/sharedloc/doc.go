// Package sharedloc defines an analyzer that finds the memory accesses of
// a package that may touch memory shared between goroutines. It reports
// nothing; the checks pair its accesses.
//
// # Analyzer sharedloc
//
// sharedloc: find accesses to locations shared between goroutines
//
// A location is an abstraction of memory, as in field-based points-to
// analysis:
//
//   - a package variable;
//   - a struct field, by field and type: all instances of T.f are one
//     location;
//   - a local variable captured by a closure (go/ssa gives it a heap
//     cell);
//   - a map, slice or channel made in the package and tracked to its uses
//     through parameters;
//   - the contents (map entries, slice and array elements, the channel
//     itself) of the container held in any of the above. A container
//     held in another's elements (a slice of slices, a channel kept as a
//     map's value) is one location with them: the closes of the channels
//     a registry keeps in a map are paired, and their objects are the
//     map's.
//
// A channel that a call returns is the call's own location (Made), unless
// the callee is a getter of a field or package variable: one that returns,
// on every return, a load of it (or another getter's result), as
// `func (l *L) Ready() <-chan T { l.mu.Lock(); defer l.mu.Unlock();
// return l.ready }` does. Its result is then in the contents of that
// location, so that a receive from `l.Ready()` pairs with the sends on
// l.ready as a receive from `l.ready` does.
//
// An access records its location, whether it reads or writes, the
// operation (load, store, map lookup or update, send, close, atomic, ...)
// and its base: the root of the address expression, such as the
// parameter s in s.conn.buf[i]. The result is shared in the sense that
// only accesses in functions that run in some goroutine context (see the
// goroutines analyzer) are recorded, and it answers two questions about
// an access that field-based locations cannot:
//
//   - Local: the access touches an object allocated in the same function
//     (or passed down from one) that has not yet escaped, so no other
//     goroutine can see it yet. This is what keeps constructors and
//     goroutine-local values out of reports. Passed down means: every
//     call of the function is known (an unexported function, or a
//     closure whose values are only called, directly or after an
//     unexported function returned them to a caller that only calls
//     them) and hands it an object that had not escaped before the call;
//     the hand-off itself is no escape, since the callee's own uses are
//     checked in turn. A read of a reassigned local variable gives only
//     the values stored to it that reach the read, and storing an object
//     to a variable that closures capture is no escape while those
//     closures only read it and are only called, directly, on the same
//     goroutine (each such call then counts as an escape). Nor is storing
//     it to a variable that closures capture and that is used in no other
//     way: a closure can read it only once made, so the object escapes
//     where a closure that captures it may have been made before (even
//     by an earlier loop turn), and where the function's own reads of it
//     escape (a constructor that fills s's map before it makes the timer
//     closure capturing s writes a local map). A redirect
//     loop that makes a new request each turn and fills its header
//     through a helper closure before sending it writes a local header.
//     Nor is a call that hands the object to a function of the package
//     that only loads and stores fields of it that hold no pointer (a
//     constructor that calls wsc.EnableWriteCompression(on) before
//     filling wsc's other fields): the callee lets it go nowhere.
//     LocalThrough asks the same of one call site of the access's
//     function, an exported one too: a field of its parameter's object,
//     touched before the function lets the parameter go, in the frame of
//     a call that passes an object fresh there (colly's NewCollector
//     calling c.Init() on the collector it has just allocated).
//   - SharedIn: every goroutine of a Multi context touches the same object
//     (it is reached from a package variable, a captured variable declared
//     outside the spawning loop, or an argument that is the same for every
//     spawn), rather than one object per goroutine. A variable declared
//     anew for each function literal made in its function, which starts
//     one goroutine per call and is called at most once (directly, or by
//     a callee that calls its parameter once, in no loop), is one per
//     goroutine.
//
// Both answers err toward "not shared" when the analysis cannot tell,
// because the checks built on them report without runtime confirmation.
//
// Code that cannot run is left out: the accesses of blocks reachable only
// through the ruled-out branch of an if whose condition is a constant
// (`if debugGetPut { ... }` with `const debugGetPut = false`) are not
// collected (Live).
//
// Cost: both questions follow parameters to every call site, a bounded
// number of calls up, and are memoized by (value, instruction or context,
// depth left), so each tuple is explored once per package. The locations
// of a container value are looked up anew for each access (the answer
// must not depend on the order of queries) and each lookup gives up after
// a fixed number of steps.
package sharedloc

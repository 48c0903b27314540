// Package pointsto defines an analyzer that computes which objects each
// pointer-like SSA value of a package may point to. It reports nothing; the
// checks use it to pair only accesses that may touch the same object.
//
// # Analyzer pointsto
//
// pointsto: compute may-point-to sets for the package's values
//
// The analysis is Andersen's inclusion-based points-to analysis (L. O.
// Andersen, "Program Analysis and Specialization for the C Programming
// Language", 1994), flow- and context-insensitive, with a field-sensitive
// heap, restricted to the code of one package:
//
//   - an object is an allocation site (new, a composite literal, make, a
//     captured variable's cell, a package variable), the result of a call
//     to a function without a body in the package (one object per call
//     site), or an object of some type passed in by a caller outside the
//     package (one per type);
//   - objects made in a function that returns them (constructors such as
//     New) are told apart by the call site they are returned to, one level
//     deep: two New() calls give two objects;
//   - a pointer to a field or element is an interior pointer (object,
//     field), so &c.header and &c.incoming do not alias;
//   - calls follow the call graph of the callgraph analyzer, `go`
//     statements included; closures receive their captured variables
//     through their free variables;
//   - each result of a function has its own node: `req, err := f()` gives
//     req what f returns first, not what it returns as its error;
//   - a closure (a function literal, a method value) is an object whose
//     memory ".name" holds what it captured as free variable name, so
//     that a receiver bound into a method value stored in a field is
//     reachable from the field's holder (see Reachable); a closure that
//     a constructor returns to one call site holds there, in a variable
//     captured from a parameter that nothing but the constructor's entry
//     writes, what that call passed (Reachable follows it so; the
//     points-to sets keep every call's);
//   - a type assertion to a pointer, map or channel type lets through only
//     the objects of that type (see Admits): a func(msg any) that switches
//     on *Request and *Response does not give one case the other's
//     objects;
//   - so does a method called through an interface, for its receiver,
//     and a field or element is selected only in objects of the type it
//     belongs to (or whose type is unknown, and then not in what such a
//     selection made of another type): a struct holds no struct of its own
//     type, and readers that wrap one another behind io.Reader would
//     otherwise select their fields in one another, path after path.
//
// Confined tells, of an allocation site (and of the objects returned
// through one call site of its constructor), that its objects never leave
// the goroutine that made them: stored in no memory but a frame's own,
// handed to no go statement, no function outside the package (but sync's
// methods and sync/atomic) and no call the call graph may not know. Two
// goroutines touching such objects touch two objects.
//
// The analysis is unsound for reflection, unsafe, and flows through code
// outside the package (an object stored by an imported function and
// handed back later is a new object). Within those limits it
// over-approximates: objects that may alias are never reported as
// disjoint.
//
// Cost: the solver derives each (node, object) fact once and propagates
// it once along each edge; every fact spends one unit of the package's
// budget (see the budget analyzer), and the solver checks the budget's
// time and memory as it goes. When the budget runs out, the analysis stops
// and says so in Result.Limit, and every value points to nothing, which
// keeps the checks silent on the package rather than wrong.
package pointsto

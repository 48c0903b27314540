package shim

import (
	"os"
	"unsafe"

	"github.com/precog-dev/precog/shim/plan"
)

// Accesses to a goroutine's own stack are not recorded. Go's escape
// analysis puts on the heap every variable whose address another goroutine
// could hold (a go statement's closure and arguments, anything stored in
// the heap), so a variable on a goroutine's stack is that goroutine's
// alone and no pair of its accesses can be concurrent. Recorded, such a
// variable did harm: a goroutine that ends leaves its g, stack included,
// to the next goroutine the runtime starts, whose frames put their own
// locals at the same addresses, and the analysis saw one location written
// by two goroutines that nothing orders (a data race "confirmed" between
// two workers' local counters); a stack that grows moves its variables,
// so one variable was two locations.
//
// The check reads the stack bounds the runtime keeps at the start of its g
// (g.stack.lo, g.stack.hi), through the g each gstate binds to
// (gstate.rtg); stackBoundsFit checks the layout once at init, and where
// it does not fit (or getg is not available) every access is recorded, as
// before. precog explain's full tracing records stack accesses too
// (plan.StacksEnv): it follows every load and store of one goroutine, and
// its suppression undoes stores to locals.
var stackFilter bool

// readStackFilter sets stackFilter from the environment and the runtime's
// layout. It runs during package initialization only.
func readStackFilter() {
	keep := os.Getenv(plan.StacksEnv) == "1"
	os.Unsetenv(plan.StacksEnv)
	stackFilter = !keep && stackBoundsFit()
}

// stackBounds returns the stack bounds of the goroutine whose runtime g is
// rtg.
func stackBounds(rtg unsafe.Pointer) (lo, hi uintptr) {
	return *(*uintptr)(rtg), *(*uintptr)(unsafe.Add(rtg, unsafe.Sizeof(uintptr(0))))
}

// stackBoundsFit reports whether the first two words of the running g hold
// bounds around a variable of this frame, and of a goroutine of its own.
func stackBoundsFit() bool {
	if !haveGetg {
		return false
	}
	fits := func() bool {
		var probe uintptr
		a := uintptr(unsafe.Pointer(&probe))
		lo, hi := stackBounds(getg())
		return lo < hi && hi-lo <= 1<<30 && a-lo < hi-lo
	}
	ok := make(chan bool)
	go func() { ok <- fits() }()
	return fits() && <-ok
}

// onStack reports whether addr is on the stack of g's goroutine. It reads
// the bounds at every call: the runtime moves a stack that grows or shrinks.
func (g *gstate) onStack(addr unsafe.Pointer) bool {
	if g.rtg == nil {
		return false
	}
	lo, hi := stackBounds(g.rtg)
	return uintptr(addr)-lo < hi-lo
}

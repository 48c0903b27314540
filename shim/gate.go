package shim

import (
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// gate is the hook for control (perturb, force, replay; shim/control*.go).
// Every sync operation passes through it before performing the real
// operation: Lock before m.Lock, Send before ch <- v, Go in the parent
// before the go statement, Begin in the child before its first event,
// SelectPlan before the select, TestStart, TestEnd and End. Operations the
// instrumenter reports after the fact (AtomicLoad, AtomicStore, Waited and
// the Select* case events, which gate nothing) pass through it too, just
// before they are recorded. Memory accesses do not pass the gate: they ask
// control (ctlAccess) only while a plan names sites (accessGates), since
// they are the most frequent events.
//
// It costs a load and a branch while no plan is loaded. Control installs
// its gate by setting controlGate and calling enable from its init
// (control.go); g is the calling goroutine's state (g.id is its logical
// id), k the kind of event the operation will record and addr the sync
// object (nil if none).
func gate(g *gstate, site uint32, k trace.Kind, addr unsafe.Pointer) {
	if controlGate != nil {
		controlGate(g, site, k, uintptr(addr))
	}
}

// controlGate is the control plan's gate, nil when no plan is loaded. It is
// set only during package initialization. It takes the sync object's
// address as a number, which is all control uses it as: a call through a
// function variable leaks every pointer it is passed, and a pointer here
// would move every mutex, channel and atomic the recorded program passes
// to the shim onto the heap, which adds allocations that a test counting
// them (testing.AllocsPerRun) fails on when recorded.
var controlGate func(g *gstate, site uint32, k trace.Kind, addr uintptr)

// selectPlan is SelectPlan's answer: which case control wants the select at
// site to take, and a channel that is ready when it gives up waiting for it.
// Control replaces it with its own; without control it returns -1, nil.
var selectPlan = func(g *gstate, site uint32) (int, <-chan struct{}) { return -1, nil }

//go:build race

package shim

// readGrace: see its doc in control.go. Under -race (only precog's own
// tests build the shim so) a successor that passes a read step itself,
// its reader blocked where control sees nothing, is not ordered after the
// reader's load for the race detector, which then reports a race the plan
// forbade (TestForceProcInfo: 3 of 60 runs at load 7 with 1ms, when the
// grace alone passed a read). The reader's own pass at its next event does
// order them, so here a successor gives it as long as one that was already
// waiting (wokenGrace) before it looks at the reader's state.
const readGrace = wokenGrace

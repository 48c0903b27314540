//go:build race

package shim

// readGrace: see its doc in control.go. Under -race (only precog's own
// tests build the shim so) a successor that passes a read step by its
// grace is not ordered after the reader's load for the race detector,
// which the reader makes after R returns and so reports a race the plan
// forbade whenever the reader was descheduled for longer than the grace
// between the two (TestForceProcInfo: 3 of 60 runs at load 7 with 1ms).
// The reader's own pass at its next event does order them, so here a
// successor gives it as long as one that was already waiting
// (wokenGrace): the reader's next event comes first except in a reader
// that stays busy without events, which the grace still bounds.
const readGrace = wokenGrace

package shim

import (
	"runtime"
	"sync/atomic"
)

// gcEpoch counts the garbage collections seen so far. A goroutine that
// finds it changed since its last event records EvGCEpoch before its next
// one, so every goroutine's events carry the epoch they happened in.
//
// The count comes from a finalizer on a sentinel object, re-armed on a new
// sentinel each time it runs. Finalizers run after the collection that
// found the sentinel dead, on the finalizer goroutine, so the count lags the
// collection a little: memory freed by collection n may be reused before a
// goroutine sees epoch n. An epoch is a lower bound, not an exact cut.
var gcEpoch atomic.Uint64

// sentinel has a pointer so that it is not a tiny allocation (which shares
// a block with others and would be finalized late or never).
type sentinel struct{ _ *int }

func armEpoch() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		gcEpoch.Add(1)
		attention.Add(1)
		armEpoch()
	})
}

package golden

// Every reference to time and sync/atomic in this file is a call that the
// rewrite turns into a shim call: both imports are kept in use by a blank
// variable naming a member each selected.

import (
	"sync/atomic"
	"time"
)

func nap(n *int32) {
	time.Sleep(5)
	atomic.AddInt32(n, 1)
}

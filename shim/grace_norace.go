//go:build !race

package shim

import "time"

// readGrace: see its doc in control.go. Forced runs of precog test are
// never built with -race (record refuses it), so this is theirs.
const readGrace = time.Millisecond

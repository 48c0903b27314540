package p

import "sync/atomic"

type counter struct{ n atomic.Int64 }

var global counter

// A package-level initializer has no function body, and so no Local: its
// rewrite calls rt alone, and the file imports rt alone.
var first = global.n.Add(1)

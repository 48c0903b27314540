//go:build race

package shim

// raceEnabled: the race detector reports the kernels' races when they run
// unforced, so the tests measure natural rates only without it.
const raceEnabled = true

//go:build race

package control

// raceEnabled: under the race detector the instrumenter that the kernel
// tests run in this process is several times slower, so they run the
// kernel fewer times.
const raceEnabled = true

//go:build race

package control

// raceEnabled: under the race detector the kernel tests' instrumenter runs
// several times slower and the subprocesses they check are not
// race-enabled anyway, so they are skipped.
const raceEnabled = true

package spawnfacts_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/spawnfacts"
)

// TestSpawnsFact checks the facts that let other packages' callers root
// contexts at calls of a spawner.
func TestSpawnsFact(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), spawnfacts.Analyzer, "spawnlib")
}

// TestWaitGroupFact checks the facts of WaitGroup wrappers: the operation,
// the parameter and field path to the WaitGroup, and the wrappers that
// get none (a Wait on some paths only, two Dones, a Done in a loop).
func TestWaitGroupFact(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), spawnfacts.Analyzer, "wglib")
}

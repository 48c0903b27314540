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

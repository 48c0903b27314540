package spawnfacts_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/internal/fixturetest"
	"github.com/precog-dev/precog/analyzers/spawnfacts"
)

func TestFacts(t *testing.T) {
	fixturetest.Run(t, analysistest.TestData(),
		// The facts that let other packages' callers root contexts at
		// calls of a spawner.
		fixturetest.Case{Name: "Spawns", Analyzer: spawnfacts.Analyzer, Patterns: []string{"spawnlib"}},
		// The facts of WaitGroup wrappers: the operation, the parameter
		// and field path to the WaitGroup, and the wrappers that get none
		// (a Wait on some paths only, two Dones, a Done in a loop).
		fixturetest.Case{Name: "WaitGroup", Analyzer: spawnfacts.Analyzer, Patterns: []string{"wglib"}},
		// The facts of functions that call the functions they are given
		// before they return, on the caller's goroutine, and that none is
		// given for a function kept, returned in a closure, run on a
		// goroutine or handed around a cycle.
		fixturetest.Case{Name: "SyncCalls", Analyzer: spawnfacts.Analyzer, Patterns: []string{"synclib"}},
		// The facts of functions that hand the function they are given to
		// the one goroutine of a task loop and wait for it, and that none
		// is given where the loop runs it on a goroutine of its own,
		// signals before calling it, is started twice per object or in a
		// loop, where the channel is exported, or where the function does
		// not wait.
		fixturetest.Case{Name: "TaskLoop", Analyzer: spawnfacts.Analyzer, Patterns: []string{"looplib"}},
	)
}

package limits_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/internal/fixturetest"
	"github.com/precog-dev/precog/analyzers/limits"
)

func TestLimits(t *testing.T) {
	fixturetest.Run(t, analysistest.TestData(),
		// A package within every budget gets no report.
		fixturetest.Case{Name: "Quiet", Analyzer: limits.Analyzer, Patterns: []string{"small"}},
		// The VTA bound and the work budget lowered below what package
		// budget needs: one note, at the package clause, names both.
		fixturetest.Case{Name: "Reached", Analyzer: limits.Analyzer, Patterns: []string{"budget"},
			Flags: []fixturetest.Flag{
				{Analyzer: callgraph.Analyzer, Name: "maxvta", Value: "1"},
				{Analyzer: limits.Analyzer, Name: "work", Value: "1"},
			}},
	)
}

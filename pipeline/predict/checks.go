package predict

import (
	"github.com/precog-dev/precog/detect/conmem"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/oscs"
	"github.com/precog-dev/precog/detect/unicorn"
	"github.com/precog-dev/precog/shim/trace"
)

// testChecks runs the checkers over the runs of one test: run for each
// run's events, then end once.
type testChecks struct {
	opts DetectOptions
	// ranked: the test has several runs, which Unicorn ranks.
	ranked bool
	runs   []unicorn.Run
}

// run checks one run and returns the per-run checkers' findings.
func (tc *testChecks) run(evs []trace.Event, sites *trace.SiteTable, failed bool) []finding.Finding {
	g := hb.Analyze(evs, hb.Options{Sites: sites})
	var fs []finding.Finding
	fs = append(fs, conmem.Check(g, sites, tc.opts.ConMem)...)
	fs = append(fs, oscs.Check(g, sites, tc.opts.OSCS)...)
	if tc.ranked {
		tc.runs = append(tc.runs, unicorn.Run{Patterns: unicorn.Patterns(g, tc.opts.Unicorn), Failed: failed})
	}
	return fs
}

// end returns the findings that need every run of the test: Unicorn's
// ranking of the patterns of its failing runs against its passing ones.
func (tc *testChecks) end(sites *trace.SiteTable) []finding.Finding {
	if !tc.ranked {
		return nil
	}
	return unicorn.Rank(tc.runs, sites, tc.opts.Unicorn)
}

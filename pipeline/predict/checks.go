package predict

import (
	"fmt"
	"runtime/debug"
	"strings"

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
	// internal collects the checkers' panics, one line each.
	internal []string
}

// run checks one run (named what, for errors) and returns the per-run
// checkers' findings.
func (tc *testChecks) run(what string, evs []trace.Event, sites *trace.SiteTable, failed bool) []finding.Finding {
	var g *hb.Graph
	if !tc.guard("hb", what, func() { g = hb.Analyze(evs, hb.Options{Sites: sites}) }) {
		return nil
	}
	var fs []finding.Finding
	tc.guard("conmem", what, func() { fs = append(fs, conmem.Check(g, sites, tc.opts.ConMem)...) })
	tc.guard("oscs", what, func() { fs = append(fs, oscs.Check(g, sites, tc.opts.OSCS)...) })
	if tc.ranked {
		run := unicorn.Run{Failed: failed}
		if tc.guard("unicorn", what, func() { run.Patterns = unicorn.Patterns(g, tc.opts.Unicorn) }) {
			tc.runs = append(tc.runs, run)
		}
	}
	return fs
}

// end returns the findings that need every run of the test: Unicorn's
// ranking of the patterns of its failing runs against its passing ones.
func (tc *testChecks) end(what string, sites *trace.SiteTable) []finding.Finding {
	if !tc.ranked {
		return nil
	}
	var fs []finding.Finding
	tc.guard("unicorn", what, func() { fs = unicorn.Rank(tc.runs, sites, tc.opts.Unicorn) })
	return fs
}

// guard runs f, turning a panic of checker into an internal error: one bug
// in a checker must not lose the other checkers' findings.
func (tc *testChecks) guard(checker, what string, f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			tc.internal = append(tc.internal, fmt.Sprintf("internal error: %s panicked on %s: %v\n%s", checker, what, r, indent(debug.Stack())))
			ok = false
		}
	}()
	f()
	return true
}

func indent(stack []byte) string {
	return "\t" + strings.ReplaceAll(strings.TrimSpace(string(stack)), "\n", "\n\t")
}

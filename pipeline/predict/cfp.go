package predict

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/precog-dev/precog/detect/cfp"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/coverage"
	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/pipeline/validate"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// CFPStats says what CFP guidance chose, summed over the packages with
// more than one test: the numbers of the CFP paper's Table 5.
type CFPStats struct {
	Packages int // packages guided
	Tests    int // their tests
	// Selected counts the tests detection records: those CFP selected,
	// and those recorded in full (no coverage, or failed in the cheap
	// run).
	Selected int
	// Funcs sums, over the tests, the functions each executed: what full
	// detection watches. SelectedFuncs sums, over the Selected tests, the
	// functions selected in each (all it executed, for one recorded in
	// full): what guided detection watches.
	Funcs, SelectedFuncs int
	Pairs                int           // the aggregated pairs
	Measure              time.Duration // the cheap runs and their analysis
}

// add adds c's counts and time to s (a later round's selection).
func (s *CFPStats) add(c *CFPStats) {
	s.Packages += c.Packages
	s.Tests += c.Tests
	s.Selected += c.Selected
	s.Funcs += c.Funcs
	s.SelectedFuncs += c.SelectedFuncs
	s.Pairs += c.Pairs
	s.Measure += c.Measure
}

// guided is one package's CFP selection.
type guided struct {
	pkg   *coverage.Package
	steps map[string]cfp.Step // by test name
}

// The cheapRuns are what CFP's cheap runs say beyond coverage.
type cheapRuns struct {
	// failed are the tests that failed in their cheap run, by
	// importpath.TestName. The cheap run is a recorded run of the test
	// like any other: its failure is a fact whether or not the guided
	// recording fails too (see cheapFailure). Those the cheap run's
	// -record-budget stopped are here too until detect keeps only the
	// deadlocked ones (keepHangs), whose stacks make them a hang as a
	// recorded run's do (failureOf).
	failed map[string]cheapFailure
	notes  []string // the cheap runs' notes, each saying it is theirs
}

type cheapFailure struct {
	log     string // its output, an absolute path
	outcome record.Outcome
	pkg     string // the test's import path
	pkgDir  string // its package's directory
}

// recordGuided measures CFP with a cheap run of the tests of every package
// with more than one test, then records, in out, the selected tests of
// those packages with only their selected functions' memory accesses
// (and their test code's), and every test of the other packages (and of
// those whose tests cover no pair at all) as full detection does. A test
// that failed in its cheap run is recorded in full too, selected or not.
// The cheap runs go into cheapDir, which the caller removes after
// detection has read the failed tests' output. Both runs run the test
// binaries that record.Build left in ro.BinDir (ro.Reuse).
func recordGuided(ctx context.Context, o Options, inst *instrument.Result, ro record.Options, cheapDir string, progress *tracker) (*record.Index, *CFPStats, *cheapRuns, error) {
	start := time.Now()
	// The cheap run may spend half of -record-budget (and a short
	// grace), so that the guided run has most of the other half: a
	// module whose cheap run alone fills the budget (goleveldb's stress
	// tests) would otherwise record nothing to detect in.
	var cheapBudget *record.Budget
	var measureLimit time.Duration // measuring the pairs takes no longer than recording them may
	if ro.Budget != nil {
		cheapBudget = ro.Budget.Half()
		cheapBudget.Fair = cheapFair(cheapBudget.Limit)
		measureLimit = cheapBudget.Limit
	}
	cov, err := coverage.Measure(ctx, coverage.Options{
		Dir: o.Dir, Patterns: o.Patterns, Flags: o.Flags, Inst: inst, TestLog: o.TestLog, BinDir: ro.BinDir, Reuse: ro.Reuse, Parallel: ro.Parallel, Out: cheapDir,
		Budget:       cheapBudget,
		MeasureLimit: measureLimit,
		// Detection's limits guard the cheap run too: its analysis is
		// hb's, over the same goroutines.
		MaxTraceBytes: max(o.Detect.maxTraceBytes(), 0), MaxGoroutines: max(o.Detect.maxGoroutines(), 0),
		Progress: func(s string) { progress.line("CFP's cheap run: " + s) },
		Counts: func(r record.Progress) {
			progress.update(func(p *Progress) {
				p.Done, p.Total, p.Events, p.Deadline, p.Budget = r.Done, r.Total, r.Events, r.Ends, r.Budget
			})
		},
		Only: func(pkg string, tests []string) []string {
			if len(tests) > 1 {
				return o.only(pkg, tests)
			}
			return nil
		},
	})
	if err != nil {
		return nil, nil, nil, err
	}
	st := &CFPStats{Measure: time.Since(start)}
	cheap := &cheapRuns{failed: make(map[string]cheapFailure)}
	for _, n := range cov.Notes {
		cheap.notes = append(cheap.notes, "CFP's cheap run: "+n)
	}
	byPkg := make(map[string]*guided)
	stopped := make(map[string]bool) // "pkg.Test" the cheap run stopped at its bound
	for _, p := range cov.Packages {
		for _, t := range p.Tests {
			if t.Outcome == record.Stopped {
				stopped[p.ImportPath+"."+t.Name] = true
			}
			if (t.Outcome.Failed() || t.Outcome == record.Stopped) && t.Log != "" {
				cheap.failed[p.ImportPath+"."+t.Name] = cheapFailure{log: t.Log, outcome: t.Outcome, pkg: p.ImportPath, pkgDir: p.Dir}
			}
		}
		if len(p.Tests) < 2 || len(p.Union) == 0 {
			// No pairs: the concurrency, if any, is in code the cheap
			// run does not log (test code, uninstrumented libraries),
			// and CFP cannot tell the tests apart; detect in all.
			continue
		}
		g := &guided{pkg: p, steps: make(map[string]cfp.Step)}
		for _, s := range p.Steps {
			g.steps[s.Test] = s
		}
		for _, t := range p.Tests {
			st.Funcs += len(t.Funcs)
		}
		st.Packages++
		st.Tests += len(p.Tests)
		st.Pairs += len(p.Union)
		byPkg[p.ImportPath] = g
	}
	filters, err := os.MkdirTemp("", "precog-cfp-")
	if err != nil {
		return nil, nil, nil, err
	}
	defer os.RemoveAll(filters)
	funcsOff := []string{}
	if !o.Funcs {
		funcsOff = []string{plan.FuncsEnv + "=0"}
	}
	sel := newSiteSelector(cov.Sites)
	// precog test -vet: the sites of the static candidates are recorded
	// in every guided run, and a package that holds candidates runs all
	// its tests (those CFP did not select recording only those sites and
	// their test code), so that the runs that reach a candidate are not
	// left out.
	named := namedSites(cov.Sites, inst.Static)
	vetPkgs := make(map[string]bool)
	for _, f := range inst.Static {
		vetPkgs[strings.TrimSuffix(f.Package, "_test")] = true
	}
	env := make(map[string][]string) // "pkg.Test" -> its environment
	for path, g := range byPkg {
		steered := vetPkgs[path]
		for _, t := range g.pkg.Tests {
			if t.Skipped != "" || t.Outcome.Failed() {
				// No coverage, or a failure whose cause may lie
				// anywhere: recorded in full, as without CFP.
				g.steps[t.Name] = cfp.Step{Test: t.Name}
				st.Selected++
				st.SelectedFuncs += len(t.Funcs)
				continue
			}
			s, ok := g.steps[t.Name]
			if ok {
				st.Selected++
				st.SelectedFuncs += len(s.Funcs)
			}
			if !ok && !steered {
				continue
			}
			if !ok {
				g.steps[t.Name] = cfp.Step{Test: t.Name}
			}
			file := filepath.Join(filters, strconv.Itoa(len(env))+".sites")
			if err := os.WriteFile(file, append(sel.sites(s.Funcs), named...), 0o666); err != nil {
				return nil, nil, nil, err
			}
			env[path+"."+t.Name] = append([]string{plan.AccessesEnv + "=" + file}, funcsOff...)
		}
	}
	if ro.Budget != nil {
		ro.Budget = cheapBudget.After(ro.Budget)
	}
	ro.Only = func(pkg string, tests []string) []string {
		g := byPkg[pkg]
		if g == nil {
			return o.only(pkg, tests)
		}
		cheapRun := make(map[string]bool)
		for _, t := range g.pkg.Tests {
			cheapRun[t.Name] = true
		}
		var keep []string
		for _, t := range o.only(pkg, tests) {
			// A test the cheap run did not reach (-record-budget) has
			// no coverage: recorded in full, as without CFP.
			if _, ok := g.steps[t]; ok || !cheapRun[t] {
				keep = append(keep, t)
			}
		}
		return keep
	}
	// A test the cheap run stopped at its bound goes after every
	// package's others (record.Options.Last).
	ro.Last = func(pkg, test string) bool { return stopped[pkg+"."+test] }
	ro.Env = func(pkg, test string) []string {
		if e, ok := env[pkg+"."+test]; ok {
			return e
		}
		return funcsOff
	}
	ix, err := record.Run(ctx, ro, &record.Instrumented{BuildFlags: inst.BuildFlags, Sites: inst.Sites, Marks: inst.Marks, MarkTests: inst.MarkTests})
	if err != nil {
		return nil, nil, nil, err
	}
	return ix, st, cheap, nil
}

// A siteSelector finds the sites of selected functions.
type siteSelector struct {
	table *trace.SiteTable
	fnOf  map[string]fnID // function key -> its file and name in the site table
}

type fnID struct{ file, name string }

func newSiteSelector(t *trace.SiteTable) *siteSelector {
	s := &siteSelector{table: t, fnOf: make(map[string]fnID)}
	for i := range t.Sites {
		if site := &t.Sites[i]; site.Kind == "func" {
			s.fnOf[cfp.SiteKey(site)] = fnID{site.File, site.Function}
		}
	}
	return s
}

// sites returns the site list of a guided run, one id per line: the sites
// in the functions with the given keys and in test files.
func (s *siteSelector) sites(keys []string) []byte {
	want := make(map[fnID]bool)
	for _, k := range keys {
		if id, ok := s.fnOf[k]; ok {
			want[id] = true
		}
	}
	var b strings.Builder
	for _, site := range s.table.Sites {
		if site.Kind == "func" {
			continue
		}
		if strings.HasSuffix(site.File, "_test.go") || want[fnID{site.File, site.Function}] {
			b.WriteString(strconv.FormatUint(uint64(site.ID), 10))
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

// failure returns how test name failed in its cheap run, if it did.
// finding is the failure of test name's cheap run as a finding, for a test
// that the recorded runs did not see fail (they passed, or it was not
// recorded after it: -record-budget): the cheap run is a recorded run like
// any other, and its failure must set the exit status as theirs would. It
// is nil when the output shows no failure precog can read.
func (c cheapFailure) finding(name, where string, user func(string) bool) *finding.Finding {
	r := runFile{log: c.log, outcome: c.outcome, where: where}
	f, _ := failureOf("", name, r, c.pkgDir, user)
	if f == nil {
		return nil
	}
	f.Repro = goTestRepro(c.pkg, name[len(c.pkg)+1:])
	f.Tests, f.Reports = []string{name}, 1
	return f
}

// target runs test name, which failed in its cheap run and was not
// recorded after it, again as go test would: the cheap run's instrumented
// binary, which record left in binDir, with the shim off. Its bound is go
// test's default -timeout within the user's: the cheap run's time is not
// kept, and the validation budget bounds the plain runs as a whole.
func (c cheapFailure) target(o Options, binDir, name string) validate.Target {
	flags := *o.Flags
	flags.Timeout = o.Flags.Bound(10 * time.Minute)
	return validate.Target{
		Binary:  record.InstrumentedBinary(binDir, c.pkg),
		Dir:     c.pkgDir,
		Args:    record.TestArgs(&flags, name[len(c.pkg)+1:]),
		Timeout: flags.Timeout + 10*time.Second,
	}
}

// keepHangs drops the cheap runs that -record-budget stopped without the
// deadlock that makes a stopped run a hang (failureOf): a slow test is no
// failure. posthog's TestClientMaxConcurrentRequests deadlocked in its
// cheap run, passed when recorded, and the job exited 0 (held-out
// rehearsal 27).
func (c *cheapRuns) keepHangs(user func(string) bool) {
	if c == nil {
		return
	}
	for name, f := range c.failed {
		if f.outcome == record.Stopped && f.finding(name, "", user) == nil {
			delete(c.failed, name)
		}
	}
}

func (c *cheapRuns) failure(name string) (cheapFailure, bool) {
	if c == nil {
		return cheapFailure{}, false
	}
	f, ok := c.failed[name]
	return f, ok
}

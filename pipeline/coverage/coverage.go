// Package coverage is the flow behind "precog cover" and the first step of
// CFP-guided detection in "precog test": instrument a module's packages
// with the CFP plan (analyzers/cfpplan), run each top-level test once
// cheaply, recording function entries and exits and sync operations but
// no memory access (the shim's PRECOG_ACCESSES=none), compute each test's
// concurrent function pairs (detect/cfp), and select per package the
// tests and functions that cover them all.
//
// coverage holds no detection logic: it runs processes, reads files and
// hands events to detect/cfp.
package coverage

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/precog-dev/precog/detect/cfp"
	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// MaxRuns bounds Options.Runs.
const MaxRuns = 100

// Options configures Measure.
type Options struct {
	Dir      string // the directory go runs in; "" for the current one
	Patterns []string
	Flags    *record.GoTestFlags
	Deps     string // also instrument the dependencies matching this pattern
	CacheDir string // precog's cache; "" for the default
	// Out keeps the cheap runs' traces in this directory (record's rule
	// for a directory that is not empty applies); "" uses a temporary
	// directory removed at the end.
	Out string
	// Runs records each test this many times, 1 to MaxRuns (0 means 1),
	// each a plain run, for Test.Fluctuation.
	Runs int
	// CFP chooses the static pruning; the zero value logs every function.
	CFP instrument.CFPOptions
	// Inst, if not nil, is a build that Instrument made with Config.CFP,
	// used instead of instrumenting again.
	Inst      *instrument.Result
	MaxChecks int // detect/cfp's Options.MaxChecks
	// MaxTraceBytes and MaxGoroutines skip, with a note, the runs whose
	// trace file is larger or that started more goroutines (precog
	// test's -max-trace and -max-goroutines); 0 means no limit. The
	// shim stops writing a trace at MaxTraceBytes (plan.TraceLimitEnv).
	// A test whose first run was skipped has no coverage (Test.Skipped).
	MaxTraceBytes int64
	MaxGoroutines int
	// MaxEvents skips, with a note, the runs with more events (record's
	// count) than detect/cfp measures whole: 0 means DefaultMaxEvents,
	// negative no bound. A test whose first run was skipped has no
	// coverage (Test.Skipped).
	MaxEvents int
	// Budget, if not nil, bounds the time in which the runs start tests
	// (see record.Budget): precog test's -record-budget, which CFP's
	// cheap run spends too.
	Budget *record.Budget
	// MeasureLimit, if above 0, bounds the wall time of measuring the
	// pairs of each run's traces: the tests not measured by then have no
	// coverage (Test.Skipped), as those Budget kept from starting, and
	// one note says how many. precog test's CFP gives it the cheap run's
	// budget: go-coap's 316 traces took 11 minutes to measure at load 40,
	// until -deadline ended the job with nothing detected.
	MeasureLimit time.Duration
	// Only, if not nil, chooses the tests to run among a package's (see
	// record.Options.Only).
	Only func(pkg string, tests []string) []string
	// BinDir, if not empty, keeps the instrumented test binaries there
	// for the caller (see record.Options.BinDir).
	BinDir string
	// Reuse runs the instrumented test binaries that record.Build left in
	// BinDir instead of building them (see record.Options.Reuse).
	Reuse bool
	// Parallel is how many packages run side by side (see
	// record.Options.Parallel).
	Parallel int
	Progress func(string)
	// Counts, if not nil, is given record's progress too, with the
	// tests done and their events.
	Counts  func(record.Progress)
	TestLog io.Writer
}

// DefaultMaxEvents is the default Options.MaxEvents: five million events,
// about 0.75 GiB of precog's heap while detect/cfp measures them. Measure
// holds a run's trace whole (80 bytes an event), hb's graph of it and the
// function instances: 140 to 165 bytes an event on theine's cheap runs,
// whose largest under detection's 64 MiB limit, 12 million events, peaked
// at 1.6 GiB of heap measured alone and took the nightly job to 3.1 GiB
// (bench/RESULTS.md, cfpmem30). The memory is the events', not the
// instances': 5.3 million instances made 252,000 groups.
const DefaultMaxEvents = 5_000_000

// bytesPerEvent is the heap per event of measuring a trace, the upper end
// of theine's (DefaultMaxEvents).
const bytesPerEvent = 165

// gcEvents is the size of a measured trace, in events, after which Measure
// collects its garbage before reading the next: the next trace would
// otherwise be read into the heap the GC lets grow to twice the last
// one's graph.
const gcEvents = 1_000_000

// A Report is the CFP coverage of a suite.
type Report struct {
	Packages []*Package
	Plan     *cfp.Plan
	Sites    *trace.SiteTable
	Inst     *instrument.Result
	// Notes are lines the user should know about: damaged traces, runs
	// whose pairing stopped at its bound. The tests that failed are
	// those whose Outcome failed: the caller says so, with what else it
	// knows of them (precog test, with their recorded runs).
	Notes []string
	// NotRun counts the tests that Options.Budget kept from starting,
	// over all runs.
	NotRun int
	// Unlisted has a line for each package whose test binary built but
	// failed to list its tests (record.Index.Unlisted): not measured.
	Unlisted []string
	limits   limitNote
	Events   int           // events read, all runs
	Record   time.Duration // instrumenting and recording
	Measure  time.Duration // reading traces and pairing
}

// A Package is the coverage of one package's tests.
type Package struct {
	ImportPath string
	Dir        string            // the package's directory
	Tests      []*Test           // in the order the test binary lists them
	Steps      []cfp.Step        // the greedy selection over Tests
	Union      []cfp.Pair        // the pairs of all its tests
	Names      map[string]string // function key -> name, for every key in the pairs and Funcs
}

// A Test is the coverage of one top-level test.
type Test struct {
	Name    string
	Outcome record.Outcome
	// Pairs and Funcs are those of the first run: its pairs, and the
	// functions it executed (see cfp.Result).
	Pairs []cfp.Pair
	Funcs []string
	// Runs are the pairs of every run, with Options.Runs above 1.
	Runs [][]cfp.Pair
	// Fluctuation is cfp.Fluctuation over Runs (0 with one run).
	Fluctuation float64
	// Log is the path of the first run's test output, with Options.Out
	// set ("" without: the recording is removed when Measure returns).
	Log string
	// Skipped says why the first run was not measured (over a limit of
	// Options), "" if it was. A skipped test covers no pair: guided
	// detection records it in full.
	Skipped string
}

// Selected reports whether the package's selection chose the test.
func (p *Package) Selected(test string) (cfp.Step, bool) {
	for _, s := range p.Steps {
		if s.Test == test {
			return s, true
		}
	}
	return cfp.Step{}, false
}

// Measure instruments, records the cheap runs and computes the coverage.
func Measure(ctx context.Context, o Options) (*Report, error) {
	if o.Runs == 0 {
		o.Runs = 1
	}
	if o.Runs < 1 || o.Runs > MaxRuns {
		return nil, fmt.Errorf("-runs must be between 1 and %d, got %d", MaxRuns, o.Runs)
	}
	if len(o.Patterns) == 0 {
		o.Patterns = []string{"."}
	}
	if o.Out != "" {
		if err := record.CheckOut(o.Out); err != nil {
			return nil, err
		}
	}
	progress := o.Progress
	if progress == nil {
		progress = func(string) {}
	}
	start := time.Now()
	inst := o.Inst
	if inst == nil {
		progress("instrumenting")
		cfpOpts := o.CFP
		var err error
		inst, err = instrument.Instrument(ctx, instrument.Config{
			Dir: o.Dir, Patterns: o.Patterns, BuildFlags: o.Flags.Build, Deps: o.Deps, CacheDir: o.CacheDir, CFP: &cfpOpts,
		})
		if err != nil {
			return nil, err
		}
	}
	rep := &Report{Inst: inst, Plan: &cfp.Plan{}}
	if inst.Plan != "" {
		data, err := os.ReadFile(inst.Plan)
		if err != nil {
			return nil, fmt.Errorf("reading the cfp plan: %w", err)
		}
		if err := json.Unmarshal(data, rep.Plan); err != nil {
			return nil, fmt.Errorf("reading the cfp plan: %w", err)
		}
	}
	sites, err := trace.LoadSites(inst.Sites)
	if err != nil {
		return nil, fmt.Errorf("reading the site table: %w", err)
	}
	rep.Sites = sites
	out := o.Out
	if out == "" {
		tmp, err := os.MkdirTemp("", "precog-cover-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		out = tmp
	} else if o.Runs > 1 {
		// The runs' outputs go into subdirectories: the parent is
		// marked as precog's too.
		if err := record.PrepareOut(out); err != nil {
			return nil, err
		}
	}
	var measured time.Duration
	byPkg := make(map[string]*Package)
	for run := range o.Runs {
		dir := out
		if o.Runs > 1 {
			dir = filepath.Join(out, fmt.Sprintf("run%d", run))
		}
		ix, err := record.Run(ctx, record.Options{
			Dir:      o.Dir,
			Patterns: o.Patterns,
			Out:      dir,
			Flags:    o.Flags,
			Progress: func(p record.Progress) {
				what := fmt.Sprintf("[%d/%d] %s %s", p.N, p.Of, p.Package, p.Test)
				if o.Runs > 1 {
					what = fmt.Sprintf("run %d of %d: %s", run+1, o.Runs, what)
				}
				progress(what)
				if o.Counts != nil {
					o.Counts(p)
				}
			},
			TestLog: o.TestLog,
			Env:     func(string, string) []string { return []string{plan.AccessesEnv + "=none"} },
			// A trace over the limit is skipped: the shim stops
			// writing it there.
			TraceLimit: o.MaxTraceBytes,
			Only:       o.Only,
			Budget:     o.Budget,
			BinDir:     o.BinDir,
			Reuse:      o.Reuse || run > 0,
			Parallel:   o.Parallel,
			Built:      func(n, of int) { progress(record.BuildingLine(n, of)) },
		}, &record.Instrumented{BuildFlags: inst.BuildFlags, Sites: inst.Sites, Marks: inst.Marks, MarkTests: inst.MarkTests})
		if ie := (*record.InterruptedError)(nil); o.Out == "" && errors.As(err, &ie) {
			ie.Out = "" // the temporary directory goes
		}
		if err != nil {
			return nil, err
		}
		rep.NotRun += ix.NotRun
		for _, u := range ix.Unlisted { // every run lists every package's tests
			if !slices.Contains(rep.Unlisted, u) {
				rep.Unlisted = append(rep.Unlisted, u)
			}
		}
		t0 := time.Now()
		if err := rep.add(ctx, dir, ix, run, byPkg, o); err != nil {
			return nil, err
		}
		measured += time.Since(t0)
	}
	for _, p := range rep.Packages {
		tests := make([]cfp.Test, len(p.Tests))
		for i, t := range p.Tests {
			tests[i] = cfp.Test{Name: t.Name, Pairs: t.Pairs}
			if o.Runs > 1 {
				t.Fluctuation = cfp.Fluctuation(t.Runs)
			}
		}
		p.Steps = cfp.Select(tests)
		p.Union = cfp.Union(tests)
	}
	rep.Measure = measured
	rep.Record = time.Since(start) - measured
	return rep, nil
}

// add measures run n of the recording in dir, saying which test it
// measures: a long test's trace takes minutes (statedb's cheap run spent
// three with nothing on its line but the last test recorded).
func (rep *Report) add(ctx context.Context, dir string, ix *record.Index, n int, byPkg map[string]*Package, o Options) error {
	total, i := 0, 0
	for _, rp := range ix.Packages {
		total += len(rp.Tests)
	}
	var until time.Time
	if o.MeasureLimit > 0 {
		until = time.Now().Add(o.MeasureLimit)
	}
	late := 0 // tests not measured within MeasureLimit
	defer func() {
		if late > 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("measuring the function pairs stopped after %v with %d of the %d tests not measured; they have no coverage and are detected in full", o.MeasureLimit, late, total))
		}
	}()
	for _, rp := range ix.Packages {
		p := byPkg[rp.ImportPath]
		if p == nil {
			p = &Package{ImportPath: rp.ImportPath, Dir: rp.Dir, Names: make(map[string]string)}
			byPkg[rp.ImportPath] = p
			rep.Packages = append(rep.Packages, p)
		}
		for _, rt := range rp.Tests {
			if err := ctx.Err(); err != nil {
				return err
			}
			name := rp.ImportPath + "." + rt.Name
			if i++; o.Progress != nil {
				what := fmt.Sprintf("measuring the function pairs of %s (%d of %d tests)", name, i, total)
				if o.Runs > 1 {
					what = fmt.Sprintf("run %d of %d: %s", n+1, o.Runs, what)
				}
				o.Progress(what)
			}
			var t *Test
			for _, x := range p.Tests {
				if x.Name == rt.Name {
					t = x
				}
			}
			if t == nil {
				t = &Test{Name: rt.Name, Outcome: rt.Outcome}
				p.Tests = append(p.Tests, t)
			}
			if n == 0 && o.Out != "" && rt.Log != "" {
				t.Log = filepath.Join(dir, filepath.FromSlash(rt.Log))
			}
			if !until.IsZero() && time.Now().After(until) {
				late++
				if n == 0 {
					t.Skipped = fmt.Sprintf("its pairs were not measured within %v; no coverage", o.MeasureLimit)
				}
				t.Runs = append(t.Runs, nil)
				continue
			}
			if rt.Outcome == record.Stopped {
				// Its coverage is a prefix's: selected by it, the test
				// could leave out the pairs of the rest. Guided
				// detection records it in full.
				rep.skip(t, n, name, "stopped at -record-budget (its end, or the part of it each test may take); no coverage")
				continue
			}
			if rt.Trace == "" {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s; no coverage", name, rt.Broken))
				t.Runs = append(t.Runs, nil)
				continue
			}
			path := filepath.Join(dir, filepath.FromSlash(rt.Trace))
			if fi, err := os.Stat(path); err == nil && o.MaxTraceBytes > 0 && fi.Size() > o.MaxTraceBytes {
				skip := fmt.Sprintf("trace of %.1f MiB is over the limit of %.1f MiB (-max-trace); no coverage", float64(fi.Size())/(1<<20), float64(o.MaxTraceBytes)/(1<<20))
				rep.skip(t, n, name, skip)
				continue
			}
			if limit := cmp.Or(o.MaxEvents, DefaultMaxEvents); limit > 0 && rt.Events > limit {
				rep.skip(t, n, name, fmt.Sprintf("%d events, over the %d that CFP measures whole (about %.2f GiB of memory); no coverage", rt.Events, limit, float64(limit)*bytesPerEvent/(1<<30)))
				continue
			}
			evs, err := readTrace(path)
			if errors.Is(err, trace.ErrLimited) {
				rep.skip(t, n, name, fmt.Sprintf("trace reached the limit of %.1f MiB (-max-trace), where its recording stopped; no coverage", float64(o.MaxTraceBytes)/(1<<20)))
				continue
			}
			if err != nil && !errors.Is(err, trace.ErrBroken) {
				return fmt.Errorf("%s: %w", name, err)
			}
			if g := goroutines(evs); o.MaxGoroutines > 0 && g > o.MaxGoroutines {
				rep.skip(t, n, name, fmt.Sprintf("%d goroutines, over the limit of %d (-max-goroutines); no coverage", g, o.MaxGoroutines))
				continue
			}
			if err != nil {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %v; measured the %d events before the damage", name, err, len(evs)))
			}
			rep.Events += len(evs)
			res := cfp.Measure(evs, rep.Sites, rep.Plan, cfp.Options{MaxChecks: o.MaxChecks})
			if len(evs) > gcEvents {
				runtime.GC() // evs and Measure's graph are garbage now
			}
			if res.Limit != "" {
				rep.noteLimit(name, res.Limit)
			}
			for k, v := range res.Names {
				p.Names[k] = v
			}
			if n == 0 {
				t.Pairs, t.Funcs = res.Pairs, res.Funcs
			}
			t.Runs = append(t.Runs, res.Pairs)
		}
	}
	return nil
}

// A limitNote is the one note for every test whose pairing stopped at
// cfp's bound: the first one's limit in full, then the others by name. A
// library whose every test calls one hot function from many goroutines
// (nbio's pooled allocator) reaches the bound in each, and a line apiece
// said the same thing eight times.
type limitNote struct {
	at    int    // its index in Report.Notes
	first string // the first test's note
	more  []string
}

// noteLimit notes that test's pairing stopped at cfp's bound, as limit
// says.
func (rep *Report) noteLimit(test, limit string) {
	l := &rep.limits
	switch {
	case l.first == "":
		l.at, l.first = len(rep.Notes), test+": "+limit
		rep.Notes = append(rep.Notes, l.first)
		return
	case strings.HasPrefix(l.first, test+": ") || slices.Contains(l.more, test):
		return // another run of the same test
	}
	l.more = append(l.more, test)
	rep.Notes[l.at] = fmt.Sprintf("%s; so did %d more tests: %s", l.first, len(l.more), strings.Join(l.more, ", "))
}

// skip notes that run n of test t (named name) was not measured, and why.
func (rep *Report) skip(t *Test, n int, name, why string) {
	rep.Notes = append(rep.Notes, name+": "+why)
	if n == 0 {
		t.Skipped = why
	}
	t.Runs = append(t.Runs, nil)
}

// goroutines counts the goroutines of a trace: its Begin events.
func goroutines(evs []trace.Event) int {
	n := 0
	for i := range evs {
		if evs[i].Kind == trace.EvBegin {
			n++
		}
	}
	return n
}

// readTrace reads the trace file at path, sorted; a broken trace returns
// the events before the damage with an error wrapping trace.ErrBroken, a
// trace the shim stopped at its size limit trace.ErrLimited and no events.
func readTrace(path string) ([]trace.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A trace the shim stopped at the limit is not read: up to the limit
	// it can hold tens of millions of events, GiBs in memory.
	if r, err := trace.NewReader(f); err == nil && r.State() == trace.Limited {
		return nil, trace.ErrLimited
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	tr, err := trace.ReadAll(f)
	if tr == nil {
		if err == nil {
			err = errors.New("empty trace")
		}
		return nil, err
	}
	return tr.Events, err
}

// Package record runs a package's tests instrumented and keeps one trace per
// top-level test: the "inputs" of the CFP paper, and the runs the predictive
// checks reason about.
//
// For each package, record builds two test binaries with "go test -c": the
// instrumented one, from the overlay that pipeline/instrument writes, and a
// plain one. It lists the tests with the plain binary, then runs each
// selected top-level test in a process of its own, twice: plain, for the
// baseline wall time and outcome, and instrumented, with PRECOG_TRACE naming
// the test's trace file. One process per test keeps each trace about one
// input, lets a crash take down only its own test, and lets validation later
// re-run exactly that test. Test binaries run in the package's directory, as
// go test runs them.
//
// With Options.Runs above 1, each test is recorded that many times: run 0
// as is, runs 1 and later under a perturb plan of the shim (see the doc of
// package shim/plan), each with its own seed, so that the runs take
// different interleavings and some may fail (Unicorn's runs with
// outcomes). Without a baseline, record builds only the instrumented
// binary and lists the tests with it.
//
// Output directory layout:
//
//	precog-output                        the marker: precog's output, of layout OutVersion (see PrepareOut)
//	index.json                           what was recorded (Index)
//	sites.json                           the site table of the instrumented build
//	<import path>/<Test>.trace           one trace per top-level test
//	<import path>/<Test>.log             the test's output (stdout and stderr)
//	<import path>/<Test>.run<N>.trace    run N >= 1 of the test, perturbed
//	<import path>/<Test>.run<N>.log      its output
//	perturb/run<N>.plan                  the perturb plan of run N >= 1 of every test
//	<import path>/<Test>.run<N>.plan     the force plan of run N, if targeted (Options.Forced)
//
// record writes nothing outside the output directory and precog's cache,
// and its test binaries live in a temporary directory removed at the end.
package record

import (
	"bytes"
	"cmp"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/pipeline/failure"
	"github.com/precog-dev/precog/pipeline/proc"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
	"github.com/sourcegraph/conc/pool"
)

// IndexVersion is the version of index.json's layout. 2: Test.Marks (a
// test runs under tracebackancestors only if it may reach a marked call;
// version 1 had Package.Marks alone, for every test of the package).
const IndexVersion = 2

// IndexFile is the name of the index in the output directory.
const IndexFile = "index.json"

// SitesFile is the name of the site table in the output directory.
const SitesFile = "sites.json"

// An Index describes one recording: the file that the predictive checks
// start from.
type Index struct {
	Version   int        `json:"version"`
	Created   time.Time  `json:"created"`
	GoVersion string     `json:"goVersion"`
	Sites     string     `json:"sites"` // site table, relative to the output directory
	Packages  []*Package `json:"packages"`
	// Interrupted is set when precog was interrupted: the packages and
	// tests after the interrupted ones are missing.
	Interrupted bool `json:"interrupted,omitempty"`
	// NotRun counts the tests that were not started because
	// Options.Budget was spent; they are missing.
	NotRun int `json:"notRun,omitempty"`
	// NotBuilt lists the packages whose test binaries Build had not
	// linked when Options.BuildLimit stopped it; their tests are missing.
	NotBuilt []string `json:"notBuilt,omitempty"`
	// Unlisted has a line for each package whose test binary failed
	// to list its tests (a TestMain that exits for want of an
	// environment variable or a service, as go test would run it): its
	// tests are not run, and the others are. The line is go list's
	// "package P: ..." form: "package P: listing its tests: <first
	// line of its output>".
	Unlisted []string `json:"unlisted,omitempty"`
}

// A Package is one recorded test package.
type Package struct {
	ImportPath string  `json:"importPath"`
	Dir        string  `json:"dir"`
	Tests      []*Test `json:"tests"`
	// Marks says that the package's test binary holds a marked call
	// that one of its tests may reach (Instrumented.Marks): those tests
	// (Test.Marks) ran, and run again, under plan.Godebug's
	// tracebackancestors.
	Marks bool `json:"marks,omitempty"`
}

// A Test is one recorded top-level test.
type Test struct {
	Name  string `json:"name"`
	Trace string `json:"trace"` // relative to the output directory; empty if the process wrote none
	Log   string `json:"log"`   // the recorded run's output, relative to the output directory
	// Outcome of the recorded run and of the plain run: pass, fail, skip,
	// panic, fatal (a runtime fatal error such as concurrent map writes),
	// timeout, or exit (the process exited early, as with os.Exit).
	Outcome      Outcome       `json:"outcome"`
	PlainOutcome Outcome       `json:"plainOutcome,omitempty"`
	Wall         time.Duration `json:"wallNs"`
	PlainWall    time.Duration `json:"plainWallNs,omitempty"`
	Events       int           `json:"events"`
	Bytes        int64         `json:"bytes"`
	// Broken is the reader's error if the trace is damaged; the events
	// before the damage are still usable.
	Broken string `json:"broken,omitempty"`
	// Marks says that the test may reach a marked call
	// (Instrumented.MarkTests): it ran, and runs again, under
	// plan.Godebug's tracebackancestors.
	Marks bool `json:"marks,omitempty"`
	// Runs are the further recordings of the test under perturb plans
	// (Options.Runs above 1), runs 1 and later in order. The fields above
	// are run 0's, recorded without a plan.
	Runs []*Perturbed `json:"runs,omitempty"`
}

// Perturbed is one perturbed recording of a test.
type Perturbed struct {
	N       int           `json:"n"`    // 1 and up
	Seed    uint64        `json:"seed"` // the perturb plan's seed
	Plan    string        `json:"plan"` // the plan file, relative to the output directory
	Trace   string        `json:"trace"`
	Log     string        `json:"log"`
	Outcome Outcome       `json:"outcome"`
	Wall    time.Duration `json:"wallNs"`
	Events  int           `json:"events"`
	Bytes   int64         `json:"bytes"`
	Broken  string        `json:"broken,omitempty"`
	// Forced is set for a run under a force plan of Options.Forced (its
	// Plan, Seed 0): what the shim reported of the forced order, a
	// control state (plan.Confirmed: the order held, plan.Diverged,
	// plan.TimedOut), with the reason after a colon if any.
	Forced string `json:"forced,omitempty"`
}

// Failed reports whether a test run with outcome o failed: it did not pass,
// was not skipped, and precog did not stop it.
func (o Outcome) Failed() bool { return o != Pass && o != Skip && o != Interrupted && o != Stopped }

// Outcome is how a test process ended.
type Outcome string

// The outcomes, from the test's own report or from how its process ended.
const (
	Pass    Outcome = "pass"
	Fail    Outcome = "fail"
	Skip    Outcome = "skip"
	Panic   Outcome = "panic"
	Fatal   Outcome = "fatal"
	Timeout Outcome = "timeout"
	Exit    Outcome = "exit"
	// Interrupted: precog was interrupted (SIGINT, SIGTERM) while the
	// test ran, and stopped it; its trace holds what it did until then.
	Interrupted Outcome = "interrupted"
	// Stopped: the test was still running Budget.Grace after the
	// recording budget was spent, and record stopped it as -timeout
	// stops a test: its -test.timeout was cut to that time, so that the
	// testing package panicked and printed every goroutine's stack into
	// its log. Its trace holds what it did until then.
	Stopped Outcome = "stopped"
)

// An InterruptedError is the error of a Run that its context stopped
// (precog was interrupted). Out, unless empty, is the output directory
// that kept the recording so far: its index lists the tests recorded
// before, and those running then with outcome Interrupted.
type InterruptedError struct {
	Out string
	Err error
}

func (e *InterruptedError) Error() string { return "recording interrupted: " + e.Err.Error() }

func (e *InterruptedError) Unwrap() error { return e.Err }

// Totals sums an Index.
type Totals struct {
	Packages, Tests, Events int
	Bytes                   int64
	Wall, PlainWall         time.Duration
	Changed                 []*Test // tests whose recorded outcome differs from the plain one
	Broken                  []*Test
}

// Totals sums the index's tests.
func (ix *Index) Totals() Totals {
	var t Totals
	t.Packages = len(ix.Packages)
	for _, p := range ix.Packages {
		for _, tt := range p.Tests {
			t.Tests++
			t.Events += tt.Events
			t.Bytes += tt.Bytes
			t.Wall += tt.Wall
			t.PlainWall += tt.PlainWall
			if tt.PlainOutcome != "" && tt.PlainOutcome != tt.Outcome {
				t.Changed = append(t.Changed, tt)
			}
			if tt.Broken != "" {
				t.Broken = append(t.Broken, tt)
			}
		}
	}
	return t
}

// A Progress reports that a test is about to run.
type Progress struct {
	Package string
	Test    string
	N, Of   int // this is test N of Of in the package
	// Done tests of Total, over every package, have been recorded
	// (with all their runs); Events counts the events of their traces.
	Done, Total int
	Events      int
	// Ends is when Options.Budget stops starting tests, and Budget its
	// name (Budget.Name); Ends is zero without a budget or before its
	// clock started.
	Ends   time.Time
	Budget string
}

// An Instrumented build is what the instrumenter hands to record: the flags
// that make "go test -c" build the instrumented binary, and its site table.
type Instrumented struct {
	BuildFlags []string
	Sites      string
	// Marks are the import paths of the packages whose test binaries
	// hold a marked call that one of their tests may reach
	// (instrument.Result.Marks), and MarkTests those tests, for a
	// package of Marks whose tests do not all (instrument.Result's
	// MarkTests): only they run under GODEBUG=tracebackancestors
	// (plan.Godebug).
	Marks     []string
	MarkTests map[string][]string
}

// marked reports whether test of the package path runs under
// GODEBUG=tracebackancestors (instrument.Result.Marked).
func (in *Instrumented) marked(path, test string) bool {
	if !slices.Contains(in.Marks, path) {
		return false
	}
	names, ok := in.MarkTests[path]
	return !ok || slices.Contains(names, test)
}

// Options configures Run.
type Options struct {
	Dir      string // the directory go runs in; "" for the current one
	Patterns []string
	Out      string // the output directory
	Flags    *GoTestFlags
	// Baseline runs each test uninstrumented too, for the wall-time
	// ratio and to check that recording does not change outcomes.
	Baseline bool
	Progress func(Progress) // called before each test; may be nil
	TestLog  io.Writer      // with -v, the tests' output is copied here; may be nil
	// Runs is how many times each test is recorded; 0 means 1. Runs 1
	// and later run under a perturb plan made by Perturb.
	Runs    int
	Perturb Perturb
	// Forced, if not nil, is asked, once run 0 of a test is recorded,
	// for force plans for the runs after it (targeted
	// perturbation): runs 1 to len(plans) (at most Runs-1) run under
	// them, in order, and the later ones under perturb plans. trace is
	// the path of run 0's trace. Each forced run is bounded: by the
	// plan's waits, and by three times run 0's wall time plus the plan's
	// budget and some slack, within -timeout.
	Forced func(pkg string, t *Test, trace string) []*plan.Plan
	// ForcedBudget bounds the wall time of all forced runs together;
	// once it is spent, the runs take perturb plans. 0 means no bound
	// but each run's own.
	ForcedBudget time.Duration
	// BinDir, if not empty, is where the test binaries are built and
	// left for the caller (who removes them), so that validation can run
	// the recorded tests again: InstrumentedBinary names each. By default
	// they go to a temporary directory removed at the end.
	BinDir string
	// LinkDir, if not empty, is the link cache, a directory of precog's
	// cache (LinkDir names it) where the test binaries are linked and
	// kept from run to run, so that a build whose binary is up to date
	// there is not linked again; BinDir or the temporary directory gets
	// links to them (links.go). BinDir is best on the cache's file
	// system: elsewhere the binaries are copied.
	LinkDir string
	// Reuse, with BinDir, runs the test binaries that Build or an earlier
	// Run of the same build left in BinDir instead of building them again
	// (CFP's cheap and guided runs share them); a package without one, which
	// a BuildLimit left unbuilt, is not recorded but listed in
	// Index.NotBuilt.
	Reuse bool
	// Append adds this Run's packages to the recording an earlier Run
	// of the same instrumented build left in Out (precog test's second
	// round, for the packages whose test binaries the first round's
	// build did not link): what is there stays, the index written lists
	// both, and the Index returned lists this Run's packages alone. The
	// two must not share a package: a test's files are named after it.
	Append bool
	// BuildLimit, if above 0, bounds Build's wall time: a build still
	// running then is stopped, the test binaries linked by then are kept,
	// and Build returns a *BuildCutError (precog test's -deadline: a
	// module whose build would take the whole deadline has some of its
	// packages recorded instead of none).
	BuildLimit time.Duration
	// Only, if not nil, returns the tests to record among the top-level
	// tests of a package (by import path), in their order; the others are
	// not run. It is called for every package, in order, before any test
	// runs. CFP-guided detection records the tests it selected; a shard
	// (precog test -shard) its share.
	Only func(pkg string, tests []string) []string
	// Last, if not nil, says which tests are recorded after every
	// package's others: precog test's guided run puts there those CFP's
	// cheap run stopped at its bound (a five-minute loop, a test blocked
	// in its accept loop), so that they do not hold the turn of the tests
	// queued behind them (rocketmq: two such tests held both of -p 2's
	// lanes for 3.5 minutes with 35 tests waiting).
	Last func(pkg, test string) bool
	// Budget, if not nil, bounds the time in which tests are started
	// (see Budget); the tests not started are counted in Index.NotRun.
	Budget *Budget
	// Env, if not nil, returns environment variables ("KEY=value") for
	// the recorded runs of a test: CFP's filters of what the shim records
	// (plan.AccessesEnv, plan.FuncsEnv).
	Env func(pkg, test string) []string
	// TraceLimit, if above 0, is the size in bytes past which the shim
	// stops writing a recorded run's trace (plan.TraceLimitEnv): the
	// test runs on to its end unrecorded, and its trace reads as the
	// prefix recorded before the stop, ending in trace.ErrLimited.
	TraceLimit int64
	// Built, if not nil, is told while the test binaries are built how
	// many of them are linked, n of of, when that changes (it is checked
	// every BuiltEvery): a module's build can take minutes.
	Built func(n, of int)
	// Parallel is how many packages are recorded side by side, each one
	// test process at a time in its order, as go test -p runs packages:
	// two tests of one package may share a port, a file or a directory
	// and are never run at once. 0 means 1; with TestLog, 1, so that the
	// tests' output does not interleave. Progress, Forced and Env are
	// then called from one goroutine per package, Progress one call at a
	// time.
	Parallel int
}

// BuiltEvery is how often Run looks at how many test binaries are linked
// for Options.Built.
const BuiltEvery = time.Second

// BuildingLine is the progress line of a build of which n test binaries
// of of are linked.
func BuildingLine(n, of int) string {
	what := "test binaries"
	if of == 1 {
		what = "test binary"
	}
	return fmt.Sprintf("building the tests: %d of %d %s linked", n, of, what)
}

// Perturb configures the perturb plans of runs 1 and later: run N gets
// seed Seed+N. The plan names every site of the instrumented build but
// function entries and exits, so that goroutines are delayed or yield at
// memory accesses as well as at sync operations.
type Perturb struct {
	Seed uint64
	// Delay and Yield are the probabilities that a goroutine sleeps (up to
	// MaxDelayUS microseconds) or yields at a point; zero values take
	// DefaultDelay, DefaultYield and the shim's default maximum delay.
	Delay, Yield float64
	MaxDelayUS   int
	// BudgetMS bounds the total delay of one run (0: the shim's default).
	BudgetMS int
	// Off records runs 1 and later without a plan: the same test again,
	// as the scheduler runs it.
	Off bool
}

// The default perturbation: enough to reorder the accesses of short tests
// without slowing them down much.
const (
	DefaultDelay = 0.05
	DefaultYield = 0.2
)

// Run builds and runs the tests of the packages in o.Patterns with the
// instrumented build inst, and writes the output directory.
func Run(ctx context.Context, o Options, inst *Instrumented) (*Index, error) {
	if o.Out == "" {
		return nil, errors.New("no output directory: use -o DIR")
	}
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return nil, err
	}
	var earlier *Index
	if o.Append {
		if earlier, err = ReadIndex(out); err != nil {
			return nil, fmt.Errorf("adding to the recording in %s: %w", out, err)
		}
	} else if err := PrepareOut(out); err != nil {
		return nil, err
	}
	pkgs, err := listTestPackages(ctx, o.Dir, o.Flags.Build, o.Patterns)
	if err != nil {
		return nil, err
	}
	for i := range pkgs {
		pkgs[i].Marks = slices.Contains(inst.Marks, pkgs[i].ImportPath)
		pkgs[i].marked = inst.marked
	}
	bin := o.BinDir
	if bin == "" {
		bin, err = TempBinDir(o.LinkDir, "precog-record-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(bin)
	}

	ix := &Index{Version: IndexVersion, Created: time.Now().UTC(), GoVersion: goVersion(ctx), Sites: SitesFile}
	if earlier == nil {
		if err := copyFile(inst.Sites, filepath.Join(out, SitesFile)); err != nil {
			return nil, fmt.Errorf("copying the site table: %w", err)
		}
	}
	if o.Runs > 1 && !o.Perturb.Off && earlier == nil {
		sites, err := trace.LoadSites(inst.Sites)
		if err != nil {
			return nil, err
		}
		// One plan per run number, shared by the tests: a plan names
		// every site of the build, too many to copy for each test.
		if err := os.MkdirAll(filepath.Join(out, PerturbDir), 0o777); err != nil {
			return nil, err
		}
		ids := perturbSites(sites)
		for n := 1; n < o.Runs; n++ {
			if err := control.WritePlan(filepath.Join(out, filepath.FromSlash(planFile(n))), o.perturbPlan(o.Perturb.Seed+uint64(n), ids)); err != nil {
				return nil, err
			}
		}
	}
	if err := buildBinaries(ctx, o, inst, pkgs, bin); err != nil {
		return nil, err
	}
	plain, rec := filepath.Join(bin, "plain"), filepath.Join(bin, "record")
	if o.Reuse && o.BinDir != "" {
		pkgs = slices.DeleteFunc(pkgs, func(p listedPackage) bool {
			_, err := os.Stat(testBinary(rec, p))
			if err != nil {
				ix.NotBuilt = append(ix.NotBuilt, p.ImportPath)
			}
			return err != nil
		})
	}
	// List every package's tests before running any, so that Only sees
	// them all up front and progress counts against the whole run.
	// A package whose binary cannot list its tests is left out, as go
	// test fails that package alone (tusd's e2e TestMain wants a
	// binary's path in the environment: it ended the whole job after a
	// 14-minute build).
	var names [][]string
	c := &counter{}
	listed := pkgs[:0]
	for _, lp := range pkgs {
		listBin := testBinary(rec, lp)
		if o.Baseline {
			listBin = testBinary(plain, lp)
		}
		ns, err := listTests(ctx, listBin, lp.Dir, o.Flags)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			ix.Unlisted = append(ix.Unlisted, fmt.Sprintf("package %s: %v", lp.ImportPath, err))
			continue
		}
		if o.Only != nil {
			ns = o.Only(lp.ImportPath, ns)
		}
		listed = append(listed, lp)
		names = append(names, ns)
		c.total += len(ns)
	}
	pkgs = listed
	o.Budget.plan(c.total, o.parallel(len(pkgs)))
	recorded, interrupted, err := recordLast(ctx, o, pkgs, names, plain, rec, out, c)
	if err != nil {
		return nil, err
	}
	for _, p := range recorded {
		if p != nil {
			ix.Packages = append(ix.Packages, p)
		}
	}
	if interrupted != nil {
		// Keep what was recorded, with an index that says so.
		ix.Interrupted = true
		if werr := writeIndex(out, earlier.with(ix)); werr != nil {
			return nil, werr
		}
		return nil, &InterruptedError{Out: out, Err: interrupted}
	}
	ix.NotRun = c.notRun
	if err := writeIndex(out, earlier.with(ix)); err != nil {
		return nil, err
	}
	return ix, nil
}

// Build builds the test binaries of o's packages into o.BinDir, as Run
// would, for Runs with Reuse to run: precog test builds before it divides
// -deadline among its stages, so that a long build takes from every stage
// alike instead of from the recording that follows it.
func Build(ctx context.Context, o Options, inst *Instrumented) error {
	if o.BinDir == "" {
		return errors.New("no directory for the test binaries")
	}
	pkgs, err := listTestPackages(ctx, o.Dir, o.Flags.Build, o.Patterns)
	if err != nil {
		return err
	}
	o.Reuse = false
	bctx := ctx
	if o.BuildLimit > 0 {
		var cancel context.CancelFunc
		bctx, cancel = context.WithTimeoutCause(ctx, o.BuildLimit, errBuildCut)
		defer cancel()
	}
	err = buildBinaries(bctx, o, inst, pkgs, o.BinDir)
	if err == nil || ctx.Err() != nil || context.Cause(bctx) != errBuildCut {
		return err
	}
	cut := &BuildCutError{Limit: o.BuildLimit, Of: len(pkgs)}
	for _, p := range pkgs {
		if _, err := os.Stat(testBinary(filepath.Join(o.BinDir, "record"), p)); err == nil {
			cut.Linked++
		} else {
			cut.NotLinked = append(cut.NotLinked, p.ImportPath)
		}
	}
	return cut
}

// errBuildCut is the cause of a build that Options.BuildLimit stopped.
var errBuildCut = errors.New("build limit reached")

// A BuildCutError is Build's result when Options.BuildLimit stopped the
// build: Linked of Of test binaries were linked by then, and Runs with
// Reuse record those packages alone.
type BuildCutError struct {
	Limit      time.Duration
	Linked, Of int
	NotLinked  []string // the import paths of the others
}

func (e *BuildCutError) Error() string {
	return fmt.Sprintf("the build was stopped after %v with %d of %d test binaries linked", e.Limit, e.Linked, e.Of)
}

// buildBinaries builds the test binaries of pkgs into bin, the plain ones
// too with o.Baseline, unless o.Reuse finds them built in o.BinDir.
func buildBinaries(ctx context.Context, o Options, inst *Instrumented, pkgs []listedPackage, bin string) error {
	if o.Reuse && o.BinDir != "" {
		return nil
	}
	if o.Baseline {
		if err := buildTests(ctx, o.Dir, filepath.Join(bin, "plain"), o.Flags.Build, pkgs, o.Built, o.LinkDir); err != nil {
			return err
		}
	}
	if err := buildTests(ctx, o.Dir, filepath.Join(bin, "record"), append(append([]string{}, inst.BuildFlags...), o.Flags.Build...), pkgs, o.Built, o.LinkDir); err != nil {
		if o.Baseline {
			err = fmt.Errorf("instrumented build: %w", err)
		}
		return err
	}
	return nil
}

// recordAll records the tests names[i] of each package pkgs[i], the
// packages side by side (o.Parallel), and returns each one's, in pkgs'
// order: nil for a package not begun. When ctx is cancelled it stops,
// returns what was recorded and the error that the cancellation gave
// (interrupted); a package's own error stops the others and is err.
func recordAll(ctx context.Context, o Options, pkgs []listedPackage, names [][]string, plain, rec, out string, c *counter) (recorded []*Package, interrupted, err error) {
	recorded = make([]*Package, len(pkgs))
	var mu sync.Mutex
	work, stop := context.WithCancel(ctx)
	defer stop()
	workers := pool.New().WithMaxGoroutines(o.parallel(len(pkgs)))
	for i, lp := range pkgs {
		workers.Go(func() {
			var p *Package
			perr := work.Err() // interrupted, or another package failed, before it began
			if perr == nil {
				p, perr = recordPackage(work, o, lp, names[i], testBinary(plain, lp), testBinary(rec, lp), out, c)
			}
			mu.Lock()
			defer mu.Unlock()
			recorded[i] = p
			switch {
			case perr == nil:
			case ctx.Err() != nil:
				interrupted = cmp.Or(interrupted, perr)
			case work.Err() == nil:
				// Its own error: the others stop, as when interrupted.
				err = perr
				stop()
			}
		})
	}
	workers.Wait()
	if err != nil {
		return nil, nil, err
	}
	return recorded, interrupted, nil
}

// recordLast is recordAll, with the tests o.Last names recorded after
// every package's others.
func recordLast(ctx context.Context, o Options, pkgs []listedPackage, names [][]string, plain, rec, out string, c *counter) (recorded []*Package, interrupted, err error) {
	first, last := splitLast(o, pkgs, names)
	recorded, interrupted, err = recordAll(ctx, o, pkgs, first, plain, rec, out, c)
	if err != nil || last == nil || interrupted != nil {
		return recorded, interrupted, err
	}
	after, interrupted, err := recordAll(ctx, o, pkgs, last, plain, rec, out, c)
	if err != nil {
		return nil, nil, err
	}
	for i, p := range after {
		switch {
		case p == nil || len(p.Tests) == 0:
		case recorded[i] == nil:
			recorded[i] = p
		default:
			recorded[i].Tests = append(recorded[i].Tests, p.Tests...)
		}
	}
	return recorded, interrupted, nil
}

// splitLast splits each package's tests into those recorded first and
// those o.Last puts after every package's others, each in its order; last
// is nil when there are none.
func splitLast(o Options, pkgs []listedPackage, names [][]string) (first, last [][]string) {
	if o.Last == nil {
		return names, nil
	}
	first, last = make([][]string, len(names)), make([][]string, len(names))
	some := false
	for i, ns := range names {
		for _, n := range ns {
			if o.Last(pkgs[i].ImportPath, n) {
				last[i] = append(last[i], n)
				some = true
			} else {
				first[i] = append(first[i], n)
			}
		}
	}
	if !some {
		return names, nil
	}
	return first, last
}

// parallel returns how many of n packages Run records at once.
func (o *Options) parallel(n int) int {
	if o.TestLog != nil {
		return 1
	}
	return max(1, min(o.Parallel, n))
}

// with returns the index of a recording that ix's Run added to the one
// of earlier (Options.Append): both rounds' packages, their tests not
// listed or not run, and the packages still not built, ix's. A nil
// earlier is ix.
func (earlier *Index) with(ix *Index) *Index {
	if earlier == nil {
		return ix
	}
	both := *ix
	both.Created, both.GoVersion, both.Sites = earlier.Created, earlier.GoVersion, earlier.Sites
	both.Packages = slices.Concat(earlier.Packages, ix.Packages)
	both.Unlisted = slices.Concat(earlier.Unlisted, ix.Unlisted)
	both.NotRun += earlier.NotRun
	return &both
}

// ReadIndex reads the index of the recording in the output directory out;
// an index of another IndexVersion is an error. A missing index is an
// error that errors.Is os.ErrNotExist.
func ReadIndex(out string) (*Index, error) {
	ix, err := readAnyIndex(out)
	if err != nil {
		return nil, err
	}
	if ix.Version != IndexVersion {
		return nil, fmt.Errorf("%s: version %d, want %d", filepath.Join(out, IndexFile), ix.Version, IndexVersion)
	}
	return ix, nil
}

// readAnyIndex reads the index in out whatever its version: PrepareOut
// needs only the file names an earlier run listed.
func readAnyIndex(out string) (*Index, error) {
	data, err := os.ReadFile(filepath.Join(out, IndexFile))
	if err != nil {
		return nil, err
	}
	var ix Index
	if err := json.Unmarshal(data, &ix); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(out, IndexFile), err)
	}
	return &ix, nil
}

func writeIndex(out string, ix *Index) error {
	data, err := json.MarshalIndent(ix, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, IndexFile), append(data, '\n'), 0o666)
}

// PerturbDir is the directory of the perturb plans in the output
// directory.
const PerturbDir = "perturb"

// planFile is the perturb plan of run n, relative to the output directory.
func planFile(n int) string { return PerturbDir + "/run" + strconv.Itoa(n) + ".plan" }

// perturbSites are the sites a perturb plan names: all but function
// entries and exits.
func perturbSites(t *trace.SiteTable) []uint32 {
	var ids []uint32
	for _, s := range t.Sites {
		if s.Kind != "func" {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// A listedPackage is a package with tests, as go list describes it.
type listedPackage struct {
	ImportPath   string
	Dir          string
	TestGoFiles  []string
	XTestGoFiles []string
	// IgnoredGoFiles are its files that build constraints exclude:
	// test files among them may want -tags.
	IgnoredGoFiles []string
	Error          *struct{ Err string }
	Marks          bool                         `json:"-"` // Instrumented.Marks holds it
	marked         func(path, test string) bool // Instrumented.marked
}

// testMarks reports whether test name runs under GODEBUG=tracebackancestors.
func (lp *listedPackage) testMarks(name string) bool {
	return lp.Marks && lp.marked != nil && lp.marked(lp.ImportPath, name)
}

func listTestPackages(ctx context.Context, dir string, build, patterns []string) ([]listedPackage, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Dir,TestGoFiles,XTestGoFiles,IgnoredGoFiles,Error"}, build...)
	args = append(args, "--")
	args = append(args, patterns...)
	cmd := proc.Command(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	data, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %s", firstLine(stderr.String(), err))
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(data))
	var ignored []string // test files that build constraints exclude
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list: %v", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("%s: %s", p.ImportPath, firstLine(p.Error.Err, nil))
		}
		if len(p.TestGoFiles)+len(p.XTestGoFiles) > 0 {
			pkgs = append(pkgs, p)
		}
		for _, f := range p.IgnoredGoFiles {
			if strings.HasSuffix(f, "_test.go") {
				ignored = append(ignored, filepath.Join(p.Dir, f))
			}
		}
	}
	if len(pkgs) == 0 {
		err := fmt.Errorf("%w in %s", ErrNoTests, strings.Join(patterns, " "))
		if len(ignored) > 0 {
			// gosnmp's tests are all behind build tags (held-out
			// rehearsal 44): say so, or the user sees nothing to test.
			rel, rerr := filepath.Rel(dir, ignored[0])
			if rerr != nil {
				rel = ignored[0]
			}
			files := "files"
			if len(ignored) == 1 {
				files = "file"
			}
			err = fmt.Errorf("%w (%d test %s excluded by build constraints, as %s: pass their tags with -tags)",
				err, len(ignored), files, rel)
		}
		return nil, err
	}
	return pkgs, nil
}

// ErrNoTests is Run's error when no package matching the patterns has a
// test file: a caller that left out the packages whose tests do not build
// (predict) has those to name instead.
var ErrNoTests = errors.New("no test files")

// buildTests builds the test binaries of pkgs into out, where testBinary
// finds them. One go command builds many packages, in parallel, but it
// names each binary after the last element of its import path: packages
// whose names collide go to separate commands. built, if not nil, is told
// how many binaries are linked when that changes (watchBuilt). links, if
// not empty, is the link cache (Options.LinkDir): the go commands write
// there, and out gets links to the binaries; a cache that cannot be
// opened or locked is left out (but for ctx's end while another process
// holds it, which ends the build).
func buildTests(ctx context.Context, dir, out string, build []string, pkgs []listedPackage, built func(n, of int), links string) error {
	into, start := out, time.Now()
	if links != "" {
		key, unlock, err := openLinks(ctx, links, dir, build)
		switch {
		case err == nil:
			defer unlock()
			into = key
		case ctx.Err() != nil:
			return err // stopped while another precog held the binaries
		}
	}
	if built != nil {
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			watchBuilt(into, start, len(pkgs), BuiltEvery, built, stop)
		}()
		defer func() {
			close(stop)
			<-done
		}()
	}
	var batches [][]listedPackage
	var names []map[string]bool
next:
	for _, p := range pkgs {
		base := execName(p.ImportPath)
		for i, b := range names {
			if !b[base] {
				b[base] = true
				batches[i] = append(batches[i], p)
				continue next
			}
		}
		names = append(names, map[string]bool{base: true})
		batches = append(batches, []listedPackage{p})
	}
	for i, b := range batches {
		var paths []string
		for _, p := range b {
			paths = append(paths, p.ImportPath)
		}
		if err := goTestC(ctx, dir, filepath.Join(into, strconv.Itoa(i))+string(filepath.Separator), build, paths); err != nil {
			if ctx.Err() != nil {
				// Stopped (Options.BuildLimit): the binaries the
				// go command linked before go where they are run;
				// in the link cache, those it wrote in this build or
				// found up to date (it touches them): the others may
				// be an earlier build's, of older code.
				since := time.Time{}
				if into != out {
					since = start
				}
				moveBinaries(into, out, batches, false, since)
			}
			return err
		}
	}
	return moveBinaries(into, out, batches, true, time.Time{})
}

// moveBinaries moves the test binaries that go test -c linked into
// from/<batch> for each batch to where testBinary finds them under out,
// or links them there when from is the link cache; with all, a missing
// one is an error, and without, left out (a build that was stopped), as
// is one whose build information does not read, or one older than since:
// the go command writes a linked binary into place by a rename, but by a
// copy where it cannot rename (another file system, a setgid directory),
// and a copy stopped midway leaves a file that is not a whole executable.
func moveBinaries(from, out string, batches [][]listedPackage, all bool, since time.Time) error {
	for i, b := range batches {
		for _, p := range b {
			linked := filepath.Join(from, strconv.Itoa(i), execName(p.ImportPath)+".test")
			if !all {
				fi, err := os.Stat(linked)
				if err != nil || fi.ModTime().Before(since) {
					continue
				}
				if _, err := buildinfo.ReadFile(linked); err != nil {
					if from == out {
						os.Remove(linked)
					}
					continue
				}
			}
			bin := testBinary(out, p)
			if err := os.MkdirAll(filepath.Dir(bin), 0o777); err != nil {
				return err
			}
			move := os.Rename
			if from != out {
				move = linkOrCopy
			}
			if err := move(linked, bin); err != nil {
				return fmt.Errorf("go test -c %s: %w", p.ImportPath, err)
			}
		}
	}
	return nil
}

// watchBuilt tells built, every d until stop is closed, how many of the
// of test binaries buildTests is building into dir are there (the go
// command writes each one when its link ends), when the number changed:
// first 0. Binaries older than start are not counted: in the link cache,
// those of an earlier build, which this one may not link again.
func watchBuilt(dir string, start time.Time, of int, d time.Duration, built func(n, of int), stop <-chan struct{}) {
	t := time.NewTicker(d)
	defer t.Stop()
	last := -1
	for {
		n := 0
		if ms, err := filepath.Glob(filepath.Join(dir, "*", "*.test")); err == nil {
			// In the go commands' directories, 0, 1...: not the
			// binaries an earlier build moved to where testBinary
			// finds them (Options.Append's round).
			n = len(slices.DeleteFunc(ms, func(m string) bool {
				if strings.Trim(filepath.Base(filepath.Dir(m)), "0123456789") != "" {
					return true
				}
				fi, err := os.Stat(m)
				return err != nil || fi.ModTime().Before(start)
			}))
		}
		if n != last {
			built(n, of)
			last = n
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// execName is the name the go command gives the test binary of the package
// with the given import path, without ".test": the last element of the
// path, or the one before it when the last is a major version suffix such
// as v3 (cmd/go's load.DefaultExecName).
func execName(importPath string) string {
	elem := path.Base(importPath)
	if v, ok := strings.CutPrefix(elem, "v"); ok && len(v) > 0 && v[0] != '0' && v != "1" && strings.Trim(v, "0123456789") == "" {
		if dir := path.Dir(importPath); dir != "." {
			return path.Base(dir)
		}
	}
	return elem
}

// BinaryName is the name go test -c gives the test binary of the package
// with the given import path, "x.test": a test may read it from
// os.Args[0] (testBinary).
func BinaryName(importPath string) string { return execName(importPath) + ".test" }

// testBinary is where buildTests puts the test binary of p under dir: in
// a directory of the package's own, under the name go test gives it, as a
// test may read its program's name (go-plugin's TestServerLogPanic runs
// the binary again as a plugin and looks for "go-plugin.test" in the
// plugin's log lines, which hclog names after os.Args[0]).
func testBinary(dir string, p listedPackage) string {
	return filepath.Join(dir, url.PathEscape(p.ImportPath), BinaryName(p.ImportPath))
}

// BuildPlain builds the test binary of the package at importPath as go
// test builds it, with the user's build flags and without precog's
// instrumentation, in a directory of its own under out, and returns its
// path. dir is the directory go runs in (the module's).
//
// go test runs a few vet checks before it builds a test binary and
// refuses the build if they report anything (go-metrics: a non-constant
// format string in a test file), while precog's own builds run no vet
// (instrument's -vet=off). Where only vet stood in the way (GoTestFlags
// takes no -vet of the user's), BuildPlain builds with -vet=off and returns
// vet's refusal as vetErr: the binary is go test's all the same (vet
// changes nothing in it), and a command that reruns the test needs
// -vet=off.
func BuildPlain(ctx context.Context, dir string, build []string, importPath, out string) (bin string, vetErr, err error) {
	p := listedPackage{ImportPath: importPath}
	err = buildTests(ctx, dir, out, build, []listedPackage{p}, nil, "")
	if err != nil && ctx.Err() == nil {
		off := append(slices.Clip(build), "-vet=off")
		if buildTests(ctx, dir, out, off, []listedPackage{p}, nil, "") == nil {
			vetErr, err = err, nil
		}
	}
	if err != nil {
		return "", nil, err
	}
	return testBinary(out, p), vetErr, nil
}

// InstrumentedBinary is the instrumented test binary of the package with
// the given import path that Run built in Options.BinDir.
func InstrumentedBinary(binDir, importPath string) string {
	return testBinary(filepath.Join(binDir, "record"), listedPackage{ImportPath: importPath})
}

// TestArgs are the arguments Run gives the process of the top-level test
// name: the test binary's flags from f, -test.run selecting name (and the
// subtests f.Run selects), -test.v.
func TestArgs(f *GoTestFlags, name string) []string {
	return append([]string{"-test.v"}, testArgs(f, name)...)
}

// PackageArgs are the arguments go test gives a package's test binary,
// with -test.v: every top-level test that f's -run and -skip select, in one
// process. A test that fails in a process of its own may pass there,
// after the tests before it set up what it needs.
func PackageArgs(f *GoTestFlags) []string {
	args := []string{"-test.v", "-test.timeout=" + f.Timeout.String()}
	if f.Run != "" {
		args = append(args, "-test.run="+f.Run)
	}
	if f.Skip != "" {
		args = append(args, "-test.skip="+f.Skip)
	}
	args = append(args, f.Test...)
	return append(args, f.Args...)
}

// Classify reads how a test process ended from its output and the error
// its command returned.
func Classify(output []byte, err error) Outcome { return classify(output, err) }

// counter counts the tests recorded and their events, over all packages,
// and the time forced runs took, for packages recorded side by side.
type counter struct {
	mu                          sync.Mutex
	done, total, events, notRun int
	forced                      time.Duration
}

// notStarted counts n tests not run.
func (c *counter) notStarted(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notRun += n
}

// ran counts a run's events, and done a test whose runs all ended.
func (c *counter) ran(events int, done bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events += events
	if done {
		c.done++
	}
}

// progress calls o.Progress, if set, with p and the counts so far, one call
// at a time.
func (c *counter) progress(o Options, p Progress) {
	if o.Progress == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p.Done, p.Total, p.Events = c.done, c.total, c.events
	p.Ends, p.Budget = o.Budget.end(), o.Budget.name()
	o.Progress(p)
}

// forcedLeft reports whether o.ForcedBudget has time left for a forced run.
func (c *counter) forcedLeft(o Options) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return o.ForcedBudget <= 0 || c.forced < o.ForcedBudget
}

// forcedTook adds a forced run's time.
func (c *counter) forcedTook(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forced += d
}

// A Budget bounds the wall time of Run's tests, across the Runs that share
// it (CFP's cheap and guided runs): its clock starts when the first test
// starts, after the build, and once Limit has passed no test process
// starts. A test still running then gets Grace more, and is then stopped
// the way go test's -timeout stops a test: each test process's
// -test.timeout is cut, when it starts, to what is left of Limit and
// Grace, so that the testing package itself panics with "test timed out"
// and prints every goroutine's stack (where the test was), and record
// kills what is left of the process a little later. Such a test has
// outcome Stopped and counts as recorded up to there: its trace is as
// usable as a timed-out test's (the shim's committed events reach the
// file however the process ends), and a race in a prefix of a run is one
// of the whole run. precog test's -record-budget: a stress test that
// takes minutes when recorded (goleveldb's TestCacheMap) must not keep a
// nightly job from its detection, nor run on to -timeout (10 minutes by
// default) past the budget. Packages recorded side by side share it (its
// clock under mu); Runs that share one run one after another.
type Budget struct {
	Limit time.Duration // 0 or less: no limit
	// Name names the budget in progress lines: "-record-budget", or
	// "recording's share of -deadline (5m0s)".
	Name string
	// Grace is how long a test running when Limit is reached may go on
	// before it is stopped; 0 means StopGrace.
	Grace time.Duration
	// More, if not nil, is asked, when Limit has passed and a test is
	// about to start, how much longer tests may start, given the events
	// recorded under the budget so far (those of the runs under way
	// reckoned from their trace files' sizes) and how long ago the end
	// passed: a positive d moves the end to d from now, and the test
	// starts (precog test -deadline: recording goes on while the stages
	// after it keep what they are estimated to need, instead of ending at
	// a fixed share with tests unrun). The end then moved by late+d. One
	// lane asks at a time: another one past the same end starts its test
	// on the first one's answer when it moved the end, and asks again
	// when it did not.
	More func(events int, late time.Duration) time.Duration
	// Fair, if positive, bounds each test process as it starts to its
	// fair part of what is left of Limit: that time over the tests not
	// yet started (this one included), times the packages run side by
	// side, but never less than Fair; a test whose own -timeout is at
	// most twice Fair keeps it (CFP's cheap run: a five-minute
	// test and one blocked in its accept loop took 1 min 52 s of
	// rocketmq's 2 min 41 s, and the other tests' turn with it). A test
	// so stopped is Stopped, as at the budget's end.
	Fair time.Duration
	ask  sync.Mutex // held while More is asked
	mu   sync.Mutex
	ends time.Time // set when the first test starts
	// events are those recorded under the budget (More's argument),
	// size the bytes of their traces; running are the trace files of the runs
	// under way, whose events More counts from their sizes at that rate
	// (a five-minute test's events are detection's as well: counting
	// only the finished runs' left them out of the reckoning).
	events  int
	size    int64
	running map[string]bool
	// tests and started count the tests of the Run using it, lanes its
	// packages run side by side (Fair).
	tests, started, lanes int
}

// plan tells the budget that a Run is about to record n tests, lanes
// packages side by side (Fair's arithmetic).
func (b *Budget) plan(n, lanes int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tests, b.started, b.lanes = n, 0, max(lanes, 1)
}

// start counts a test that starts (Fair's arithmetic).
func (b *Budget) start() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.started++
}

// ran counts the events a run recorded, and its trace's size (More's
// argument), and ends the run writing trace (run) under the same lock:
// in between, More would count the run neither as under way nor as
// finished.
func (b *Budget) ran(events int, size int64, trace string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events += events
	b.size += size
	delete(b.running, trace)
}

// run tells the budget that a run writing trace is under way until its
// events are counted (ran).
func (b *Budget) run(trace string) {
	if b == nil || b.More == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running == nil {
		b.running = make(map[string]bool)
	}
	b.running[trace] = true
}

// recorded returns the events recorded under the budget, those of the
// runs under way reckoned from their trace files' sizes at the bytes an
// event of the finished runs (none before a run has finished). The files
// are looked at without the lock.
func (b *Budget) recorded() int {
	b.mu.Lock()
	events, size := b.events, b.size
	traces := slices.Collect(maps.Keys(b.running))
	b.mu.Unlock()
	if events == 0 || size == 0 {
		return events
	}
	var under int64
	for _, t := range traces {
		if fi, err := os.Stat(t); err == nil {
			under += fi.Size()
		}
	}
	return events + int(float64(under)*float64(events)/float64(size))
}

// fair returns the longest a test process starting now may take under
// Fair, 0 for no such bound: what is left of Limit, times the lanes, over
// the tests not yet started (this one included), at least Fair. The
// caller holds b.mu.
func (b *Budget) fair(now time.Time) time.Duration {
	if b.Fair <= 0 || b.ends.IsZero() {
		return 0
	}
	left := max(b.tests-b.started+1, 1)
	share := b.ends.Sub(now) * time.Duration(b.lanes) / time.Duration(left)
	return max(share, b.Fair)
}

// StopGrace is Budget's default Grace: a test near its end finishes, and a
// nightly job's recording ends at most about this long after its budget.
const StopGrace = 30 * time.Second

func (b *Budget) grace() time.Duration { return cmp.Or(b.Grace, StopGrace) }

// Half returns the budget of a first phase that may spend half of b
// (CFP's cheap run); the second keeps at least the other half (After).
// The first's grace is an eighth of b's limit at most: a test it stops
// after its half would otherwise hold a short budget's job StopGrace
// longer (a 1-minute budget's cheap run stopped at 30 s ran 30 s more).
func (b *Budget) Half() *Budget {
	return &Budget{Limit: max(b.Limit/2, 1), Grace: min(b.grace(), max(b.Limit/8, 1)), Name: "half of " + b.Name}
}

// After returns the budget of a second phase once b's runs are done: what
// is left of whole, whole's limit less the time b's clock ran (none if it
// never started), with whole's Grace, but never less than the share of
// whole that b was not given (whole's limit less b's). b's runs can end
// well after b's limit and grace: the runs' own analysis (CFP's cheap run
// measures coverage from each trace) has no bound of b's, and without
// that floor a cheap run that overran its half left the guided run
// nothing to record (kcp-go at load 35: 0 tests recorded, "0 findings",
// exit 0). Its clock starts at its first test, as b's did; if nothing is
// left, it is spent already.
func (b *Budget) After(whole *Budget) *Budget {
	b.mu.Lock()
	ends := b.ends
	b.mu.Unlock()
	var used time.Duration
	if !ends.IsZero() {
		used = time.Since(ends.Add(-b.Limit))
	}
	left := max(whole.Limit-used, whole.Limit-b.Limit)
	if left <= 0 {
		return &Budget{Limit: 1, Grace: whole.Grace, Name: whole.Name, More: whole.More, ends: time.Now()}
	}
	return &Budget{Limit: left, Grace: whole.Grace, Name: whole.Name, More: whole.More}
}

// end returns when the budget stops starting tests: zero for no budget,
// or before its clock started.
func (b *Budget) end() time.Time {
	if b == nil || b.Limit <= 0 {
		return time.Time{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ends
}

// name returns the budget's name, "" for no budget.
func (b *Budget) name() string {
	if b == nil || b.Limit <= 0 {
		return ""
	}
	return b.Name
}

// spent reports whether the budget is spent, starting its clock on the
// first call.
func (b *Budget) spent() bool {
	if b == nil || b.Limit <= 0 {
		return false
	}
	b.mu.Lock()
	switch {
	case b.ends.IsZero():
		b.ends = time.Now().Add(b.Limit)
		b.mu.Unlock()
		return false
	case time.Now().Before(b.ends):
		b.mu.Unlock()
		return false
	case b.More == nil:
		b.mu.Unlock()
		return true
	}
	b.mu.Unlock()
	// One lane asks at a time, and one that waited for another's answer
	// takes it: two asking past the same end were both granted, and
	// their grants both counted, while one end was applied.
	b.ask.Lock()
	defer b.ask.Unlock()
	b.mu.Lock()
	ends := b.ends
	b.mu.Unlock()
	now := time.Now()
	if now.Before(ends) {
		return false
	}
	// More is asked without mu: it may look at progress, whose
	// callbacks ask the budget when it ends.
	more := b.More(b.recorded(), now.Sub(ends))
	if more <= 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ends = now.Add(more)
	return false
}

// flags returns the go test flags of a test process that starts now: f,
// with -timeout cut to what is left of the budget and its grace when that
// is sooner, and whether it was cut (a timeout of the process is then the
// budget's stop, not the test's).
func (b *Budget) flags(f *GoTestFlags) (*GoTestFlags, bool) {
	if b == nil || b.Limit <= 0 {
		return f, false
	}
	b.mu.Lock()
	ends := b.ends
	now := time.Now()
	fair := b.fair(now)
	b.mu.Unlock()
	if ends.IsZero() {
		return f, false
	}
	left := max(ends.Sub(now)+b.grace(), time.Millisecond)
	if fair > 0 && (f.Timeout <= 0 || f.Timeout > 2*b.Fair) {
		// A test whose own -timeout is at most twice Fair is bounded
		// by it already (the README's job: -timeout 20s, a floor of
		// 18.75s): it keeps it, and a hang stays a timeout.
		left = min(left, fair)
	}
	if f.Timeout > 0 && f.Timeout <= left {
		return f, false
	}
	g := *f
	g.Timeout = left
	return &g, true
}

// kill is how long after its -timeout record kills a test process whose
// -timeout the budget cut (bounded): as long as after the user's -timeout
// (killGrace, time for the testing package's dump of many goroutines), but
// no longer than the budget's grace.
func (b *Budget) kill(bounded bool) time.Duration {
	if !bounded {
		return killGrace
	}
	return min(killGrace, b.grace())
}

// recordPackage records the tests names of lp.
func recordPackage(ctx context.Context, o Options, lp listedPackage, names []string, plainBin, recBin, out string, c *counter) (*Package, error) {
	p := &Package{ImportPath: lp.ImportPath, Dir: lp.Dir, Marks: lp.Marks}
	pkgOut := filepath.Join(out, filepath.FromSlash(lp.ImportPath))
	if err := os.MkdirAll(pkgOut, 0o777); err != nil {
		return nil, err
	}
	for i, name := range names {
		if o.Budget.spent() {
			c.notStarted(len(names) - i)
			break
		}
		o.Budget.start()
		c.progress(o, Progress{Package: lp.ImportPath, Test: name, N: i + 1, Of: len(names)})
		base := filepath.ToSlash(filepath.Join(lp.ImportPath, name))
		t := &Test{Name: name, Trace: base + ".trace", Log: base + ".log", Marks: lp.testMarks(name)}
		if o.Baseline {
			flags, bounded := o.Budget.flags(o.Flags)
			r := runTest(ctx, plainBin, lp.Dir, testArgs(flags, name), nil, flags.Timeout, o.Budget.kill(bounded), nil)
			if bounded && r.outcome == Timeout {
				// Stopped before its recorded run began: not run.
				c.notStarted(len(names) - i)
				break
			}
			t.PlainOutcome, t.PlainWall = r.outcome, r.wall
		}
		r, err := recordRun(ctx, o, o.Flags, recBin, lp, name, out, t.Trace, t.Log, "")
		t.Outcome, t.Wall, t.Events, t.Bytes, t.Broken = r.outcome, r.wall, r.events, r.bytes, r.broken
		c.ran(r.events, false)
		o.Budget.ran(r.events, r.bytes, r.trace)
		if r.noTrace {
			t.Trace = ""
		}
		if err != nil {
			if ctx.Err() == nil {
				return nil, err
			}
			t.Outcome = Interrupted
			return &Package{ImportPath: p.ImportPath, Dir: p.Dir, Tests: append(p.Tests, t), Marks: p.Marks}, err
		}
		var forced []*plan.Plan
		if o.Forced != nil && o.Runs > 1 && t.Trace != "" {
			forced = o.Forced(lp.ImportPath, t, filepath.Join(out, filepath.FromSlash(t.Trace)))
		}
		// Once the budget is spent no process starts, and a run it
		// stopped is the test's last.
		stopped := t.Outcome == Stopped
		for n := 1; n < o.Runs && !stopped && !o.Budget.spent(); n++ {
			c.progress(o, Progress{Package: lp.ImportPath, Test: fmt.Sprintf("%s (run %d of %d)", name, n+1, o.Runs), N: i + 1, Of: len(names)})
			run := &Perturbed{
				N:     n,
				Seed:  o.Perturb.Seed + uint64(n),
				Plan:  planFile(n),
				Trace: fmt.Sprintf("%s.run%d.trace", base, n),
				Log:   fmt.Sprintf("%s.run%d.log", base, n),
			}
			if o.Perturb.Off {
				run.Seed, run.Plan = 0, ""
			}
			var r recorded
			var err error
			if n-1 < len(forced) && c.forcedLeft(o) {
				start := time.Now()
				r, err = forcedRun(ctx, o, recBin, lp, name, out, base, t.Wall, run, forced[n-1])
				c.forcedTook(time.Since(start))
			} else {
				r, err = recordRun(ctx, o, o.Flags, recBin, lp, name, out, run.Trace, run.Log, run.Plan)
			}
			run.Outcome, run.Wall, run.Events, run.Bytes, run.Broken = r.outcome, r.wall, r.events, r.bytes, r.broken
			c.ran(r.events, false)
			o.Budget.ran(r.events, r.bytes, r.trace)
			if r.noTrace {
				run.Trace = ""
			}
			t.Runs = append(t.Runs, run)
			stopped = run.Outcome == Stopped
			if err != nil {
				if ctx.Err() == nil {
					return nil, err
				}
				run.Outcome = Interrupted
				return &Package{ImportPath: p.ImportPath, Dir: p.Dir, Tests: append(p.Tests, t), Marks: p.Marks}, err
			}
		}
		p.Tests = append(p.Tests, t)
		c.ran(0, true)
	}
	return p, nil
}

// forcedRun records run of test name under force plan p, bounded by
// ForcedBound of the test's run 0, and sets run's plan and what the shim reported
// of the forced order.
func forcedRun(ctx context.Context, o Options, recBin string, lp listedPackage, name, out, base string, wall time.Duration, run *Perturbed, p *plan.Plan) (recorded, error) {
	run.Seed, run.Plan = 0, fmt.Sprintf("%s.run%d.plan", base, run.N)
	planPath := filepath.Join(out, filepath.FromSlash(run.Plan))
	fp := *p
	fp.Result = planPath + ".result"
	defer os.Remove(fp.Result)
	if err := control.WritePlan(planPath, &fp); err != nil {
		return recorded{}, err
	}
	budget := time.Duration(cmp.Or(fp.BudgetMS, 10000)) * time.Millisecond
	flags := *o.Flags
	flags.Timeout = flags.ForcedBound(wall, budget)
	r, err := recordRun(ctx, o, &flags, recBin, lp, name, out, run.Trace, run.Log, run.Plan)
	if err != nil {
		return r, err
	}
	run.Forced = "no result: the shim wrote none"
	if res, err := control.ReadResultFile(fp.Result, &fp); err == nil && res.State != "" {
		run.Forced = res.State
		if res.Reason != "" {
			run.Forced += ": " + res.Reason
		}
	}
	return r, nil
}

// perturbPlan returns the perturb plan with the given seed.
func (o *Options) perturbPlan(seed uint64, sites []uint32) *plan.Plan {
	p := o.Perturb
	if p.Delay == 0 && p.Yield == 0 {
		p.Delay, p.Yield = DefaultDelay, DefaultYield
	}
	return &plan.Plan{
		Mode:       plan.Perturb,
		Seed:       seed,
		Sites:      sites,
		Delay:      p.Delay,
		Yield:      p.Yield,
		MaxDelayUS: p.MaxDelayUS,
		BudgetMS:   p.BudgetMS,
	}
}

// recorded is what one recorded run of a test gave.
type recorded struct {
	testRun
	events  int
	bytes   int64
	broken  string
	noTrace bool
	trace   string // the trace's path, under way for the budget until ran
}

// recordRun runs test name of lp instrumented with the go test flags
// flags (within o.Budget), with its trace and log at the given paths
// relative to out, under the plan file plan if not empty.
func recordRun(ctx context.Context, o Options, flags *GoTestFlags, recBin string, lp listedPackage, name string, out, traceFile, logFile, planPath string) (recorded, error) {
	tracePath := filepath.Join(out, filepath.FromSlash(traceFile))
	f, err := os.Create(filepath.Join(out, filepath.FromSlash(logFile)))
	if err != nil {
		return recorded{}, err
	}
	var w io.Writer = f
	if o.TestLog != nil {
		w = io.MultiWriter(f, o.TestLog)
	}
	env := []string{"PRECOG_TRACE=" + tracePath, "PRECOG_TEST=" + name}
	if g := plan.Godebug(os.Getenv("GODEBUG"), lp.testMarks(name)); g != "" {
		env = append(env, "GODEBUG="+g)
	}
	if o.Env != nil {
		env = append(env, o.Env(lp.ImportPath, name)...)
	}
	if o.TraceLimit > 0 {
		env = append(env, plan.TraceLimitEnv+"="+strconv.FormatInt(o.TraceLimit, 10))
	}
	if planPath != "" {
		env = append(env, plan.EnvVar+"="+filepath.Join(out, filepath.FromSlash(planPath)))
	}
	flags, bounded := o.Budget.flags(flags)
	o.Budget.run(tracePath)
	r := recorded{testRun: runTest(ctx, recBin, lp.Dir, testArgs(flags, name), env, flags.Timeout, o.Budget.kill(bounded), w), trace: tracePath}
	if bounded && r.outcome == Timeout {
		r.outcome = Stopped
	}
	if err := f.Close(); err != nil {
		return r, err
	}
	if err := trace.Trim(tracePath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return r, fmt.Errorf("%s %s: %w", lp.ImportPath, name, err)
	}
	r.events, r.bytes, err = countEvents(tracePath)
	if ctx.Err() != nil {
		// Stopped: the trace, a process death's, is kept as it is.
		return r, ctx.Err()
	}
	if errors.Is(err, os.ErrNotExist) || err != nil && r.bytes == 0 {
		// The shim starts at init and writes the trace's header as
		// it creates the file: a process that wrote no trace, or an
		// empty one, did not link it (a package whose tests exercise
		// nothing instrumented) or died before init or as the shim
		// started (a spent -record-budget kills a test a millisecond
		// in).
		r.noTrace, r.broken = true, "no trace: the test process never started the shim"
		err = nil
	}
	if err != nil {
		if !errors.Is(err, trace.ErrBroken) {
			return r, fmt.Errorf("%s %s: %w", lp.ImportPath, name, err)
		}
		r.broken = err.Error()
	}
	return r, nil
}

// testArgs are the arguments of the process of the top-level test name,
// but -test.v (runTest adds it): -test.run selecting name (and the
// subtests f.Run selects), -test.timeout, and the test binary's flags.
func testArgs(f *GoTestFlags, name string) []string {
	_, sub := topLevel(f.Run)
	_, skipSub := topLevel(f.Skip)
	args := []string{"-test.run=" + runPattern(name, sub), "-test.timeout=" + f.Timeout.String()}
	if skipSub != "" {
		args = append(args, "-test.skip=/"+skipSub)
	}
	args = append(args, f.Test...)
	return append(args, f.Args...)
}

// goTestC builds the test binaries of pkgs into out, a directory if it
// ends in a separator.
func goTestC(ctx context.Context, dir, out string, build []string, pkgs []string) error {
	args := append([]string{"test", "-c", "-o", out}, build...)
	args = append(args, pkgs...)
	cmd := proc.Command(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	if err := cmd.Run(); err != nil {
		what := "go test -c"
		if len(pkgs) == 1 {
			what += " " + pkgs[0]
		}
		return fmt.Errorf("%s: %s", what, rewrittenFile(firstLine(stderr.String(), err), dir, build))
	}
	return nil
}

// rewrittenFile names, in line, the user's file for the instrumented copy
// in precog's cache that the -overlay among build puts in its place, and
// says whose the error is: the compiler names the copy, which the user
// never wrote, so an error in it is precog's rewrite going wrong (sentry-go's
// &BreadcrumbHint{} of a map type, bench/RESULTS.md, "Held-out rehearsal
// 13"). The go command names a file relative to dir, the directory it
// ran in, when that is shorter. line is returned as it is when it names no
// copy.
func rewrittenFile(line, dir string, build []string) string {
	for _, f := range build {
		path, ok := strings.CutPrefix(f, "-overlay=")
		if !ok {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return line
		}
		var ov struct{ Replace map[string]string }
		if json.Unmarshal(data, &ov) != nil {
			return line
		}
		for orig, copied := range ov.Replace {
			if copied == "" || filepath.Ext(orig) != ".go" {
				continue
			}
			names := []string{copied}
			if rel, err := filepath.Rel(dir, copied); err == nil {
				names = append(names, rel)
			}
			for _, name := range names {
				if strings.Contains(line, name) {
					return strings.ReplaceAll(line, name, orig) + " (in precog's instrumented copy of the file, not in your code: a precog bug, please report it)"
				}
			}
		}
	}
	return line
}

// testNamePrefixes are the functions a test binary runs under -test.run:
// benchmarks run only under -test.bench.
var testNamePrefixes = []string{"Test", "Fuzz", "Example"}

// listTests lists the top-level tests that -run and -skip select.
func listTests(ctx context.Context, bin, dir string, f *GoTestFlags) ([]string, error) {
	top, _ := topLevel(f.Run)
	if top == "" {
		top = "."
	}
	var skip *regexp.Regexp
	if skipTop, skipSub := topLevel(f.Skip); skipTop != "" && skipSub == "" {
		var err error
		if skip, err = regexp.Compile(skipTop); err != nil {
			return nil, fmt.Errorf("-skip: %v", err)
		}
	}
	cmd := proc.Command(ctx, bin, "-test.list="+top)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	data, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing its tests: %s", firstLine(stderr.String()+string(data), err))
	}
	var names []string
	for _, line := range strings.Split(string(data), "\n") {
		name := strings.TrimSpace(line)
		if name == "" || skip != nil && skip.MatchString(name) {
			continue
		}
		for _, prefix := range testNamePrefixes {
			if strings.HasPrefix(name, prefix) {
				names = append(names, name)
				break
			}
		}
	}
	return names, nil
}

type testRun struct {
	outcome Outcome
	wall    time.Duration
}

// killGrace is how long record lets a test binary outlive its -test.timeout
// (when it panics with "test timed out" and prints every goroutine) before
// killing it.
const killGrace = 30 * time.Second

// runTest runs one test's process and classifies how it ended. A process
// still running kill after its timeout is killed, with its process group.
func runTest(ctx context.Context, bin, dir string, args, env []string, timeout, kill time.Duration, log io.Writer) testRun {
	cancel := func() {}
	if timeout > 0 { // 0: no limit, as go test takes it
		ctx, cancel = context.WithTimeout(ctx, timeout+kill)
	}
	defer cancel()
	cmd := proc.Command(ctx, bin, append([]string{"-test.v"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var output bytes.Buffer
	w := io.Writer(&output)
	if log != nil {
		w = io.MultiWriter(&output, log)
	}
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	outcome := classify(output.Bytes(), err)
	if ctx.Err() == context.DeadlineExceeded {
		outcome = Timeout
	}
	if outcome == Timeout {
		proc.KillGroup(cmd)
	}
	return testRun{outcome, wall}
}

// classify reads how a test process ended from its exit status and output:
// a panic, fatal error or timeout as pipeline/failure finds its header
// (also after a line the test printed without a newline), so that the
// outcome and the failure read from the log agree. A process that exited
// 0 did not crash, whatever its output holds: the runtime exits 2 after a
// panic, a fatal error or a test's timeout, so a header there is text the
// test printed, such as a child process's panic that a logger copied
// (go-plugin's TestServerLogPanic starts a plugin that panics and checks
// that its log shows the panic and the stack).
func classify(output []byte, err error) Outcome {
	var crash failure.Kind
	if f := failure.First(output); f != nil && err != nil {
		crash = f.Kind
	}
	switch {
	case crash == failure.Timeout:
		return Timeout
	case crash == failure.Fatal:
		return Fatal
	case crash == failure.Panic:
		return Panic
	case bytes.Contains(output, []byte("\n--- FAIL: ")) || bytes.HasPrefix(output, []byte("--- FAIL: ")):
		return Fail
	case err != nil:
		return Exit
	case bytes.Contains(output, []byte("--- SKIP: ")) && !bytes.Contains(output, []byte("--- PASS: ")):
		return Skip
	}
	return Pass
}

// countEvents counts the events of a trace (trace.Count: a scan of its
// bytes, each event checked as the reader would and not decoded), and
// returns its size; the error is the reader's after those events.
func countEvents(path string) (events int, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	events, err = trace.Count(f)
	return events, size, err
}

func goVersion(ctx context.Context) string {
	out, err := proc.Command(ctx, "go", "env", "GOVERSION").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o666)
}

// firstLine is the first non-empty line of s, or err's text. A line that
// ends in a colon introduces the indented lines below it ("go: updates to
// go.mod needed; to update it:", then "\tgo mod tidy"): they are joined to
// it, since the line alone says nothing.
func firstLine(s string, err error) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			for _, next := range lines[i+1:] {
				if !strings.HasSuffix(line, ":") || !strings.HasPrefix(next, "\t") && !strings.HasPrefix(next, " ") {
					break
				}
				line += " " + strings.TrimSpace(next)
			}
			return line
		}
	}
	if err != nil {
		return err.Error()
	}
	return "failed"
}

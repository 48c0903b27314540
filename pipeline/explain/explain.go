// Package explain finds the root cause of a failing test by execution
// suppression (execution-suppression.txt, Jeffrey et al., Fig. 1): it gets a
// failing run of the test with every load and store recorded (the
// instrumenter's full tracing, instrument.Config.Locals), takes the location
// whose value caused the failure and its last definition (detect/suppress),
// checks there for a harmful data race (Fig. 2), an atomicity violation or an
// order violation (Fig. 3) by re-executing with the accesses in the other
// order, and otherwise suppresses that definition and what depends on it
// (the shim's suppression, plan.Plan.Suppress) and runs again: a new failure
// is the next iteration, no failure makes the last suppressed definition the
// answer.
//
// # Runs
//
// Every run is one process of the test binary, bounded in wall time
// (Options.Timeout) and, under a plan, in each wait of the shim. The runs
// are counted in the paper's columns (Table II): orig, the failing run;
// supp, each suppression run; race, each re-execution with a race's two
// accesses reversed; vio, each re-execution with a violation's middle access
// moved.
//
// The failing run comes from the test as written (natural); or, when it
// passes, from a forced interleaving: of the pairs of accesses its passing
// run made to one location from two goroutines, one a write, with no
// happens-before order between them (a mutex orders nothing: ConMem's
// view, so that two critical sections may run the other way round), nil
// stores before the reads that came first ranked first, up to
// Options.Forced pairs are run in the other order (validate.Reversal's force
// plan), and the first that fails with the order held is the failing run;
// or, failing that, from runs perturbed with seeded yields and delays at
// the sync operations, up to Options.Perturb seeds. The report says which
// (Report.Source) and how many runs the search took (Report.Search).
//
// Every re-execution (supp, race, vio) replays the run under study (the
// failing run, or the suppression run whose new failure the iteration
// studies) up to the point under study, with the shim's force plan with
// an order (plan.Plan.Until): the goroutines pass that run's sync events
// in its recorded order, so that they reach the point in the same state
// and name the same statement instances. A race or violation run follows
// the order up to the first sync event of each forced access's goroutine
// at or after the access (control.Cut; past it the forced order would
// contradict the recorded one), then only the two accesses' order is
// forced, as the paper's scheduler does; when the forced order does not
// hold, that re-execution says so and the candidate is not reported. A
// suppression run follows the whole order as far as the run keeps to it:
// after the suppressed definition it may leave it (the suppression
// changes what follows), and the shim then lets the order go. A failing
// run that a forced order made keeps that order's edges in every
// re-execution whose replayed part they fall in. Report.Reexecutions
// lists each re-execution with how far it followed the schedule; one that
// left it (or ended) before the point under study diverged, and its
// chain step says so.
//
// A race is harmful when, with the two accesses reversed, the value the
// definition stored or the value the use read differs from the failing
// run's, or the failure goes away. A three-access violation is an atomicity
// violation when both moves of the middle access (before the first, after
// the third) avoid the failure, an order violation when one does; a
// two-access order violation when the reversed order avoids it.
package explain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/suppress"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/pipeline/failure"
	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/pipeline/predict"
	"github.com/precog-dev/precog/pipeline/proc"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/pipeline/validate"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// Defaults of Options.
const (
	DefaultTimeout = 60 * time.Second
	DefaultPerturb = 10
	DefaultForced  = 20
	DefaultIters   = 16
	// WaitMS bounds each wait of the shim in a replayed or forced run.
	WaitMS = 500
	// BudgetMS bounds the waits of one such run together.
	BudgetMS = 5000
	// DefaultMaxTraceBytes is the default Options.MaxTraceBytes, precog
	// test's -max-trace: explain holds a run's whole trace and its
	// happens-before graph in memory, as test's in-memory checkers do
	// (about 35 times the trace's size). kcp-go's throughput test left a
	// failing run of 22.6 million events that explain analysed for 8
	// minutes, to 3.3 GB, with no output (bench/RESULTS.md, "Held-out
	// rehearsal 11").
	DefaultMaxTraceBytes = 64 << 20
)

// A TraceTooLargeError is a run whose trace is over Options.MaxTraceBytes:
// explain stops rather than analyse it.
type TraceTooLargeError struct {
	Run    string // which run, as the progress line names it
	Bytes  int64
	Events int // the trace's events, when they are what is over the limit; 0 if not counted
	Max    int64
}

func (e *TraceTooLargeError) Error() string {
	size := fmt.Sprintf("a trace of %.1f MiB", float64(e.Bytes)/(1<<20))
	if e.Events > 0 {
		size = fmt.Sprintf("a trace of %d events (%.1f MiB), an event counting as %d bytes", e.Events, float64(e.Bytes)/(1<<20), predict.TraceEventBytes)
	}
	return fmt.Sprintf("%s left %s, over the limit of %d MiB (-max-trace): explain holds a run's whole trace in memory, about 35 times its size; explain a smaller test, or raise -max-trace (0: no limit)",
		e.Run, size, e.Max>>20)
}

// maxEvents is the most events of one run's trace explain reads
// (Options.MaxTraceBytes over predict.TraceEventBytes, as precog test's
// in-memory checkers hold), 0 for no limit: a dense trace within the
// limit in bytes has up to 20 million events, which the happens-before
// graph's memory goes with.
func (x *explainer) maxEvents() int {
	return int(max(x.o.MaxTraceBytes, 0) / predict.TraceEventBytes)
}

// readRun reads the events of the run's trace f, up to its first damaged
// batch, as trace.ReadAll does, and its size. If the trace has more than
// maxEvents events (0: no limit) none is read, and over is their count.
func readRun(f *os.File, maxEvents int) (evs []trace.Event, size int64, over int) {
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, 0
	}
	o, err := trace.NewOrderedReader(f, fi.Size())
	if err != nil {
		return nil, fi.Size(), 0
	}
	if maxEvents > 0 && o.Len() > maxEvents {
		return nil, fi.Size(), o.Len()
	}
	evs = make([]trace.Event, 0, o.Len())
	for {
		ev, err := o.Next()
		if err != nil {
			return evs, fi.Size(), 0
		}
		evs = append(evs, ev)
	}
}

// Options says what to explain.
type Options struct {
	Dir        string   // the directory go runs in
	Package    string   // the package pattern (one package)
	Test       string   // the top-level test; "" for the first failing one
	BuildFlags []string // go build flags
	CacheDir   string   // precog's cache ("" = default)
	Timeout    time.Duration
	// Forced is how many forced orders to try when the test passes as
	// written (suppress.Reorderings); <0 none. Perturb is how many
	// perturbation seeds to try after them; <0 none.
	Forced  int
	Perturb int
	Iters   int // suppression iterations at most
	// Reproducer, a confirmed finding's schedule (precog test's build),
	// is mapped into explain's build (mapSchedule) and run first: the
	// failing run if it fails with its order held. Prefer are sites (the
	// finding's) whose accesses the search for a failing run forces
	// first when it does not.
	Reproducer *validate.Schedule
	Prefer     []validate.ScheduleSite
	// Work, if set, is told the work directory (plans, result files,
	// traces of every run), which is then kept.
	Work     func(dir string)
	Progress func(string)
	// MaxTraceBytes bounds the trace of every run: a larger one ends
	// Explain with a *TraceTooLargeError. 0 means DefaultMaxTraceBytes;
	// negative, no limit.
	MaxTraceBytes int64
}

// A Site is a statement of the report.
type Site struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Expr string `json:"expr"`
	// G is the goroutine (logical id) of the instance, for sites of a
	// race or violation.
	G uint64 `json:"g,omitempty"`
}

func (s Site) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", s.File, s.Line, s.Col, s.Expr)
}

// A Step is one iteration of the loop.
type Step struct {
	Failure string `json:"failure"`           // the failure, in one line
	At      *Site  `json:"at,omitempty"`      // the read of the failure location
	Why     string `json:"why,omitempty"`     // how the location was chosen
	Def     *Site  `json:"def,omitempty"`     // its last definition
	Value   uint64 `json:"value"`             // the value the definition stored
	Checked string `json:"checked,omitempty"` // what was checked at the definition
	Note    string `json:"note,omitempty"`    // a re-execution that diverged, ...
}

// Executions are the runs in the paper's columns.
type Executions struct {
	Orig int `json:"orig"`
	Supp int `json:"supp"`
	Race int `json:"race"`
	Vio  int `json:"vio"`
}

// Total is the number of runs.
func (e Executions) Total() int { return e.Orig + e.Supp + e.Race + e.Vio }

// A Report is the root cause of one test's failure.
type Report struct {
	Package string `json:"package"` // the test's import path
	Test    string `json:"test"`
	// Source says where the failing run came from: "natural", "forced
	// (A before B)" or "perturbed (seed N)"; Search is how many runs it
	// took to find it (the orig run not counted: Executions.Orig).
	Source string `json:"source"`
	Search int    `json:"search"`
	// Reproducer says, with Options.Reproducer, how its schedule was
	// used: run in explain's build, or why it could not be.
	Reproducer string `json:"reproducer,omitempty"`
	// Kind is race, atomicity, order, definition, none (no root cause
	// found) or passes (no failing run was found: nothing to explain;
	// Reason says what was tried, Source is empty).
	Kind string `json:"kind"`
	// Root is the root cause: the definition, or for a race or violation
	// the site whose order matters most; nil for none.
	Root *Site `json:"root"`
	// Sites are, for a race or violation, its accesses, Root first.
	Sites []Site `json:"sites,omitempty"`
	// Shape is the race's (WAR, WAW, RAW) or violation's access pattern.
	Shape      string     `json:"shape,omitempty"`
	Reason     string     `json:"reason"`
	Chain      []Step     `json:"chain"`
	Executions Executions `json:"executions"`
	// Reexecutions are the supp, race and vio runs in order, each with
	// how far it followed the failing run's schedule.
	Reexecutions []Reexec `json:"reexecutions"`
	// MaxEvents and MaxTraceBytes are the largest trace of the runs (the
	// bytes of its file, which the shim grows in chunks of 64 KiB and
	// more).
	MaxEvents     int           `json:"maxEvents"`
	MaxTraceBytes int64         `json:"maxTraceBytes"`
	Wall          time.Duration `json:"wallNs"`
}

// A Reexec is one re-execution (supp, race or vio) of the run under study
// (the failing run, or the suppression run whose failure an iteration
// studies). It follows that run's recorded order of sync events (the
// shim's force plan with an order) up to the point under study: for a
// race or violation, the positions before either forced access (or the
// Lock it is held at) in its goroutine; for a suppression run, the whole
// order, softly, since what follows the suppressed definition may change.
type Reexec struct {
	Kind      string `json:"kind"`      // supp, race or vio
	Iteration int    `json:"iteration"` // the chain step it belongs to, from 1
	What      string `json:"what"`      // what it changed: the suppressed definition, the forced order
	// Schedule is the length of the order it followed, Point the
	// position of the point under study in it, Followed how many
	// positions passed.
	Schedule int `json:"schedule"`
	Point    int `json:"point"`
	Followed int `json:"followed"`
	// Diverged: the run did not follow the schedule up to the point
	// under study (for a suppression run: it left the schedule, or
	// ended, before it reached the suppressed definition); Left says
	// where it left the schedule and why (after the point, for a
	// suppression run, is expected).
	Diverged bool   `json:"diverged"`
	Left     string `json:"left,omitempty"`
	// State is the forced order's outcome (confirmed, timed out,
	// diverged); Failed whether the test failed.
	State  string `json:"state"`
	Failed bool   `json:"failed"`
}

// The kinds of a Reexec.
const (
	ReexecSupp = "supp"
	ReexecRace = "race"
	ReexecVio  = "vio"
)

// The kinds of a Report.
const (
	KindRace       = "race"
	KindAtomicity  = "atomicity"
	KindOrder      = "order"
	KindDefinition = "definition"
	KindNone       = "none"
	KindPasses     = "passes"
)

// errNoFailure is failingRun's error when no failing run could be found;
// Explain reports it as KindPasses.
var errNoFailure = errors.New("no failing run")

type explainer struct {
	o          Options
	bin        string
	marked     func(test string) bool // the test may reach a marked call (instrument.Result.Marked); nil: none does
	importPath string                 // o.Package's, which may be a pattern such as "."
	pkgDir     string
	sites      *trace.SiteTable
	work       string
	n          int // runs so far, for file names
	rep        *Report
	// supp are the write instances suppressed so far (S_supp): every
	// later run suppresses them, the race and violation checks too.
	supp []plan.Point
	// suppAt is, for each definition suppressed, the length of supp
	// before it joined: the checks at it suppress only that prefix.
	suppAt map[suppress.Instance]int
	// checking is the definition the race and violation checks run at;
	// suppDef the one the last suppression run suppresses (with its
	// repeats after it in supp).
	suppDef  plan.Point
	checking *suppress.Instance
	// base is the forced order that made the failing run fail, if it
	// came from one: suppression runs force it again instead of
	// replaying.
	base        *validate.Order
	forcedTries int
	reproducer  string // Report.Reproducer
	// under is the run under study, whose schedule re-executions
	// follow; iter is its chain step (from 1).
	under *run
	iter  int
}

// A run is one execution of the test, with its trace.
type run struct {
	out     []byte
	failed  bool
	killed  bool
	fail    *failure.Failure
	evs     []trace.Event
	ctl     *control.Result
	supp    map[suppress.Instance]bool
	planned *plan.Plan
	// traceBytes is the trace file's size (the shim maps it in chunks
	// of 64 KiB and more, so small traces round up).
	traceBytes int64
	// sched is the run's order of sync events (control.ReplayOrder) and
	// at each position's event index; index maps points to event
	// indexes. Made by schedule.
	sched *plan.Plan
	at    []int
	index map[plan.Point]int
}

// schedule returns r's recorded order of sync events, with each
// position's event index.
func (r *run) schedule() (*plan.Plan, []int) {
	if r.sched == nil {
		r.sched, r.at = control.ReplayOrder(r.evs, control.Stable(r.evs))
	}
	return r.sched, r.at
}

// indexOf returns the event index of point p in r's trace, or -1.
func (r *run) indexOf(p plan.Point) int {
	if r.index == nil {
		r.index = make(map[plan.Point]int)
		for i, q := range control.Points(r.evs) {
			if q.Site != 0 {
				q.Kind = ""
				r.index[q] = i
			}
		}
	}
	p.Kind = ""
	if i, ok := r.index[p]; ok {
		return i
	}
	return -1
}

// Explain explains the failure of o.Test (or the first failing test of
// o.Package).
func Explain(ctx context.Context, o Options) (*Report, error) {
	start := time.Now()
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Perturb == 0 {
		o.Perturb = DefaultPerturb
	}
	if o.Forced == 0 {
		o.Forced = DefaultForced
	}
	if o.Iters <= 0 {
		o.Iters = DefaultIters
	}
	if o.MaxTraceBytes == 0 {
		o.MaxTraceBytes = DefaultMaxTraceBytes
	}
	work, err := os.MkdirTemp("", "precog-explain-")
	if err != nil {
		return nil, err
	}
	if o.Work != nil {
		o.Work(work)
	} else {
		defer os.RemoveAll(work)
	}
	x := &explainer{o: o, work: work, suppAt: make(map[suppress.Instance]int)}
	if err := x.build(ctx); err != nil {
		return nil, err
	}
	tests := []string{o.Test}
	if o.Test == "" {
		if tests, err = x.list(ctx); err != nil {
			return nil, err
		}
		if len(tests) == 0 {
			return nil, fmt.Errorf("package %s has no tests", o.Package)
		}
	}
	orig, source, test, err := x.failingRun(ctx, tests)
	if errors.Is(err, errNoFailure) {
		return &Report{Package: x.importPath, Test: o.Test, Kind: KindPasses, Reason: strings.TrimPrefix(err.Error(), errNoFailure.Error()+": "),
			Executions: Executions{Orig: 1}, Search: x.n - 1, Reexecutions: []Reexec{}, Reproducer: x.reproducer, Wall: time.Since(start)}, nil
	}
	if err != nil {
		return nil, err
	}
	x.rep = &Report{Package: x.importPath, Test: test, Source: source, Executions: Executions{Orig: 1}, Search: x.n - 1, Reexecutions: []Reexec{}, Reproducer: x.reproducer,
		MaxEvents: len(orig.evs), MaxTraceBytes: orig.traceBytes}
	x.loop(ctx, test, orig)
	x.rep.Wall = time.Since(start)
	return x.rep, nil
}

func (x *explainer) progress(s string) {
	if x.o.Progress != nil {
		x.o.Progress(s)
	}
}

// build instruments the package with full tracing and builds its test
// binary.
func (x *explainer) build(ctx context.Context) error {
	x.progress("instrumenting " + x.o.Package)
	inst, err := instrument.Instrument(ctx, instrument.Config{Dir: x.o.Dir, Patterns: []string{x.o.Package},
		BuildFlags: x.o.BuildFlags, Locals: true, CacheDir: x.o.CacheDir,
		Progress: func(step string) { x.progress("instrumenting " + x.o.Package + ": " + step) }})
	if err != nil {
		return err
	}
	if x.sites, err = trace.LoadSites(inst.Sites); err != nil {
		return err
	}
	cmd := proc.Command(ctx, "go", append([]string{"list", "-f", "{{.ImportPath}} {{.Dir}}"}, append(x.o.BuildFlags, "--", x.o.Package)...)...)
	cmd.Dir = x.o.Dir
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list %s: %w", x.o.Package, err)
	}
	pkgs := strings.FieldsFunc(string(out), func(r rune) bool { return r == '\n' })
	if len(pkgs) != 1 {
		return fmt.Errorf("%s matches %d packages: explain takes one", x.o.Package, len(pkgs))
	}
	importPath, dir, _ := strings.Cut(pkgs[0], " ")
	x.importPath, x.pkgDir = importPath, dir
	x.marked = func(test string) bool { return inst.Marked(importPath, test) }
	x.progress("building " + x.o.Package)
	x.bin = filepath.Join(x.work, record.BinaryName(importPath))
	args := append(append([]string{"test", "-c", "-o", x.bin}, inst.BuildFlags...), x.o.BuildFlags...)
	cmd = proc.Command(ctx, "go", append(args, x.o.Package)...)
	cmd.Dir = x.o.Dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		line, _, _ := strings.Cut(strings.TrimSpace(buf.String()), "\n")
		return fmt.Errorf("go test -c %s: %s", x.o.Package, line)
	}
	if _, err := os.Stat(x.bin); err != nil {
		return fmt.Errorf("package %s has no test files", x.o.Package)
	}
	return nil
}

// list lists the top-level tests of the binary.
func (x *explainer) list(ctx context.Context) ([]string, error) {
	cmd := proc.Command(ctx, x.bin, "-test.list", ".")
	cmd.Dir = x.pkgDir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the tests of %s: %w", x.o.Package, err)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "Test") {
			names = append(names, strings.TrimSpace(l))
		}
	}
	return names, nil
}

// failingRun finds a failing run: the first test of tests that fails as
// written, else the first that fails under a perturbation seed.
func (x *explainer) failingRun(ctx context.Context, tests []string) (*run, string, string, error) {
	var passing []*run
	for _, t := range tests {
		r, err := x.exec(ctx, t, nil)
		if err != nil {
			return nil, "", "", err
		}
		if r.failed && x.o.Reproducer == nil {
			return r, "natural", t, nil
		}
		passing = append(passing, r)
	}
	if rs := x.o.Reproducer; rs != nil {
		fr, o, err := x.reproduce(ctx, tests[0], passing[0])
		if err != nil {
			return nil, "", "", err
		}
		if fr != nil {
			x.base = &o
			return fr, fmt.Sprintf("the reproducer of %s (%s)", rs.ID, rs.Order), tests[0], nil
		}
		for i, r := range passing {
			if r.failed {
				return r, "natural", tests[i], nil
			}
		}
	}
	// Forced interleavings: the accesses the passing run made in one
	// order, run in the other (nil stores before the reads that came
	// first, first).
	for i, t := range tests {
		r := passing[i]
		a := x.analyze(r, t+"'s passing run", nil)
		for k, rc := range x.preferred(suppress.Reorderings(r.evs, x.sites, 4*max(x.o.Forced, 0)), max(x.o.Forced, 0)) {
			o := before(a, rc.Second, rc.First)
			x.progress(fmt.Sprintf("running %s forced (order %d)", t, k+1))
			fr, err := x.forced(ctx, t, o)
			if err != nil {
				return nil, "", "", err
			}
			x.forcedTries++
			if fr.failed && held(fr) {
				x.base = &o
				return fr, fmt.Sprintf("forced (%s before %s)", x.rel(x.site(rc.Second.Site, 0)), x.rel(x.site(rc.First.Site, 0))), t, nil
			}
		}
	}
	// Then a remote access moved between two of one goroutine's that it
	// did not come between (suppress.Interpositions), within the same
	// bound of forced runs.
	for i, t := range tests {
		r := passing[i]
		a := x.analyze(r, t+"'s passing run", nil)
		// The reversals of several tests may have used up -forced.
		left := max(x.o.Forced-x.forcedTries, 0)
		for k, v := range x.preferredVio(suppress.Interpositions(r.evs, x.sites, 4*left), left) {
			o := between(a, v)
			x.progress(fmt.Sprintf("running %s forced (interposition %d)", t, k+1))
			fr, err := x.forced(ctx, t, o)
			if err != nil {
				return nil, "", "", err
			}
			x.forcedTries++
			if fr.failed && held(fr) {
				x.base = &o
				return fr, fmt.Sprintf("forced (%s between %s and %s)", x.rel(x.site(v.Middle.Site, 0)), x.rel(x.site(v.First.Site, 0)), x.rel(x.site(v.Third.Site, 0))), t, nil
			}
		}
	}
	for seed := 1; seed <= x.o.Perturb; seed++ {
		for _, t := range tests {
			x.progress(fmt.Sprintf("running %s perturbed (seed %d)", t, seed))
			p := &plan.Plan{Mode: plan.Perturb, Seed: uint64(seed), Delay: 0.1, Yield: 0.3, MaxDelayUS: 2000, BudgetMS: 2000}
			r, err := x.exec(ctx, t, p)
			if err != nil {
				return nil, "", "", err
			}
			if r.failed {
				return r, fmt.Sprintf("perturbed (seed %d)", seed), t, nil
			}
		}
	}
	which := "the test passes"
	if len(tests) > 1 {
		which = "every test passes"
	}
	return nil, "", "", fmt.Errorf("%w: %s as written, in %d forced orders and under %d perturbation seeds", errNoFailure, which, x.forcedTries, max(x.o.Perturb, 0))
}

// reproduce runs test under the reproducer's schedule mapped into
// explain's build with the help of r, a run of the test, and returns the
// run if it failed with the order held, and the order; nil if not, with
// x.reproducer saying why.
func (x *explainer) reproduce(ctx context.Context, test string, r *run) (*run, validate.Order, error) {
	rs := x.o.Reproducer
	o, err := mapSchedule(rs, x.sites, r.evs)
	if err != nil {
		x.reproducer = "not run: its schedule could not be mapped into explain's build: " + err.Error()
		return nil, o, nil
	}
	x.progress(fmt.Sprintf("running %s under the reproducer of %s", test, rs.ID))
	fr, err := x.forced(ctx, test, o)
	if err != nil {
		return nil, o, err
	}
	x.forcedTries++
	switch {
	case fr.failed && held(fr):
		x.reproducer = "its schedule, mapped into explain's build, made the failing run"
		return fr, o, nil
	case !held(fr):
		x.reproducer = "its schedule, mapped into explain's build, could not be forced (" + stateOf(fr) + ")"
	default:
		x.reproducer = "its schedule, mapped into explain's build, held, but the test passed"
	}
	return nil, o, nil
}

// preferred puts first the reorderings whose both accesses are at sites of
// Options.Prefer (matched by file, line, column, kind and expression: the
// site IDs of explain's full-tracing build are not the schedule's), then
// those with one, and keeps n.
func (x *explainer) preferred(rs []suppress.Race, n int) []suppress.Race {
	if len(x.o.Prefer) > 0 {
		slices.SortStableFunc(rs, func(p, q suppress.Race) int {
			return (x.preferScore(q.First.Site) + x.preferScore(q.Second.Site)) - (x.preferScore(p.First.Site) + x.preferScore(p.Second.Site))
		})
	}
	if len(rs) > n {
		rs = rs[:n]
	}
	return rs
}

// preferredVio is preferred for interpositions: those with more of the
// finding's sites first, at most n.
func (x *explainer) preferredVio(vs []suppress.Violation, n int) []suppress.Violation {
	if len(x.o.Prefer) > 0 {
		score := func(v suppress.Violation) int {
			return x.preferScore(v.First.Site) + x.preferScore(v.Middle.Site) + x.preferScore(v.Third.Site)
		}
		slices.SortStableFunc(vs, func(p, q suppress.Violation) int { return score(q) - score(p) })
	}
	if len(vs) > n {
		vs = vs[:n]
	}
	return vs
}

// preferScore is 1 for a site of the finding explained (Options.Prefer),
// else 0.
func (x *explainer) preferScore(id uint32) int {
	s, ok := x.sites.Lookup(id)
	if !ok {
		return 0
	}
	for _, p := range x.o.Prefer {
		if p.Line == s.Line && p.Col == s.Col && p.Expr == s.Expr && filepath.Base(p.File) == filepath.Base(s.File) {
			return 1
		}
	}
	return 0
}

// exec runs test once under p (nil for none) with its trace recorded.
func (x *explainer) exec(ctx context.Context, test string, p *plan.Plan) (*run, error) {
	x.n++
	tr := filepath.Join(x.work, fmt.Sprintf("run%d.trace", x.n))
	t := validate.Target{Binary: x.bin, Dir: x.pkgDir, Timeout: x.o.Timeout,
		Args: []string{"-test.v", "-test.count=1", "-test.run=^" + test + "$", "-test.timeout=" + x.o.Timeout.String()},
		Env:  []string{"PRECOG_TRACE=" + tr, godebug(x.marked != nil && x.marked(test)), plan.StacksEnv + "=1"}}
	planPath := ""
	if p != nil {
		p.Result = filepath.Join(x.work, fmt.Sprintf("run%d.result", x.n))
		planPath = filepath.Join(x.work, fmt.Sprintf("run%d.plan", x.n))
		if err := control.WritePlan(planPath, p); err != nil {
			return nil, err
		}
	}
	vr := validate.Force(ctx, t, planPath)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := &run{out: vr.Output, killed: vr.Killed, planned: p, supp: make(map[suppress.Instance]bool)}
	r.failed = vr.Outcome.Failed() || vr.Killed
	if r.failed {
		r.fail = failure.Parse(vr.Output, test, x.pkgDir, true)
	}
	if fi, err := os.Stat(tr); err == nil && x.o.MaxTraceBytes > 0 && fi.Size() > x.o.MaxTraceBytes {
		return nil, &TraceTooLargeError{Run: x.runName(test, p), Bytes: fi.Size(), Max: x.o.MaxTraceBytes}
	}
	if f, err := os.Open(tr); err == nil {
		evs, size, over := readRun(f, x.maxEvents())
		f.Close()
		if over > 0 {
			return nil, &TraceTooLargeError{Run: x.runName(test, p), Bytes: size, Events: over, Max: x.o.MaxTraceBytes}
		}
		r.traceBytes, r.evs = size, evs
		if x.rep != nil && r.traceBytes > x.rep.MaxTraceBytes {
			x.rep.MaxTraceBytes = r.traceBytes
		}
		if x.rep != nil && len(r.evs) > x.rep.MaxEvents {
			x.rep.MaxEvents = len(r.evs)
		}
		if x.o.Work == nil {
			os.Remove(tr)
		}
	}
	if p != nil {
		if res, err := control.ReadResultFile(p.Result, p); err == nil {
			r.ctl = res
			for _, rec := range res.Records {
				if rec.Event == plan.EvSuppressed && rec.Point != nil {
					r.supp[suppress.Instance{G: rec.Point.G, Site: rec.Point.Site, N: rec.Point.N}] = true
				}
			}
		}
	}
	return r, nil
}

// runName names the x.n-th run, of test under plan p, for a message.
func (x *explainer) runName(test string, p *plan.Plan) string {
	if p == nil {
		return fmt.Sprintf("%s's run %d (as written)", test, x.n)
	}
	return fmt.Sprintf("%s's run %d (under a plan)", test, x.n)
}

// analyze is suppress.Analyze of run r's events, with a progress line:
// a failing run of millions of events takes minutes.
func (x *explainer) analyze(r *run, what string, suppressed map[suppress.Instance]bool) *suppress.Analysis {
	x.progress(fmt.Sprintf("analysing %s (%d events)", what, len(r.evs)))
	return suppress.Analyze(r.evs, x.sites, suppressed)
}

// godebug is the GODEBUG of every run: plan.Godebug's (marks: the test
// may reach a marked call), with stack shrinking off. Full tracing records the
// addresses of local variables, and a
// collection that shrinks a goroutine's stack moves them: the reads after
// it would have no definition at their new addresses, and where a
// collection falls varies from run to run (axel's failure point once went
// out to the test's own line that way). A stack that grows moves them too,
// except the variables shim.Def records, which it moves to the heap
// (detect/suppress's doc, The failure point).
func godebug(marks bool) string {
	if g := plan.Godebug(os.Getenv("GODEBUG"), marks); g != "" {
		return "GODEBUG=" + g + ",gcshrinkstackoff=1"
	}
	return "GODEBUG=gcshrinkstackoff=1"
}

// oneLine describes a failure in one line.
func oneLine(f *failure.Failure) string {
	if f == nil {
		return "the test failed"
	}
	msg := f.Message
	if l, ok := f.Report(); ok && f.Kind == failure.Fail {
		msg = fmt.Sprintf("%s:%d: %s", l.File, l.Line, l.Text)
	}
	if first, _, more := strings.Cut(msg, "\n"); more {
		msg = first + " …" // a message of many lines (a diff)
	}
	return fmt.Sprintf("%s: %s", f.Kind, msg)
}

// failureOf turns a parsed failure into the trace side's.
func failureOf(f *failure.Failure) suppress.Failure {
	var sf suppress.Failure
	if f == nil {
		return sf
	}
	sf.Message = f.Message
	if f.Kind == failure.Fail {
		if l, ok := f.Report(); ok {
			sf.Frames = append(sf.Frames, suppress.Frame{File: l.File, Line: l.Line})
			sf.Message = l.Text
		}
	}
	for _, fr := range f.Goroutine.Frames {
		sf.Frames = append(sf.Frames, suppress.Frame{File: fr.File, Line: fr.Line})
	}
	m := f.Message
	sf.Nil = strings.Contains(m, "nil pointer dereference") || strings.Contains(m, "nil map") ||
		strings.Contains(m, "invalid memory address")
	return sf
}

func (x *explainer) site(id uint32, g uint64) *Site {
	s, ok := x.sites.Lookup(id)
	if !ok {
		return &Site{File: "?", Expr: fmt.Sprintf("site %d", id), G: g}
	}
	return &Site{File: s.File, Line: s.Line, Col: s.Col, Expr: s.Expr, G: g}
}

// rel makes the sites' files relative to the package directory.
func (x *explainer) rel(s *Site) *Site {
	if s == nil {
		return nil
	}
	if r, err := filepath.Rel(x.pkgDir, s.File); err == nil && !strings.HasPrefix(r, "..") {
		s.File = r
	}
	return s
}

// loop is Fig. 1's while loop, from the failing run orig.
func (x *explainer) loop(ctx context.Context, test string, orig *run) {
	rep := x.rep
	cur := orig
	var last *Step
	var lastA *suppress.Analysis
	var lastPt *suppress.Point
	var lastRun *run
	var lastIter int
	// final reports the last definition, after the two-access order
	// check at it (Fig. 3, lines 16-21: at the end of the execution).
	final := func(reason string) {
		x.under, x.iter = lastRun, lastIter
		if lastA != nil && x.checkViolations(ctx, test, lastA, lastPt, last, true) {
			return
		}
		rep.Kind, rep.Root, rep.Reason = KindDefinition, last.Def, reason
	}
	seen := make(map[suppress.Instance]bool)
	for iter := 0; ; iter++ {
		if !cur.failed {
			if last == nil {
				rep.Kind, rep.Reason = KindNone, "the failure did not happen again"
				return
			}
			final("suppressing this definition and what depends on it, the run ends without a failure: the first corrupted definition")
			return
		}
		step := Step{Failure: oneLine(cur.fail)}
		if cur.killed || cur.fail != nil && cur.fail.Kind == failure.Timeout {
			step.Failure = "the test hung (killed after its time bound)"
			if cur.fail != nil && cur.fail.Kind == failure.Timeout {
				step.Failure = "timeout: " + cur.fail.Message
			}
		}
		a := x.analyze(cur, "the failing run", cur.supp)
		sf := failureOf(cur.fail)
		sf.Hang = cur.killed || cur.fail != nil && cur.fail.Kind == failure.Timeout
		pt := a.FailurePoint(sf)
		if pt == nil {
			rep.Chain = append(rep.Chain, step)
			x.none(last, "the failure reads no instrumented location on its lines (no failure point in the trace)")
			return
		}
		step.At = x.rel(x.site(pt.Use.Site, pt.Use.G))
		step.Why = pt.Why
		if pt.Suppressed != nil && last != nil {
			// The failure uses what suppression left unwritten: the
			// paper's suppression would have skipped the failing
			// statement too. No new corruption was revealed.
			step.Def = x.rel(x.site(pt.Suppressed.Site, pt.Suppressed.G))
			step.Note = "this failure depends on a suppressed definition: not a new failure"
			rep.Chain = append(rep.Chain, step)
			last = &rep.Chain[len(rep.Chain)-2]
			final("suppressing this definition and what depends on it, the run ends with no failure of its own: the first corrupted definition")
			return
		}
		if pt.Def == nil {
			rep.Chain = append(rep.Chain, step)
			// Reads carry no value: a location never written in the
			// trace holds its zero value or what uninstrumented code
			// (the standard library, a dependency) wrote into it.
			why := "the failure location was never written in the trace (it held its zero value, or code precog does not instrument wrote it)"
			if r := a.UnsentReceive(pt.Use.Index); r != nil {
				s := x.rel(x.site(r.Site, r.G))
				why += fmt.Sprintf("; before it, the receive at %s:%d got a value from a channel that no instrumented code sent on or closed (a timer such as time.After's, or the standard library's): likely a timing failure, the wait ended before what it waited for, which no definition explains", s.File, s.Line)
			}
			x.none(last, why)
			return
		}
		step.Def = x.rel(x.site(pt.Def.Site, pt.Def.G))
		step.Value = pt.Def.Value
		if seen[pt.Def.Instance] {
			step.Note = "the same definition again: suppression did not avoid the failure"
			rep.Chain = append(rep.Chain, step)
			x.none(last, "suppressing the definition did not avoid the failure (a dependence the shim does not track)")
			return
		}
		seen[pt.Def.Instance] = true
		x.under, x.iter = cur, len(rep.Chain)+1
		// Task 2: concurrency bugs at the definition.
		if x.checkRaces(ctx, test, a, pt, &step) || x.checkViolations(ctx, test, a, pt, &step, false) {
			rep.Chain = append(rep.Chain, step)
			return
		}
		rep.Chain = append(rep.Chain, step)
		last = &rep.Chain[len(rep.Chain)-1]
		lastA, lastPt, lastRun, lastIter = a, pt, cur, x.iter
		if iter+1 >= x.o.Iters {
			x.none(last, fmt.Sprintf("still failing after %d suppression iterations", x.o.Iters))
			return
		}
		// Task 3: suppress and run again.
		x.suppAt[pt.Def.Instance] = len(x.supp)
		x.supp = append(x.supp, plan.Point{G: pt.Def.G, Site: pt.Def.Site, N: pt.Def.N})
		x.suppDef = x.supp[len(x.supp)-1]
		if len(pt.Repeats) > 0 {
			// The writes of the same value the read would see once the
			// definition is gone (detect/suppress, Repeated values).
			var at []string
			for _, w := range pt.Repeats {
				x.supp = append(x.supp, plan.Point{G: w.G, Site: w.Site, N: w.N})
				seen[w.Instance] = true
				if s := x.rel(x.site(w.Site, w.G)); !slices.Contains(at, fmt.Sprintf("%s:%d", s.File, s.Line)) {
					at = append(at, fmt.Sprintf("%s:%d", s.File, s.Line))
				}
			}
			last.Note = appendNote(last.Note, fmt.Sprintf("suppressed with %d other writes of the value %d the read could have seen (%s)", len(pt.Repeats), pt.Def.Value, strings.Join(at, ", ")))
		}
		x.progress(fmt.Sprintf("suppression run %d", rep.Executions.Supp+1))
		var o validate.Order
		if x.base != nil {
			o = *x.base
		}
		next, err := x.reexec(ctx, test, ReexecSupp, o, "suppressing "+x.rel(x.site(pt.Def.Site, pt.Def.G)).String(), pt.Def.Index)
		if err != nil {
			x.none(last, "interrupted: "+err.Error())
			return
		}
		rep.Executions.Supp++
		if next.ctl != nil && next.ctl.State == plan.Diverged && x.base != nil {
			last.Note = appendNote(last.Note, "the suppression run could not force the failing run's order: "+next.ctl.Reason)
		}
		if re := rep.Reexecutions[len(rep.Reexecutions)-1]; re.Diverged {
			last.Note = appendNote(last.Note, "the suppression run diverged from the schedule before the suppressed definition: "+re.Left)
		} else if re.Left != "" {
			last.Note = appendNote(last.Note, "the suppression run left the schedule after the suppressed definition: "+re.Left)
		}
		cur = next
	}
}

// none ends the report without a root cause, or with the last definition
// suppressed when the loop got that far.
func (x *explainer) none(last *Step, why string) {
	if last != nil && last.Def != nil {
		// Fig. 1, line 13: the latest definition suppressed.
		x.rep.Kind, x.rep.Root = KindDefinition, last.Def
		x.rep.Reason = "the last definition suppressed (" + why + ")"
		return
	}
	x.rep.Kind, x.rep.Reason = KindNone, why
}

// forced runs test under a force plan of order o and returns the run.
func (x *explainer) forced(ctx context.Context, test string, o validate.Order) (*run, error) {
	p := &plan.Plan{Mode: plan.Force, TimeoutMS: WaitMS, BudgetMS: BudgetMS, Edges: o.Edges, Together: o.Together, Suppress: x.supp}
	return x.exec(ctx, test, p)
}

// suppFor is the suppression of a re-execution of kind: S_supp (Fig. 1),
// or, for a race or violation check at a definition (x.checking), S_supp
// as it was before that definition joined it: a race or violation is
// checked at a definition that is not suppressed, as the paper checks it
// in the run that reaches it. (The two-access order check comes after the
// definition joined S_supp; with it suppressed, the location kept its old
// value in either order and every order failed alike: mozilla3x.)
func (x *explainer) suppFor(kind string) []plan.Point {
	if kind != ReexecSupp && x.checking != nil {
		if n, ok := x.suppAt[*x.checking]; ok {
			return x.supp[:n:n]
		}
	}
	return x.supp
}

// reexec re-executes the run under study (x.under) with order o forced
// and the suppressed definitions skipped, following its schedule up to
// the point under study, and notes in the report how far it followed.
//
// A race or violation run (o reverses two accesses) follows the positions
// before the first sync event of each forced step's goroutine at or after
// the step (control.Cut): past it, a goroutine would have to pass a sync
// event the forced order holds it before. It keeps those edges of the
// failing run's own forced order (x.base) whose steps both come before
// that point. A suppression run (study: the suppressed definition's
// event) follows the whole schedule, softly (the shim lets it go where
// the run leaves it), with x.base's edges: it diverged if it left before
// the suppressed definition.
func (x *explainer) reexec(ctx context.Context, test, kind string, o validate.Order, what string, study ...int) (*run, error) {
	p, re := x.reexecPlan(kind, o, what, study...)
	r, err := x.exec(ctx, test, p)
	if err != nil {
		return nil, err
	}
	re.Failed = r.failed
	re.State = stateOf(r)
	if r.ctl != nil {
		re.State = r.ctl.State
	}
	if len(p.Order) > 0 {
		re.follow(r.ctl)
		if kind == ReexecSupp && len(x.supp) > 0 {
			re.reached(r.ctl, x.suppDef)
		}
	}
	x.rep.Reexecutions = append(x.rep.Reexecutions, re)
	return r, nil
}

// reached judges a suppression run by whether it reached the definition
// it suppresses (def, whose "suppressed" line the shim writes when the
// run skips it) on the schedule: the point under study is that
// statement instance, which comes after the last position before it in
// its goroutine and may come before positions of other goroutines that
// follow it in the order.
func (re *Reexec) reached(res *control.Result, def plan.Point) {
	if res == nil {
		return
	}
	var at *plan.Record
	for i, rec := range res.Records {
		if rec.Event == plan.EvSuppressed && rec.Reason == "" && rec.Point != nil && bareOf(*rec.Point) == bareOf(def) {
			at = &res.Records[i]
			break
		}
	}
	switch {
	case at == nil:
		re.Diverged = true
		if re.Left == "" {
			re.Left = fmt.Sprintf("the run ended at position %d of %d", re.Followed, re.Schedule)
		}
		re.Left += ", without reaching the suppressed definition"
	case res.Left != nil:
		re.Diverged = res.Left.T < at.T
	default:
		re.Diverged, re.Left = false, ""
	}
}

// reexecPlan is reexec's plan, and its Reexec before the run.
func (x *explainer) reexecPlan(kind string, o validate.Order, what string, study ...int) (*plan.Plan, Reexec) {
	p := &plan.Plan{Mode: plan.Force, TimeoutMS: WaitMS, BudgetMS: BudgetMS, Suppress: x.suppFor(kind),
		Edges: o.Edges, Together: o.Together}
	re := Reexec{Kind: kind, Iteration: x.iter, What: what}
	u := x.under
	if u == nil {
		return p, re
	}
	sched, at := u.schedule()
	if len(sched.Order) == 0 {
		return p, re
	}
	if kind == ReexecSupp {
		p.Order, p.Selects, p.Hold = sched.Order, sched.Selects, sched.Hold
		re.Schedule = len(sched.Order)
		re.Point = control.Cut(u.evs, at, study...)
		return p, re
	}
	var idx []int
	for _, e := range o.Edges {
		idx = append(idx, u.indexOf(e.Before), u.indexOf(e.After))
	}
	for _, g := range o.Together {
		for _, q := range g {
			idx = append(idx, u.indexOf(q))
		}
	}
	cut := control.Cut(u.evs, at, idx...)
	re.Schedule, re.Point = cut, cut
	if cut == 0 {
		return p, re
	}
	p.Order, p.Until, p.Hold = sched.Order, cut, sched.Hold
	for _, sel := range sched.Selects {
		if i := u.indexOf(sel.Point); i >= 0 && control.Cut(u.evs, at, i) < cut {
			p.Selects = append(p.Selects, sel)
		}
	}
	p.Edges = append(slices.Clip(p.Edges), x.baseBefore(u, at, cut, o)...)
	return p, re
}

// follow sets how far a re-execution followed its schedule from the
// shim's result res.
func (re *Reexec) follow(res *control.Result) {
	switch {
	case res == nil:
		re.Diverged, re.Left = true, "no result from the shim"
	case res.Left != nil:
		re.Followed = res.Left.Pos
		re.Left = fmt.Sprintf("at position %d of %d: %s", res.Left.Pos, re.Schedule, res.Left.Reason)
		re.Diverged = res.Left.Pos < re.Point
	case res.FollowedTo:
		re.Followed = re.Schedule
	default:
		re.Followed = res.Replayed
		if res.Replayed < re.Point {
			re.Diverged = true
			re.Left = fmt.Sprintf("the run ended at position %d of %d", res.Replayed, re.Schedule)
		}
	}
}

// noteDiverged notes in step that the last re-execution diverged from the
// schedule before the point under study, if it did.
func (x *explainer) noteDiverged(step *Step) {
	re := x.rep.Reexecutions[len(x.rep.Reexecutions)-1]
	if re.Diverged {
		step.Note = appendNote(step.Note, fmt.Sprintf("the %s re-execution (%s) diverged from the schedule before the point under study: %s", re.Kind, re.What, re.Left))
	}
}

// baseBefore returns the edges of the failing run's forced order (x.base)
// whose steps both come before position cut of u's schedule and are not
// steps of o.
func (x *explainer) baseBefore(u *run, at []int, cut int, o validate.Order) []plan.Edge {
	if x.base == nil {
		return nil
	}
	steps := make(map[plan.Point]bool)
	for _, e := range o.Edges {
		steps[bareOf(e.Before)], steps[bareOf(e.After)] = true, true
	}
	var es []plan.Edge
	for _, e := range x.base.Edges {
		if steps[bareOf(e.Before)] || steps[bareOf(e.After)] {
			continue
		}
		i, j := u.indexOf(e.Before), u.indexOf(e.After)
		if i < 0 || j < 0 || control.Cut(u.evs, at, i) >= cut || control.Cut(u.evs, at, j) >= cut {
			continue
		}
		es = append(es, e)
	}
	return es
}

// orderWhat says in words the order that makes access p come before q.
func (x *explainer) orderWhat(p, q *suppress.Access) string {
	return fmt.Sprintf("%s before %s", x.rel(x.site(p.Site, p.G)), x.rel(x.site(q.Site, q.G)))
}

func bareOf(p plan.Point) plan.Point { return plan.Point{G: p.G, Site: p.Site, N: p.N} }

// ev names access acc of the run a analyzed as a witness event; with
// lock, also the Lock of the critical section it is in (validate.Reversal
// holds a goroutine back there rather than inside the section).
func ev(a *suppress.Analysis, acc *suppress.Access, role string, lock bool) finding.Event {
	k := "R"
	if acc.Write {
		k = "W"
	}
	e := finding.Event{Role: role, G: acc.G, Site: acc.Site, N: acc.N, Kind: k, Index: acc.Index}
	if l := a.LockOf(acc.Index); l != nil && lock {
		e.Lock = &finding.Event{Role: "lock", G: l.G, Site: l.Site, N: l.N, Kind: "Lock", Index: l.Index}
	}
	return e
}

// before is the order that makes access p come before access q. When the
// two are in critical sections of one lock, q's goroutine is held back at
// the Lock of its section: held inside it, it would keep p's goroutine out.
func before(a *suppress.Analysis, p, q *suppress.Access) validate.Order {
	common := a.Graph.CommonLock(p.Index, q.Index)
	return validate.Reversal(ev(a, q, "second", common), ev(a, p, "first", false))
}

// between is the order that makes access v.Middle come after v.First and
// before v.Third: the two orders of before, together.
func between(a *suppress.Analysis, v suppress.Violation) validate.Order {
	o1, o2 := before(a, v.First, v.Middle), before(a, v.Middle, v.Third)
	return validate.Order{What: o1.What + ", and " + o2.What,
		Edges:    append(slices.Clip(o1.Edges), o2.Edges...),
		Together: append(slices.Clip(o1.Together), o2.Together...)}
}

// held reports whether a forced run followed its plan.
func held(r *run) bool {
	return r.ctl != nil && r.ctl.State == plan.Confirmed
}

// sameFailure reports whether run r fails the way the failing run did at
// the failure point: a failure on the same line.
func sameFailure(r *run, pt *suppress.Point) bool {
	if !r.failed || r.fail == nil {
		return r.failed
	}
	for _, fr := range failureOf(r.fail).Frames {
		if fr.Line == pt.Line.Line && (strings.HasSuffix(fr.File, pt.Line.File) || strings.HasSuffix(pt.Line.File, filepath.Base(fr.File))) {
			return true
		}
	}
	return false
}

// checkRaces is Fig. 2 at the definition: each unordered access pair,
// reversed once; harmful when a value or the outcome changes.
func (x *explainer) checkRaces(ctx context.Context, test string, a *suppress.Analysis, pt *suppress.Point, step *Step) bool {
	x.checking = &pt.Def.Instance
	def := a.Find(pt.Def.Instance)
	if def < 0 {
		return false
	}
	for _, rc := range a.Races(def) {
		if rc.First.Instance == pt.Use.Instance {
			// The failing read saw the definition's value: it came
			// after it, whatever the trace's order of the two says
			// (the trace orders accesses of different goroutines only
			// through sync events).
			rc = suppress.Race{First: rc.Second, Second: rc.First, Shape: "RAW"}
		}
		x.progress(fmt.Sprintf("checking a %s race (re-execution %d)", rc.Shape, x.rep.Executions.Race+1))
		o := before(a, rc.Second, rc.First)
		r, err := x.reexec(ctx, test, ReexecRace, o, x.orderWhat(rc.Second, rc.First))
		if err != nil {
			return false
		}
		x.noteDiverged(step)
		x.rep.Executions.Race++
		desc := fmt.Sprintf("%s race with %s", rc.Shape, x.site(other(rc.First, rc.Second, pt.Def).Site, 0))
		if !held(r) {
			step.Checked = appendNote(step.Checked, desc+": the reversed order could not be forced ("+stateOf(r)+")")
			continue
		}
		harmful, why := x.changed(r, rc, pt)
		if !harmful {
			step.Checked = appendNote(step.Checked, desc+": not harmful (the same values in the other order)")
			continue
		}
		step.Checked = appendNote(step.Checked, desc+": harmful ("+why+")")
		first, second := x.rel(x.site(rc.First.Site, rc.First.G)), x.rel(x.site(rc.Second.Site, rc.Second.G))
		// The site whose order matters most: the access that came
		// second in the failing run and should have come first is the
		// definition for WAR/WAW (it overwrote too late or too early),
		// the other access for RAW.
		x.rep.Kind, x.rep.Shape = KindRace, rc.Shape
		if rc.Shape == "RAW" {
			x.rep.Root, x.rep.Sites = first, []Site{*first, *second}
		} else {
			x.rep.Root, x.rep.Sites = second, []Site{*second, *first}
		}
		x.rep.Reason = fmt.Sprintf("a harmful %s data race at the failure's last definition: %s", rc.Shape, why)
		return true
	}
	return false
}

func other(p, q *suppress.Access, def *suppress.Access) *suppress.Access {
	if p.Instance == def.Instance {
		return q
	}
	return p
}

func appendNote(s, n string) string {
	if s == "" {
		return n
	}
	return s + "; " + n
}

func stateOf(r *run) string {
	if r.ctl == nil {
		return "no result from the shim"
	}
	if r.ctl.Reason != "" {
		return r.ctl.State + ": " + r.ctl.Reason
	}
	return r.ctl.State
}

// changed compares the reversed run r with the failing run at the race's
// accesses: the definition's stored value, the value each read got, and
// whether the failure happened.
func (x *explainer) changed(r *run, rc suppress.Race, pt *suppress.Point) (bool, string) {
	if !r.failed {
		return true, "the other order avoids the failure"
	}
	if len(r.evs) == 0 {
		return false, ""
	}
	b := suppress.Analyze(r.evs, x.sites, r.supp)
	for _, acc := range []*suppress.Access{rc.First, rc.Second} {
		i := b.Find(acc.Instance)
		if i < 0 {
			continue
		}
		before := acc.Value
		if !acc.Write {
			continue // a read's value is checked through the definition
		}
		if now := b.Value(i); now != before {
			return true, fmt.Sprintf("%s stores %d instead of %d", x.site(acc.Site, 0).Expr, now, before)
		}
	}
	return false, ""
}

// checkViolations is Fig. 3 at the definition.
//
// With two false it checks the three-access violations, with two true the
// two-access order violations: the paper checks those only at the end of
// the execution, when no other was found, and so does the loop, at the
// last definition before it reports that definition.
func (x *explainer) checkViolations(ctx context.Context, test string, a *suppress.Analysis, pt *suppress.Point, step *Step, two bool) bool {
	x.checking = &pt.Def.Instance
	def := a.Find(pt.Def.Instance)
	if def < 0 {
		return false
	}
	for _, v := range a.Violations(def) {
		if (v.Third == nil) != two {
			continue
		}
		if v.Third != nil {
			// Move the middle access before the first, then after
			// the third.
			avoided := 0
			ok := true
			for _, mv := range [][2]*suppress.Access{{v.Middle, v.First}, {v.Third, v.Middle}} {
				o := before(a, mv[0], mv[1])
				x.progress(fmt.Sprintf("checking a %s violation (re-execution %d)", v.Shape, x.rep.Executions.Vio+1))
				r, err := x.reexec(ctx, test, ReexecVio, o, x.orderWhat(mv[0], mv[1]))
				if err != nil {
					return false
				}
				x.noteDiverged(step)
				x.rep.Executions.Vio++
				if !held(r) {
					ok = false
					step.Checked = appendNote(step.Checked, v.Shape+": a move of the middle access could not be forced ("+stateOf(r)+")")
					continue
				}
				if !r.failed {
					avoided++
				}
			}
			if avoided == 0 || !ok && avoided < 2 {
				step.Checked = appendNote(step.Checked, fmt.Sprintf("%s: no violation (%d of 2 moves avoid the failure)", v.Shape, avoided))
				continue
			}
			kind := KindOrder
			if avoided == 2 {
				kind = KindAtomicity
			}
			x.report(kind, v, fmt.Sprintf("moving the interleaved access avoids the failure in %d of 2 orders", avoided))
			step.Checked = appendNote(step.Checked, v.Shape+": "+kind+" violation")
			return true
		}
		x.progress(fmt.Sprintf("checking a two-access order violation (re-execution %d)", x.rep.Executions.Vio+1))
		r, err := x.reexec(ctx, test, ReexecVio, before(a, v.Middle, v.First), x.orderWhat(v.Middle, v.First))
		if err != nil {
			return false
		}
		x.noteDiverged(step)
		x.rep.Executions.Vio++
		if held(r) && !r.failed {
			// The definition first: it is the access whose order the
			// failure depends on.
			if v.First.Instance == pt.Def.Instance {
				v.First, v.Middle = v.Middle, v.First
			}
			x.report(KindOrder, v, "the other order of the two accesses avoids the failure")
			step.Checked = appendNote(step.Checked, v.Shape+": order violation")
			return true
		}
		step.Checked = appendNote(step.Checked, fmt.Sprintf("%s order: the other order %s", v.Shape, map[bool]string{true: "fails too", false: "could not be forced (" + stateOf(r) + ")"}[held(r)]))
	}
	return false
}

// report sets a violation as the root cause: the middle (interleaved)
// access first, whose order matters most.
func (x *explainer) report(kind string, v suppress.Violation, why string) {
	mid := x.rel(x.site(v.Middle.Site, v.Middle.G))
	first := x.rel(x.site(v.First.Site, v.First.G))
	x.rep.Kind, x.rep.Shape, x.rep.Root = kind, v.Shape, mid
	x.rep.Sites = []Site{*mid, *first}
	if v.Third != nil {
		x.rep.Sites = append(x.rep.Sites, *x.rel(x.site(v.Third.Site, v.Third.G)))
	}
	x.rep.Reason = fmt.Sprintf("%s violation (%s) at the failure's last definition: %s", kind, v.Shape, why)
}

// JSON encodes the report.
func (r *Report) JSON() ([]byte, error) { return json.Marshal(r) }

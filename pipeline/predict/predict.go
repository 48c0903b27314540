// Package predict is the flow behind "precog test": instrument a module's
// packages, record each top-level test (once, or several times under the
// shim's perturb plans), read every trace with its site table, build the
// happens-before graph of each (detect/hb), run the trace checkers on it
// (detect/conmem, detect/oscs, detect/unicorn, detect/races) and merge
// what they report into one finding per bug, with the tests that exposed
// it. A run that failed is a confirmed finding of its own (kind crash or
// test-failed), unless a finding predicted from its trace is at the
// crash's site, with its kind's effect, and the trace shows that finding's
// order before the crash (absorb): then that finding is confirmed by it.
//
// predict holds no detection logic: it runs processes, reads files and
// hands events to the pure packages of detect/.
//
// Runs and reports. With Options.Runs = N, record runs each test N times:
// run 0 without a plan, runs 1..N-1 perturbed (Options.Perturb): under
// Targeted, first one force plan per pair of accesses that run 0 showed in
// an order no order synchronization forced, reversing it (targeted.go),
// then, as under Random, perturb plans with seeds Seed+n. ConMem and OSCS check every run; Unicorn collects its
// access patterns from every run with the run's outcome (failed or not) and
// ranks them over the N runs of the test. A finding counts one report per
// test that exposed it, whatever the number of its runs that did: the
// duplication rate (finding.Duplication) is then the CFP paper's, reports
// from different inputs over unique bugs.
package predict

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/precog-dev/precog/detect/conmem"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/oscs"
	"github.com/precog-dev/precog/detect/races"
	"github.com/precog-dev/precog/detect/unicorn"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
	"golang.org/x/tools/go/analysis"
)

// MaxRuns bounds Options.Runs.
const MaxRuns = 1000

// DefaultTargetedBudget is the default Options.TargetedBudget.
const DefaultTargetedBudget = 5 * time.Minute

// Options configures Run.
type Options struct {
	Dir      string // the directory go runs in; "" for the current one
	Patterns []string
	Flags    *record.GoTestFlags
	// Parallel is how many packages are recorded side by side
	// (record.Options.Parallel); 0 means 1.
	Parallel int
	All      bool   // record every heap and global access
	Funcs    bool   // record function entries and exits (call stacks in findings)
	Deps     string // also instrument the dependencies matching this pattern
	CacheDir string // precog's cache; "" for the default
	// Out keeps the recording (traces, logs, index.json) in this
	// directory, with record's rule for a directory that is not empty; ""
	// records into a temporary directory removed at the end.
	Out string
	// Runs is how many times each test is recorded, 1 to MaxRuns; 0
	// means 1. Seed is the base of the perturb plans' seeds.
	Runs int
	Seed uint64
	// Perturb is how the runs after the first are perturbed: Targeted
	// (also for ""), Random or Off. TargetedBudget bounds the time of
	// all targeted runs together; 0 means DefaultTargetedBudget.
	Perturb        string
	TargetedBudget time.Duration
	// RecordBudget bounds the recording from its first test on, CFP's
	// cheap run included, in wall time (the tests run in processes of
	// their own; see record.Budget): once it is spent no test starts, a
	// test still running record.StopGrace later is stopped as -timeout
	// stops a test and analysed up to there (Stats.RecordStopped), and
	// the tests not run are counted in Stats.NotRecorded, with a note.
	// 0 means DefaultRecordBudget; negative, no limit.
	RecordBudget time.Duration
	// MaxRecordBytes bounds each recorded run's trace file: the shim
	// stops writing it there (record.Options.TraceLimit), the test runs
	// on to its end, and detection analyses what was recorded before the
	// stop, with a note. 0 means DefaultMaxRecordBytes; negative, no
	// limit.
	MaxRecordBytes int64
	// Deadline, if positive, bounds the whole run in wall time from its
	// start (precog test -deadline): each stage gets a share of the time
	// left when it begins (jobDeadline), within its own budget, and at
	// the deadline the run stops as at an interrupt, with a
	// *DeadlineError as the cause.
	Deadline time.Duration
	// buildCap, if positive, caps each build's share of the Deadline:
	// a test's way to cut a build in seconds, whatever the deadline
	// left for the stages around it.
	buildCap time.Duration
	// Progress, if not nil, is told what is being done: a line and the
	// counts so far, on every change.
	Progress func(Progress)
	// Only, if not nil, chooses the tests to run among a package's
	// top-level tests (record.Options.Only): a shard's share. With CFP,
	// it sees a package's tests together before the cheap runs.
	Only    func(pkg string, tests []string) []string
	TestLog io.Writer // the tests' output is copied here; may be nil
	Detect  DetectOptions
	// Validate, if not nil, validates every finding by forcing its
	// interleaving (pipeline/validate).
	Validate *ValidateOptions
	// CFP guides detection in the packages with more than one test by
	// concurrent function pairs (pipeline/coverage, detect/cfp): a cheap
	// run of each of their tests first, then detection on the tests
	// that cover the packages' pairs, recording only the memory accesses
	// of the functions each was selected for.
	CFP bool
	// DepsRerun records again, with the dependencies instrumented too,
	// the tests of the findings that have a goroutine a dependency
	// started (or whose call into the standard library started it), and
	// takes the findings of the new traces for those tests in place of
	// the first ones (depsrerun.go): the goroutine's start and joins are
	// then in the trace.
	DepsRerun bool
	// Checks, if not empty, are precog vet's checks (precog test -vet):
	// they run on the packages in the instrumenter's analysis, their
	// findings' sites are always recorded, and each finding is looked
	// for in the recorded runs (detect/reach) and, where a run reached
	// its sites, validated like a predicted one. Result.Findings then
	// holds them too, a candidate that is also a runtime finding (same
	// ID) as that one; Stats.Vet counts them.
	Checks []*analysis.Analyzer
}

// DetectOptions configures the checkers.
type DetectOptions struct {
	ConMem  conmem.Options
	OSCS    oscs.Options
	Unicorn unicorn.Options
	Races   races.Options
	// NoRaces turns the data race checker (kind race) off.
	NoRaces bool
	// MaxTraceBytes gives the runs whose trace file is larger, or has
	// more events than MaxTraceBytes/TraceEventBytes, the streamed
	// checkers (the race checker, the test lifetime check and ConMem's
	// con-null, con-uninit, con-closed, con-index and con-map) over the
	// whole trace, then OSCS, and Unicorn's collection of patterns for a
	// test of several runs, over as many of its first events as fit in
	// the limit (in bytes and in events), with a note: the other checkers
	// hold the whole trace, and precog test's peak memory measured up to
	// about 35 times the largest trace so analysed (an event is 3 to 8 bytes on
	// disk and 80 in memory, plus the happens-before graphs and the
	// checkers' state; gocron's whole run peaked at 1.7 GB with a 47 MiB
	// trace, its detection alone at 1.5 GB with a 50 MiB one; pond's 60
	// MiB trace takes 1.5 GiB for its events and one graph;
	// bench/RESULTS.md). 0 means DefaultMaxTraceBytes; negative, no
	// limit.
	MaxTraceBytes int64
	// MaxGoroutines skips, with a note, the runs that started more
	// goroutines. hb's clocks cost memory for the goroutines that
	// communicate, no longer a word per goroutine per snapshot (pond's
	// TestSubpoolStopAndWait starts 198,766: over 8 GiB with flat vector
	// clocks, 1.5 GiB now for the trace's events and one graph), but a join of
	// two clocks that heard of many goroutines along different paths
	// still compares what they heard, so time grows faster than the
	// count. A run streamed for MaxTraceBytes is not skipped: its stream
	// stops at the goroutine past the limit, keeping the races found
	// before. 0 means DefaultMaxGoroutines; negative, no limit.
	MaxGoroutines int
	// MaxTraceTime bounds the analysis of one run's trace, reading
	// included (traceClock says how time is measured): a streamed race
	// check stops at the event where it is spent, the in-memory checkers
	// between two of them; the findings made before stand, and a note
	// says what was left out. 0 means DefaultMaxTraceTime; negative, no
	// limit.
	MaxTraceTime time.Duration
	// overTime, if not nil, replaces the clock of MaxTraceTime (tests):
	// it is asked once per event streamed and before each checker.
	overTime func() bool
	// Budget bounds the whole detection, measured as MaxTraceTime is:
	// once it is spent, the runs not yet analysed are not, each counted
	// in Stats.Skipped, with one note; their failures are still reported
	// (they come from a run's output, not its trace). A test suite of
	// hundreds of tests whose traces each take up to MaxTraceTime would
	// otherwise hold a nightly job for hours. 0 means
	// DefaultDetectBudget; negative, no limit.
	Budget time.Duration
	// budgetSpent, if not nil, replaces Budget's clock (tests): it is
	// asked once per run with a trace, before the run is analysed.
	budgetSpent func() bool
	// analysed, if not nil, is called as each test's analysis ends, on
	// the analysis's goroutine (tests: an in-memory checker that does not
	// stop at the interrupt, see detectAbandonable).
	analysed func(test string)
	// interrupted is set when detect's context is cancelled (an
	// interrupt): the clocks of the trace in progress then read spent,
	// so that a long check (a streamed race check runs minutes) ends
	// within cli.StopBound and the findings so far are written.
	interrupted *atomic.Bool
	// share bounds the whole detection in wall time: its share of
	// Options.Deadline (jobDeadline); 0 means none. cut, if not nil, is
	// its clock (detect starts one from share; tests fire their own).
	share time.Duration
	cut   *cut
	// temporary says the recording is in a temporary directory that Run
	// removes at the end (no -o): notes do not point into it.
	temporary bool
	// Static are static findings to look for in every run (precog test
	// -vet, see Options.Checks).
	Static []finding.Finding
	// NoHardware leaves out the note on each OSCS finding that says
	// whether OSCS-HW, the paper's always-on hardware on its Table 1
	// machine (hwmodel), would have caught it in the recorded run, and if
	// not why. The note costs a replay of the run through the model when
	// it has OSCS findings.
	NoHardware bool
}

// DefaultMaxGoroutines is the default DetectOptions.MaxGoroutines. Memory
// no longer sets it (pond's 198,766-goroutine test: 1.5 GiB for its events
// and one graph), time does: one graph of that test takes 2.5 to 3.5
// minutes of CPU, the LockOrder graph precog test also builds longer (6.5
// times as long on its first 2 M events), its first 55,680 goroutines 10
// seconds (bench/RESULTS.md, "Analysis memory and time at scale").
const DefaultMaxGoroutines = 50000

// DefaultMaxRecordBytes is the default Options.MaxRecordBytes: 1 GiB. The
// streamed race check of a trace over -max-trace reads about 2 MiB a
// second of CPU, so within -max-trace-time's default it reads a few
// hundred MiB of a trace; a GiB leaves room for a larger -max-trace-time,
// while no test writes what lz4's TestCompressGolden wrote without a
// limit: a 3.1 GiB trace, for a check that read 11% of it
// (bench/RESULTS.md, heldout18).
const DefaultMaxRecordBytes = 1 << 30

// DefaultMaxTraceBytes is the default DetectOptions.MaxTraceBytes: 64 MiB,
// 8 to 11 million events at pond's and raft's 6 to 8 bytes an event and
// about 1.5 GiB of memory to analyse; a denser trace is held to 8,388,608
// events (TraceEventBytes), not the up to 20 million of 3 bytes that fit.
const DefaultMaxTraceBytes = 64 << 20

// TraceEventBytes is what an event counts for against -max-trace
// (DetectOptions.MaxTraceBytes) besides the trace's size: the checkers
// that hold a trace in memory take at most the limit's bytes over it in
// events (8,388,608 at the default), whatever the trace's density. Their
// memory goes with the events, not the bytes: about 245 bytes an event at
// peak on transfermanager's TestGetObject (8.3 M events of 4.1 bytes:
// the events 80, the happens-before graph 61, OSCS and OSCS-HW's notes
// most of the rest; rehearsal 49's module), so a trace of 4 bytes an event
// within the limit in bytes took 4.2 GB in its first 64 MiB, where 8
// bytes, the sparse end of what traces measure, keeps the peak near the
// 35 times the limit that DetectOptions.MaxTraceBytes says.
const TraceEventBytes = 8

// A Result is what Run or Detect found.
type Result struct {
	// Findings are merged: one per ID, sorted (finding.Merge), each with
	// the tests that exposed it and Reports counting those tests.
	Findings []finding.Finding
	Index    *record.Index
	// Notes are things the user should know about the runs, one line
	// each: damaged traces, tests that failed or changed outcome.
	Notes []string
	// InternalErrors are the checkers' panics, each a line and the stack
	// below it, indented: precog bugs. The other checkers' findings are
	// still reported.
	InternalErrors []string
	// Broken has a line for each package matching the patterns that was
	// not tested because it, or a package its tests import, does not
	// build: the first error (instrument.Result.Broken).
	Broken []string
	// Unlisted has a line for each package whose test binary built but
	// failed to list its tests (record.Index.Unlisted): not tested.
	Unlisted []string
	// NotBuilt has a line for each package whose test binary the build's
	// share of -deadline (Options.Deadline) stopped before it was linked
	// (record.Index.NotBuilt): not tested either.
	NotBuilt []string
	// Instrumented are the import paths of the packages instrumented
	// (instrument.Result.Packages): a goroutine started from code of one
	// of them was not started by a dependency.
	Instrumented []string
	// RerunDeps is the -instrument-deps pattern of the dependencies the
	// second pass instrumented besides Options.Deps (DepsRerun), "" if
	// it did not run or failed: the goroutines those started, and their
	// calls into the standard library, are in the traces its findings
	// came from.
	RerunDeps string
	Stats     Stats
	// unforced are the IDs of the failures (kinds crash and test-failed)
	// that only runs with no order forced showed, the unperturbed
	// recorded run or CFP's cheap run: recording alone, whose slowdown
	// fails timing-dependent tests, which validation checks against runs
	// without recording (plainChecks).
	unforced map[string]bool
	// cheap are CFP's cheap runs (nil without CFP): a test that failed
	// there and was not recorded after it has its failure's plain runs
	// from the cheap run's binary (plainTarget).
	cheap *cheapRuns
	// vetHits are what one test's runs showed of the static candidates
	// (vetState.hits), in detectTest's own result until detect merges
	// them.
	vetHits []vetHit
}

// Stats sums what was recorded and analysed.
type Stats struct {
	Packages, Tests int
	Runs            int // recorded runs, all tests
	Skipped         int // runs not analysed: over DetectOptions.MaxGoroutines
	// Alone counts the runs whose every event one goroutine made: no
	// checker ran on them, none having two goroutines to compare.
	Alone int
	// NotRecorded counts the tests not run because Options.RecordBudget
	// or recording's share of Options.Deadline was spent; RecordStopped
	// those it stopped (record.Stopped), whose runs until then are
	// analysed. RecordLimit names the bound that was spent, as the
	// summary says it: "-record-budget" or "recording's share of
	// -deadline (5s)".
	NotRecorded, RecordStopped int
	RecordLimit                string
	// Stopped counts the runs whose analysis DetectOptions.MaxTraceTime
	// stopped before its end.
	Stopped int
	// Streamed counts the runs over DetectOptions.MaxTraceBytes that got
	// the streamed checkers (races.CheckStream, conmem.CheckStream) and
	// OSCS on the trace's first events alone.
	Streamed   int
	FailedRuns int // runs whose test failed, panicked, crashed or timed out
	// Targeted counts the runs forced by targeted perturbation, and
	// Reversed those that followed their order (the reversal happened).
	Targeted, Reversed int
	Events             int // events analysed
	Reports            int // findings reported before merging (one per test per finding)
	Record             time.Duration
	Detect             time.Duration
	// Validate is the time spent validating; Statuses counts the
	// findings by status after it.
	Validate time.Duration
	Statuses map[finding.Status]int
	// CFP is what CFP guidance selected; nil without Options.CFP.
	CFP *CFPStats
	// Vet counts the static candidates of Options.Checks by status,
	// after validation; nil without checks. VetIDs are their IDs.
	Vet    map[finding.Status]int
	VetIDs []string
}

// Duplication is the CFP paper's duplication rate: reports over unique
// findings of the runs (0 without findings).
func (r *Result) Duplication() float64 { return finding.Duplication(r.Runtime()) }

// Runtime returns the findings of the recorded runs: Findings without the
// static candidates of Options.Checks that are not runtime findings too
// (their Analyzer is set).
func (r *Result) Runtime() []finding.Finding {
	var out []finding.Finding
	for _, f := range r.Findings {
		if f.Analyzer == "" {
			out = append(out, f)
		}
	}
	return out
}

// Run instruments, records, detects and validates.
//
// Cancelled (an interrupt: precog test's SIGTERM, as a CI job's timeout
// sends) once detection has begun, Run returns the findings made so far
// together with ctx's cause, and a note says what was left out: a nightly
// job killed in its validation keeps what its detection found. With
// Options.Deadline, each stage gets its share of the time left
// (jobDeadline), and the run stops at the deadline as at an interrupt,
// whose cause is a *DeadlineError; an error before detection began is
// then that error.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Deadline <= 0 {
		return run(ctx, o, nil)
	}
	dl := newJobDeadline(o.Deadline, o.Validate != nil)
	dl.buildCap = o.buildCap
	ctx, cancel := context.WithDeadlineCause(ctx, dl.end, &DeadlineError{Deadline: o.Deadline})
	defer cancel()
	var mu sync.Mutex
	var stage string // the progress line last reported
	progress := o.Progress
	o.Progress = func(p Progress) {
		mu.Lock()
		stage = p.Line
		mu.Unlock()
		if progress != nil {
			progress(p)
		}
	}
	res, err := run(ctx, o, dl)
	if de := (*DeadlineError)(nil); err != nil && res == nil && errors.As(context.Cause(ctx), &de) {
		// What the deadline did to the go command running then
		// ("signal: killed") says less than the deadline, and the
		// stage it stopped says where the time went.
		mu.Lock()
		defer mu.Unlock()
		return nil, &DeadlineError{Deadline: de.Deadline, Stage: stage}
	}
	return res, err
}

func run(ctx context.Context, o Options, dl *jobDeadline) (*Result, error) {
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
	switch o.Perturb {
	case "":
		o.Perturb = Targeted
	case Targeted, Random, Off:
	default:
		return nil, fmt.Errorf("-perturb must be one of %s, got %q", strings.Join(PerturbModes, ", "), o.Perturb)
	}
	progress := newTracker(o.Progress)
	start := time.Now()
	progress.line("instrumenting")
	cfg := instrument.Config{
		Dir:        o.Dir,
		Patterns:   o.Patterns,
		BuildFlags: o.Flags.Build,
		All:        o.All,
		Funcs:      o.Funcs,
		Deps:       o.Deps,
		CacheDir:   o.CacheDir,
		Checks:     o.Checks,
		SkipBroken: true,
		Progress:   func(step string) { progress.line("instrumenting: " + step) },
	}
	if o.CFP {
		all := instrument.AllCFP
		cfg.CFP = &all
	}
	inst, err := instrument.Instrument(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if len(inst.Broken) > 0 {
		// The packages whose tests do not build are left out, as go
		// test leaves them out and runs the others.
		o.Patterns = inst.Tested
	}
	out := o.Out
	if out == "" {
		tmp, err := os.MkdirTemp("", "precog-test-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		out = tmp
	}
	// The test binaries are built before recording begins, so that
	// -deadline's shares are of the time left after the build (go-coap's
	// build took 22 of its job's 24 minutes at load 23-57, after which
	// the recording share, reckoned before it, outran the deadline and
	// the job ended with nothing); CFP's cheap and guided runs and
	// validation run them. They are linked in the link cache, and the
	// run's directory of them holds links to its binaries.
	cache, err := instrument.CacheDir(o.CacheDir)
	if err != nil {
		return nil, err
	}
	links := record.LinkDir(cache)
	binDir, err := record.TempBinDir(links, "precog-bin-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(binDir)
	j := &job{o: o, dl: dl, inst: inst, out: out, binDir: binDir, links: links, progress: progress}
	if len(o.Checks) > 0 {
		j.o.Detect.Static = candidates(inst.Static, &j.early)
		for _, f := range j.o.Detect.Static {
			j.vetIDs = append(j.vetIDs, f.ID)
		}
		for _, e := range inst.CheckErrors {
			j.early.Notes = append(j.early.Notes, "precog vet: "+e)
		}
	}
	if err := clearRepro(o); err != nil {
		return nil, err
	}
	res, cut, err := j.round(ctx, start)
	switch {
	case err == nil || res != nil:
		j.more = true
	case cut != nil && cut.Linked == 0 && context.Cause(ctx) == nil:
		// Nothing to record yet: the build goes on in the next round,
		// if there is one (a cold build cache: miekg/dns's module,
		// instrumented and built at load 17, linked none of its 33
		// test binaries in 5m37s, with 6.5 minutes of its 15 unused).
		res, err = &Result{Index: &record.Index{NotBuilt: cut.NotLinked}}, nil
	default:
		return nil, err
	}
	stopped := err
	cuts := []*record.BuildCutError{cut}
	for stopped == nil && len(res.Index.NotBuilt) > 0 && dl.roundLeft() {
		// The build's share ended with packages not linked, and the
		// stages after it left time: another round builds those (what
		// the last compiled is in the build cache) and records,
		// analyses and validates them with the time left (held-out 28:
		// cloudevents and miekg/dns ended five minutes early with 1
		// and 28 packages untested). A round that links none goes on
		// to the next, with half of what is left.
		round := time.Now()
		j.o.Patterns = res.Index.NotBuilt
		j.progress.carry(len(res.Findings), res.Stats.Statuses[finding.Confirmed])
		next, cut, err := j.round(ctx, round)
		if cut != nil {
			cuts = append(cuts, cut)
		}
		if next == nil {
			if stopped = context.Cause(ctx); stopped == nil && cut != nil && cut.Linked == 0 {
				continue // the build goes on in the next round
			}
			// Stopped, or failed: the rounds before stand, with
			// the packages still not built.
			if stopped == nil {
				res.Notes = append(res.Notes, fmt.Sprintf("round %d, for the %d %s whose test binaries were not linked, failed: %v", len(cuts)+1, len(j.o.Patterns), plural(len(j.o.Patterns), "package", "packages"), err))
				if !j.more {
					return nil, err
				}
			}
			break
		}
		if cut == nil {
			cuts = append(cuts, nil)
		}
		if j.more {
			res.add(next)
		} else {
			res = next // the first round that recorded
		}
		j.more = true
		stopped = err
	}
	if !j.more {
		// No round linked a test binary.
		if stopped != nil {
			return nil, stopped
		}
		return nil, fmt.Errorf("%s ended before any of the %d test binaries was linked (more -deadline, or fewer packages)", cutsName(cuts), cuts[0].Of)
	}
	res.Notes = append(slices.Concat(buildNotes(cuts, res.Index.NotBuilt), j.early.Notes), res.Notes...)
	res.InternalErrors = append(j.early.InternalErrors, res.InternalErrors...)
	if len(o.Checks) > 0 {
		res.Stats.Vet, res.Stats.VetIDs = res.vetCounts(j.vetIDs), j.vetIDs
	}
	res.Broken = inst.Broken
	res.Instrumented = inst.Packages
	for _, p := range res.Index.NotBuilt {
		res.NotBuilt = append(res.NotBuilt, fmt.Sprintf("package %s: its test binary was not linked within %s", p, cutsName(cuts)))
	}
	return res, stopped
}

// A job is what the rounds of one Run share: the instrumented build, the
// output directory and the directory of the test binaries.
type job struct {
	o           Options
	dl          *jobDeadline
	inst        *instrument.Result
	out, binDir string
	links       string // the link cache (record.Options.LinkDir)
	progress    *tracker
	early       Result // the checks' notes and internal errors
	vetIDs      []string
	more        bool // a second round: its recording adds to the first's
}

// round builds the tests of j.o.Patterns, records, analyses and
// validates them. cut is the build's, if its share of the deadline
// stopped it (nil otherwise). When the run is stopped after detection
// began, round returns what it found with the cause.
func (j *job) round(ctx context.Context, start time.Time) (res *Result, cut *record.BuildCutError, stopped error) {
	o, dl, inst, out, binDir, progress := j.o, j.dl, j.inst, j.out, j.binDir, j.progress
	progress.update(func(p *Progress) {
		// A later round's build: the last stage's budget is not its.
		p.Line, p.Deadline, p.Budget = "building the tests", time.Time{}, ""
	})
	var ix *record.Index
	var cfpStats *CFPStats
	ro := record.Options{
		BinDir:     binDir,
		LinkDir:    j.links,
		Dir:        o.Dir,
		Patterns:   o.Patterns,
		Out:        out,
		Append:     j.more,
		Flags:      o.Flags,
		Progress:   progress.recording,
		Only:       o.Only,
		TestLog:    o.TestLog,
		Runs:       o.Runs,
		Perturb:    record.Perturb{Seed: o.Seed, Off: o.Perturb == Off},
		Built:      func(n, of int) { progress.line(record.BuildingLine(n, of)) },
		TraceLimit: o.maxRecordBytes(),
		Parallel:   o.Parallel,
	}
	if o.Perturb == Targeted && o.Runs > 1 {
		sites, err := trace.LoadSites(inst.Sites)
		if err != nil {
			return nil, nil, fmt.Errorf("reading the site table: %w", err)
		}
		ro.Forced = targetedPlans(o.Runs, sites, o.Detect)
		ro.ForcedBudget = cmp.Or(o.TargetedBudget, DefaultTargetedBudget)
	}
	recordLimit := "-record-budget"
	d := o.recordBudget()
	var cheap *cheapRuns
	var notes []string
	if dl != nil {
		ro.BuildLimit = dl.build()
	}
	err := record.Build(ctx, ro, &record.Instrumented{BuildFlags: inst.BuildFlags, Sites: inst.Sites, Marks: inst.Marks, MarkTests: inst.MarkTests})
	if errors.As(err, &cut) {
		if cut.Linked == 0 {
			return nil, cut, err
		}
		err = nil
	}
	ro.Reuse = true
	var grace time.Duration // record.StopGrace, but for a short share of -deadline
	if err == nil && dl != nil {
		if share, g := dl.recording(); d <= 0 || share < d {
			d, grace, recordLimit = share, g, shareName("recording", share)
		}
	}
	var extended atomic.Int64 // the time More gave recording past its share
	if d > 0 {
		ro.Budget = &record.Budget{Limit: d, Grace: grace, Name: recordLimit}
		if dl != nil && recordLimit != "-record-budget" {
			// Recording's share of -deadline, not the user's
			// -record-budget: what the stages after it are not
			// reckoned to need goes to the tests not yet run.
			bound := o.recordBudget() // -record-budget still bounds the whole
			ro.Budget.More = func(events int, late time.Duration) time.Duration {
				m := dl.more(events, cmp.Or(grace, record.StopGrace))
				if bound > 0 {
					m = min(m, bound-d-time.Duration(extended.Load())-late)
				}
				if m > 0 {
					// The end moves from where it was, and
					// recording ran on past it meanwhile.
					extended.Add(int64(late + m))
				}
				return m
			}
		}
	}
	switch {
	case err != nil:
	case o.CFP:
		var cheapDir string
		if cheapDir, err = os.MkdirTemp("", "precog-cfp-cheap-"); err != nil {
			return nil, cut, err
		}
		defer os.RemoveAll(cheapDir)
		ix, cfpStats, cheap, err = recordGuided(ctx, o, inst, ro, cheapDir, progress)
	default:
		ix, err = record.Run(ctx, ro, &record.Instrumented{BuildFlags: inst.BuildFlags, Sites: inst.Sites, Marks: inst.Marks, MarkTests: inst.MarkTests})
	}
	if ie := (*record.InterruptedError)(nil); o.Out == "" && errors.As(err, &ie) {
		ie.Out = "" // the temporary directory goes
	}
	if errors.Is(err, record.ErrNoTests) && len(inst.Broken) > 0 && !j.more {
		// Every package with tests was left out, since they do not
		// build: naming the packages left, which have no test files,
		// would hide why nothing was tested (go test says "setup
		// failed" for each of the others).
		return &Result{Index: &record.Index{}, Stats: Stats{Record: time.Since(start)}}, cut, nil
	}
	if err != nil {
		return nil, cut, err
	}
	recorded := time.Since(start)
	tot := ix.Totals()
	progress.update(func(p *Progress) {
		p.Line, p.Done, p.Total, p.Events = "detecting", tot.Tests, tot.Tests, tot.Events
		p.Deadline, p.Budget = time.Time{}, "" // the recording's
	})
	o.Detect.temporary = o.Out == ""
	if dl != nil {
		o.Detect.share = dl.detection()
	}
	res, err = detect(ctx, out, ix, o.Detect, cheap, progress)
	if err != nil {
		return nil, cut, err
	}
	stopped = context.Cause(ctx)
	if cheap != nil {
		notes = append(notes, cheap.notes...)
	}
	if stopped := stoppedTests(ix); ix.NotRun > 0 || stopped > 0 {
		res.Stats.NotRecorded, res.Stats.RecordStopped, res.Stats.RecordLimit = ix.NotRun, stopped, recordLimit
		limit := ro.Budget.Limit
		if e := time.Duration(extended.Load()); e > 0 {
			// The share, and the time the stages after it were
			// not reckoned to need (jobDeadline.more).
			limit += e
			recordLimit += fmt.Sprintf(" and %v more", e)
			res.Stats.RecordLimit = recordLimit
		}
		note := fmt.Sprintf("recording stopped after %v (%s) with %d %s not run, %d recorded", limit, recordLimit, ix.NotRun, plural(ix.NotRun, "test", "tests"), tot.Tests)
		if ix.NotRun == 0 {
			// Every test started: nothing to raise a bound for.
			note = fmt.Sprintf("recording's bound of %v (%s) was reached with every test started, %d recorded", limit, recordLimit, tot.Tests)
		}
		if stopped > 0 {
			note += fmt.Sprintf(" (%d of them still running %v after it, stopped as -timeout stops a test and analysed up to there: a note each says where)", stopped, record.StopGrace)
		}
		raise := "raise -record-budget"
		if recordLimit != "-record-budget" {
			raise = "a later -deadline"
		}
		if ix.NotRun > 0 {
			note += "; those not run are not analysed (" + raise + " to record them)"
		}
		if j.more {
			note = "the second round's " + note
		}
		notes = append(notes, note)
	}
	res.Notes = append(notes, res.Notes...)
	res.Stats.Record = recorded
	res.Stats.CFP = cfpStats
	var passes []*depsPass
	if o.DepsRerun && stopped == nil {
		passStart := time.Now()
		passes = j.rerunDeps(ctx, res, ix, recorded)
		if len(passes) > 0 {
			res.Stats.Record += time.Since(passStart)
		}
		for _, pass := range passes {
			res.Stats.Detect += pass.res.Stats.Detect
			res.Stats.Record -= pass.res.Stats.Detect
		}
		stopped = context.Cause(ctx)
	}
	if o.Validate != nil && stopped == nil {
		if dl != nil {
			if share := dl.validation(); o.Validate.Budget <= 0 || share < o.Validate.Budget {
				vo := *o.Validate
				vo.Budget, vo.budgetName = share, shareName("validation", share)
				o.Validate = &vo
			}
		}
		validating := time.Now()
		if err := validateAll(ctx, o, out, binDir, res, progress); err != nil {
			return nil, cut, err
		}
		stopped = context.Cause(ctx)
		for _, pass := range passes {
			if stopped != nil || len(pass.res.Findings) == 0 {
				continue
			}
			// The second pass's findings, with its build's binaries
			// and site table, in what is left of the budget.
			vo := *o.Validate
			if vo.Budget > 0 {
				vo.Budget = max(vo.Budget-time.Since(validating), time.Millisecond)
			}
			pass.o.Validate = &vo
			if err := validateAll(ctx, pass.o, pass.out, pass.binDir, pass.res, progress); err != nil {
				return nil, cut, err
			}
			stopped = context.Cause(ctx)
		}
		if stopped != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("%v during validation: the findings it had not finished are timed out", stopped))
		}
	}
	for _, pass := range passes {
		res.takePass(pass.res)
	}
	res.Unlisted = ix.Unlisted
	return res, cut, stopped
}

// stoppedTests counts the tests of ix that the recording budget stopped
// in one of their runs.
func stoppedTests(ix *record.Index) int {
	n := 0
	for _, p := range ix.Packages {
		for _, t := range p.Tests {
			if t.Outcome == record.Stopped || slices.ContainsFunc(t.Runs, func(r *record.Perturbed) bool { return r.Outcome == record.Stopped }) {
				n++
			}
		}
	}
	return n
}

// only applies Options.Only.
func (o *Options) only(pkg string, tests []string) []string {
	if o.Only == nil {
		return tests
	}
	return o.Only(pkg, tests)
}

// Detect runs the checkers over the recording in dir that ix describes.
func Detect(ctx context.Context, dir string, ix *record.Index, o DetectOptions) (*Result, error) {
	return detect(ctx, dir, ix, o, nil, nil)
}

// detect is Detect, with the failures of CFP's cheap runs (cheap, nil
// without CFP) and the progress of precog test.
func detect(ctx context.Context, dir string, ix *record.Index, o DetectOptions, cheap *cheapRuns, progress *tracker) (*Result, error) {
	start := time.Now()
	ids := make(map[string]bool) // the findings so far, for progress
	sites, err := trace.LoadSites(filepath.Join(dir, filepath.FromSlash(ix.Sites)))
	if err != nil {
		return nil, fmt.Errorf("reading the site table: %w", err)
	}
	res := &Result{Index: ix, unforced: make(map[string]bool)}
	forced := make(map[string]bool) // failures a perturbed run showed
	if o.cut == nil {
		o.cut = startCut(o.share)
		defer o.cut.stop()
	}
	whole := &overBudget{clock: o.detectClock(), tests: make(map[string]bool)}
	user := userFiles(sites, ix)
	cheap.keepHangs(user)
	var vet *vetState
	if len(o.Static) > 0 {
		vet = newVetState(o.Static)
	}
	var all []finding.Finding
	order := detectionOrder(ix, o.maxTraceBytes())
	total := len(order)
	o.interrupted = new(atomic.Bool)
	defer context.AfterFunc(ctx, func() { o.interrupted.Store(true) })()
	// The packages analysed: those without a recorded test (nothing to
	// analyse) and those whose first test detection began.
	begun := make(map[*record.Package]bool)
	for _, p := range ix.Packages {
		if len(p.Tests) == 0 {
			res.Stats.Packages++
		}
	}
	for _, pt := range order {
		p, t := pt.p, pt.t
		if err := context.Cause(ctx); err != nil {
			// Interrupted: what was found so far is the result
			// (Run), and the note says what it is not.
			res.Notes = append(res.Notes, fmt.Sprintf("%v during detection: %d of the %d recorded tests analysed, the others not; no finding validated", err, res.Stats.Tests, total))
			break
		}
		if !begun[p] {
			begun[p] = true
			res.Stats.Packages++
		}
		res.Stats.Tests++
		progress.line(detectingLine(res.Stats.Tests, total, p.ImportPath, t, o.maxTraceBytes()))
		name := p.ImportPath + "." + t.Name
		runs := []runFile{{n: 0, trace: t.Trace, log: t.Log, outcome: t.Outcome, broken: t.Broken}}
		for _, r := range t.Runs {
			runs = append(runs, runFile{n: r.N, trace: r.Trace, log: r.Log, outcome: r.Outcome, broken: r.Broken, forced: r.Forced, plan: r.Plan})
		}
		c, cheapFailed := cheap.failure(name)
		tf := testFiles{dir: dir, name: name, importPath: p.ImportPath, pkgDir: p.Dir, user: user, vet: vet, budget: whole}
		if cheapFailed {
			tf.cheap = c.outcome
		}
		fs, err, abandoned := detectAbandonable(ctx, tf, runs, sites, o, res, forced)
		if abandoned && ctx.Err() == nil {
			// At the end of detection's share of the deadline:
			// the tests after it are counted as not analysed by a
			// budget of their own, since the abandoned analysis
			// still counts in whole.
			res.Notes = append(res.Notes, fmt.Sprintf("%s: its analysis abandoned at the end of %v (an in-memory checker had not stopped %v after it); the findings of its runs are missed",
				name, o.cut, abandonGrace))
			whole = &overBudget{clock: o.detectClock(), tests: make(map[string]bool)}
			continue
		}
		if abandoned {
			// The test's analysis goes on, on its own goroutine,
			// touching only its own state and whole's, until the
			// process exits; vet keeps what the tests before it
			// showed (vetState.hits).
			res.Notes = append(res.Notes, fmt.Sprintf("%v during detection: %d of the %d recorded tests analysed, the analysis of %s abandoned (an in-memory checker had not stopped %v after it), the others not analysed; no finding validated",
				context.Cause(ctx), res.Stats.Tests-1, total, name, abandonGrace))
			whole = nil
			break
		}
		if err != nil {
			return nil, err
		}
		if cheapFailed && !slices.ContainsFunc(runs, func(r runFile) bool {
			return r.outcome.Failed() || c.outcome == record.Stopped && r.outcome == record.Stopped
		}) {
			// Only the cheap run failed: its failure is the
			// finding, which the recorded runs could not show. (A
			// cheap run's hang where a recorded run was stopped
			// too is that run's to tell: failureOf.)
			if crash := c.finding(name, "CFP's cheap run (the recorded run passed)", user); crash != nil {
				fs = append(fs, *crash)
				res.unforced[crash.ID] = true
			}
		}
		all = append(all, fs...)
		for _, f := range fs {
			ids[f.ID] = true
		}
		progress.update(func(p *Progress) { p.Findings = progress.earlier.findings + len(ids) })
	}
	if cheap != nil {
		// A test that failed in its cheap run and was not recorded
		// after it (-record-budget) has only that run to say so.
		recorded := make(map[string]bool)
		for _, p := range ix.Packages {
			for _, t := range p.Tests {
				recorded[p.ImportPath+"."+t.Name] = true
			}
		}
		for _, name := range slices.Sorted(maps.Keys(cheap.failed)) {
			if recorded[name] {
				continue
			}
			c := cheap.failed[name]
			crash := c.finding(name, "CFP's cheap run (not recorded after it: -record-budget)", user)
			if crash == nil {
				res.Notes = append(res.Notes, fmt.Sprintf("%s: %s in CFP's cheap run, not recorded after it", name, c.outcome))
				continue
			}
			all = append(all, *crash)
			res.unforced[crash.ID] = true
		}
		res.cheap = cheap
	}
	for id := range forced {
		delete(res.unforced, id)
	}
	if whole != nil && len(whole.tests) > 0 {
		res.Notes = append(res.Notes, whole.note(len(whole.tests), total))
	}
	res.Stats.Reports = len(all)
	res.Findings = finding.Merge(all)
	if vet != nil {
		// A static candidate that is a runtime finding too is that
		// finding; the others join the findings as they are.
		have := make(map[string]int)
		for i, f := range res.Findings {
			have[f.ID] = i
		}
		for _, f := range vet.findings(sites) {
			if i, ok := have[f.ID]; ok {
				n := &res.Findings[i].Evidence.Notes
				*n = append(*n, "precog vet's "+f.Analyzer+" check reports it too")
				continue
			}
			res.Findings = append(res.Findings, f)
		}
		slices.SortFunc(res.Findings, finding.Compare)
	}
	res.Stats.Detect = time.Since(start)
	return res, nil
}

// abandonGrace is how long an interrupted detection waits for the test
// being analysed before it abandons that test's analysis: a checker that
// has begun on a trace held in memory runs to its end (only the streamed
// race check and the checkers not begun stop at the interrupt), which can
// take minutes, and precog exits cli.StopBound (10 s) after the signal:
// the findings made so far must be written before then (paho's whole
// module, interrupted in one test's analysis, left nothing).
const abandonGrace = 3 * time.Second

// detectAbandonable is detectTest, run on its own goroutine with state of
// its own that is added to res and forced when it returns, so that when
// ctx is cancelled, or detection's share of the deadline ends (o.cut),
// and the test's analysis does not end within
// abandonGrace it can be abandoned (abandoned is true): it then goes on
// until the process exits, touching only its own state and tf's vet and
// budget, which the caller must not use after.
func detectAbandonable(ctx context.Context, tf testFiles, runs []runFile, sites *trace.SiteTable, o DetectOptions, res *Result, forced map[string]bool) (fs []finding.Finding, err error, abandoned bool) {
	type result struct {
		fs     []finding.Finding
		err    error
		own    *Result
		forced map[string]bool
	}
	done := make(chan result, 1)
	go func() {
		r := result{own: &Result{unforced: make(map[string]bool)}, forced: make(map[string]bool)}
		r.fs, r.err = detectTest(tf, runs, sites, o, r.own, r.forced)
		if o.analysed != nil {
			o.analysed(tf.name)
		}
		done <- r
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
	case <-o.cut.ended():
	}
	if r.own == nil {
		select {
		case r = <-done:
		case <-time.After(abandonGrace):
			return nil, nil, true
		}
	}
	if r.err != nil {
		return nil, r.err, false
	}
	if tf.vet != nil {
		tf.vet.merge(r.own.vetHits)
	}
	res.Stats.add(r.own.Stats)
	res.Notes = append(res.Notes, r.own.Notes...)
	res.InternalErrors = append(res.InternalErrors, r.own.InternalErrors...)
	maps.Copy(res.unforced, r.own.unforced)
	maps.Copy(forced, r.forced)
	return r.fs, nil, false
}

// add adds the counts of one test's detection (detectTest) to s.
func (s *Stats) add(t Stats) {
	s.Runs += t.Runs
	s.Skipped += t.Skipped
	s.Alone += t.Alone
	s.Stopped += t.Stopped
	s.Streamed += t.Streamed
	s.FailedRuns += t.FailedRuns
	s.Targeted += t.Targeted
	s.Reversed += t.Reversed
	s.Events += t.Events
}

// A packageTest is a test of a recording and its package.
type packageTest struct {
	p *record.Package
	t *record.Test
}

// detectionOrder returns the tests of ix in the order detection analyses
// them: the recording's, but with the tests that have a trace over
// maxBytes (-max-trace) after all the others. Such a trace gets the race
// check alone, streamed, which can take minutes on one run; first, it
// would spend a share of -deadline or -detect-budget that the other tests
// then lack (jaeger-client-go: one 172 MiB trace took detection's whole
// share, and 51 of 66 runs were not analysed).
func detectionOrder(ix *record.Index, maxBytes int64) []packageTest {
	var within, over []packageTest
	for _, p := range ix.Packages {
		for _, t := range p.Tests {
			if overMaxTrace(t, maxBytes) {
				over = append(over, packageTest{p, t})
			} else {
				within = append(within, packageTest{p, t})
			}
		}
	}
	return append(within, over...)
}

// largestTrace is the size of t's largest trace, of its recorded run and
// its perturbed runs.
func largestTrace(t *record.Test) int64 {
	size := t.Bytes
	for _, r := range t.Runs {
		size = max(size, r.Bytes)
	}
	return size
}

// overMaxTrace reports whether a trace of t is over maxBytes (-max-trace;
// no limit if not positive), in bytes or in events (TraceEventBytes), by
// the sizes and counts of the recording's index.
func overMaxTrace(t *record.Test, maxBytes int64) bool {
	if maxBytes <= 0 {
		return false
	}
	over := func(bytes int64, events int) bool {
		return bytes > maxBytes || int64(events) > maxBytes/TraceEventBytes
	}
	return over(t.Bytes, t.Events) || slices.ContainsFunc(t.Runs, func(r *record.Perturbed) bool { return over(r.Bytes, r.Events) })
}

// detectingLine is the progress line of detection in test t, the n-th of
// the of tests of the recording: a trace over -max-trace gets the streamed checkers and OSCS on
// its first events alone, and can take minutes (smux's 185 MiB TestParallel: 95 s of CPU), so the
// line says so.
func detectingLine(n, of int, pkg string, t *record.Test, maxBytes int64) string {
	line := fmt.Sprintf("detecting [%d/%d] %s %s", n, of, pkg, t.Name)
	if overMaxTrace(t, maxBytes) {
		line += fmt.Sprintf(" (a trace of %.1f MiB, over -max-trace: race check and ConMem streamed, OSCS on its first events)", float64(largestTrace(t))/(1<<20))
	}
	return line
}

// A runFile is one recorded run of a test.
type runFile struct {
	n       int
	trace   string // relative to the recording's directory; "" if none
	log     string // its output, relative to the recording's directory
	outcome record.Outcome
	broken  string
	forced  string // record.Perturbed.Forced
	plan    string // its plan, relative to the recording's directory
	where   string // what run it is, for a failure's reason ("" : from n)
}

// testFiles says where one test's recording is and whose it is.
type testFiles struct {
	dir        string // the recording's directory
	name       string // importpath.TestName
	importPath string
	pkgDir     string
	user       func(file string) bool // see failureOf
	vet        *vetState              // the static candidates, or nil
	budget     *overBudget            // DetectOptions.Budget's clock
	cheap      record.Outcome         // how it failed in CFP's cheap run; "" if it did not
}

// detectTest checks the runs of one test and returns its findings, one
// report each, with Tests set to the test. A run that failed is a finding
// of its own (failureOf), unless a finding predicted from its trace is at
// the site of the crash: then that one is confirmed by it. Such a
// finding's ID goes into res.unforced if the run was the unperturbed one,
// into forced if it was perturbed.
func detectTest(tf testFiles, runs []runFile, sites *trace.SiteTable, o DetectOptions, res *Result, forced map[string]bool) ([]finding.Finding, error) {
	dir, name := tf.dir, tf.name
	var fs []finding.Finding
	tc := testChecks{opts: o, ranked: len(runs) > 1, vet: tf.vet, gcPercent: -1, budget: tf.budget, test: name}
	defer tc.restoreGC()
	for _, r := range runs {
		if r.forced != "" {
			res.Stats.Targeted++
			if strings.HasPrefix(r.forced, plan.Confirmed) {
				res.Stats.Reversed++
			}
		}
		if r.forced != "" && !strings.HasPrefix(r.forced, plan.Confirmed) && r.outcome.Failed() {
			// The shim held a goroutine back until a wait gave up: the
			// failure may be the wait's, and the reversal did not
			// happen.
			res.Notes = append(res.Notes, fmt.Sprintf("%s (run %d): %s with the targeted order not followed (%s); not analysed", name, r.n, r.outcome, r.forced))
			continue
		}
		res.Stats.Runs++
		if r.outcome.Failed() {
			res.Stats.FailedRuns++
		}
		what := name
		if len(runs) > 1 {
			what = fmt.Sprintf("%s (run %d)", name, r.n)
		}
		crash, fl := failureOf(dir, name, r, tf.pkgDir, tf.user)
		if crash != nil && r.n == 0 {
			crash.Repro = goTestRepro(tf.importPath, name[len(tf.importPath)+1:])
		}
		found, evs, err := tc.analyse(dir, what, r, sites, o, res)
		if err != nil {
			return nil, err
		}
		if tc.reached != nil {
			res.vetHits = append(res.vetHits, tf.vet.hits(tc.reached, name, r.n, evs)...)
			tc.reached = nil
		}
		var pts []plan.Point
		for i := range found {
			for j := range found[i].Witnesses {
				w := &found[i].Witnesses[j]
				w.Test, w.Run = name, r.n
				if pts == nil {
					pts = control.Points(evs)
				}
				control.NameLocks(evs, pts, w)
			}
		}
		if crash != nil && len(found) > 0 && pts == nil {
			pts = control.Points(evs)
		}
		if crash != nil && (crash.Status != finding.Confirmed || !absorb(found, crash, fl, evs, pts)) {
			fs = append(fs, *crash)
			if r.n == 0 {
				res.unforced[crash.ID] = true
			} else {
				forced[crash.ID] = true
			}
		}
		fs = append(fs, found...)
	}
	for _, f := range tc.end(name, sites) {
		for j := range f.Witnesses {
			f.Witnesses[j].Test = name
		}
		fs = append(fs, f)
	}
	res.InternalErrors = append(res.InternalErrors, tc.internal...)
	res.Stats.Stopped += tc.stopped
	res.Notes = append(res.Notes, tc.notes...)
	res.Notes = append(res.Notes, failureNote(name, runs, tf.cheap)...)
	for _, r := range runs {
		if r.outcome == record.Stopped {
			res.Notes = append(res.Notes, stopNote(dir, name, r, tf.user, !o.temporary))
		}
	}
	// One report per test: merge the runs' reports of the same bug.
	fs = finding.Merge(fs)
	for i := range fs {
		fs[i].Tests = []string{name}
		fs[i].Reports = 1
		if fs[i].Status == "" {
			fs[i].Status = finding.Predicted // no run has confirmed it
		}
	}
	return fs, nil
}

// analyse reads the trace of run r and returns what the per-run checkers
// found in it; nothing, with a note, for a run without a trace or over the
// limits.
func (tc *testChecks) analyse(dir, what string, r runFile, sites *trace.SiteTable, o DetectOptions, res *Result) ([]finding.Finding, []trace.Event, error) {
	if r.trace == "" {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %s; nothing to analyse", what, r.broken))
		return nil, nil, nil
	}
	if tc.budget.spent(tc.test) {
		res.Stats.Skipped++
		return nil, nil, nil
	}
	path := filepath.Join(dir, filepath.FromSlash(r.trace))
	clock := o.clock()
	streamed := func(size int64) ([]finding.Finding, []trace.Event, error) {
		run := streamedRun{failed: r.outcome.Failed(), ran: rankedRun{n: r.n, trace: path}}
		if strings.HasPrefix(r.forced, plan.Confirmed) {
			run.plan = filepath.Join(dir, filepath.FromSlash(r.plan))
		}
		fs, err := tc.stream(what, path, size, o.maxTraceBytes(), sites, run, o, clock, res)
		return fs, nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	if max := o.maxTraceBytes(); max > 0 && fi.Size() > max {
		return streamed(fi.Size())
	}
	evs, err := readTrace(path, o.maxTraceEvents())
	if errors.Is(err, errTooManyEvents) {
		return streamed(fi.Size())
	}
	if err != nil && !errors.Is(err, trace.ErrBroken) {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	if n, max := goroutines(evs), o.maxGoroutines(); max > 0 && n > max {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %d goroutines, over the limit of %d (-max-goroutines); not analysed", what, n, max))
		res.Stats.Skipped++
		return nil, nil, nil
	}
	if errors.Is(err, trace.ErrLimited) {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %s; analysed the %d events recorded before it", what, limitedNote, len(evs)))
	} else if err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %v; analysed the %d events before the damage", what, err, len(evs)))
	}
	res.Stats.Events += len(evs)
	if !tc.ranked && tc.vet == nil && oneGoroutine(evs) {
		// Every event is one goroutine's, and every checker looks
		// for two goroutines' doings (a race, an atomicity or order
		// violation, a log after the test's end): none has anything
		// to find. serf's TestPerformance_* tests recorded 2.3 to 6.2
		// million events each on the test's goroutine alone, whose
		// analysis took 14 of its 25 minutes (heldout15). A test with
		// several runs (Unicorn counts every run) or static candidates
		// (-vet: which of their sites ran) is analysed as usual.
		res.Stats.Alone++
		return nil, evs, nil
	}
	tc.lowGC(len(evs))
	var forced [][2]int
	if strings.HasPrefix(r.forced, plan.Confirmed) {
		forced = forcedOrders(filepath.Join(dir, filepath.FromSlash(r.plan)), evs)
	}
	fs := tc.run(what, evs, sites, r.outcome.Failed(), rankedRun{n: r.n, trace: path}, forced, clock)
	noteUnseenCloses(evs, sites, fs)
	return fs, evs, nil
}

// stream runs the checkers that can walk a trace without holding it on
// the trace at path, which is over the limit of limit bytes: the data race
// checker (races.CheckStream) with the test lifetime check on its walk
// (conmem.TestLifetimeStream; with NoRaces, on a walk of its own), then
// ConMem's con-null, con-uninit, con-closed, con-index and con-map
// (conmem.CheckStream), each walk in memory bounded by the trace's
// goroutines, sync objects and locations, not its length, against clock
// (a walk gets what the one before it left). Their findings' witnesses
// are already named as control points, with their Locks. Then OSCS, and
// Unicorn for a ranked test, run on the first events that fit in limit
// (prefix; run is what Unicorn takes of the run). The note says which
// checkers the run got and what each walk withheld or dropped, and where
// it stopped if the goroutine or time limit stopped it.
func (tc *testChecks) stream(what, path string, n, limit int64, sites *trace.SiteTable, run streamedRun, o DetectOptions, clock *traceClock, res *Result) ([]finding.Finding, error) {
	var fs []finding.Finding
	var ran, notes []string
	var late bool // a walk stopped at the time limit: the walks after it do not run
	events, total, limited, timedOut := 0, 0, false, false
	// walk runs one streamed checker: guard names it for an internal
	// error, checker in the notes, checks what it checks in the list of
	// what ran.
	walk := func(guard, checker, checks string, check func(next func() (trace.Event, error)) ([]finding.Finding, error)) error {
		if late {
			notes = append(notes, checker+" did not run")
			return nil
		}
		p, err := tc.streamPass(what, guard, checker, path, n, o, clock, check)
		if err != nil {
			return err
		}
		fs = append(fs, p.found...)
		ran = append(ran, checks)
		events, total = max(events, p.events), p.total
		notes = append(notes, p.notes...)
		limited = limited || p.limited
		timedOut = timedOut || p.timedOut
		late = p.late
		return nil
	}
	lifeNote := func(n int) {
		if n > 0 {
			notes = append(notes, fmt.Sprintf("the test lifetime check withheld %d %s (a goroutine's order waited on a channel or atomic match more than %d events later)",
				n, plural(n, "finding", "findings"), window(o.Races.Window)))
		}
	}
	if o.NoRaces {
		var lst conmem.StreamStats
		err := walk("conmem", "the test lifetime check", "the test lifetime check", func(next func() (trace.Event, error)) ([]finding.Finding, error) {
			found, err := conmem.CheckTestLifetimeStream(next, sites, o.Races.Window, &lst)
			lifeNote(lst.Withheld)
			return found, err
		})
		if err != nil {
			return nil, err
		}
	} else {
		var st races.Stats
		ro := o.Races
		ro.Stats = &st
		life := conmem.NewTestLifetimeStream(sites)
		ro.Visit = life.Visit
		err := walk("races", "the data race checker", "the data race checker and the test lifetime check", func(next func() (trace.Event, error)) ([]finding.Finding, error) {
			found, err := races.CheckStream(next, sites, ro)
			found = append(found, life.Findings()...)
			lifeNote(life.Withheld())
			if st.Withheld > 0 {
				notes = append(notes, fmt.Sprintf("the races found at %d accesses were withheld (their goroutine's order waited on a channel or atomic match more than %d events later)",
					st.Withheld, window(ro.Window)))
			}
			if st.LocationsDropped > 0 {
				notes = append(notes, fmt.Sprintf("%d locations dropped past %d (races with their accesses missed)", st.LocationsDropped, maxLocations(ro)))
			}
			return found, err
		})
		if err != nil {
			return nil, err
		}
		if o.Races.Stats != nil {
			o.Races.Stats.Dropped += st.Dropped
			o.Races.Stats.Events += st.Events
			o.Races.Stats.Withheld += st.Withheld
			o.Races.Stats.LocationsDropped += st.LocationsDropped
		}
	}
	var cst conmem.StreamStats
	co := conmem.StreamOptions{Window: o.Races.Window, Stats: &cst}
	err := walk("conmem", "ConMem", "ConMem's con-null, con-uninit, con-closed, con-index and con-map", func(next func() (trace.Event, error)) ([]finding.Finding, error) {
		found, err := conmem.CheckStream(next, sites, co)
		if cst.Withheld > 0 {
			notes = append(notes, fmt.Sprintf("ConMem withheld %d %s (a goroutine's order waited on a channel or atomic match more than %d events later)",
				cst.Withheld, plural(cst.Withheld, "finding", "findings"), window(co.Window)))
		}
		if cst.LocationsDropped > 0 {
			notes = append(notes, fmt.Sprintf("ConMem dropped %d locations past %d (its findings with their accesses missed)", cst.LocationsDropped, conmem.DefaultMaxLocations))
		}
		if cst.UninitUnchecked > 0 {
			notes = append(notes, fmt.Sprintf("con-uninit did not decide %d %s (their location had more initializing goroutines or undecided reads than it keeps; findings there are missed)",
				cst.UninitUnchecked, plural(cst.UninitUnchecked, "read", "reads")))
		}
		return found, err
	})
	if err != nil {
		return nil, err
	}
	ranOSCS := "OSCS did not run"
	// ranUnicorn is what Unicorn did, for the note of a ranked test.
	ranUnicorn := "Unicorn did not"
	if !late {
		p, err := tc.streamPass(what, "oscs", "OSCS", path, n, o, clock, func(next func() (trace.Event, error)) ([]finding.Finding, error) {
			found, ran, err := tc.prefix(what, next, prefixLen(total, n, limit), sites, run, clock)
			if ran {
				ranUnicorn = "Unicorn collected its patterns on the same events (one after them is unknown to the ranking, which takes the lowest score this run allows, lacking it if failed, having it if passed, and reports only a top no pattern the runs showed could outrank)"
			}
			return found, err
		})
		if err != nil {
			return nil, err
		}
		fs = append(fs, p.found...)
		notes = append(notes, p.notes...)
		timedOut = timedOut || p.timedOut
		ranOSCS = fmt.Sprintf("OSCS ran on the first %d events (%d%%: the part of the trace -max-trace holds in memory; its findings after them missed)", p.events, percent(p.events, total))
		if tc.ranked && !p.late && clock.over() {
			// The time ran out after OSCS: Unicorn did not begin.
			ranUnicorn = "Unicorn did not run, " + stoppedBy(clock)
			timedOut = timedOut || !clock.interrupted() && !clock.cut.reached()
		}
	}
	if tc.ranked {
		ranOSCS += "; " + ranUnicorn
	}
	res.Stats.Events += events
	res.Stats.Streamed++
	if timedOut {
		res.Stats.Stopped++
	}
	over := fmt.Sprintf("trace of %s is over the limit of %s (-max-trace)", size(n), size(limit))
	if n <= limit {
		over = fmt.Sprintf("trace of %s has %d events, over the %d that the limit of %s (-max-trace) holds in memory at %d bytes an event",
			size(n), total, limit/TraceEventBytes, size(limit), TraceEventBytes)
	}
	note := fmt.Sprintf("%s: %s: %s ran, streamed (%d events); %s",
		what, over, strings.Join(ran, ", then "), events, ranOSCS)
	for _, x := range notes {
		note += "; " + x
	}
	if limited {
		// Said whether or not the stream reached the stop.
		note += "; " + limitedNote
	}
	res.Notes = append(res.Notes, note)
	return fs, nil
}

// stoppedBy says what stopped an analysis when clock is over.
func stoppedBy(clock *traceClock) string {
	switch {
	case clock.interrupted():
		return "stopped by the interrupt"
	case clock.cut.reached():
		return fmt.Sprintf("stopped at the end of %v", clock.cut)
	}
	return fmt.Sprintf("stopped after %v (-max-trace-time; a larger one, or 0, runs it)", clock.limit)
}

// A streamPass is what one streamed walk of a trace did.
type streamPass struct {
	found  []finding.Finding
	events int      // events read
	total  int      // events in the trace
	notes  []string // where it stopped, and why
	over   bool     // stopped at -max-goroutines (the next walk stops there too)
	late   bool     // stopped at the time limit, the interrupt or the cut
	// timedOut is late at -max-trace-time (not the interrupt or the cut).
	timedOut bool
	limited  bool // the trace ends at -max-record
}

// streamPass walks the trace at path with check, a streamed checker,
// which reads its events through next: next stops the walk at the
// goroutine past -max-goroutines (the findings of a prefix are findings
// of the whole run) and when clock says the time is spent.
func (tc *testChecks) streamPass(what, guard, checker, path string, n int64, o DetectOptions, clock *traceClock,
	check func(next func() (trace.Event, error)) ([]finding.Finding, error)) (streamPass, error) {
	var p streamPass
	f, err := os.Open(path)
	if err != nil {
		return p, fmt.Errorf("%s: %w", what, err)
	}
	defer f.Close()
	rd, err := trace.NewOrderedReader(f, n)
	if err != nil {
		return p, fmt.Errorf("%s: %w", what, err)
	}
	p.total = rd.Len()
	began, maxG := 0, o.maxGoroutines()
	next := func() (trace.Event, error) {
		if clock.tick() {
			return trace.Event{}, errOverTime
		}
		ev, err := rd.Next()
		if err == nil {
			p.events++
			if ev.Kind == trace.EvBegin {
				if began++; maxG > 0 && began > maxG {
					return ev, errOverGoroutines
				}
			}
		}
		return ev, err
	}
	var broken error
	tc.guard(guard, what, func() { p.found, broken = check(next) })
	p.over = errors.Is(broken, errOverGoroutines)
	p.late = errors.Is(broken, errOverTime)
	if p.over || p.late {
		broken = nil
	}
	if broken != nil && !errors.Is(broken, trace.ErrBroken) {
		return p, fmt.Errorf("%s: %w", what, broken)
	}
	read := p.events
	switch {
	case p.over:
		p.notes = append(p.notes, fmt.Sprintf("%s stopped at goroutine %d, over the limit of %d (-max-goroutines): findings after it missed", checker, began, maxG))
	case p.late && clock.interrupted():
		p.notes = append(p.notes, fmt.Sprintf("%s stopped by the interrupt at event %d of %d (%d%%)", checker, read, rd.Len(), percent(read, rd.Len())))
	case p.late && clock.cut.reached():
		p.notes = append(p.notes, fmt.Sprintf("%s stopped at the end of %v at event %d of %d (%d%%): findings after it missed", checker, clock.cut, read, rd.Len(), percent(read, rd.Len())))
	case p.late:
		p.timedOut = true
		p.notes = append(p.notes, fmt.Sprintf("%s stopped after %v (-max-trace-time) at event %d of %d (%d%%): findings after it missed (a larger -max-trace-time, or 0, checks the rest)",
			checker, clock.limit, read, rd.Len(), percent(read, rd.Len())))
	}
	p.limited = rd.State() == trace.Limited
	if broken != nil && !errors.Is(broken, trace.ErrLimited) {
		p.notes = append(p.notes, fmt.Sprintf("%v, %s analysed the events before the damage", broken, checker))
	}
	return p, nil
}

// window is a streamed checker's window of n events (hb.DefaultWindow
// if 0).
func window(n int) int {
	if n == 0 {
		return hb.DefaultWindow
	}
	return n
}

// limitedNote says that a run's recording stopped at -max-record
// (Options.MaxRecordBytes): the trace ends in trace.ErrLimited.
const limitedNote = "recording stopped where the trace reached its size limit (-max-record), the test ran on unrecorded"

// percent is n of total in whole percent, rounded down, 100 for an empty
// total.
func percent(n, total int) int {
	if total == 0 {
		return 100
	}
	return n * 100 / total
}

// errOverGoroutines stops a streamed check at the goroutine past
// DetectOptions.MaxGoroutines.
var errOverGoroutines = errors.New("over the goroutine limit")

func maxLocations(o races.Options) int {
	if o.MaxLocations == 0 {
		return races.DefaultMaxLocations
	}
	return o.MaxLocations
}

// size formats n bytes for a note.
func size(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func (o DetectOptions) maxGoroutines() int {
	if o.MaxGoroutines == 0 {
		return DefaultMaxGoroutines
	}
	return o.MaxGoroutines
}

// goroutines counts the goroutines of a trace: its Begin events.
// oneGoroutine reports whether every event of evs is one goroutine's.
func oneGoroutine(evs []trace.Event) bool {
	for i := range evs {
		if evs[i].Goroutine != evs[0].Goroutine {
			return false
		}
	}
	return true
}

func goroutines(evs []trace.Event) int {
	n := 0
	for i := range evs {
		if evs[i].Kind == trace.EvBegin {
			n++
		}
	}
	return n
}

func (o DetectOptions) maxTraceBytes() int64 {
	if o.MaxTraceBytes == 0 {
		return DefaultMaxTraceBytes
	}
	return o.MaxTraceBytes
}

// maxTraceEvents is the most events of one trace the in-memory checkers
// hold (TraceEventBytes), 0 for no limit.
func (o DetectOptions) maxTraceEvents() int {
	return int(max(o.maxTraceBytes(), 0) / TraceEventBytes)
}

// maxRecordBytes is Options.MaxRecordBytes with its default, 0 for no
// limit.
func (o Options) maxRecordBytes() int64 {
	if o.MaxRecordBytes == 0 {
		return DefaultMaxRecordBytes
	}
	return max(o.MaxRecordBytes, 0)
}

// failureNote is the one line that says in which runs test name failed:
// its recorded runs, and CFP's cheap run if it failed there (cheap, ""
// if it did not), or nothing if none did.
func failureNote(name string, runs []runFile, cheap record.Outcome) []string {
	inCheap := ""
	if cheap != "" {
		inCheap = fmt.Sprintf("%s in CFP's cheap run", cheap)
	}
	if len(runs) == 1 {
		o := runs[0].outcome
		switch {
		case o.Failed() && cheap == o:
			return []string{fmt.Sprintf("%s: %s in CFP's cheap run and when recorded", name, o)}
		case o.Failed() && cheap != "":
			return []string{fmt.Sprintf("%s: %s, %s when recorded", name, inCheap, o)}
		case o.Failed():
			return []string{fmt.Sprintf("%s: %s when recorded", name, o)}
		case cheap != "":
			return []string{fmt.Sprintf("%s: %s, %s when recorded again", name, inCheap, o)}
		}
		return nil
	}
	failed := 0
	var how []string
	for _, r := range runs {
		if r.outcome.Failed() {
			failed++
			if !slices.Contains(how, string(r.outcome)) {
				how = append(how, string(r.outcome))
			}
		}
	}
	switch {
	case failed == 0 && cheap == "":
		return nil
	case failed == 0:
		return []string{fmt.Sprintf("%s: %s; 0 of %d recorded runs failed", name, inCheap, len(runs))}
	case cheap != "":
		return []string{fmt.Sprintf("%s: %s; %d of %d recorded runs failed (%s)", name, inCheap, failed, len(runs), strings.Join(how, ", "))}
	}
	return []string{fmt.Sprintf("%s: %d of %d runs failed (%s)", name, failed, len(runs), strings.Join(how, ", "))}
}

// readPrefix reads the first n events of the trace file at path in the
// global order (trace.OrderedReader, the order readTrace sorts into),
// without holding the rest; a broken trace returns the events before the
// damage with the error.
func readPrefix(path string, n int) ([]trace.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	rd, err := trace.NewOrderedReader(f, fi.Size())
	if err != nil {
		return nil, err
	}
	evs := make([]trace.Event, 0, min(n, rd.Len()))
	for len(evs) < n {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// readTrace reads the trace file at path, sorted; a broken trace returns the
// events before the damage with an error wrapping trace.ErrBroken. A
// trace of more than maxEvents events (if positive) is not read: it
// returns errTooManyEvents, found by the reader's index before any event
// is held.
func readTrace(path string, maxEvents int) ([]trace.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	rd, err := trace.NewOrderedReader(f, fi.Size())
	if err != nil {
		return nil, err
	}
	if maxEvents > 0 && rd.Len() > maxEvents {
		return nil, errTooManyEvents
	}
	evs := make([]trace.Event, 0, rd.Len())
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

// errTooManyEvents is readTrace's error for a trace over its events limit.
var errTooManyEvents = errors.New("more events than the in-memory checkers hold (-max-trace)")

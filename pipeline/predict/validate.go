package predict

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/pipeline/validate"
	"github.com/precog-dev/precog/shim/trace"
)

// ValidateOptions configures the validation of Run's findings.
type ValidateOptions struct {
	// Parallel is how many test processes run at once; 0 means 1.
	Parallel int
	// Budget bounds the whole validation; findings not validated when it
	// runs out are timed out. 0 means no bound but the runs' own.
	Budget time.Duration
	// ReproDir is where the schedules of confirmed findings go, one file
	// per finding ID (ReproFile).
	ReproDir string
	// Repro returns the command that replays the schedule of the finding
	// with the given ID, for Finding.Repro.
	Repro func(id string) string
	// budgetName names Budget in the note when it runs out; "" is
	// -validate-budget's.
	budgetName string
}

// ReproDir returns the directory of the schedules: the repro directory of
// the output directory out, or of precog's cache (cacheDir, "" for the
// default) without one.
func ReproDir(out, cacheDir string) (string, error) {
	if out != "" {
		return filepath.Join(out, "repro"), nil
	}
	c, err := instrument.CacheDir(cacheDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "repro"), nil
}

// ReproFile is the schedule file of the finding with ID id in dir.
func ReproFile(dir, id string) string { return filepath.Join(dir, id+".json") }

// clearRepro removes the schedules that an earlier precog test left in
// the output directory's repro directory, once, before the job's first
// round: validateAll adds each round's (and the dependency pass's) to
// it, and a later round must not take away an earlier one's.
func clearRepro(o Options) error {
	if o.Out == "" || o.Validate == nil || o.Validate.ReproDir != filepath.Join(o.Out, "repro") {
		return nil
	}
	return os.RemoveAll(o.Validate.ReproDir)
}

// validateAll validates res's findings with the binaries record left in
// binDir, and writes the schedules of the confirmed ones.
func validateAll(ctx context.Context, o Options, out, binDir string, res *Result, progress *tracker) error {
	start := time.Now()
	defer func() { res.Stats.Validate = time.Since(start) }()
	vo := o.Validate
	sites, err := trace.LoadSites(filepath.Join(out, filepath.FromSlash(res.Index.Sites)))
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "precog-validate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	parent := ctx
	var deadline time.Time
	if vo.Budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, vo.Budget)
		defer cancel()
		deadline, _ = ctx.Deadline()
	}
	v := validate.New(validate.Options{
		Target:   func(w finding.Witness) (validate.Target, bool) { return target(o, binDir, res.Index, w) },
		Dir:      work,
		Parallel: vo.Parallel,
		Progress: progress.line,
		Done: func(r validate.Result) {
			progress.update(func(p *Progress) {
				p.Validated++
				if r.Status == finding.Confirmed {
					p.Confirmed++
				}
			})
		},
		Sites:         sites,
		MaxTraceBytes: max(o.Detect.maxTraceBytes(), 0),
	})
	// A finding that a recorded run showed (a failure, or a prediction at
	// the crash's site) is confirmed already.
	var todo, unforced []int
	var fs []finding.Finding
	res.Stats.Statuses = make(map[finding.Status]int)
	for i, f := range res.Findings {
		if f.Validation != nil && res.unforced[f.ID] {
			// (Confirmed, or a hang of a run precog stopped: failureOf.)
			unforced = append(unforced, i)
			continue
		}
		if f.Status == finding.Confirmed && f.Validation != nil || f.Status == finding.NotReached || f.Status == finding.Static {
			// A static candidate no run reached, or without two sites,
			// has nothing to force.
			res.Stats.Statuses[f.Status]++
			continue
		}
		todo = append(todo, i)
		fs = append(fs, f)
	}
	progress.update(func(p *Progress) {
		p.Findings, p.Confirmed = progress.earlier.findings+len(res.Findings), progress.earlier.confirmed+res.Stats.Statuses[finding.Confirmed]
		p.Validating, p.Deadline = len(todo), deadline
		p.Budget = cmp.Or(vo.budgetName, "the validation budget")
		// The checks of failures build plain test binaries before the
		// first forced run reports: say so, not "detecting".
		p.Line = "validating"
		if len(unforced) > 0 {
			p.Line = fmt.Sprintf("validating: running %d failed %s again without instrumentation", len(unforced), plural(len(unforced), "test", "tests"))
		}
	})
	// The failures the recorded runs showed are checked first, each run
	// again as go test builds it: a test that fails only instrumented (a
	// count of allocations, a timing) is no bug, and left confirmed it
	// fails the job. Checked after the forced runs, they were not
	// checked at all when those spent -validate-budget or a SIGTERM came
	// (fasthttp's whole module: six allocation tests confirmed as
	// failures when validation was interrupted).
	plain := newPlainBuilds(o, filepath.Join(work, "plain"))
	for _, i := range unforced {
		f := &res.Findings[i]
		t, pkg, ok := plainTarget(o, binDir, res, f.Tests[0], f.Validation != nil && f.Validation.Effect == "hang")
		var pb plainBinary
		if ok {
			t, pb = plain.uninstrumented(ctx, t, pkg)
		}
		if plainCheck(ctx, f, t, ok, pb) && f.Validation.Effect != "hang" {
			plain.alone(ctx, f, t, pkg)
		}
		res.Stats.Statuses[f.Status]++
	}
	results := v.All(ctx, fs)
	// Interrupted (parent cancelled), the results so far stand, as when
	// the budget runs out; Run says which of the two it was.
	if parent.Err() == nil && ctx.Err() != nil {
		res.Notes = append(res.Notes, cmp.Or(vo.budgetName, "the validation budget ("+vo.Budget.String()+", -validate-budget)")+" ran out: findings it did not reach are timed out"+spentOn(results))
	}
	for k, i := range todo {
		f, r := &res.Findings[i], results[k]
		f.Status = r.Status
		val := r.Validation
		f.Validation = &val
		if r.Status == finding.Confirmed {
			s := validate.NewSchedule(*f, r, sites)
			s.Dir, s.Patterns, s.Package, s.PackageDir = o.Dir, o.Patterns, packageOf(res.Index, r.Witness.Test), r.Target.Dir
			s.BuildFlags, s.All, s.Funcs, s.Deps, s.CFP = o.Flags.Build, o.All, o.Funcs, o.Deps, o.CFP
			if err := s.Write(ReproFile(vo.ReproDir, f.ID)); err != nil {
				return err
			}
			if vo.Repro != nil {
				f.Repro = vo.Repro(f.ID)
			}
		}
		res.Stats.Statuses[f.Status]++
	}
	return nil
}

// spentOn says which tests' findings took most of validation's time, for
// the note that its budget ran out: a slow test's forced runs (netpoll's
// TestBookSizeLargerThanMaxSize, 35 s a run) can take it all while many
// cheaper findings wait, and the user who reads the note can leave that
// test out with -skip or give validation more time. The times add up the
// findings validated side by side (-p). "" when no test took a third of
// the time.
func spentOn(results []validate.Result) string {
	type spent struct {
		test     string
		time     time.Duration
		findings int
	}
	var all time.Duration
	by := make(map[string]*spent)
	for _, r := range results {
		v := r.Validation
		if v.Test == "" || v.WallNs == 0 {
			continue
		}
		s := by[v.Test]
		if s == nil {
			s = &spent{test: v.Test}
			by[v.Test] = s
		}
		s.time += time.Duration(v.WallNs)
		s.findings++
		all += time.Duration(v.WallNs)
	}
	var most []*spent
	for _, s := range by {
		if 3*s.time >= all {
			most = append(most, s)
		}
	}
	if len(most) == 0 {
		return ""
	}
	slices.SortFunc(most, func(a, b *spent) int { return cmp.Or(cmp.Compare(b.time, a.time), cmp.Compare(a.test, b.test)) })
	var parts []string
	for _, s := range most {
		parts = append(parts, fmt.Sprintf("%s (%d%%, %d %s)", s.test, int(100*s.time/all), s.findings, plural(s.findings, "finding", "findings")))
	}
	return "; most of its time went to the findings of " + strings.Join(parts, " and ") + " (leave a test out with -skip, or give validation more time)"
}

// target returns how to run the test and run of witness w again.
func target(o Options, binDir string, ix *record.Index, w finding.Witness) (validate.Target, bool) {
	for _, p := range ix.Packages {
		name, ok := strings.CutPrefix(w.Test, p.ImportPath+".")
		if !ok || strings.Contains(name, ".") {
			continue
		}
		for _, t := range p.Tests {
			if t.Name != name {
				continue
			}
			wall, outcome := t.Wall, t.Outcome
			if w.Run > 0 && w.Run <= len(t.Runs) {
				wall, outcome = t.Runs[w.Run-1].Wall, t.Runs[w.Run-1].Outcome
			}
			budget := time.Duration(validate.DefaultBudgetMS) * time.Millisecond
			bound := o.Flags.ForcedBound(wall, budget)
			if outcome == record.Stopped {
				// -record-budget stopped the run: the witness's
				// events all came before it, and the test would go
				// on to any bound, three times the minutes of a
				// stress test (goleveldb's TestCacheMap) for nothing
				// more to learn.
				bound = o.Flags.Bound(wall + budget + 5*time.Second)
			}
			flags := *o.Flags
			flags.Timeout = bound
			return validate.Target{
				Binary:  record.InstrumentedBinary(binDir, p.ImportPath),
				Dir:     p.Dir,
				Args:    record.TestArgs(&flags, name),
				Timeout: bound + 10*time.Second,
				// The unforced run: run 0, recorded without a plan
				// (Unicorn's witnesses come from perturbed runs that
				// failed).
				Passed: t.Outcome == record.Pass,
				Marks:  t.Marks,
			}, true
		}
	}
	return validate.Target{}, false
}

// plainTarget returns how to run test again for plainCheck: as its
// recorded runs ran, or, for a test that failed in CFP's cheap run and was
// not recorded after it, as the cheap run did. A hang's runs are bounded
// by go test's -timeout (its default's ten minutes unless -timeout says),
// not by the recorded run's wall time: a test that precog stopped, or one
// whose recorded run passed in a second while its cheap run waited on a
// timer, is a hang only if go test would time out too (a test waiting 45 s
// on time.After had been confirmed as a hang at a 13 s bound and failed
// the job, while go test passes it).
func plainTarget(o Options, binDir string, res *Result, test string, hang bool) (t validate.Target, pkg string, ok bool) {
	if t, ok = target(o, binDir, res.Index, finding.Witness{Test: test}); ok {
		pkg = packageOf(res.Index, test)
	} else if c, found := res.cheap.failure(test); found {
		t, pkg, ok = c.target(o, binDir, test), c.pkg, true
	}
	if ok && hang {
		flags := *o.Flags
		flags.Timeout = o.Flags.Bound(10 * time.Minute)
		t.Args = record.TestArgs(&flags, strings.TrimPrefix(test, pkg+"."))
		t.Timeout = flags.Timeout + 10*time.Second
	}
	return t, pkg, ok
}

// packageOf returns the import path of test ("importpath.TestName").
func packageOf(ix *record.Index, test string) string {
	for _, p := range ix.Packages {
		if strings.HasPrefix(test, p.ImportPath+".") {
			return p.ImportPath
		}
	}
	return ""
}

// plainBuilds are the test binaries that plainCheck runs: built as go
// test builds them, without precog's instrumentation, one per package, when
// a finding of the package first needs one. With the shim off, the
// instrumented binary still calls into the shim and makes the values it
// passes escape: a test that counts allocations (pion/transport's
// TestBufferAlloc asserts testing.AllocsPerRun of 0) fails there every
// time, and that is no bug; under go test it passes.
type plainBuilds struct {
	o    Options
	dir  string
	bins map[string]plainBinary // by import path
	// together holds, by import path, the outcome of each top-level test
	// when the package's tests ran together in one process (alone).
	together map[string]map[string]bool
}

func newPlainBuilds(o Options, dir string) *plainBuilds {
	return &plainBuilds{o: o, dir: dir, bins: make(map[string]plainBinary), together: make(map[string]map[string]bool)}
}

// A plainBinary is a package's test binary as go test builds it.
type plainBinary struct {
	pkg  string // the package's import path
	path string // "" where it did not build
	// vetErr is go test's vet's refusal of the package, for a binary
	// built with -vet=off (record.BuildPlain).
	vetErr error
}

// what says which binary a run without recording ran, for a reason.
func (b plainBinary) what() string {
	switch {
	case b.path == "":
		return "instrumented, with recording off (it did not build without instrumentation)"
	case b.vetErr != nil:
		return "built as go test -vet=off builds it, since go test's vet refuses the package (" + b.vetErr.Error() + ")"
	}
	return "built as go test builds it"
}

// uninstrumented returns t, which runs a test of package pkg with the
// instrumented binary, with the package's uninstrumented binary in its
// place, and that binary; t as it is and a binary without a path if that
// does not build (the instrumented binary, with the shim off, is then the
// nearest to go test there is).
func (b *plainBuilds) uninstrumented(ctx context.Context, t validate.Target, pkg string) (validate.Target, plainBinary) {
	pb, built := b.bins[pkg]
	if !built {
		out := filepath.Join(b.dir, strconv.Itoa(len(b.bins)))
		bin, vetErr, err := record.BuildPlain(ctx, b.o.Dir, b.o.Flags.Build, pkg, out)
		pb = plainBinary{pkg: pkg}
		if err == nil {
			pb.path, pb.vetErr = bin, vetErr
		}
		b.bins[pkg] = pb
	}
	if pb.path != "" {
		t.Binary = pb.path
	}
	return t, pb
}

// plainRuns is how many runs without recording must pass for a failure that
// recording alone showed to be no confirmed bug (validate's control runs
// ask as many).
const plainRuns = 2

// plainCheck decides the status of f, a test's failure that only runs with
// no order forced showed (Result.unforced): recording slows a test down
// several times, which fails tests that assert on timing (gocron's
// TestScheduler_LongRunningJobs, a goleak check of a loop still running)
// or time out (coder/websocket's Test_verifyServerHandshake in CFP's cheap
// run), and its calls into the shim change what a test can count
// (allocations), and that is no bug confirmed. So the test runs again
// without recording, until one run fails, which confirms f (the test fails
// without precog too; a hang only by a timeout), or plainRuns passed, which
// makes it not-confirmed.
// t is the test's target, ok false if it cannot be run again (f stays
// confirmed, as recorded); pb is t's binary as go test builds it
// (plainBuilds's) or, where that did not build, none: t's binary is then the
// instrumented one with the shim off. The reason names which. A run cut by
// ctx (the validation budget) decides nothing.
// It returns whether a run without recording failed.
func plainCheck(ctx context.Context, f *finding.Finding, t validate.Target, ok bool, pb plainBinary) (failed bool) {
	if !ok {
		return false
	}
	binary := pb.what()
	start := time.Now()
	v := f.Validation
	passed := 0
	for passed < plainRuns && ctx.Err() == nil {
		r := validate.Force(ctx, t, "")
		if ctx.Err() != nil {
			break
		}
		v.Runs++
		if r.Outcome.Failed() && (v.Effect != "hang" || r.Outcome == record.Timeout) {
			v.Failed++
			v.Reason += fmt.Sprintf("; the test %s again without recording (%s)", failedAs(r.Outcome), binary)
			f.Status, failed = finding.Confirmed, true
			break
		}
		passed++ // a hang's run that failed otherwise did not hang
	}
	v.WallNs += int64(time.Since(start))
	if !failed && passed < plainRuns && ctx.Err() != nil {
		// Stopped (a SIGTERM, the validation budget) before the runs
		// that tell a failure of the code from one that only recording
		// brings out: it stays confirmed, as the recorded run showed it
		// (a hang of a run precog stopped stays not-confirmed: that run
		// failed nothing), and says that it was not checked.
		v.Reason += fmt.Sprintf("; validation was stopped before its runs without recording were done (%d of %d passed), so a failure that only recording brings out is not ruled out", passed, plainRuns)
	}
	if passed == plainRuns {
		f.Status = finding.NotConfirmed
		f.Repro = ""
		v.Effect = ""
		v.Reason = fmt.Sprintf("failed only when recorded: %s; passed in %d runs without recording (%s), so no bug is confirmed (recording slows a test several times, adds allocations and can change the frames runtime.Caller sees: a test that asserts on timing, allocations or its callers' lines, a flaky test, or a bug recording brings out; precog explain looks for its cause)",
			strings.TrimPrefix(v.Reason, "happened in "), plainRuns, binary)
	}
	if f.Status == finding.Confirmed && f.Repro != "" && pb.vetErr != nil {
		// go test as the reproducer has it would stop at vet.
		f.Repro = goTestRepro(pb.pkg, strings.TrimPrefix(f.Tests[0], pb.pkg+"."), "-vet=off")
	}
	return failed
}

// alone decides f, the failure of a test of package pkg that plainCheck saw
// again without recording, by one more run of the test alone (t) and one
// run of the package's tests together in one process, as go test runs them
// (once per package, for all its failures). precog runs each test in a
// process of its own, where a test that needs what an earlier test of its
// package set up fails every time (otel/sdk's observability tests: five
// confirmed failures, and a nightly job failing where go test passes,
// bench/RESULTS.md, "Held-out rehearsal 28"). Such a test is no
// concurrency bug: if it fails alone twice and passes together, f is
// not-confirmed and says why. A test that passed in one of the runs alone
// is flaky, a failure that happens: f stays confirmed, as it does when the
// test fails together too (which the reason adds), or when the run
// together did not reach it (cut by ctx, killed at its timeout, excluded
// by -run). A hang is not checked: its runs take a whole -timeout.
func (b *plainBuilds) alone(ctx context.Context, f *finding.Finding, t validate.Target, pkg string) {
	v := f.Validation
	start := time.Now()
	defer func() { v.WallNs += int64(time.Since(start)) }()
	r := validate.Force(ctx, t, "")
	if ctx.Err() != nil || !r.Outcome.Failed() {
		return
	}
	v.Runs++
	v.Failed++
	results, ran := b.together[pkg]
	if !ran {
		t.Args = record.PackageArgs(b.o.Flags)
		t.Timeout = b.o.Flags.Timeout + 10*time.Second
		r := validate.Force(ctx, t, "")
		if ctx.Err() != nil {
			return
		}
		results = topLevelOutcomes(r.Output)
		b.together[pkg] = results
	}
	passed, reached := results[strings.TrimPrefix(f.Tests[0], pkg+".")]
	switch {
	case !reached:
		return
	case !passed:
		v.Reason += "; it fails when its package's tests run together in one process too, as go test runs them"
		return
	}
	f.Status = finding.NotConfirmed
	f.Repro = ""
	v.Effect = ""
	v.Alone = true
	v.Reason = fmt.Sprintf("failed in a process of its own, with and without recording: %s; but passed when its package's tests ran together in one process, as go test runs them: it needs what another test of the package sets up (as under go test -run with its name alone), which is no concurrency bug",
		strings.TrimPrefix(v.Reason, "happened in "))
}

// topLevelOutcomes reads a test binary's -test.v output: whether each
// top-level test that ended passed (a skipped one counts as passed). Only
// top-level tests' result lines start at the beginning of a line.
func topLevelOutcomes(out []byte) map[string]bool {
	results := make(map[string]bool)
	for line := range strings.Lines(string(out)) {
		rest, ok := strings.CutPrefix(line, "--- ")
		if !ok {
			continue
		}
		result, rest, _ := strings.Cut(rest, ": ")
		name, _, _ := strings.Cut(rest, " ")
		switch result {
		case "PASS", "SKIP":
			results[name] = true
		case "FAIL":
			results[name] = false
		}
	}
	return results
}

// failedAs says how a run without recording failed.
func failedAs(o record.Outcome) string {
	switch o {
	case record.Panic:
		return "panicked"
	case record.Fatal:
		return "died of a fatal error"
	case record.Timeout:
		return "timed out"
	}
	return "failed"
}

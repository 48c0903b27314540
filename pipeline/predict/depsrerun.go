package predict

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

// The second pass with dependencies instrumented (Options.DepsRerun).
//
// A goroutine that a dependency's go statement started is not in the
// trace: neither its start nor the joins of it (finding.UnseenSpawn), so
// what the dependency orders through it (otel's simpleSpanProcessor runs
// the exporter's Shutdown in "go shutdown()" and waits on its done
// channel; singleflight's DoChan) reads as unordered, and the checkers
// report races and con-* findings between the accesses it orders
// (held-out rehearsal 55: 24 of 45 false test findings, virtual-kubelet's
// trace/opentelemetry 17 of them, none with -instrument-deps of otel's
// sdk/trace). precog knows which findings those are, and which
// dependency started their goroutine, or called into the standard
// library that started it: it records the tests of those findings again
// with those dependencies instrumented too, analyses the new traces, and
// takes their findings for those tests in place of the first ones.

// rerunDir is the directory, under the recording's output directory,
// of the second pass's recording: a leading dot, which no import path
// has, keeps it apart from the packages' own directories.
const rerunDir = ".deps-rerun"

// minRerun is the least time the pass is tried in, under -deadline: the
// instrumentation of a dependency, a build and a recording take seconds
// even when everything is cached.
const minRerun = 15 * time.Second

// A depsPlan is what the second pass records again: the tests of the
// findings with a goroutine that a dependency started, by package, and
// the dependency packages to instrument for them.
type depsPlan struct {
	tests map[string][]string // import path -> test names, sorted
	deps  map[string]bool     // dependency packages
}

// testCount counts the tests of the plan.
func (p *depsPlan) testCount() int {
	n := 0
	for _, ts := range p.tests {
		n += len(ts)
	}
	return n
}

// has reports whether test ("importpath.TestName") is one of the plan's.
func (p *depsPlan) has(test string) bool {
	pkg, name, ok := cutTest(test)
	return ok && slices.Contains(p.tests[pkg], name)
}

// pattern is the -instrument-deps pattern of the plan's dependencies and
// the packages below them, as precog test's hint names it.
func (p *depsPlan) pattern() string {
	return DepsPattern(p.deps)
}

// DepsPattern is the -instrument-deps pattern of the packages of the set
// and those below them, sorted: what the second pass instruments, and
// what precog test's hint names. A package below another of the set is
// left out: its parent's pattern matches it.
func DepsPattern(set map[string]bool) string {
	var l []string
	for _, d := range slices.Sorted(maps.Keys(set)) {
		// Sorted, a parent comes before what is below it, though not
		// always right before ("a/b", "a/b-c", "a/b/d").
		if !slices.ContainsFunc(l, func(p string) bool { return strings.HasPrefix(d, strings.TrimSuffix(p, "...")) }) {
			l = append(l, d+"/...")
		}
	}
	return strings.Join(l, ",")
}

// names lists the plan's dependencies, as the summary says them.
func (p *depsPlan) names() string {
	l := slices.Sorted(maps.Keys(p.deps))
	if len(l) < 2 {
		return strings.Join(l, "")
	}
	return strings.Join(l[:len(l)-1], ", ") + " and " + l[len(l)-1]
}

// cutTest splits "importpath.TestName".
func cutTest(test string) (pkg, name string, ok bool) {
	i := strings.LastIndexByte(test, '.')
	if i <= 0 {
		return "", "", false
	}
	return test[:i], test[i+1:], true
}

// replaceable reports whether the second pass's findings replace f's
// for the tests it records again: a prediction of the recorded runs,
// not a failure that a run showed (which the test's output, not the
// trace, says), not one that a run already confirmed, not a static
// candidate of -vet.
func replaceable(f *finding.Finding) bool {
	return f.Analyzer == "" && f.Validation == nil && f.Kind != finding.Crash && f.Kind != finding.TestFailed
}

// DepStarter returns the dependency package whose instrumentation would
// record what orders the goroutine of an UnseenSpawn site s, "" if
// there is none: the dependency whose go statement started it, or, when
// the standard library's started it (net/http's connection goroutine),
// the dependency whose call into the standard library did (s.From),
// whose calls -instrument-deps records. instrumented says whether a
// package is instrumented already (the packages under test, and the
// dependencies -instrument-deps named): a goroutine started from them is
// no dependency's. precog test's hint says the same of each finding.
func DepStarter(s finding.Site, instrumented func(pkg string) bool) string {
	pkg, from := trace.FuncPackage(s.Function), trace.FuncPackage(s.From)
	switch {
	case pkg == "" || instrumented(pkg):
		return ""
	case !finding.StdPackage(pkg):
		return pkg
	case from != "" && !instrumented(from):
		return from
	}
	return ""
}

// MatchDeps reports whether the -instrument-deps pattern (import paths,
// comma-separated, each possibly ending in /...) matches the package.
func MatchDeps(pattern, pkg string) bool {
	for _, e := range strings.Split(pattern, ",") {
		e = strings.TrimSpace(e)
		if root, ok := strings.CutSuffix(e, "/..."); ok {
			if pkg == root || strings.HasPrefix(pkg, root+"/") {
				return true
			}
		} else if e != "" && pkg == e {
			return true
		}
	}
	return false
}

// planDeps returns the second pass's plans for the findings fs of the
// packages instrumented (the packages under test) and the user's
// -instrument-deps pattern deps, none if no finding has a goroutine that
// a dependency started.
//
// There is a plan per set of dependencies that the packages of the
// tests need (a package needs those of its tests' findings), the
// packages that need the same set together, the cheapest first: fewer
// dependencies, then fewer tests. Each plan is instrumented, built and
// recorded on its own, so that a dependency whose build is long
// (k8s.io/apimachinery, which rebuilds much of client-go) costs only the
// tests that need it (virtual-kubelet: its otel tests' findings go even
// when the node tests' build does not finish).
func planDeps(fs []finding.Finding, instrumented []string, deps string) []*depsPlan {
	inst := make(map[string]bool, 2*len(instrumented))
	for _, p := range instrumented {
		inst[p], inst[p+"_test"] = true, true
	}
	known := func(pkg string) bool { return inst[pkg] || MatchDeps(deps, pkg) }
	need := make(map[string]map[string]bool) // test package -> dependencies
	tests := make(map[string][]string)       // test package -> tests
	for i := range fs {
		f := &fs[i]
		if !replaceable(f) {
			continue
		}
		var starters []string
		for _, s := range f.Spawns {
			if !s.IsUnseenSpawn() {
				continue
			}
			if d := DepStarter(s, known); d != "" {
				starters = append(starters, d)
			}
		}
		if len(starters) == 0 {
			continue
		}
		for _, t := range f.Tests {
			pkg, name, ok := cutTest(t)
			if !ok {
				continue
			}
			if need[pkg] == nil {
				need[pkg] = make(map[string]bool)
			}
			for _, d := range starters {
				need[pkg][d] = true
			}
			if !slices.Contains(tests[pkg], name) {
				tests[pkg] = append(tests[pkg], name)
			}
		}
	}
	byDeps := make(map[string]*depsPlan)
	for pkg, d := range need {
		key := DepsPattern(d)
		p := byDeps[key]
		if p == nil {
			p = &depsPlan{tests: make(map[string][]string), deps: d}
			byDeps[key] = p
		}
		p.tests[pkg] = tests[pkg]
		slices.Sort(p.tests[pkg])
	}
	plans := slices.Collect(maps.Values(byDeps))
	slices.SortFunc(plans, func(a, b *depsPlan) int {
		return cmp.Or(cmp.Compare(len(a.deps), len(b.deps)), cmp.Compare(a.testCount(), b.testCount()), strings.Compare(a.pattern(), b.pattern()))
	})
	return plans
}

// A depsPass is the result of one plan of the second pass, validated
// apart from the first's: its findings' witnesses name events of its own
// build (its site table, its test binaries).
type depsPass struct {
	o           Options // the first pass's, with the dependencies and packages of this one
	res         *Result
	out, binDir string
}

// rerunDeps runs the second pass for the findings of res (the first
// pass's detection, not yet validated), if any has a goroutine that a
// dependency started: for each of its plans (planDeps), it instruments
// the packages of the plan's tests with the plan's dependencies too,
// builds them, records those tests again (as many runs each as the first
// pass), analyses the new traces, and takes their findings in place of
// the first pass's for those tests (Result.replace). Each plan's own
// findings come back in a depsPass, to validate with its build.
//
// The pass never fails the run: a dependency that cannot be instrumented
// or built, a plan that did not finish in its time, leave res as it was
// for that plan's tests, with a note that says why. Its time comes from
// the recording's and detection's: with -deadline, what is left of it
// less what validation is reckoned to need (jobDeadline.after) and the
// reserve, so that validation keeps its share; without one, what the
// first recording left of -record-budget (at least two minutes) for its
// instrumentation, builds and recordings, and -detect-budget for each
// plan's detection. The plans share that time in turn: each gets what is
// left divided by the plans not yet run, so what a cheap plan leaves goes
// to the next. A dependency imported by much of the build
// (k8s.io/apimachinery's wait) costs a build of the packages above it,
// once: the build cache keeps them. ix is the first recording's, which
// says how long the tests took.
func (j *job) rerunDeps(ctx context.Context, res *Result, ix *record.Index, recorded time.Duration) []*depsPass {
	o, dl := j.o, j.dl
	plans := planDeps(res.Findings, j.inst.Packages, o.Deps)
	if len(plans) == 0 {
		return nil
	}
	whats := make([]string, len(plans))
	for i, plan := range plans {
		ntests, npkgs := plan.testCount(), len(plan.tests)
		whats[i] = fmt.Sprintf("%d %s of %d %s with %s instrumented", ntests, plural(ntests, "test", "tests"), npkgs, plural(npkgs, "package", "packages"), plan.names())
	}
	pctx := ctx
	var end time.Time // when the pass's builds and recordings must have ended; zero: no bound
	if dl != nil {
		limit := dl.left() - dl.after(0)
		if limit < minRerun {
			for i, plan := range plans {
				res.Notes = append(res.Notes, fmt.Sprintf("re-recording %s was not tried: too little of -deadline was left (-instrument-deps %s records them)", whats[i], plan.pattern()))
			}
			return nil
		}
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
		end = time.Now().Add(limit)
	} else if o.recordBudget() >= 0 {
		end = time.Now().Add(max(o.recordBudget()-recorded, 2*time.Minute))
	}
	var passes []*depsPass
	done := make(map[string]bool) // the dependencies of the plans that finished
	for i, plan := range plans {
		what := whats[i]
		var b passBounds
		b.tests = plan.wall(ix) * time.Duration(max(o.Runs, 1)) / time.Duration(max(o.Parallel, 1))
		gctx, cancel := pctx, context.CancelFunc(func() {})
		var share time.Duration
		if !end.IsZero() {
			share = time.Until(end) / time.Duration(len(plans)-i)
			record := share
			if dl != nil {
				record = share * 2 / 3 // its detection comes out of the share too
			}
			if record-b.tests < minRerun {
				// Its build would get less than minRerun once its
				// tests' recording is set aside.
				res.Notes = append(res.Notes, fmt.Sprintf("re-recording %s was not tried: %v was left for its build and recording, and its tests took %v to record the first time (-instrument-deps %s records them)", what, record.Round(time.Second), b.tests.Round(time.Second), plan.pattern()))
				continue
			}
			b.record = time.Now().Add(record)
			if dl != nil {
				gctx, cancel = context.WithTimeout(pctx, share)
			}
		}
		j.progress.line("re-recording " + what)
		pass, err := j.depsPass(gctx, plan, b, i, len(plans))
		timedOut := gctx.Err() != nil
		cancel()
		if context.Cause(ctx) != nil {
			return passes // interrupted: the findings so far stand, and round says why
		}
		if err == nil && timedOut {
			err = fmt.Errorf("it did not finish in its share of -deadline (%v)", share.Round(time.Second))
		}
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("re-recording %s failed, the first recording's findings stand: %s", what, firstLine(err)))
			continue
		}
		before, after, fresh, gone := res.replace(plan, pass.res.Findings)
		maps.Copy(done, plan.deps)
		res.RerunDeps = DepsPattern(done)
		pass.res.Findings = fresh
		pass.res.Stats.Reports = 0
		res.Notes = append(res.Notes, fmt.Sprintf("re-recorded %s: %d %s -> %d%s", what, before, plural(before, "finding", "findings"), after, goneList(gone)))
		res.Notes = append(res.Notes, pass.res.Notes...)
		res.InternalErrors = append(res.InternalErrors, pass.res.InternalErrors...)
		pass.res.Notes, pass.res.InternalErrors = nil, nil
		passes = append(passes, pass)
	}
	return passes
}

// MaxListedIDs is how many findings' IDs a line about several findings
// names (FirstIDs): enough to find them in the output, not a list of them all.
const MaxListedIDs = 3

// FirstIDs names findings by their IDs, the first MaxListedIDs of them:
// "a", "a and b", "a, b, c and 2 more"; an empty ID is left out, and none
// gives "".
func FirstIDs(ids []string) string {
	ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == "" })
	switch {
	case len(ids) < 2:
		return strings.Join(ids, "")
	case len(ids) <= MaxListedIDs:
		return strings.Join(ids[:len(ids)-1], ", ") + " and " + ids[len(ids)-1]
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:MaxListedIDs], ", "), len(ids)-MaxListedIDs)
}

// goneList names, for the line of a second pass, the findings of the first
// recording that it did not find again: " (gone: a, b, c and 2 more)"; ""
// for none.
func goneList(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return " (gone: " + FirstIDs(ids) + ")"
}

// passBounds bound the second pass: record, if not zero, is when its
// build and recording must have ended (its detection has ctx's deadline,
// if any, and -detect-budget); tests is what its tests' recording is
// reckoned to take, from the first recording's, which the build leaves
// it.
type passBounds struct {
	record time.Time
	tests  time.Duration
}

// wall is what the first recording of the plan's tests took, all their
// runs, and 5s a test for starting their processes.
func (p *depsPlan) wall(ix *record.Index) time.Duration {
	var d time.Duration
	for _, pkg := range ix.Packages {
		for _, t := range pkg.Tests {
			if !slices.Contains(p.tests[pkg.ImportPath], t.Name) {
				continue
			}
			d += t.Wall + 5*time.Second
			for _, r := range t.Runs {
				d += r.Wall
			}
		}
	}
	return d
}

// depsPass instruments, builds, records and analyses the plan's tests
// with its dependencies instrumented, within b and ctx's deadline. An
// error is the pass's failure: a test not recorded or not analysed in
// full is one, since its findings would replace complete ones.
//
// Plan i of n records into OUT/.deps-rerun (OUT/.deps-rerun/i when there
// are several), with binaries of its own.
func (j *job) depsPass(ctx context.Context, plan *depsPlan, b passBounds, i, n int) (*depsPass, error) {
	o := j.o
	pkgs := slices.Sorted(maps.Keys(plan.tests))
	o.Deps = strings.Trim(o.Deps+","+plan.pattern(), ",")
	o.Patterns, o.CFP, o.Checks, o.Detect.Static = pkgs, false, nil, nil
	inst, err := instrument.Instrument(ctx, instrument.Config{
		Dir:        o.Dir,
		Patterns:   pkgs,
		BuildFlags: o.Flags.Build,
		All:        o.All,
		Funcs:      o.Funcs,
		Deps:       o.Deps,
		CacheDir:   o.CacheDir,
		Progress:   func(step string) { j.progress.line("re-recording: instrumenting: " + step) },
	})
	if err != nil {
		return nil, fmt.Errorf("instrumenting: %w", err)
	}
	if len(inst.Broken) > 0 {
		return nil, fmt.Errorf("building: %s", inst.Broken[0])
	}
	out := filepath.Join(j.out, rerunDir)
	binDir := filepath.Join(j.binDir, rerunDir)
	if n > 1 {
		out, binDir = filepath.Join(out, strconv.Itoa(i)), filepath.Join(binDir, strconv.Itoa(i))
	}
	if err := os.MkdirAll(binDir, 0o777); err != nil {
		return nil, err
	}
	ri := &record.Instrumented{BuildFlags: inst.BuildFlags, Sites: inst.Sites, Marks: inst.Marks, MarkTests: inst.MarkTests}
	ro := record.Options{
		BinDir:     binDir,
		Dir:        o.Dir,
		Patterns:   pkgs,
		Out:        out,
		Flags:      o.Flags,
		Progress:   j.progress.recording,
		Only:       func(pkg string, tests []string) []string { return plan.tests[pkg] },
		TestLog:    o.TestLog,
		Runs:       o.Runs,
		Perturb:    record.Perturb{Seed: o.Seed, Off: o.Perturb == Off},
		Built:      func(n, of int) { j.progress.line("re-recording: " + record.BuildingLine(n, of)) },
		TraceLimit: o.maxRecordBytes(),
		Parallel:   o.Parallel,
	}
	if !b.record.IsZero() {
		ro.BuildLimit = max(time.Until(b.record)-b.tests, time.Second)
	}
	if o.Perturb == Targeted && o.Runs > 1 {
		sites, err := trace.LoadSites(inst.Sites)
		if err != nil {
			return nil, fmt.Errorf("reading the site table: %w", err)
		}
		ro.Forced = targetedPlans(o.Runs, sites, o.Detect)
		ro.ForcedBudget = cmp.Or(o.TargetedBudget, DefaultTargetedBudget)
	}
	if err := record.Build(ctx, ro, ri); err != nil {
		if cut := (*record.BuildCutError)(nil); errors.As(err, &cut) {
			return nil, fmt.Errorf("its build did not finish in %v (a later run, with the build cache, may)", cut.Limit.Round(time.Second))
		}
		return nil, fmt.Errorf("building: %w", err)
	}
	ro.Reuse = true
	var share time.Duration
	if !b.record.IsZero() {
		share = max(time.Until(b.record), time.Second)
		ro.Budget = &record.Budget{Limit: share, Grace: max(min(record.StopGrace, share/4), time.Millisecond), Name: "the pass's share of the recording"}
	}
	ix, err := record.Run(ctx, ro, ri)
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	if len(ix.NotBuilt) > 0 || ix.NotRun > 0 || stoppedTests(ix) > 0 {
		return nil, fmt.Errorf("its recording did not finish in %v", share.Round(time.Second))
	}
	for pkg, tests := range plan.tests {
		if !slices.ContainsFunc(ix.Packages, func(p *record.Package) bool {
			return p.ImportPath == pkg && len(p.Tests) == len(tests)
		}) {
			return nil, fmt.Errorf("the tests of %s were not all recorded", pkg)
		}
	}
	do := o.Detect
	do.temporary = o.Out == ""
	if end, ok := ctx.Deadline(); ok {
		do.share = max(time.Until(end), time.Millisecond)
	}
	res, err := detect(ctx, out, ix, do, nil, j.progress)
	if err != nil {
		return nil, fmt.Errorf("detecting: %w", err)
	}
	if ctx.Err() != nil || res.Stats.Skipped > 0 || res.Stats.Stopped > 0 || res.Stats.Tests < plan.testCount() {
		return nil, errors.New("its detection did not finish within its bounds (-detect-budget, -max-trace-time, -max-goroutines, -deadline)")
	}
	return &depsPass{o: o, res: res, out: out, binDir: binDir}, nil
}

// firstLine is err's first line.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// takePass adds the second pass's findings (rerunDeps: none has the ID
// of one of r's) to r's, with their statuses.
func (r *Result) takePass(pass *Result) {
	r.Findings = append(r.Findings, pass.Findings...)
	slices.SortFunc(r.Findings, finding.Compare)
	r.Stats.Validate += pass.Stats.Validate
	r.Notes = append(r.Notes, pass.Notes...)
	if r.Stats.Statuses != nil || pass.Stats.Statuses != nil {
		r.Stats.Statuses = make(map[finding.Status]int)
		for _, f := range r.Findings {
			r.Stats.Statuses[f.Status]++
		}
	}
}

// replace takes the second pass's findings, pass, for the plan's tests
// in place of r's: r's predictions from those tests go (one that another
// test exposed too stays, with that test), and pass's predictions join
// them, those with the ID of one of r's as that finding's tests (its
// witnesses, of another build, are not r's to validate). before counts
// r's findings that had one of the tests, after pass's predictions;
// fresh are those that are not r's, to validate with their own build.
// The tests recorded again fail or pass as the first recording said: a
// failure is read from the test's output, and the first run's stands.
func (r *Result) replace(plan *depsPlan, pass []finding.Finding) (before, after int, fresh []finding.Finding, gone []string) {
	var kept []finding.Finding
	removed := 0
	for _, f := range r.Findings {
		if !replaceable(&f) || !slices.ContainsFunc(f.Tests, plan.has) {
			kept = append(kept, f)
			continue
		}
		before++
		tests := slices.DeleteFunc(slices.Clone(f.Tests), plan.has)
		if len(tests) == 0 {
			removed += f.Reports
			if !slices.ContainsFunc(pass, func(p finding.Finding) bool { return p.ID == f.ID && replaceable(&p) }) {
				gone = append(gone, f.ID)
			}
			continue
		}
		n := max(f.Reports-(len(f.Tests)-len(tests)), 1) // a report per test
		removed += f.Reports - n
		if ws := slices.DeleteFunc(slices.Clone(f.Witnesses), func(w finding.Witness) bool { return plan.has(w.Test) }); len(ws) > 0 {
			f.Witnesses = ws
		}
		f.Tests, f.Reports = tests, n
		kept = append(kept, f)
	}
	have := make(map[string]int)
	for i, f := range kept {
		have[f.ID] = i
	}
	added := 0
	for _, f := range pass {
		if !replaceable(&f) {
			continue
		}
		after++
		added += f.Reports
		if i, ok := have[f.ID]; ok {
			k := &kept[i]
			k.Tests = slices.Compact(slices.Sorted(slices.Values(slices.Concat(k.Tests, f.Tests))))
			k.Reports += f.Reports
			continue
		}
		fresh = append(fresh, f)
	}
	r.Findings = kept
	r.Stats.Reports += added - removed
	return before, after, fresh, gone
}

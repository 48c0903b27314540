// Package explaincmd implements "precog explain": the root cause of a
// failing test, by execution suppression (pipeline/explain).
package explaincmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/pipeline/explain"
	"github.com/precog-dev/precog/pipeline/predict"
	"github.com/precog-dev/precog/pipeline/validate"
)

const doc = `Explain finds the root cause of a failing test: the concurrency bug, or
the statement where the corruption started, behind a crash (a panic, a
fatal runtime error), a failed assertion or a hang. It implements execution
suppression (Jeffrey et al.):

 1. Get a failing run, with every load and store of the package recorded
    (local variables included): the test as written; or, if it passes,
    the test forced into another order of two accesses its passing run
    made (pairs of accesses of two goroutines to one location that
    nothing orders, nil stores first), then with one goroutine's access
    moved between two of another's that no serial order gives (W1 W2 R1
    and the like), up to -forced orders in all; or the test under seeded
    perturbation of its goroutines (up to -perturb seeds). The report
    says which; if none fails, there is nothing to explain (kind
    "passes" in -json).
 2. The failure point: the location whose value caused the failure (the
    nil pointer, the index, the value a failed assertion names; for a run
    that hung until its time bound, the location a goroutine still running
    reads again and again, waiting for it to change) and its last
    definition in the trace.
 3. At that definition, check for a harmful data race (an access of
    another goroutine with no happens-before order: run again with the
    two in the other order and compare the values), then for an atomicity
    violation (both moves of an interleaved access avoid the failure) or
    an order violation (one does). If found, that is the root cause.
 4. Otherwise suppress the definition and every later write that depends
    on what it left unwritten (when the failure names the value, also the
    other writes of that value the failing read could have seen: Go cannot
    suppress the read itself, which would see them), and run again: a new
    failure is the next iteration; a run without failure makes the last
    suppressed definition the root cause.

Every re-execution (of steps 3 and 4) replays the run under study (the
failing run, or the suppression run whose failure the iteration studies):
its goroutines pass their synchronization operations in that run's
recorded order up to the point under study (the two accesses whose order
is reversed, the definition suppressed), and then go free, except for the
forced order. A suppression run keeps following the order after the
definition as long as the run does what the order has. A re-execution
that left the order (or ended) before the point under study diverged: the
report says which, where and why. Memory accesses are not replayed, only
synchronization: a racy read may see another value than in the failing
run.

With -finding, explain takes a confirmed finding of precog test: its ID
(looked up in -o DIR's repro directory, or precog's cache, as precog repro
does) or its schedule file names the package and the test, and the
reproducer's forced order is the failing run. Its site and goroutine IDs
are those of precog test's build, so explain maps them into its
full-tracing build first: sites by file, line, column, operation and
expression; goroutines by the go statements that started them, in a run
of the test (a goroutine's ID is a hash of its parent's and of the go
statement's site ID). The report says whether the mapped schedule made the
failing run, or why not (a site without exactly one match, a goroutine
without a counterpart, an order that could not be forced or did not
fail); then the search for a failing run forces the accesses at the
finding's sites first.

The report gives the root cause with file:line:col and its source, its
kind (race, atomicity, order, definition, or none when no root cause could
be found; passes when no failing run was found), the chain of iterations, and the runs used in the columns of the
paper: orig (the failing run), supp (suppression runs), race (re-executions
with a race reversed), vio (re-executions with a violation's access moved).
Every run is bounded in time (-timeout), and so is each wait of a replayed
or forced run; a run whose trace is over -max-trace (64 MiB, or as many
events at 8 bytes each, as precog test counts them) ends explain with an
error rather than hold it in memory. -json prints one object: root
{file, line, col, expr}, kind, sites (both accesses for a race or violation, the root first),
chain, executions {orig, supp, race, vio}, reproducer (with -finding),
reexecutions (each with its kind, what it changed, the schedule's length,
the point under study's position, how far it followed, diverged, and where
it left the schedule).

explain builds the package with full tracing, whose cost is several times
a normal recording's: explain one test (-run) of one package.

Exit status

	0  a root cause was found (or the test does not fail: nothing to explain)
	3  no root cause could be found
	2  a bad command line: an unknown flag, a flag value out of range,
	   a missing or extra argument (as the go command)
	1  an error
`

// Command returns the "explain" command.
func Command() *cli.Command {
	return &cli.Command{
		Name:    "explain",
		Args:    "[-run TestX] [-json] [package] | -finding id|file",
		Summary: "find the root cause of a failing test by execution suppression",
		Doc:     doc,
		Define: func(fs *flag.FlagSet) cli.Runner {
			var o options
			fs.StringVar(&o.dir, "C", "", "change to `dir` before doing anything else")
			fs.StringVar(&o.run, "run", "", "the top-level `test` to explain (default: the first that fails)")
			fs.BoolVar(&o.json, "json", false, "print the report as one JSON object")
			fs.StringVar(&o.cache, "cache", "", "precog's cache `dir` (default: the precog directory in the user cache directory)")
			fs.StringVar(&o.tags, "tags", "", "comma-separated build `tags`")
			fs.DurationVar(&o.timeout, "timeout", explain.DefaultTimeout, "bound of each run of the test")
			fs.IntVar(&o.forced, "forced", explain.DefaultForced, "forced orders to try when the test passes as written (0: none)")
			fs.IntVar(&o.perturb, "perturb", explain.DefaultPerturb, "perturbation seeds to try after the forced orders (0: none)")
			fs.IntVar(&o.iters, "iters", explain.DefaultIters, "suppression iterations at most")
			fs.StringVar(&o.finding, "finding", "", "explain the test of a confirmed finding: its `id` (with -o, as precog repro takes it) or the path of its schedule file")
			fs.StringVar(&o.out, "o", "", "with -finding ID: the output `dir` that precog test wrote (default: precog's cache)")
			fs.BoolVar(&o.work, "work", false, "print the work directory (plans, results and traces of every run) and keep it")
			fs.Int64Var(&o.maxTrace, "max-trace", explain.DefaultMaxTraceBytes>>20, "stop, with an error, at a run whose trace is larger than `MiB` megabytes or has more events than MiB megabytes at 8 bytes an event (0: no limit): explain holds a run's whole trace in memory, about 35 times its size")
			return func(ctx context.Context, env *cli.Env, args []string) (int, error) {
				args, err := cli.ParseInterspersed(fs, args)
				if err != nil {
					return cli.ExitUsage, fmt.Errorf("%w (run 'precog help explain' for usage)", err)
				}
				if len(args) > 1 {
					return cli.ExitUsage, cli.Usagef("explain takes one package, got %d (run 'precog help explain' for usage)", len(args))
				}
				if o.finding != "" && len(args) > 0 {
					return cli.ExitUsage, cli.Usagef("-finding names the package and test: give no package (run 'precog help explain' for usage)")
				}
				pkg := "."
				if len(args) == 1 {
					pkg = args[0]
				}
				return run(ctx, env, o, pkg)
			}
		},
	}
}

type options struct {
	dir, run, cache, tags  string
	finding, out           string
	json, work             bool
	timeout                time.Duration
	perturb, iters, forced int
	maxTrace               int64 // MiB
}

func run(ctx context.Context, env *cli.Env, o options, pkg string) (int, error) {
	// -run 'TestX$', as go test users write it to name one test, is
	// that test.
	o.run = strings.TrimSuffix(strings.TrimPrefix(o.run, "^"), "$")
	if strings.ContainsAny(o.run, "|/^$") {
		return cli.ExitUsage, cli.Usagef("-run names one top-level test, got %q", o.run)
	}
	if o.timeout <= 0 {
		return cli.ExitUsage, cli.Usagef("-timeout must be positive, got %s", o.timeout)
	}
	if o.maxTrace < 0 {
		return cli.ExitUsage, cli.Usagef("-max-trace must be 0 (no limit) or a positive number of MiB, got %d", o.maxTrace)
	}
	dir, err := cli.WorkDir(env.Dir, o.dir)
	if err != nil {
		return cli.ExitError, err
	}
	perturb, forced := o.perturb, o.forced
	if perturb == 0 {
		perturb = -1
	}
	if forced == 0 {
		forced = -1
	}
	var flags []string
	if o.tags != "" {
		flags = append(flags, "-tags="+o.tags)
	}
	maxTrace := o.maxTrace << 20
	if maxTrace == 0 {
		maxTrace = -1
	}
	progress := cli.NewProgress(env.Stderr)
	status := cli.NewStatus(time.Now(), "instrumenting "+pkg)
	// In a CI log, where the line is off, a plain line now and then: a
	// failing run of millions of events takes minutes to analyse.
	progress.Every(30*time.Second, status.Line)
	eo := explain.Options{Dir: dir, Package: pkg, Test: o.run, BuildFlags: flags,
		CacheDir: o.cache, Timeout: o.timeout, Perturb: perturb, Forced: forced, Iters: o.iters, MaxTraceBytes: maxTrace,
		Progress: func(s string) { status.Set(s); progress.Status(s) }}
	if o.finding != "" {
		env := &cli.Env{Stdout: env.Stdout, Stderr: env.Stderr, Dir: dir}
		s, err := schedule(env, o)
		if err != nil {
			return cli.ExitError, err
		}
		eo.Dir, eo.Package, eo.Test, eo.BuildFlags, eo.Prefer, eo.Reproducer = s.Dir, s.Package, s.Test, s.BuildFlags, s.Sites, s
		fmt.Fprintf(env.Stderr, "explaining %s: %s: %s, in %s\n", s.ID, s.Kind, s.Message, s.Test)
	}
	if o.work {
		eo.Work = func(dir string) { fmt.Fprintf(env.Stderr, "WORK=%s\n", dir) }
	}
	rep, err := explain.Explain(ctx, eo)
	progress.Clear()
	if err != nil {
		return cli.ExitError, err
	}
	if o.json {
		data, err := rep.JSON()
		if err != nil {
			return cli.ExitError, err
		}
		fmt.Fprintf(env.Stdout, "%s\n", data)
	} else {
		write(env.Stdout, rep)
	}
	if rep.Kind == explain.KindNone {
		return cli.ExitFindings, nil
	}
	return cli.ExitOK, nil
}

// schedule reads the schedule of -finding: a finding ID, looked up as
// precog repro does, or a schedule file.
func schedule(env *cli.Env, o options) (*validate.Schedule, error) {
	path := env.Resolve(o.finding)
	if !strings.HasSuffix(o.finding, ".json") {
		out := o.out
		if out != "" {
			out = env.Resolve(out)
		}
		rd, err := predict.ReproDir(out, o.cache)
		if err != nil {
			return nil, err
		}
		path = predict.ReproFile(rd, o.finding)
	}
	s, err := validate.ReadSchedule(path)
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("no reproducer for %s: %s does not exist (precog test writes one per confirmed finding)", o.finding, path)
	}
	return s, err
}

// write prints the report as text.
func write(w io.Writer, r *explain.Report) {
	if r.Kind == explain.KindPasses {
		if r.Reproducer != "" {
			fmt.Fprintf(w, "reproducer: %s\n", r.Reproducer)
		}
		fmt.Fprintf(w, "nothing to explain: no failing run: %s\n", r.Reason)
		return
	}
	fmt.Fprintf(w, "%s.%s: failing run: %s\n", r.Package, r.Test, r.Source)
	if r.Reproducer != "" {
		fmt.Fprintf(w, "reproducer: %s\n", r.Reproducer)
	}
	switch r.Kind {
	case explain.KindNone:
		fmt.Fprintf(w, "no root cause found: %s\n", r.Reason)
	case explain.KindDefinition:
		fmt.Fprintf(w, "root cause: the definition %s\n\t%s\n", r.Root, r.Reason)
	default:
		fmt.Fprintf(w, "root cause: %s (%s) at %s\n\t%s\n", kindName(r.Kind), r.Shape, r.Root, r.Reason)
		for _, s := range r.Sites {
			fmt.Fprintf(w, "\t%s (goroutine %d)\n", s, s.G)
		}
	}
	for i, st := range r.Chain {
		fmt.Fprintf(w, "iteration %d: %s\n", i+1, st.Failure)
		if st.At != nil {
			fmt.Fprintf(w, "\tfailure point %s (%s)\n", st.At, st.Why)
		}
		if st.Def != nil {
			fmt.Fprintf(w, "\tlast definition %s, value %d\n", st.Def, st.Value)
		}
		if st.Checked != "" {
			fmt.Fprintf(w, "\tchecked: %s\n", st.Checked)
		}
		if st.Note != "" {
			fmt.Fprintf(w, "\tnote: %s\n", st.Note)
		}
	}
	e := r.Executions
	fmt.Fprintf(w, "executions: %d (orig %d + supp %d + race %d + vio %d), %s, largest trace %d events (%d bytes)\n",
		e.Total(), e.Orig, e.Supp, e.Race, e.Vio, cli.Round(r.Wall), r.MaxEvents, r.MaxTraceBytes)
	if len(r.Reexecutions) == 0 {
		return
	}
	diverged := 0
	for _, re := range r.Reexecutions {
		if re.Diverged {
			diverged++
		}
	}
	fmt.Fprintf(w, "replay: %d of %d re-executions followed the failing schedule to the point under study\n", len(r.Reexecutions)-diverged, len(r.Reexecutions))
	for i, re := range r.Reexecutions {
		if re.Diverged {
			fmt.Fprintf(w, "\tdiverged: re-execution %d (%s, iteration %d, %s): %s\n", i+1, re.Kind, re.Iteration, re.What, re.Left)
		}
	}
}

func kindName(k string) string {
	switch k {
	case explain.KindRace:
		return "data race"
	case explain.KindAtomicity:
		return "atomicity violation"
	case explain.KindOrder:
		return "order violation"
	}
	return k
}

// Package covercmd implements "precog cover": the concurrency coverage of
// a test suite, as concurrent function pairs (CFP), with the tests and
// functions that CFP-guided detection would select. The work is done by
// pipeline/coverage; this package turns flags into its options and writes
// the report as text, JSON lines or an HTML page.
package covercmd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/pipeline/coverage"
	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/pipeline/record"
)

const doc = `Cover measures the concurrency coverage of the packages' tests: which pairs
of functions each test runs concurrently (Concurrent Function Pairs, from
Deng, Zhang and Lu, OOPSLA 2013). Two functions are a pair when one
goroutine can be inside the first (or a function it calls) while another
goroutine is inside the second, given the recorded run's order
synchronization (go statements, channels, WaitGroups, ...) and the locks
held across them. Like statement coverage for sequential code, it says how
much of the program's concurrency the tests exercise, and which tests
repeat what others already do.

Each top-level test runs once, in a process of its own, instrumented to
record function entries and exits and synchronization but no memory
access: a cheap run. Functions the static analysis proves unnecessary are
not logged (-opt1, -opt2, -pre; see 'go doc ./analyzers/cfpplan'), and
the pairs of the ones skipped by -opt2 are added back from their callers'.

The tests of each package are then selected greedily: first the test that
covers the most pairs, then each time the test that covers the most pairs
not yet covered, until every pair is. Each selected test's functions are
those of the pairs it adds. "precog test" runs its detection on exactly
these tests and functions when a package has more than one test.

Output

For each package: the number of pairs and functions, then one line per
test (pairs it covers, pairs it adds in selection order, and whether it is
selected, with its functions), one line per function (its pairs and the
tests that cover them), and the functions that run on a goroutine the
package starts but that no test ran concurrently with anything.

With -json, one JSON object per test instead, on a line of its own:
package, test, pairs (how many it covers), new (how many it adds in
selection order; 0 when not selected), selected, order (its place in the
selection, from 1; 0 when not selected), funcs (the selected functions),
fluctuation (with -runs), outcome.

With -html FILE, also a page in the spirit of "go tool cover -html": per
package, a matrix of the functions where each covered pair is a cell
whose tooltip names the tests that cover it, the tests with their
selection, and the source with the functions some test runs concurrently
marked green and the goroutine functions that none does marked red.

With -runs N, each test runs N times and its fluctuation is reported: the
pairs not found in every run over the pairs found in any.

The go test flags below are passed on to the builds and to every test
binary; -run and -skip choose which top-level tests run. Up to -p packages
run side by side, as go test -p runs them, a package's tests one at a
time, in order (with -v, one package at a time).

-record-budget d bounds the runs as precog test's does, but is off by
default: once d has passed since the first test started, no test starts,
and a test still running 30s later is stopped as -timeout stops it and
gets no coverage (a note says so); the tests not run are counted.

A run of more than 5,000,000 events (about 0.77 GiB of memory to measure)
gets no coverage either, with a note: its table row reads 0 pairs.

Exit status

	0  the coverage was measured (whatever the tests' outcomes)
	2  a bad command line: an unknown flag, a flag value out of range
	   (-runs), a missing or extra argument (as the go command)
	1  an error: a package that does not build
`

// Command returns the "cover" command.
func Command() *cli.Command {
	return &cli.Command{
		Name:    "cover",
		Args:    "[go test flags] [packages] [-args test arguments]",
		Summary: "measure which pairs of functions the tests run concurrently",
		Doc:     doc,
		Define: func(fs *flag.FlagSet) cli.Runner {
			o := options{cfp: instrument.AllCFP}
			fs.StringVar(&o.dir, "C", "", "change to `dir` before doing anything else")
			fs.StringVar(&o.out, "o", "", "keep the cheap runs' traces and index.json in `dir` (default: a temporary directory, removed)")
			fs.BoolVar(&o.json, "json", false, "print one JSON object per test instead of text")
			fs.StringVar(&o.html, "html", "", "also write an HTML page of the coverage to `file`")
			fs.IntVar(&o.runs, "runs", 1, fmt.Sprintf("run each test `n` times and report how much its pairs fluctuate (1 to %d)", coverage.MaxRuns))
			fs.BoolVar(&o.cfp.Opt1, "opt1", true, "do not log functions that touch no shared memory")
			fs.BoolVar(&o.cfp.Opt2, "opt2", true, "do not log callees that inherit their callers' pairs")
			fs.BoolVar(&o.cfp.Pre, "pre", true, "do not log functions that run only before any goroutine starts")
			fs.BoolVar(&o.cfp.Loops, "loops", true, "-opt2: assume every loop runs its body at least once")
			fs.StringVar(&o.deps, "instrument-deps", "", "also instrument the dependencies matching the package `pattern`: import paths, comma-separated, each possibly ending in /..., each matching a package the tests build (a usage error if not); instrumented through copies in the cache")
			fs.StringVar(&o.cache, "cache", "", "precog's cache `dir` (default: the precog directory in the user cache directory)")
			fs.IntVar(&o.parallel, "p", runtime.GOMAXPROCS(0), "run up to `n` packages side by side (a package's tests one at a time, as go test -p)")
			fs.DurationVar(&o.budget, "record-budget", 0, "stop starting tests `d` (wall time) after the first one started; a test still running 30s later is stopped as -timeout stops it, with no coverage, and the tests not run are counted (0: no limit)")
			o.flags = record.DefineGoTestFlagsFor(fs, "cover")
			return func(ctx context.Context, env *cli.Env, args []string) (int, error) {
				patterns, testArgs, err := cli.ParseTestCommand(fs, "cover", args)
				if err != nil {
					return cli.ExitError, err
				}
				o.flags.Args = testArgs
				return run(ctx, env, o, patterns)
			}
		},
	}
}

type options struct {
	dir, out, html, deps, cache string
	json                        bool
	runs, parallel              int
	budget                      time.Duration
	cfp                         instrument.CFPOptions
	flags                       *record.GoTestFlags
}

func run(ctx context.Context, env *cli.Env, o options, patterns []string) (int, error) {
	if o.runs < 1 || o.runs > coverage.MaxRuns {
		return cli.ExitUsage, cli.Usagef("-runs must be between 1 and %d, got %d", coverage.MaxRuns, o.runs)
	}
	if o.flags.Timeout < 0 {
		return cli.ExitUsage, cli.Usagef("-timeout must be 0 (no limit) or positive, got %v", o.flags.Timeout)
	}
	if o.budget < 0 {
		return cli.ExitUsage, cli.Usagef("-record-budget must be 0 (no limit) or positive, got %v", o.budget)
	}
	if o.parallel < 1 {
		return cli.ExitUsage, cli.Usagef("-p must be at least 1, got %d", o.parallel)
	}
	dir, err := cli.WorkDir(env.Dir, o.dir)
	if err != nil {
		return cli.ExitError, err
	}
	env = &cli.Env{Stdout: env.Stdout, Stderr: env.Stderr, Dir: dir}
	progress := cli.NewProgress(env.Stderr)
	var testLog io.Writer
	if o.flags.Verbose() {
		testLog = env.Stderr
		progress.Off()
	}
	out := ""
	if o.out != "" {
		out = env.Resolve(o.out)
	}
	co := coverage.Options{
		Dir: dir, Patterns: patterns, Flags: o.flags, Deps: o.deps, CacheDir: o.cache, Out: out,
		Runs: o.runs, CFP: o.cfp, Progress: progress.Status, TestLog: testLog, Parallel: o.parallel,
	}
	if o.budget > 0 {
		co.Budget = &record.Budget{Limit: o.budget, Name: "-record-budget"}
	}
	rep, err := coverage.Measure(ctx, co)
	progress.Clear()
	if err != nil {
		return cli.ExitError, err
	}
	v := newView(rep)
	if o.json {
		err = writeJSON(env.Stdout, v)
	} else {
		err = writeText(env.Stdout, v, o.runs > 1)
	}
	if err != nil {
		return cli.ExitError, fmt.Errorf("writing the coverage: %w", err)
	}
	if o.html != "" {
		path := env.Resolve(o.html)
		f, err := os.Create(path)
		if err != nil {
			return cli.ExitError, err
		}
		err = writeHTML(f, v, readSource)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return cli.ExitError, fmt.Errorf("writing %s: %w", path, err)
		}
	}
	for _, p := range rep.Packages {
		for _, t := range p.Tests {
			if t.Outcome.Failed() {
				fmt.Fprintf(env.Stderr, "%s.%s: %s when recorded\n", p.ImportPath, t.Name, t.Outcome)
			}
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(env.Stderr, n)
	}
	if rep.NotRun > 0 {
		fmt.Fprintf(env.Stderr, "recording stopped after %v (-record-budget) with %d %s not run\n", o.budget, rep.NotRun, cli.Plural(rep.NotRun, "test run", "test runs"))
	}
	tests, sel, pairs := 0, 0, 0
	for _, p := range v.Packages {
		tests += len(p.Tests)
		sel += p.Selected
		pairs += p.Pairs
	}
	fmt.Fprintf(env.Stderr, "%d %s in %d %s; %d %s selected; %d events; recorded in %s, measured in %s\n",
		pairs, cli.Plural(pairs, "pair", "pairs"), tests, cli.Plural(tests, "test", "tests"),
		sel, cli.Plural(sel, "test", "tests"), rep.Events, rep.Record.Round(time.Millisecond), rep.Measure.Round(time.Millisecond))
	if o.html != "" {
		fmt.Fprintf(env.Stderr, "coverage page written to %s\n", env.Resolve(o.html))
	}
	if len(rep.Unlisted) > 0 {
		// As go test fails a package whose TestMain exits, the others
		// measured (precog record and precog test say the same).
		return cli.ExitError, fmt.Errorf("not measured: %s", strings.Join(rep.Unlisted, "\nnot measured: "))
	}
	return cli.ExitOK, nil
}

func readSource(path string) ([]byte, error) { return os.ReadFile(path) }

// writeText writes the report as text.
func writeText(w io.Writer, v *view, fluct bool) error {
	var b strings.Builder
	for _, p := range v.Packages {
		fmt.Fprintf(&b, "%s: %d concurrent function %s among %d functions; %d of %d tests and %d functions selected\n",
			p.ImportPath, p.Pairs, cli.Plural(p.Pairs, "pair", "pairs"), len(p.Funcs), p.Selected, len(p.Tests), p.SelFuncs)
		width := 0
		for _, t := range p.Tests {
			width = max(width, len(t.Name))
		}
		for _, t := range p.Tests {
			fmt.Fprintf(&b, "\t%-*s %4d %-5s %4d new", width, t.Name, t.Pairs, cli.Plural(t.Pairs, "pair", "pairs"), t.New)
			if t.Selected {
				fmt.Fprintf(&b, "  selected #%d: %s", t.Order, strings.Join(t.Funcs, " "))
			}
			if fluct {
				fmt.Fprintf(&b, "  fluctuation %.1f%%", 100*t.Fluctuation)
			}
			if t.Outcome != "" && t.Outcome != "pass" {
				fmt.Fprintf(&b, "  (%s)", t.Outcome)
			}
			b.WriteByte('\n')
		}
		width = 0
		for _, f := range p.Funcs {
			width = max(width, len(f.Short))
		}
		for _, f := range p.Funcs {
			fmt.Fprintf(&b, "\t%-*s %4d %-5s  %s\n", width, f.Short, f.Pairs, cli.Plural(f.Pairs, "pair", "pairs"), strings.Join(f.Tests, " "))
		}
		if len(p.Uncovered) > 0 {
			fmt.Fprintf(&b, "\tgoroutine functions no test runs concurrently with anything:\n")
			for _, f := range p.Uncovered {
				fmt.Fprintf(&b, "\t\t%s (%s:%d)\n", f.Short, f.File, f.Line)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonTest is the -json object of one test.
type jsonTest struct {
	Package     string   `json:"package"`
	Test        string   `json:"test"`
	Pairs       int      `json:"pairs"`
	New         int      `json:"new"`
	Selected    bool     `json:"selected"`
	Order       int      `json:"order"`
	Funcs       []string `json:"funcs"`
	Fluctuation float64  `json:"fluctuation"`
	Outcome     string   `json:"outcome"`
}

func writeJSON(w io.Writer, v *view) error {
	enc := json.NewEncoder(w)
	for _, p := range v.Packages {
		for _, t := range p.Tests {
			funcs := t.Funcs
			if funcs == nil {
				funcs = []string{}
			}
			if err := enc.Encode(jsonTest{Package: p.ImportPath, Test: t.Name, Pairs: t.Pairs, New: t.New, Selected: t.Selected,
				Order: t.Order, Funcs: funcs, Fluctuation: t.Fluctuation, Outcome: t.Outcome}); err != nil {
				return err
			}
		}
	}
	return nil
}

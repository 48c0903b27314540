// Package recordcmd implements "precog record": instrument a module's
// packages, run each top-level test in its own process under the shim, and
// keep one trace per test. The work is done by pipeline/instrument and
// pipeline/record; this package turns flags into their options and prints
// progress and the summary.
package recordcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/pipeline/record"
)

const doc = `Record builds the tests of the packages with precog's instrumentation and
runs each top-level test in a process of its own, recording what its
goroutines do: goroutine starts and ends, locks, wait groups, channel
operations (reflect.Select's too), atomics, the bytes of TCP connections
that the program itself reads and writes, over TLS too (a read after the
write whose bytes it got), sync.Map's operations (as atomic loads and stores of
a location per key), and reads and writes of the locations that the static
analysis finds shared between goroutines (every heap and global access with
-all; an append to a shared slice of pointers, maps, channels, funcs or
interfaces records the elements it adds as writes). Never recorded: an
access to the goroutine's own stack, which no other goroutine can reach,
and a read that repeats a read of the location by the goroutine at the
same site with no sync event or write of it between (for a location read
since the last sync event where its value feeds an index or a slice
bound: with no read of it at another site between either), which adds
nothing to what the trace orders. os/exec's goroutines that copy a command's
output into a writer of the program are recorded as tasks of the
command, from Start (or Run) to Wait, their writes into a bytes.Buffer or
strings.Builder at the Start call, and the program's method calls on such
a buffer as its reads and writes. Groups of errgroup and conc are
recorded as tasks forked by Go and joined by Wait. testify's Eventually,
EventuallyWithT and Never (their f variants, and the methods of assert's
and require's Assertions), which run the condition on a new goroutine of
testify's per tick, are recorded as the runs of a group of tasks: the
first run forked where the condition is passed, each later run forked by
the one before it as it ends (testify starts a run only after it
received the previous run's result), and the runs that ended joined when
the call returns; a deferred call is left alone. Ginkgo v2's runner
(github.com/onsi/ginkgo/v2/internal/...), which runs each spec node on a
goroutine of its own and waits for it, is instrumented whenever the tests
build it, as -instrument-deps would. Each test's trace goes to
DIR/<import path>/<Test>.trace, its output to <Test>.log next to it, and
DIR/index.json lists them with each test's outcome, event count and size. "precog trace dump" prints a trace.

Each test also runs once uninstrumented first, for the wall-time comparison
in the summary and to check that recording does not change its outcome
(-baseline=false skips that run).

Up to -p packages are recorded side by side, as go test -p runs them; a
package's tests run one at a time, in order, since two of them may share a
port, a file or a directory. The wall-time comparison then compares runs
that shared the machine with other packages' tests: -p 1 gives a quieter
one. With -v, one package at a time, so that the tests' output does not
interleave.

The go test flags below are passed on to the builds and to every test
binary; -run and -skip choose which top-level tests are recorded. A test that
fails, panics or crashes is recorded like any other: its trace holds every
event up to the crash.

The instrumented copies of the packages, the shim, the overlay and the test
binaries go into precog's cache (-cache, by default the "precog" directory in
the user cache directory); deleting it removes everything precog added. The
cache keeps the test binaries of the last build of each module directory, so
that the next run links only those whose code changed. precog never
writes into the module's own files. DIR must be new, empty, or a directory
an earlier record wrote (marked by its precog-output file), whose traces are
replaced; any other directory is refused before any work.

-max-record MiB stops writing a test's trace when it reaches MiB megabytes,
as precog test's does, but is off by default: the test runs on to its end
unrecorded, and its trace reads as the consistent prefix recorded before
the stop ("recording stopped at the trace's size limit" in the summary).

-record-budget d bounds the recording as precog test's does, but is off by
default (record is asked for every trace): once d has passed since the
first test started, no test starts, and a test still running 30s later is
stopped as -timeout stops it (the testing package prints every
goroutine's stack into its log) and kept up to there, outcome stopped.
The summary counts the tests not run and names the stopped ones, and
index.json counts the former (notRun).

A trace that its process left cut short or damaged is listed in index.json
with the reader's error (broken); one whose process died is whole up to the
death. Interrupted (SIGINT or SIGTERM), record stops the test processes,
removes its temporary directories, writes index.json for what it recorded
so far with the interrupted tests marked (outcome interrupted), prints one
line and exits 130 or 143.

Exit status

	0  every selected test was recorded (whatever its outcome), or as
	   many as -record-budget let run
	2  a bad command line: an unknown flag, a flag value out of range,
	   a missing or extra argument (as the go command)
	1  an error: a package that does not build, an output directory that
	   holds other files
	130, 143  interrupted by SIGINT, SIGTERM
`

// Command returns the "record" command.
func Command() *cli.Command {
	return &cli.Command{
		Name:    "record",
		Args:    "-o dir [go test flags] [packages] [-args test arguments]",
		Summary: "run tests instrumented and write one trace per test",
		Doc:     doc,
		Define: func(fs *flag.FlagSet) cli.Runner {
			var o options
			fs.StringVar(&o.dir, "C", "", "change to `dir` before doing anything else")
			fs.StringVar(&o.out, "o", "", "write the traces and index.json to `dir` (required)")
			fs.BoolVar(&o.all, "all", false, "record every heap and global access, not only the locations the static analysis finds shared")
			fs.StringVar(&o.deps, "instrument-deps", "", "also instrument the dependencies matching the package `pattern`: import paths, comma-separated, each possibly ending in /..., each matching a package the tests build (a usage error if not); instrumented through copies in the cache")
			fs.BoolVar(&o.funcs, "funcs", false, "record function entries and exits")
			fs.BoolVar(&o.baseline, "baseline", true, "run each test uninstrumented too, for the wall-time comparison")
			fs.IntVar(&o.parallel, "p", runtime.GOMAXPROCS(0), "record up to `n` packages side by side (a package's tests one at a time, as go test -p)")
			fs.StringVar(&o.cache, "cache", "", "precog's cache `dir` (default: the precog directory in the user cache directory)")
			fs.Int64Var(&o.maxRecord, "max-record", 0, "stop writing a test's trace when it reaches `MiB` megabytes; the test runs on unrecorded (0: no limit)")
			fs.DurationVar(&o.budget, "record-budget", 0, "stop starting tests `d` (wall time) after the first one started; a test still running 30s later is stopped as -timeout stops it and kept up to there, and the tests not run are counted (0: no limit)")
			o.flags = record.DefineGoTestFlags(fs)
			return func(ctx context.Context, env *cli.Env, args []string) (int, error) {
				patterns, testArgs, err := cli.ParseTestCommand(fs, "record", args)
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
	dir       string
	out       string
	all       bool
	deps      string
	funcs     bool
	baseline  bool
	cache     string
	budget    time.Duration
	maxRecord int64 // MiB
	parallel  int
	flags     *record.GoTestFlags
}

func run(ctx context.Context, env *cli.Env, o options, patterns []string) (int, error) {
	if o.out == "" {
		return cli.ExitUsage, cli.Usagef("record needs an output directory: -o DIR (run 'precog help record' for usage)")
	}
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	dir, err := cli.WorkDir(env.Dir, o.dir)
	if err != nil {
		return cli.ExitError, err
	}
	env = &cli.Env{Stdout: env.Stdout, Stderr: env.Stderr, Dir: dir}
	if o.flags.Timeout < 0 {
		return cli.ExitUsage, cli.Usagef("-timeout must be 0 (no limit) or positive, got %v", o.flags.Timeout)
	}
	if o.maxRecord < 0 {
		return cli.ExitUsage, cli.Usagef("-max-record must be 0 (no limit) or a positive number of MiB, got %d", o.maxRecord)
	}
	if o.budget < 0 {
		return cli.ExitUsage, cli.Usagef("-record-budget must be 0 (no limit) or positive, got %v", o.budget)
	}
	if o.parallel < 1 {
		return cli.ExitUsage, cli.Usagef("-p must be at least 1, got %d", o.parallel)
	}
	if err := record.CheckOut(env.Resolve(o.out)); err != nil {
		return cli.ExitError, err
	}
	progress := cli.NewProgress(env.Stderr)
	progress.Status("instrumenting " + strings.Join(patterns, " "))
	inst, err := instrument.Instrument(ctx, instrument.Config{
		Dir:        env.Dir,
		Patterns:   patterns,
		BuildFlags: o.flags.Build,
		All:        o.all,
		Funcs:      o.funcs,
		Deps:       o.deps,
		CacheDir:   o.cache,
	})
	progress.Clear()
	if err != nil {
		return cli.ExitError, err
	}
	var testLog io.Writer
	if o.flags.Verbose() {
		testLog = env.Stderr
		progress.Off() // the tests' output would garble it
	}
	cache, err := instrument.CacheDir(o.cache)
	if err != nil {
		return cli.ExitError, err
	}
	ro := record.Options{
		Dir:      env.Dir,
		LinkDir:  record.LinkDir(cache),
		Patterns: patterns,
		Out:      env.Resolve(o.out),
		Flags:    o.flags,
		Baseline: o.baseline,
		Progress: func(p record.Progress) {
			progress.Status(fmt.Sprintf("[%d/%d] %s %s", p.N, p.Of, p.Package, p.Test))
		},
		TestLog:    testLog,
		TraceLimit: o.maxRecord << 20,
		Parallel:   o.parallel,
	}
	if o.budget > 0 {
		ro.Budget = &record.Budget{Limit: o.budget, Name: "-record-budget"}
	}
	ix, err := record.Run(ctx, ro, &record.Instrumented{BuildFlags: inst.BuildFlags, Sites: inst.Sites, Marks: inst.Marks, MarkTests: inst.MarkTests})
	progress.Clear()
	if err != nil {
		return cli.ExitError, err
	}
	summarize(env.Stderr, ix, o.baseline)
	if ix.NotRun > 0 {
		fmt.Fprintf(env.Stderr, "recording stopped after %v (-record-budget) with %d %s not run\n", o.budget, ix.NotRun, cli.Plural(ix.NotRun, "test", "tests"))
	}
	if len(ix.Unlisted) > 0 {
		// As go test fails a package whose TestMain exits, the others
		// recorded.
		return cli.ExitError, fmt.Errorf("not recorded: %s", strings.Join(ix.Unlisted, "\nnot recorded: "))
	}
	return cli.ExitOK, nil
}

// summarize prints what was recorded: tests, events, bytes and the wall
// time against the uninstrumented runs, then every test whose outcome
// changed under recording, that -record-budget stopped, or whose trace is
// damaged.
func summarize(w io.Writer, ix *record.Index, baseline bool) {
	t := ix.Totals()
	fmt.Fprintf(w, "recorded %d %s in %d %s: %d events, %s\n",
		t.Tests, cli.Plural(t.Tests, "test", "tests"), t.Packages, cli.Plural(t.Packages, "package", "packages"),
		t.Events, bytesString(t.Bytes))
	if baseline && t.PlainWall > 0 {
		fmt.Fprintf(w, "wall time %s recorded, %s uninstrumented (%.2fx)\n",
			cli.Round(t.Wall), cli.Round(t.PlainWall), float64(t.Wall)/float64(t.PlainWall))
	} else {
		fmt.Fprintf(w, "wall time %s recorded\n", cli.Round(t.Wall))
	}
	for _, p := range ix.Packages {
		for _, tt := range p.Tests {
			if tt.Outcome == record.Stopped {
				fmt.Fprintf(w, "%s %s: still running %v after -record-budget was spent, stopped as -timeout stops a test (its log has every goroutine's stack); its trace holds what it did until then\n", p.ImportPath, tt.Name, record.StopGrace)
			} else if tt.PlainOutcome != "" && tt.PlainOutcome != tt.Outcome {
				fmt.Fprintf(w, "%s %s: %s when recorded, %s uninstrumented\n", p.ImportPath, tt.Name, tt.Outcome, tt.PlainOutcome)
			}
			if tt.Broken != "" {
				fmt.Fprintf(w, "%s %s: %s\n", p.ImportPath, tt.Name, tt.Broken)
			}
		}
	}
}

func bytesString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Package reprocmd implements "precog repro": run a confirmed finding's
// test again under the schedule that made it fail, so that the bug
// happens on demand.
package reprocmd

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/pipeline/predict"
	"github.com/precog-dev/precog/pipeline/validate"
)

const doc = `Repro reproduces a finding that precog test confirmed: it instruments and
builds the finding's test as precog test did, and runs it once (or -count
times) under the schedule that made it fail, a force plan that holds the
goroutines at the finding's sites until they come in the failing order.

The finding is named by its ID, whose schedule precog test wrote to the
repro directory of its output directory (-o DIR, the same DIR as precog
test's) or, without -o, of precog's cache; or by the path of a schedule
file. precog test prints the command for each confirmed finding.

Before running, repro checks that every site the schedule names (by file,
line, column, expression and site ID) is still what it was: edits
elsewhere keep a reproducer valid, edits that move or remove its sites
make repro say which site changed, and precog test must run again.

A data race confirmed by validation ran its two accesses held at once
and adjacent in both orders, on one address, whether or not the test failed: its
reproducer forces the last of the two orders, and a run reproduces it
when the order held with both accesses on one address (a crash at a site
too, on one address); a run where they touched different memory, or the
order did not hold, does not.

With -v, the test's output is printed; otherwise its failure only.

Exit status

	0  the test did not fail as the finding predicts (every run, with
	   -count): fixed, or not reproduced
	3  the test failed as predicted (in at least one run; for a data
	   race, its accesses ran adjacent on one address)
	2  a bad command line: an unknown flag, a flag value out of range,
	   a missing or extra argument (as the go command)
	1  an error: no such finding, the code changed, a build failure
`

// Command returns the "repro" command.
func Command() *cli.Command {
	return &cli.Command{
		Name:    "repro",
		Args:    "[-o dir] id|file",
		Summary: "make a confirmed finding's test fail again",
		Doc:     doc,
		Define: func(fs *flag.FlagSet) cli.Runner {
			var o options
			fs.StringVar(&o.dir, "C", "", "change to `dir` before doing anything else")
			fs.StringVar(&o.out, "o", "", "the output `dir` that precog test wrote (default: precog's cache)")
			fs.StringVar(&o.cache, "cache", "", "precog's cache `dir` (default: the precog directory in the user cache directory)")
			fs.IntVar(&o.count, "count", 1, "run the test `n` times and report how many failed as predicted")
			fs.BoolVar(&o.verbose, "v", false, "print the test's output")
			return func(ctx context.Context, env *cli.Env, args []string) (int, error) {
				args, err := cli.ParseInterspersed(fs, args)
				if err != nil {
					return cli.ExitUsage, fmt.Errorf("%w (run 'precog help repro' for usage)", err)
				}
				if len(args) != 1 {
					return cli.ExitUsage, cli.Usagef("want one finding ID or schedule file (run 'precog help repro' for usage)")
				}
				return run(ctx, env, o, args[0])
			}
		},
	}
}

type options struct {
	dir, out, cache string
	count           int
	verbose         bool
}

func run(ctx context.Context, env *cli.Env, o options, name string) (int, error) {
	if o.count < 1 {
		return cli.ExitUsage, cli.Usagef("-count must be at least 1, got %d", o.count)
	}
	dir, err := cli.WorkDir(env.Dir, o.dir)
	if err != nil {
		return cli.ExitError, err
	}
	env = &cli.Env{Stdout: env.Stdout, Stderr: env.Stderr, Dir: dir}
	path := env.Resolve(name)
	if !strings.HasSuffix(name, ".json") {
		out := o.out
		if out != "" {
			out = env.Resolve(out)
		}
		rd, err := predict.ReproDir(out, o.cache)
		if err != nil {
			return cli.ExitError, err
		}
		path = predict.ReproFile(rd, name)
	}
	s, err := validate.ReadSchedule(path)
	if os.IsNotExist(err) {
		return cli.ExitError, fmt.Errorf("no reproducer for %s: %s does not exist (precog test writes one per confirmed finding)", name, path)
	}
	if err != nil {
		return cli.ExitError, err
	}
	work, err := os.MkdirTemp("", "precog-repro-")
	if err != nil {
		return cli.ExitError, err
	}
	defer os.RemoveAll(work)
	progress := cli.NewProgress(env.Stderr)
	progress.Status("building " + s.Package)
	bin, err := s.Build(ctx, o.cache, work)
	progress.Clear()
	if err != nil {
		return cli.ExitError, err
	}
	fmt.Fprintf(env.Stdout, "%s: %s: %s\n\tforcing %s in %s\n", s.ID, s.Kind, s.Message, s.Order, s.Test)
	failed := 0
	for i := range o.count {
		if o.count > 1 {
			progress.Status(fmt.Sprintf("run %d of %d", i+1, o.count))
		}
		v, r, err := s.Replay(ctx, bin, work)
		progress.Clear()
		if err == nil {
			err = ctx.Err() // interrupted: the run was stopped, not judged
		}
		if err != nil {
			return cli.ExitError, err
		}
		if o.verbose {
			env.Stdout.Write(r.Output)
		}
		if v.Status == "confirmed" {
			failed++
			if o.count == 1 {
				fmt.Fprintf(env.Stdout, "reproduced: %s\n", v.Reason)
			}
		} else if o.count == 1 {
			fmt.Fprintf(env.Stdout, "not reproduced (%s): %s\n", v.Status.Words(), v.Reason)
		}
	}
	if o.count > 1 {
		fmt.Fprintf(env.Stdout, "reproduced in %d of %d runs\n", failed, o.count)
	}
	if failed > 0 {
		return cli.ExitFindings, nil
	}
	return cli.ExitOK, nil
}

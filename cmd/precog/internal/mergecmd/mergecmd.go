// Package mergecmd implements "precog merge": join the results
// directories of a nightly job's shards into one.
package mergecmd

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/report"
	"github.com/precog-dev/precog/cmd/precog/internal/results"
	"github.com/precog-dev/precog/detect/finding"
)

const doc = `Merge joins the results directories that the shards of a nightly job
wrote (precog test -shard i/n -ci DIR) into one results directory, -o
DIR, as one unsharded run would have written it: one finding per ID, with
the tests of every shard that exposed it, the strongest status any shard
gave it and its reproducer; the tests and their times (which the next
night's shards balance by); the totals, summed (times are summed over
the shards, not the job's wall time); the notes and internal errors;
and the SARIF log and HTML report of the merged findings.
CFP's selection is summed as well: the shards guide detection package
by package, and precog test -shard keeps a package's tests together
when CFP guides it.

Merge refuses two directories of the same shard and a test that ran in
two of them; a shard missing from 1..n is a note in the summary. The
findings are printed as precog test prints them (-json for JSON lines;
as text, without the findings set apart unless -show-apart, with a line
on stderr saying how many), the summary goes to stderr, and the
reproducers' commands name the merged directory: run them from the
directory the tests ran in. A finding that one shard set apart and
another did not gets the other's status.

The baseline is judged again on the merged findings: -baseline FILE, or
without it the shards' own (the findings they marked baselined).
-write-baseline FILE writes one that accepts every merged finding.

Exit status

	0  no finding fails the job
	3  a finding fails it: confirmed (with -fail-on=predicted, any
	   but those set apart;
	   with -fail-on=forced, confirmed by a forced order) and not in
	   the baseline
	2  bad input: an unknown flag or a bad flag value, no directory, a directory
	   that is not a results directory, -o missing, a baseline file that
	   does not exist
	1  any other error
`

// Command returns the "merge" command.
func Command() *cli.Command {
	return &cli.Command{
		Name:    "merge",
		Args:    "-o dir dir...",
		Summary: "join the results directories of a job's shards into one",
		Doc:     doc,
		Define: func(fs *flag.FlagSet) cli.Runner {
			var o options
			fs.StringVar(&o.out, "o", "", "write the merged results to `dir` (new, empty, or written by an earlier run)")
			fs.BoolVar(&o.json, "json", false, "print findings as JSON lines instead of text")
			fs.BoolVar(&o.showApart, "show-apart", false, "also print, last, the findings set apart, which the text output leaves out (status apart, and OSCS pairs validation did not confirm: see precog test -h)")
			fs.StringVar(&o.baseline, "baseline", "", "fail only on findings whose IDs the baseline `file` does not list (default: the shards' baseline)")
			fs.StringVar(&o.writeBaseline, "write-baseline", "", "write a baseline `file` that accepts every merged finding")
			fs.Func("fail-on", "fail on confirmed findings (`confirmed`), on predicted ones too (predicted: any but those set apart), or only on those a forced order confirmed (forced); default: the shards'", func(v string) error {
				switch v {
				case "confirmed", "predicted", "forced":
					o.failOn = v
				default:
					return fmt.Errorf("want confirmed, predicted or forced")
				}
				return nil
			})
			return func(ctx context.Context, env *cli.Env, args []string) (int, error) {
				dirs, err := cli.ParseInterspersed(fs, args)
				if err != nil {
					return cli.ExitUsage, fmt.Errorf("%w (run 'precog help merge' for usage)", err)
				}
				return run(env, o, fs, dirs)
			}
		},
	}
}

type options struct {
	out, baseline, writeBaseline, failOn string
	json, showApart                      bool
}

func run(env *cli.Env, o options, flags *flag.FlagSet, args []string) (int, error) {
	start := time.Now()
	if o.out == "" {
		return cli.ExitUsage, cli.Usagef("-o is required: the directory to write the merged results to")
	}
	if len(args) == 0 {
		return cli.ExitUsage, cli.Usagef("no results directories to merge (run 'precog help merge' for usage)")
	}
	out := env.Resolve(o.out)
	var dirs []*results.Dir
	for _, a := range args {
		if filepath.Clean(env.Resolve(a)) == filepath.Clean(out) {
			return cli.ExitUsage, cli.Usagef("-o %s is also a directory to merge", o.out)
		}
		d, err := results.Read(env.Resolve(a))
		if err != nil {
			return cli.ExitUsage, &cli.UsageError{Err: err}
		}
		d.Path = a
		dirs = append(dirs, d)
	}
	baseline, baselineFile := results.Baseline{}, ""
	if o.baseline != "" {
		b, err := results.ReadBaseline(env.Resolve(o.baseline))
		if err != nil {
			return cli.ExitUsage, &cli.UsageError{Err: err}
		}
		baseline, baselineFile = b, o.baseline
	} else {
		for _, d := range dirs {
			baselineFile = cmp.Or(baselineFile, d.Summary.Baseline)
			for _, f := range d.Findings {
				if f.Baselined {
					baseline[f.ID] = true
				}
			}
		}
	}
	sum, fs, tests, err := results.Merge(dirs)
	if err != nil {
		return cli.ExitUsage, &cli.UsageError{Err: err}
	}
	if err := results.Prepare(out); err != nil {
		return cli.ExitUsage, &cli.UsageError{Err: err}
	}
	copied, err := results.CopyRepro(out, dirs, fs)
	if err != nil {
		return cli.ExitError, err
	}
	command := func(id string) string { return "precog repro -o " + cli.ShellQuote(o.out) + " " + id }
	for i := range fs {
		if copied[fs[i].ID] {
			fs[i].Repro = command(fs[i].ID)
		}
	}
	sum.Judge(fs, baseline, baselineFile, cmp.Or(o.failOn, sum.FailOn, "confirmed"))
	var text bytes.Buffer
	results.WriteText(&text, sum)
	html := &report.HTMLRun{Title: "precog merge", Command: cli.CommandLine("merge", append(cli.SetFlags(flags), args...)), Dir: sum.Dir,
		Start: start, Summary: strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n"), Errors: sum.InternalErrors}
	if err := results.Write(out, sum, fs, tests, command, html); err != nil {
		return cli.ExitError, fmt.Errorf("writing the results directory: %w", err)
	}
	var apart []finding.Finding
	if o.json {
		err = report.JSON(env.Stdout, fs)
	} else {
		shown := fs
		if !o.showApart {
			shown, apart = report.Apart(fs)
		}
		err = report.Text(env.Stdout, sum.Dir, shown)
	}
	if err != nil {
		return cli.ExitError, fmt.Errorf("writing findings: %w", err)
	}
	env.Stderr.Write(text.Bytes())
	if len(apart) > 0 {
		fmt.Fprintln(env.Stderr, results.ApartLine(apart))
	}
	fmt.Fprintf(env.Stderr, "merged %d results %s into %s\n", len(dirs), cli.Plural(len(dirs), "directory", "directories"), o.out)
	if o.writeBaseline != "" {
		if err := results.WriteBaseline(env.Resolve(o.writeBaseline), sum.Dir, fs); err != nil {
			return cli.ExitError, err
		}
	}
	return sum.Exit, nil
}

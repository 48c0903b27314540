// Package tracecmd implements "precog trace", which shows the trace files
// that precog's shim records in test processes. Its one action, dump,
// prints a trace in the text form of package trace, so that a person can
// read what a test did, and a test can compare it with a golden file.
package tracecmd

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

const doc = `Trace dump prints the trace file that precog's shim wrote for one test
process as text: first a header line with the test, the package, the start
time and the process id, then one line per event. Flags may come before or
after the file.

	precog trace v1 test="TestTransfer" package="example.com/bank" start=2025-01-02T15:04:05Z pid=4242
	7 g=1 Lock site=3 addr=0xc000012340
	7.1 g=1 Read site=4 addr=0xc000012348
	8 g=1 Unlock site=6 addr=0xc000012340

An event line is the event's seq, its goroutine's logical id (g=), its kind
and its fields. Sync events (locks, channel operations, goroutine starts,
...) have a seq of their own, which orders them across goroutines; a memory
access or function entry or exit has the seq of its goroutine's last sync
event before it, then a dot and its position after that event. An atomic
load reads the counter of seqs without taking a seq of its own: it has the
seq of the last sync event before it of any goroutine, and a position after
it, as an access has. Events are
printed in that order, by seq and position, unless -fileorder is given.
The format is documented in full in package
github.com/precog-dev/precog/shim/trace.

Each site is followed by its position in the source, taken from the site
table that the instrumenter wrote for the build: site=3(bank.go:31:5).
For a trace in a directory that precog record wrote, dump finds the table
itself (the output directory's sites.json); -sites names another, and
-sites="" prints bare site ids.

Dump tells a complete trace from one whose process died and from a file
that lost its end. The shim records in the trace's header where the space
it handed out ends and whether the process's tests returned:

  - complete: the tests returned; dump prints the trace and exits 0;
  - the process died (a crash, a kill, a timeout) before its tests
    returned: every event it committed until then is in the trace, which
    dump prints, notes on stderr that the process died, and exits 0;
  - the file was cut (copied or written in part, a full disk): dump
    prints the events before the cut, then "broken trace: file cut, N of
    its M bytes missing at offset K" and what was lost, and exits 1;
  - otherwise damaged (changed bytes, a header whose checksum does not
    match): dump prints the events before the damage, reports it as
    "broken trace: <what> at offset N" and exits 1.

A trace of another format version is refused with the version it has.

Exit status

	0  the whole trace was printed (the process may have died: see above)
	2  a bad command line: an unknown flag, a flag value out of range,
	   a missing or extra argument (as the go command)
	1  an error: a file that cannot be read, a file that is not a trace,
	   or a trace cut short or damaged
`

// Command returns the "trace" command.
func Command() *cli.Command {
	return &cli.Command{
		Name:    "trace",
		Args:    "dump file",
		Summary: "print a recorded trace as text",
		Doc:     doc,
		Define: func(fs *flag.FlagSet) cli.Runner {
			var o options
			fs.StringVar(&o.sites, "sites", auto, "show the position of each site from the site table in `file`; auto: the sites.json of the precog record output that holds the trace")
			fs.BoolVar(&o.fileOrder, "fileorder", false, "print events in the order of the file, batch by batch, instead of by seq")
			return func(ctx context.Context, env *cli.Env, args []string) (int, error) {
				if len(args) == 0 {
					return cli.ExitUsage, cli.Usagef("trace needs an action: dump (run 'precog help trace' for usage)")
				}
				if args[0] != "dump" {
					return cli.ExitUsage, cli.Usagef("unknown trace action %q (run 'precog help trace' for usage)", args[0])
				}
				files, err := cli.ParseInterspersed(fs, args[1:])
				if errors.Is(err, flag.ErrHelp) {
					return cli.Main(ctx, env, []*cli.Command{Command()}, []string{"help", "trace"}), nil
				}
				if err != nil {
					return cli.ExitUsage, fmt.Errorf("%w (run 'precog help trace' for usage)", err)
				}
				if len(files) != 1 {
					return cli.ExitUsage, cli.Usagef("dump takes one trace file, got %d (run 'precog help trace' for usage)", len(files))
				}
				return dump(env, o, files[0])
			}
		},
	}
}

type options struct {
	sites     string
	fileOrder bool
}

// auto is -sites' default: the site table of the record output that holds
// the trace, if any.
const auto = "auto"

// recordSites returns the site table of the precog record output
// directory that holds trace file, if it is in one: the nearest directory
// above it with record's marker file, whose index names the table.
func recordSites(file string) (string, bool) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", false
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, record.MarkerFile)); err == nil {
			path := filepath.Join(dir, record.SitesFile)
			_, err := os.Stat(path)
			return path, err == nil
		}
		if parent := filepath.Dir(dir); parent == dir {
			return "", false
		}
	}
}

// dump prints the trace in file. The events come out even if the trace
// is broken, since a cut trace is what a crashed test leaves, and its last
// events are the ones that explain the crash.
func dump(env *cli.Env, o options, file string) (int, error) {
	var sites *trace.SiteTable
	path := o.sites
	if path == auto {
		if p, ok := recordSites(env.Resolve(file)); ok {
			path = p
		} else {
			path = ""
		}
	} else if path != "" {
		path = env.Resolve(path)
	}
	if path != "" {
		var err error
		if sites, err = trace.LoadSites(path); err != nil {
			return cli.ExitError, err
		}
	}
	f, err := os.Open(env.Resolve(file))
	if err != nil {
		return cli.ExitError, err
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		return cli.ExitError, fmt.Errorf("%s: %w", file, err)
	}
	w := bufio.NewWriter(env.Stdout)
	var line []byte
	print := func(ev trace.Event) {
		line = append(ev.AppendFormat(line[:0], sites), '\n')
		w.Write(line)
	}
	w.WriteString(r.Header().String() + "\n")
	var events []trace.Event
	printed := 0
	for {
		var ev trace.Event
		if ev, err = r.Next(); err != nil {
			break
		}
		if o.fileOrder {
			print(ev)
			printed++
		} else {
			events = append(events, ev)
		}
	}
	trace.Sort(events)
	for _, ev := range events {
		print(ev)
	}
	if ferr := w.Flush(); ferr != nil {
		return cli.ExitError, fmt.Errorf("writing the dump: %w", ferr)
	}
	if err != io.EOF {
		if errors.Is(err, trace.ErrBroken) {
			return cli.ExitError, fmt.Errorf("%s: %w; the %d events before it are printed, whatever came after it is lost", file, err, len(events)+printed)
		}
		return cli.ExitError, fmt.Errorf("%s: %w", file, err)
	}
	if r.State() == trace.Recording {
		fmt.Fprintf(env.Stderr, "precog: %s: the process died before its tests returned (a crash, a kill or a timeout); its events up to then are printed\n", file)
	}
	return cli.ExitOK, nil
}

// Package hwreplaycmd implements "precog hwreplay": replay recorded traces
// through hwmodel's simulated multicore with the OSCS hardware of Huang,
// Halberg and Suh (ISCA 2013, §4-5) and show, next to software OSCS-Opt on
// the same traces, what the always-on hardware would flag, what it would
// lose and why, and what it would cost. The model is package hwmodel;
// this package turns flags into its configuration and prints the results.
package hwreplaycmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/oscs"
	"github.com/precog-dev/precog/hwmodel"
	"github.com/precog-dev/precog/shim/trace"
)

const doc = `Hwreplay replays recorded traces through a simulated multicore that has the
hardware of OSCS-HW (Huang, Halberg and Suh, ISCA 2013, section 4): MESI
caches whose blocks carry a one-bit shared tag, a checker per core, and a
per-core Access History Buffer (AHB) that keeps the recent accesses to
shared locations inside critical sections. It runs software OSCS-Opt (what
precog test reports as oscs) and OSCS-HW on the same traces and prints
every finding of either with the hardware's verdict: kept, lost and why,
or reported by the hardware only.

A TRACE is a trace file or a directory that "precog record -o" or
"precog test -o" wrote, which stands for all its traces (perturbed runs
included). A trace file's site table is -sites, or the sites.json of the
nearest directory above it.

The machine is the paper's Table 1 unless flags change it: 4 cores at
2 GHz; private L1 32 KB 4-way 3 cycles and L2 256 KB 4-way 15 cycles,
shared inclusive L3 8 MB 8-way 40 cycles, DRAM 50 ns, 64-byte lines; AHBs
of 256 entries, 8-way, 3 cycles. Goroutines run on the cores in the
recorded order, each keeping its core until it may block (a channel
operation, a Wait) or ends; then it takes its last core back if free, else
the free core used least recently, else preempts the one idle longest.
"go doc github.com/precog-dev/precog/hwmodel" has the whole model and what
it is sound for.

Traces do not hold the stores that allocate and initialize an object. In Go
the goroutine that makes an object usually starts the goroutines that share
it, so by default a line's first recorded use is taken to follow a store by
the goroutine that started the user, on that goroutine's core, as on real
hardware if the guess is right. With -init-parent=false a line's first use
finds it on no other core, and a critical section that runs once, before
any other goroutine touches its line, is neither recorded nor checked
(not-shared below): the hardware's coverage without that guess.

Why the hardware loses a finding

	not-shared   an access ran while its line was not tagged shared (no
	             other core had touched the line since it came on chip),
	             so the checker neither recorded nor checked it
	same-core    as not-shared, but another goroutine had used the line on
	             the same core: the one-bit tag cannot see that sharing
	tag-lost     the line had been tagged, left the chip (L3 eviction) and
	             came back untagged
	ahb-evicted  both accesses were recorded, but the earlier one's AHB
	             entry was evicted before the later one looked it up
	history      the entry's two reads and two writes no longer held the
	             earlier access when software's did

A finding only the hardware reports comes from its history missing an
access that software's had, which left an older one in place.

Output

Findings are printed as precog test prints them (the same writers): the
first site's position, kind and message, then the evidence hop by hop, the
notes, the tests and the ID with the status; the first two notes are the
verdicts:

	file:line:col: oscs: message
		...
		note: software: OSCS-Opt reports it
		note: hardware: lost (not-shared): the earlier access (f.go:12, on core 1) ...

A summary on stderr counts the traces and events replayed and the replay
speed, the findings each side reports and the hardware's coverage (kept
over software's findings) with the losses by reason, and the estimated
overhead: the cycles the AHB lookups, vector-clock accesses and context
switches add to the replayed operations' cycles. The trace holds only the
shared locations' accesses and the synchronization, not the rest of the
program, so that figure is an upper bound (the paper measured 0.23% on
whole programs). For traces from a recording directory, whose index has
the tests' run times, it also gives the added cycles (at the model's clock)
as a share of that time: the slowdown if the program's own work took as
long on the model as it did here.

With -json, each finding is one JSON object on a line, as precog test
-json prints it (status "predicted": nothing is validated here), with a
"hardware" object: verdict (kept, lost, hardware-only), reason and
detail.

With -sweep, hwreplay runs the traces at AHB sizes of 64, 128, 256 and 512
entries and cache sizes of 1/4, 1/2, 1 and 2 times the configured ones
(the paper's sensitivity study, section 5.2) and prints one line per
setting instead of the findings: software findings, kept, coverage, losses
by reason, estimated overhead (JSON objects with -json).

A damaged trace is replayed up to the damage, with a note on stderr.

Exit status

	0  no findings
	3  findings (by software, hardware or both), including when internal
	   errors came with them; hwreplay validates nothing, so they are
	   predictions, which precog test exits 3 for with -fail-on=predicted
	2  a bad command line: an unknown flag, a flag value out of range,
	   a missing or extra argument (as the go command)
	1  an error: a bad configuration, a file that is not a trace,
	   a directory without index.json, a missing site table, or internal
	   errors (a panic in the model, reported as "internal error:" with
	   the stack: a precog bug) and no findings
`

// Command returns the "hwreplay" command.
func Command() *cli.Command {
	return &cli.Command{
		Name:    "hwreplay",
		Args:    "trace...",
		Summary: "replay traces through a simulated multicore with the OSCS hardware",
		Doc:     doc,
		Define: func(fs *flag.FlagSet) cli.Runner {
			o := options{cfg: hwmodel.Default()}
			fs.StringVar(&o.sites, "sites", "", "the site table `file` of trace files given alone (default: sites.json in or above their directory)")
			fs.BoolVar(&o.json, "json", false, "print findings (or sweep settings) as JSON lines instead of text")
			fs.BoolVar(&o.sweep, "sweep", false, "run the sensitivity study: AHB 64-512 entries, caches at 1/4-2x; print coverage per setting")
			fs.IntVar(&o.cfg.Cache.Cores, "cores", o.cfg.Cache.Cores, "`n` cores")
			fs.IntVar(&o.cfg.AHB.Entries, "ahb-entries", o.cfg.AHB.Entries, "`n` AHB entries per core (fewer than -ahb-ways: fully associative)")
			fs.IntVar(&o.cfg.AHB.Ways, "ahb-ways", o.cfg.AHB.Ways, "AHB associativity (`n` ways)")
			fs.Float64Var(&o.scale, "cache-scale", 1, "multiply the L1, L2 and L3 capacities by `f` (0.25, 0.5, 2, ...)")
			fs.IntVar(&o.cfg.Cache.LineBytes, "line", o.cfg.Cache.LineBytes, "cache line size in `bytes`")
			fs.Float64Var(&o.cfg.Cache.DRAMNanos, "dram-ns", o.cfg.Cache.DRAMNanos, "DRAM latency in `ns`")
			fs.BoolVar(&o.cfg.InitByParent, "init-parent", o.cfg.InitByParent, "take each line's first use to follow a store by the goroutine that started the user, on its core (the object's allocation and initialization, which traces do not hold)")
			fs.BoolVar(&o.condFlags, "condflags", true, "OSCS: take a flag awaited under a sync.Cond as ordering synchronization (as precog test does)")
			fs.BoolVar(&o.spin, "spinloops", true, "OSCS: take a flag awaited in a loop as ordering synchronization (as precog test does)")
			fs.Int64Var(&o.maxTrace, "max-trace", 64, "skip, with a note, traces larger than `MiB` megabytes (0: no limit)")
			fs.IntVar(&o.maxGoroutines, "max-goroutines", 50000, "skip, with a note, traces of more than `n` goroutines (0: no limit); the happens-before clocks' memory grows with the goroutines that communicate, their time faster")
			return func(ctx context.Context, env *cli.Env, args []string) (int, error) {
				files, err := cli.ParseInterspersed(fs, args)
				if errors.Is(err, flag.ErrHelp) {
					return cli.Main(ctx, env, []*cli.Command{Command()}, []string{"help", "hwreplay"}), nil
				}
				if err != nil {
					return cli.ExitUsage, fmt.Errorf("%w (run 'precog help hwreplay' for usage)", err)
				}
				return run(ctx, env, o, files)
			}
		},
	}
}

type options struct {
	sites           string
	json, sweep     bool
	cfg             hwmodel.Config
	scale           float64
	condFlags, spin bool
	maxTrace        int64
	maxGoroutines   int
}

// A loaded trace: its events analysed once, replayed per setting.
type loaded struct {
	name  string
	g     *hb.Graph
	sites *trace.SiteTable
	wall  time.Duration
}

func run(ctx context.Context, env *cli.Env, o options, args []string) (int, error) {
	if len(args) == 0 {
		return cli.ExitUsage, cli.Usagef("hwreplay needs at least one trace file or recording directory (run 'precog help hwreplay' for usage)")
	}
	if o.scale <= 0 {
		return cli.ExitUsage, cli.Usagef("-cache-scale must be positive, got %v", o.scale)
	}
	if o.maxGoroutines < 0 {
		return cli.ExitUsage, cli.Usagef("-max-goroutines must be 0 (no limit) or positive, got %d", o.maxGoroutines)
	}
	if o.maxTrace < 0 {
		return cli.ExitUsage, cli.Usagef("-max-trace must be 0 (no limit) or a positive number of MiB, got %d", o.maxTrace)
	}
	cfg := o.cfg
	cfg.Cache = cfg.Cache.Scale(o.scale)
	if cfg.AHB.Entries > 0 && cfg.AHB.Ways > cfg.AHB.Entries {
		cfg = cfg.WithAHBEntries(cfg.AHB.Entries)
	}
	if err := cfg.Validate(); err != nil {
		return cli.ExitError, err
	}
	for i := range args {
		args[i] = env.Resolve(args[i])
	}
	files, err := resolve(args, resolveFlag(env, o.sites))
	if err != nil {
		return cli.ExitError, err
	}
	opts := oscs.Options{NoCondFlags: !o.condFlags, NoSpinFlags: !o.spin}
	settings := []hwmodel.Config{cfg}
	if o.sweep {
		settings = sweepSettings(cfg)
		for _, c := range settings {
			if err := c.Validate(); err != nil {
				return cli.ExitError, fmt.Errorf("sweep: %w", err)
			}
		}
	}
	tallies := make([]*tally, len(settings))
	for k, c := range settings {
		tallies[k] = newTally(c)
	}
	tables := make(map[string]*trace.SiteTable)
	var internal []string
	// One trace at a time: its events and graph are dropped before the
	// next is read.
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return cli.ExitError, err
		}
		if o.maxTrace > 0 {
			if fi, err := os.Stat(f.path); err == nil && fi.Size() > o.maxTrace<<20 {
				fmt.Fprintf(env.Stderr, "%s: %d MiB, over the limit of %d MiB (-max-trace); not replayed\n", f.path, fi.Size()>>20, o.maxTrace)
				continue
			}
		}
		sites := tables[f.sites]
		if sites == nil {
			if sites, err = trace.LoadSites(f.sites); err != nil {
				return cli.ExitError, err
			}
			tables[f.sites] = sites
		}
		tr, err := readTrace(f.path)
		if err != nil && (tr == nil || !errors.Is(err, trace.ErrBroken)) {
			return cli.ExitError, fmt.Errorf("%s: %w", f.path, err)
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "%s: %v; replayed the %d events before the damage\n", f.path, err, len(tr.Events))
		}
		if n := goroutines(tr.Events); o.maxGoroutines > 0 && n > o.maxGoroutines {
			fmt.Fprintf(env.Stderr, "%s: %d goroutines, over the limit of %d (-max-goroutines); not replayed\n", f.path, n, o.maxGoroutines)
			continue
		}
		name := f.test
		if name == "" {
			name = tr.Header.Package + "." + tr.Header.Test
		}
		if msg := replayTrace(tallies, loaded{name: name, sites: sites, wall: f.wall}, tr.Events, opts); msg != "" {
			internal = append(internal, fmt.Sprintf("internal error: replaying %s: %s", f.path, msg))
		}
	}
	for _, t := range tallies {
		t.finish()
	}
	for _, e := range internal {
		fmt.Fprintln(env.Stderr, e)
	}
	if len(internal) > 0 && !anyFindings(tallies) {
		return cli.ExitError, fmt.Errorf("no findings, but %d internal %s in precog's model", len(internal), cli.Plural(len(internal), "error", "errors"))
	}
	if o.sweep {
		return printSweep(env, o.json, cfg, tallies)
	}
	t := tallies[0]
	if err := printFindings(env, o.json, t); err != nil {
		return cli.ExitError, fmt.Errorf("writing findings: %w", err)
	}
	summarize(env.Stderr, cfg, t)
	if len(t.findings) > 0 {
		return cli.ExitFindings, nil
	}
	return cli.ExitOK, nil
}

// replayTrace analyses one trace, runs software OSCS-Opt on it and replays
// it at every setting. A panic (a precog bug) comes back as its message and
// stack, indented, and the other traces are still replayed; the settings
// replayed before the panic keep the trace's results.
func replayTrace(tallies []*tally, l loaded, events []trace.Event, opts oscs.Options) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("%v\n\t%s", r, strings.ReplaceAll(strings.TrimSpace(string(debug.Stack())), "\n", "\n\t"))
		}
	}()
	l.g = hb.Analyze(events, hb.Options{Sites: l.sites})
	swOpts := opts
	swOpts.Algorithm = oscs.Opt
	sw := oscs.Check(l.g, l.sites, swOpts)
	for _, t := range tallies {
		t.add(l, sw, opts)
	}
	return ""
}

func anyFindings(ts []*tally) bool {
	for _, t := range ts {
		if len(t.findings) > 0 {
			return true
		}
	}
	return false
}

// goroutines counts the goroutines of a trace: its Begin events.
func goroutines(evs []trace.Event) int {
	n := 0
	for i := range evs {
		if evs[i].Kind == trace.EvBegin {
			n++
		}
	}
	return n
}

func resolveFlag(env *cli.Env, path string) string {
	if path == "" {
		return ""
	}
	return env.Resolve(path)
}

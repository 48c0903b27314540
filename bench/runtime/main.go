// Command runtime measures what recording costs the test binaries of real
// code: CPU time and peak RSS of each workload's tests run plain, under
// -race, and instrumented by precog with recording on, as BENCH.md
// prescribes.
//
// For each workload (a package of a module pinned in bench/corpus) it
// builds three test binaries once with go test -c from bench/corpus: plain,
// -race, and precog's instrumented build (pipeline/instrument, the same
// overlay precog record uses). Then it runs them directly, interleaved in
// rounds whose orders follow a Williams design (each variant at each place
// of a round, and after each other, as often: williams), the precog binary
// with PRECOG_TRACE naming a fresh trace file and the GODEBUG precog test
// sets (plan.Godebug: tracebackancestors only when the build holds a
// marked call that one of the tests it runs may reach, runsMarks, which the harness logs per
// workload; the base variant below only with -base-godebug), the race binary with
// GORACE=atexit_sleep_ms=0. Each sample is the rusage of the test binary
// (user+sys CPU from wait4; the peak RSS of the test binary from GNU
// time, run between the harness and the binary) and its wall time. A
// warm-up round (-warmup) runs first and is left out; then -rounds rounds
// (rounded up to whole cycles of the design), and more cycles while the
// plain runs' CPU adds up to less than -min-cpu (up to -max-rounds), as a
// short workload's runs vary more. The
// table gives, per workload, the ratio of one variant's total over the
// rounds to another's, with the 5th to 95th percentile of that ratio over
// resamples of the rounds (ratio), and the geometric mean over workloads
// that use at least 0.05 s of plain CPU and are not marked short, the
// headline, with its own.
// -from runs the binaries of an earlier -keep again instead of building,
// and -samples writes every run's figures, so that two runs of the same
// binaries can be compared. It also reports trace bytes per second of plain
// CPU, the build times, and what recording allocations (EvMapMake and
// EvNew) costs: the precog binary runs a second time in each round with
// PRECOG_MAPS=0 (variant nomaps), and precog/nomaps is the ratio.
//
// Correctness is checked while measuring: every test's pass/fail (from
// -test.v) must be the same in every variant, or the harness says which
// test changed and leaves the workload out of the table; but for the tests
// a workload names flaky, which fail now and then in any build (pond's),
// and those that failed in a plain or -race run, which it names.
//
// pond's CPU swings by up to 2x between runs of one binary, plain or
// precog's: TestSubpoolStopAndWait starts about 50,000 worker goroutines, each
// of which grows its stack twice from the runtime's fixed 2 KiB start, less
// from a larger one, and the runtime's adaptive start (GODEBUG
// adaptivestackstart, on by default) takes the average stack size the last
// garbage collection scanned, which depends on where the goroutines were
// when it ran: each run's stack growths were 5,000 to 103,000 with either
// binary (bench/RESULTS.md, reccost22). -godebug adaptivestackstart=0
// starts every goroutine at 2 KiB in every variant, so that the ratio
// compares the builds with the same growths.
//
// -maps=false leaves the nomaps variant out (a third less time), and
// -tracedir puts the traces elsewhere than the temporary directory (a
// tmpfs, say). To compare two builds of precog in one run, build the
// first with -keep DIR (from its own tree; -rounds 0 only builds), then run
// the second with -base DIR: the first's precog binaries run as variant
// base in every round, and the table adds base/plain and precog/base. The page faults column is the minor faults of the test
// binary (wait4's rusage): a mapped trace faults once per page it grows.
// The kernel's share column is the part of precog's CPU beyond plain's
// that its runs spent in the kernel (kernelShare): mostly the trace's
// fresh pages, zeroed as the file grows.
// Each workload's CPU ratios are also logged as soon as it is done.
//
// Usage, from the repository root (bench/runtime is a module of its own, so
// that it stays out of the main module's go test ./...):
//
//	go -C bench/runtime run . -rounds 5
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/shim/plan"
)

var (
	rounds    = flag.Int("rounds", 5, "rounds of interleaved runs (0 with -keep: only build)")
	only      = flag.String("w", "", "comma-separated workload `names` to run (default all)")
	all       = flag.Bool("all", false, "instrument every heap and global access, not only the shared ones")
	cacheDir  = flag.String("cache", "", "precog's cache `dir` (default: a temporary directory, removed at the end)")
	timeout   = flag.Duration("timeout", 10*time.Minute, "time limit of one test binary run")
	maps      = flag.Bool("maps", true, "also run the precog binary without allocation events, EvMapMake and EvNew (variant nomaps), for the map makes column")
	traceDir  = flag.String("tracedir", "", "`dir` of the precog runs' traces (default: the harness's temporary directory)")
	keep      = flag.String("keep", "", "keep the test binaries in `dir` (one directory per workload) for a later run's -base")
	baseDir   = flag.String("base", "", "a -keep `dir` of an earlier build (another commit's precog, say): its precog binaries run as variant base in every round, beside precog")
	godebug   = flag.String("godebug", "", "GODEBUG `settings` added to every variant's runs (adaptivestackstart=0: every goroutine starts at 2 KiB, see the package doc on pond)")
	warmup    = flag.Int("warmup", 1, "`rounds` run first and left out of the figures (the first runs after a build read their binaries and the module cold)")
	minCPU    = flag.Duration("min-cpu", 8*time.Second, "after -rounds, more rounds, a cycle of the orders at a time, while the measured plain runs' CPU adds up to less than this `time` (short workloads' ratios need more rounds to be as stable), up to -max-rounds")
	maxRounds = flag.Int("max-rounds", 25, "the most measured `rounds` -min-cpu adds up to")
	samplesTo = flag.String("samples", "", "append every run to `file`, one line each, tab-separated: workload, round (negative for a warm-up round), variant, CPU seconds, wall seconds, load average")
	withRace  = flag.Bool("race", true, "run the -race binary too (false: an A/B of two precog builds, -base, in half the time; the race columns are NaN)")
	fromDir   = flag.String("from", "", "run the plain, race and precog binaries a -keep `dir` holds instead of building them, so that two runs measure the same binaries")
	baseDebug = flag.Bool("base-godebug", false, "run the base variant with the GODEBUG precog test sets (plan.Godebug), as the precog variant runs, with tracebackancestors when -base's build holds a mark (its precog.marks file; without one, kept by a harness older than reccost23's, always, as precog ran every test then); off, base runs with the environment's, as a precog older than trace version 15 ran its tests")
)

// A workload is one test package of bench/corpus and the test flags BENCH.md
// gives it.
type workload struct {
	name  string
	pkg   string
	flags []string
	// flaky names top-level tests that fail now and then whatever the
	// build, whose outcomes sameOutcomes does not compare: they still
	// run, so that the workload's CPU is the same, but one of their
	// failures does not drop the workload from the table.
	flaky []string
	// short keeps a workload out of the geometric mean whatever its
	// plain CPU: one whose CPU is near the 0.05 s floor would be in or
	// out of the headline by the load it ran under.
	short bool
}

var workloads = []workload{
	// raft's test waits one second for a Ready (readyWithTimeout): at a
	// load of 30-50 it failed in plain or -race runs of two harness runs
	// and in a precog run alone of a third, which dropped raft
	// (reccost26).
	{"raft", "go.etcd.io/raft/v3", nil, []string{"TestCommitPaginationWithAsyncStorageWrites"}, false},
	{"bbolt", "go.etcd.io/bbolt", []string{"-test.short"}, nil, false},
	{"golang-lru", "github.com/hashicorp/golang-lru/v2", nil, nil, false},
	// pond's first test asserts counters the worker updates after Wait
	// returned: plain failed 4 of 5,000 runs, recorded 2 (reccost21). The
	// second sleeps 10 ms for its first task to end before the second
	// one's error: at a load of 25-37 it failed in a plain run of one
	// harness run and in a precog run alone of another, which dropped pond
	// (reccost26; reccost25 saw it fail in a base run).
	{"pond", "github.com/alitto/pond/v2", nil, []string{"TestTaskGroupWaitShouldNotDeadlockWhenPoolContextCanceledWithQueuedTasks", "TestResultTaskGroupWaitWithErrorInLastTask"}, false},
	{"x/sync/syncmap", "golang.org/x/sync/syncmap", nil, nil, false},
	// errgroup's tests take 0.04 s of plain CPU at idle, 0.06 s at a load
	// of 25 (reccost26): left out of the headline, as the idle runs did.
	{"x/sync/errgroup", "golang.org/x/sync/errgroup", nil, nil, true},
	{"x/sync/semaphore", "golang.org/x/sync/semaphore", nil, nil, false},
	{"ristretto/z", "github.com/dgraph-io/ristretto/v2/z", nil, nil, false},
	{"ants", "github.com/panjf2000/ants/v2", nil, nil, false},
}

type variant int

const (
	plain variant = iota
	race
	precog
	// nomaps is the precog binary with plan.MapsEnv=0: no EvMapMake, so
	// that precog/nomaps is what recording map allocations costs.
	nomaps
	// base is the precog binary of -base: precog/base compares two
	// builds of the shim in one run.
	base
	numVariants
)

var variantNames = [numVariants]string{"plain", "race", "precog", "nomaps", "base"}

type sample struct {
	cpu, wall  time.Duration
	sys        time.Duration // the kernel's part of cpu
	rss        int64         // bytes
	faults     int64         // minor page faults
	traceBytes int64
	load       float64           // the 1-minute load average after the run
	outcomes   map[string]string // test name -> PASS, FAIL or SKIP
}

func main() {
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "runtime: "+format+"\n", args...) }
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go -C bench/runtime run . [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 || *rounds < 0 || *rounds == 0 && *keep == "" || *warmup < 0 || *fromDir != "" && *keep != "" {
		flag.Usage()
		os.Exit(2)
	}
	ws := workloads
	if *only != "" {
		ws = nil
		for name := range strings.SplitSeq(*only, ",") {
			i := slices.IndexFunc(workloads, func(w workload) bool { return w.name == name })
			if i < 0 {
				log("unknown workload %q", name)
				os.Exit(2)
			}
			ws = append(ws, workloads[i])
		}
	}
	if err := run(ws, log); err != nil {
		log("%v", err)
		os.Exit(1)
	}
}

// timeCmd is GNU time, which measures a test binary's peak RSS.
const timeCmd = "/usr/bin/time"

func run(ws []workload, log func(string, ...any)) error {
	if _, err := os.Stat(timeCmd); err != nil {
		return fmt.Errorf("the harness needs GNU time (apt-get install time) to measure peak RSS: %v", err)
	}
	corpus, err := findCorpus()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "precog-bench-runtime-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	cache := *cacheDir
	if cache == "" {
		cache = filepath.Join(work, "cache")
	}
	var load loadRange
	load.min = math.Inf(1)
	load.sample()

	type result struct {
		w       workload
		samples [numVariants][]sample
		build   [numVariants]time.Duration
		err     error
	}
	var samples *os.File
	if *samplesTo != "" {
		if samples, err = os.OpenFile(*samplesTo, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o666); err != nil {
			return err
		}
		defer samples.Close()
	}
	var results []*result
	for i, w := range ws {
		r := &result{w: w}
		results = append(results, r)
		dir := filepath.Join(work, fmt.Sprint(i))
		if *keep != "" {
			dir = filepath.Join(*keep, keepName(w))
		}
		var bins [numVariants]string
		var builds [numVariants]time.Duration
		var marks [numVariants]bool
		if *fromDir != "" {
			bins, marks, err = keptVariants(filepath.Join(*fromDir, keepName(w)))
			if err == nil {
				err = os.MkdirAll(dir, 0o777) // for the trace
			}
		} else {
			bins, builds, marks, err = buildVariants(corpus, dir, cache, w)
		}
		r.build = builds
		if err != nil {
			r.err = err
			log("%s: %v", w.name, err)
			continue
		}
		marksNote := map[bool]string{false: "no marks", true: "marks: GODEBUG=tracebackancestors"}[marks[precog]]
		if *fromDir != "" {
			log("%s: the binaries of %s (%s)", w.name, filepath.Join(*fromDir, keepName(w)), marksNote)
		} else {
			log("%s: built (plain %v, race %v, precog %v; %s)", w.name, round(builds[plain]), round(builds[race]), round(builds[precog]), marksNote)
		}
		if *rounds == 0 {
			continue
		}
		pkgDir, err := packageDir(corpus, w.pkg)
		if err != nil {
			r.err = err
			continue
		}
		order := []variant{plain, race, precog}
		if !*withRace {
			order = []variant{plain, precog}
		}
		if *maps {
			order = append(order, nomaps)
		}
		if *baseDir != "" {
			bins[base] = filepath.Join(*baseDir, keepName(w), variantNames[precog]+".test")
			if _, err := os.Stat(bins[base]); err != nil {
				r.err = fmt.Errorf("-base: %w", err)
				log("%s: %v", w.name, r.err)
				continue
			}
			marks[base] = keptMarks(filepath.Join(*baseDir, keepName(w)))
			order = append(order, base)
		}
		tracePath := filepath.Join(dir, "trace")
		if *traceDir != "" {
			tracePath = filepath.Join(*traceDir, fmt.Sprintf("precog-bench-runtime-%d-%d.trace", os.Getpid(), i))
		}
		orders := williams(order)
		var plainCPU time.Duration // of the measured rounds so far
		for n := 0; r.err == nil && moreRounds(n-*warmup, plainCPU, len(orders)); n++ {
			for _, v := range orders[n%len(orders)] {
				s, err := runBinary(bins[v], pkgDir, v, marks[v], w.flags, tracePath)
				if err != nil {
					r.err = fmt.Errorf("%s: %w", variantNames[v], err)
					break
				}
				s.load = load.sample()
				if samples != nil {
					fmt.Fprintf(samples, "%s\t%d\t%s\t%.4f\t%.4f\t%.2f\n", w.name, n-*warmup, variantNames[v], s.cpu.Seconds(), s.wall.Seconds(), s.load)
				}
				if n < *warmup {
					continue
				}
				r.samples[v] = append(r.samples[v], s)
				if v == plain {
					plainCPU += s.cpu
				}
			}
		}
		if r.err == nil {
			log("%s: %d rounds measured after %d warm-up, plain CPU %.2f s in all", w.name, len(r.samples[plain]), *warmup, plainCPU.Seconds())
		}
		if r.err == nil {
			var byItself []string
			byItself, r.err = sameOutcomes(r.samples, w.flaky)
			if len(byItself) > 0 {
				log("%s: %s failed in a plain or -race run: outcomes not compared", w.name, strings.Join(byItself, ", "))
			}
		}
		if r.err != nil {
			log("%s: %v", w.name, r.err)
			continue
		}
		// The row's CPU figures as each workload ends, for long runs.
		cpu := func(s sample) float64 { return s.cpu.Seconds() }
		baseLine := ""
		if *baseDir != "" {
			baseLine = fmt.Sprintf(", base/plain CPU %s, precog/base CPU %s", ratios(r.samples[base], r.samples[plain], cpu), ratios(r.samples[precog], r.samples[base], cpu))
		}
		log("%s: plain CPU %.2f s, precog/plain CPU %s, race/plain CPU %s%s (load average so far %.2f to %.2f)", w.name,
			median(metric(r.samples[plain], cpu)), ratios(r.samples[precog], r.samples[plain], cpu),
			ratios(r.samples[race], r.samples[plain], cpu), baseLine, load.min, load.max)
	}

	if *rounds == 0 {
		return nil
	}
	baseHead, baseRule := "", ""
	if *baseDir != "" {
		baseHead, baseRule = " base/plain CPU | precog/base CPU | base/race CPU |", "---|---|---|"
	}
	fmt.Printf("| workload | plain CPU | precog/plain CPU | race/plain CPU | precog/race CPU |%s precog/plain RSS | race/plain RSS | precog/plain wall | trace MiB per plain CPU s | page faults plain / precog | kernel's share of precog's extra CPU | map makes: precog/nomaps CPU | build plain / race / precog |\n", baseHead)
	fmt.Printf("|---|---|---|---|---|%s---|---|---|---|---|---|---|---|\n", baseRule)
	var geo [6][]ratio // CPU precog/plain, race/plain, RSS precog/plain, race/plain, CPU base/plain, precog/base
	for _, r := range results {
		if r.err != nil {
			fmt.Printf("| %s | FAILED: %s |\n", r.w.name, oneLine(r.err.Error()))
			continue
		}
		cpu := func(s sample) float64 { return s.cpu.Seconds() }
		rss := func(s sample) float64 { return float64(s.rss) }
		wall := func(s sample) float64 { return s.wall.Seconds() }
		plainCPU := median(metric(r.samples[plain], cpu))
		pc, rc := ratios(r.samples[precog], r.samples[plain], cpu), ratios(r.samples[race], r.samples[plain], cpu)
		pr := ratios(r.samples[precog], r.samples[race], cpu)
		pm, rm := ratios(r.samples[precog], r.samples[plain], rss), ratios(r.samples[race], r.samples[plain], rss)
		pw := ratios(r.samples[precog], r.samples[plain], wall)
		mc := "-"
		if *maps {
			mc = ratios(r.samples[precog], r.samples[nomaps], cpu).String()
		}
		faults := func(s sample) float64 { return float64(s.faults) }
		pf := fmt.Sprintf("%.0f / %.0f", median(metric(r.samples[plain], faults)), median(metric(r.samples[precog], faults)))
		traceRate := median(metric(r.samples[precog], func(s sample) float64 { return float64(s.traceBytes) })) / (1 << 20) / plainCPU
		baseCols := ""
		if *baseDir != "" {
			bc, pb := ratios(r.samples[base], r.samples[plain], cpu), ratios(r.samples[precog], r.samples[base], cpu)
			baseCols = fmt.Sprintf(" %s | %s | %s |", bc, pb, ratios(r.samples[base], r.samples[race], cpu))
			if headline(r.w, plainCPU) {
				geo[4] = append(geo[4], bc)
				geo[5] = append(geo[5], pb)
			}
		}
		if headline(r.w, plainCPU) {
			geo[0] = append(geo[0], pc)
			geo[1] = append(geo[1], rc)
			geo[2] = append(geo[2], pm)
			geo[3] = append(geo[3], rm)
		}
		fmt.Printf("| %s | %.2f s | %s | %s | %s |%s %s | %s | %s | %.1f | %s | %.0f%% | %s | %v / %v / %v |\n",
			r.w.name, plainCPU, pc, rc, pr, baseCols, pm, rm, pw, traceRate, pf, 100*kernelShare(r.samples[precog], r.samples[plain]), mc, round(r.build[plain]), round(r.build[race]), round(r.build[precog]))
	}
	fmt.Printf("\nGeometric mean over the %d workloads with at least 0.05 s of plain CPU and not short: CPU precog %s, race %s; RSS precog %s, race %s.\n",
		len(geo[0]), geoRatio(geo[0]), geoRatio(geo[1]), geoRatio(geo[2]), geoRatio(geo[3]))
	if *baseDir != "" {
		fmt.Printf("CPU base %s, precog/base %s.\n", geoRatio(geo[4]), geoRatio(geo[5]))
	}
	host, _ := os.Hostname()
	goVersion, _ := exec.Command("go", "version").Output()
	gd := ""
	if *godebug != "" {
		gd = ", GODEBUG " + *godebug + " added"
	}
	fmt.Printf("\n%s, %s, nproc %d, load average %.2f to %.2f, %d rounds or more (-min-cpu %v, -max-rounds %d) after %d warm-up, instrumentation: %s%s.\n",
		strings.TrimSpace(string(goVersion)), host, nproc(), load.min, load.max, *rounds, *minCPU, *maxRounds, *warmup, map[bool]string{false: "shared accesses", true: "-all"}[*all], gd)
	for _, r := range results {
		if r.err != nil {
			return errors.New("some workloads failed")
		}
	}
	return nil
}

// moreRounds says whether to run measured round m (counting from 0; a
// warm-up round when negative), given the plain runs' CPU of the measured
// rounds before it and the number of rounds of the design's cycle
// (williams): -rounds of them, rounded up to whole cycles, then more
// cycles while that CPU is short of -min-cpu, up to -max-rounds.
func moreRounds(m int, plainCPU time.Duration, cycle int) bool {
	switch {
	case m < *rounds:
		return true
	case m%cycle != 0:
		return true // the rest of a cycle
	default:
		return plainCPU < *minCPU && m+cycle <= *maxRounds
	}
}

// williams returns the orders of the variants vs in successive rounds, a
// cycle of a Williams design: over the cycle each variant runs at each
// place of a round as often as the others, and after each other variant
// as often (len(vs) rounds for an even number of variants, twice that for
// an odd one), so that a cost of the place or of the run before falls on
// every variant alike. With each round the reverse of the one before
// (plain, precog, base, then base, precog, plain), precog was always in
// the middle: in five A/Bs of one precog binary against a copy of it, at a
// load of 31-54, precog/base was 1.03 to 1.06, whichever copy ran as
// precog; with this design, 0.95 and 1.07 (bench/RESULTS.md, reccost26).
// At that load a middle's cost is not told from the spread, but nothing
// is left to it. Two variants alternate as before.
func williams(vs []variant) [][]variant {
	n := len(vs)
	first := make([]int, n) // 0, 1, n-1, 2, n-2, ...
	lo, hi := 1, n-1
	for i := 1; i < n; i++ {
		if i%2 == 1 {
			first[i], lo = lo, lo+1
		} else {
			first[i], hi = hi, hi-1
		}
	}
	var rows [][]variant
	for r := range n {
		row := make([]variant, n)
		for i, j := range first {
			row[i] = vs[(j+r)%n]
		}
		rows = append(rows, row)
	}
	if n%2 == 1 {
		for r := range n {
			rows = append(rows, slices.Clone(rows[r]))
			slices.Reverse(rows[len(rows)-1])
		}
	}
	return rows
}

// headline says whether workload w, whose runs took plainCPU seconds of
// plain CPU, counts in the geometric mean.
func headline(w workload, plainCPU float64) bool { return plainCPU >= 0.05 && !w.short }

// marksFile, beside a kept precog binary, says whether its build holds a
// marked call: "true" or "false" (keptMarks).
const marksFile = "precog.marks"

// keptMarks reads the marksFile of a build kept in dir: true when there is
// none (a harness older than the file kept it, and precog then ran every
// test with tracebackancestors).
func keptMarks(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, marksFile))
	return err != nil || strings.TrimSpace(string(data)) != "false"
}

// keptVariants are the binaries of a build kept in dir (-from), and
// which run a test that may reach a marked call.
func keptVariants(dir string) (bins [numVariants]string, marks [numVariants]bool, err error) {
	for _, v := range []variant{plain, race, precog} {
		bins[v] = filepath.Join(dir, variantNames[v]+".test")
		if _, err := os.Stat(bins[v]); err != nil {
			return bins, marks, fmt.Errorf("-from: %w", err)
		}
	}
	bins[nomaps] = bins[precog]
	marks[precog] = keptMarks(dir)
	marks[nomaps] = marks[precog]
	return bins, marks, nil
}

// buildVariants builds the three test binaries of w into dir, and says
// which run a test that may reach a marked call (runsMarks: precog's and
// nomaps').
func buildVariants(corpus, dir, cache string, w workload) (bins [numVariants]string, took [numVariants]time.Duration, marks [numVariants]bool, err error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return bins, took, marks, err
	}
	for v := range numVariants {
		bins[v] = filepath.Join(dir, variantNames[v]+".test")
		if v == nomaps {
			bins[v] = bins[precog] // the same binary, run without EvMapMake
			continue
		}
		if v == base {
			continue // built by an earlier run (-base)
		}
		start := time.Now()
		var flags []string
		switch v {
		case race:
			flags = []string{"-race"}
		case precog:
			inst, err := instrument.Instrument(context.Background(), instrument.Config{
				Dir: corpus, Patterns: []string{w.pkg}, All: *all, CacheDir: cache,
			})
			if err != nil {
				return bins, took, marks, fmt.Errorf("instrumenting: %w", err)
			}
			flags = inst.BuildFlags
			marks[precog] = runsMarks(inst, w.pkg)
			marks[nomaps] = marks[precog]
			if err := os.WriteFile(filepath.Join(dir, marksFile), []byte(fmt.Sprintln(marks[precog])), 0o666); err != nil {
				return bins, took, marks, err
			}
		}
		args := append([]string{"test", "-c", "-o", bins[v]}, flags...)
		cmd := exec.Command("go", append(args, w.pkg)...)
		cmd.Dir = corpus
		if out, err := cmd.CombinedOutput(); err != nil {
			return bins, took, marks, fmt.Errorf("go test -c (%s): %v: %s", variantNames[v], err, oneLine(string(out)))
		}
		took[v] = time.Since(start)
	}
	return bins, took, marks, nil
}

// packageDir is the directory go test would run pkg's tests in.
func packageDir(corpus, pkg string) (string, error) {
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}", pkg)
	cmd.Dir = corpus
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list %s: %v", pkg, err)
	}
	return strings.TrimSpace(string(out)), nil
}

var resultLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+)`)

// variantEnv returns the environment env of a test binary's run with the
// GODEBUG settings of -godebug added after those env has (a setting named
// twice takes its last value): the same in every variant, so that the
// ratios compare the builds under one runtime setting.
func variantEnv(env []string, settings string) []string {
	if settings == "" {
		return env
	}
	out, old := withoutGodebug(env)
	if old != "" {
		settings = old + "," + settings
	}
	return append(out, "GODEBUG="+settings)
}

// withoutGodebug returns env without its GODEBUG, and that GODEBUG's
// settings ("" for none).
func withoutGodebug(env []string) (out []string, godebug string) {
	out = make([]string, 0, len(env)+1)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			godebug = v
			continue
		}
		out = append(out, kv)
	}
	return out, godebug
}

// runsMarks reports whether a run of the whole test binary of pkg, as the
// harness runs it (every test, no benchmark), runs a test that may reach
// a marked call (instrument.Result.Marked): precog runs each test in a
// process of its own, with tracebackancestors only for those, and the
// harness, which runs them in one, sets it when one of them needs it.
func runsMarks(inst *instrument.Result, pkg string) bool {
	if !slices.Contains(inst.Marks, pkg) {
		return false
	}
	names, ok := inst.MarkTests[pkg]
	return !ok || slices.ContainsFunc(names, func(name string) bool { return !strings.HasPrefix(name, "Benchmark") })
}

// precogEnv returns env with its GODEBUG (the user's and -godebug's) under
// the settings precog test gives a recorded run of a binary with marks or
// without (plan.Godebug).
func precogEnv(env []string, marks bool) []string {
	out, old := withoutGodebug(env)
	if g := plan.Godebug(old, marks); g != "" {
		out = append(out, "GODEBUG="+g)
	}
	return out
}

// runBinary runs one test binary in dir and measures it.
func runBinary(bin, dir string, v variant, marks bool, flags []string, tracePath string) (sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	// GNU time reports the peak RSS of the test binary alone: the rusage
	// that wait4 gives this process for a child counts the harness's own
	// peak, which a child started with vfork inherits at exec.
	rssFile := bin + ".rss"
	args := append([]string{"-f", "%M", "-o", rssFile, bin, "-test.v", "-test.count=1", "-test.timeout=" + timeout.String()}, flags...)
	cmd := exec.CommandContext(ctx, timeCmd, args...)
	cmd.Dir = dir
	cmd.Env = variantEnv(os.Environ(), *godebug)
	switch v {
	case race:
		cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	case precog, nomaps, base:
		os.Remove(tracePath)
		cmd.Env = append(cmd.Env, "PRECOG_TRACE="+tracePath)
		if v != base || *baseDebug {
			cmd.Env = precogEnv(cmd.Env, marks)
		}
		if v == nomaps {
			cmd.Env = append(cmd.Env, plan.MapsEnv+"=0")
		}
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	runErr := cmd.Run()
	s := sample{wall: time.Since(start), outcomes: map[string]string{}}
	if cmd.ProcessState == nil {
		return s, runErr
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	s.sys = time.Duration(ru.Stime.Nano())
	s.faults = ru.Minflt
	rss, err := os.ReadFile(rssFile)
	if err != nil {
		return s, fmt.Errorf("reading the peak RSS: %v", err)
	}
	if _, err := fmt.Sscan(lastLines(string(rss), 1), &s.rss); err != nil {
		return s, fmt.Errorf("peak RSS %q: %v", rss, err)
	}
	s.rss <<= 10
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if m := resultLine.FindStringSubmatch(sc.Text()); m != nil {
			s.outcomes[m[2]] = m[1]
		}
	}
	if v == precog || v == nomaps || v == base {
		fi, err := os.Stat(tracePath)
		if err != nil {
			return s, fmt.Errorf("no trace: %v", err)
		}
		s.traceBytes = fi.Size()
		os.Remove(tracePath)
	}
	if runErr != nil && !hasFailure(s.outcomes) {
		return s, fmt.Errorf("%v: %s", runErr, lastLines(out.String(), 3))
	}
	return s, nil
}

func hasFailure(outcomes map[string]string) bool {
	for _, o := range outcomes {
		if o == "FAIL" {
			return true
		}
	}
	return false
}

// sameOutcomes checks that every test ended the same way in every run, but
// the flaky ones, those that failed in a plain or -race run (which fail by
// themselves, whatever precog does: pond's and raft's timing tests), and
// their subtests. It returns the tests it left out for failing unrecorded.
func sameOutcomes(samples [numVariants][]sample, flaky []string) (byItself []string, err error) {
	for _, v := range []variant{plain, race} {
		for _, s := range samples[v] {
			for name, o := range s.outcomes {
				if top, _, _ := strings.Cut(name, "/"); o == "FAIL" && !slices.Contains(byItself, top) {
					byItself = append(byItself, top)
				}
			}
		}
	}
	slices.Sort(byItself)
	ref := samples[plain][0].outcomes
	for v := range numVariants {
		for i, s := range samples[v] {
			for name, o := range ref {
				if top, _, _ := strings.Cut(name, "/"); slices.Contains(flaky, top) || slices.Contains(byItself, top) {
					continue
				}
				if got, ok := s.outcomes[name]; ok && got != o {
					return byItself, fmt.Errorf("%s %s in %s run %d, %s in the first plain run", name, got, variantNames[v], i+1, o)
				} else if !ok && !strings.Contains(name, "/") {
					return byItself, fmt.Errorf("%s did not report in %s run %d", name, variantNames[v], i+1)
				}
			}
		}
	}
	return byItself, nil
}

// A ratio is what one variant costs over another: est, the ratio of
// their totals over the rounds both ran, and lo to hi, the 5th to 95th
// percentile of est over boot, its values for resamples of those rounds
// (a bootstrap: a round drawn with replacement, as often as there are
// rounds; bootResamples of them, drawn the same in every run).
//
// The ratio of totals, not the median of the rounds' ratios that the
// harness gave until reccost26: it is the CPU a user pays, and it moves
// less. At a load of 25, one run of a test binary varied by 7 to 17% of
// its CPU (pond's stack growths, syncmap's scheduling), and the two
// variants of a round did not vary together (their ratio varied as much
// as both); over resamples of a dozen rounds the median of the ratios
// moved by 2.5 to 8.4% (pond's and syncmap's most), the ratio of totals
// by 2.8 to 5.4% (bench/RESULTS.md, reccost26). The rounds' lowest and
// highest ratios, which the table gave, are the spread of one round, not
// of the figure.
type ratio struct {
	est, lo, hi float64
	boot        []float64
}

func (r ratio) String() string { return fmt.Sprintf("%.2fx (%.2f–%.2f)", r.est, r.lo, r.hi) }

// bootResamples is how many resamples of the rounds give a ratio's
// interval.
const bootResamples = 1000

// ratios is the ratio of a's total of m to b's over the rounds both ran,
// the ith sample of each being round i.
func ratios(a, b []sample, m func(sample) float64) ratio {
	n := min(len(a), len(b))
	if n == 0 {
		return ratio{est: math.NaN(), lo: math.NaN(), hi: math.NaN()} // a variant not run (-race=false)
	}
	x, y := metric(a[:n], m), metric(b[:n], m)
	r := ratio{est: sum(x) / sum(y), boot: make([]float64, bootResamples)}
	rnd := rand.New(rand.NewPCG(1, uint64(n)))
	for k := range r.boot {
		var sx, sy float64
		for range n {
			i := rnd.IntN(n)
			sx, sy = sx+x[i], sy+y[i]
		}
		r.boot[k] = sx / sy
	}
	r.lo, r.hi = percentiles(r.boot)
	return r
}

// kernelShare is the kernel's part of what a's runs cost beyond b's, over
// the rounds both ran: the sum of a's system CPU less b's, over the sum
// of a's CPU less b's; NaN if a cost no more. Recording's kernel part is
// mostly the trace's pages, which the kernel zeroes as the file grows
// (shim's populatePages): on a virtual machine whose host takes back the
// memory the guest frees, fresh pages cost many times what reused ones
// do, and this share moves with it (bench/RESULTS.md, reccost27).
func kernelShare(a, b []sample) float64 {
	n := min(len(a), len(b))
	var dSys, dCPU time.Duration
	for i := range n {
		dSys += a[i].sys - b[i].sys
		dCPU += a[i].cpu - b[i].cpu
	}
	if dCPU <= 0 {
		return math.NaN()
	}
	return float64(dSys) / float64(dCPU)
}

// geoRatio is the geometric mean of rs' estimates, with the interval of
// the geometric means of their kth resamples.
func geoRatio(rs []ratio) ratio {
	if len(rs) == 0 || slices.ContainsFunc(rs, func(r ratio) bool { return r.boot == nil }) {
		return ratio{est: math.NaN(), lo: math.NaN(), hi: math.NaN()}
	}
	g := ratio{boot: make([]float64, bootResamples)}
	est := make([]float64, len(rs))
	for i, r := range rs {
		est[i] = r.est
	}
	g.est = geomean(est)
	for k := range g.boot {
		for i, r := range rs {
			est[i] = r.boot[k]
		}
		g.boot[k] = geomean(est)
	}
	g.lo, g.hi = percentiles(g.boot)
	return g
}

// percentiles returns the 5th and 95th percentiles of v.
func percentiles(v []float64) (lo, hi float64) {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)*5/100], v[(len(v)*95-1)/100]
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

func metric(s []sample, m func(sample) float64) []float64 {
	var v []float64
	for _, x := range s {
		v = append(v, m(x))
	}
	return v
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func geomean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

func findCorpus() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "bench", "corpus", "go.mod")); err == nil {
			return filepath.Join(dir, "bench", "corpus"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no bench/corpus/go.mod in the working directory or above it: run from within the precog repository")
		}
		dir = parent
	}
}

func nproc() int {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return 0
	}
	var n int
	fmt.Sscan(string(out), &n)
	return n
}

// loadRange tracks the lowest and highest 1-minute load average seen.
type loadRange struct{ min, max float64 }

// sample reads the load average now, notes it and returns it (0 if it
// cannot be read).
func (l *loadRange) sample() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var v float64
	if _, err := fmt.Sscan(string(b), &v); err == nil {
		l.min, l.max = min(l.min, v), max(l.max, v)
	}
	return v
}

// keepName is the directory of w's binaries under -keep and -base.
func keepName(w workload) string { return strings.ReplaceAll(w.name, "/", "-") }

func round(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// Command detect measures precog's trace checkers on the traces of real test
// suites: the time each takes per million events and the memory it
// allocates and keeps, against the time to read the trace, measured in the
// same run.
//
// For each workload (packages of a module pinned in bench/corpus) it builds
// precog from this repository, records the packages' tests with precog
// record (one trace per top-level test), then, for every trace, in rounds:
// reads it (trace.ReadAll), computes the happens-before graph (hb.Analyze),
// and runs each checker on it. A checker's time includes only its own work,
// not hb's. Memory: bytes allocated (TotalAlloc) and the live heap the
// result keeps, after a GC; for OSCS also the peak history size of its Base
// and Opt algorithms, which is what the paper compares; and the replay of
// the trace through hwmodel's machine with OSCS-HW on its history.
//
// Usage, from the repository root (bench/detect is a module of its own, so
// that it stays out of the main module's go test ./...):
//
//	go -C bench/detect run . -rounds 3
//
// With -read FILE it only reads one trace, held whole (trace.ReadAll) or
// streamed (trace.OrderedReader, -read-how stream), for the memory of
// reading:
//
//	/usr/bin/time -v go -C bench/detect run . -read pond.trace -read-how stream
//
// With -handoffs it measures nothing and lists, per workload, the findings
// of ConMem, OSCS and the race checker on the same traces with and without
// detect/hb's hand-off orders (sync.Pool, takes out of a slot under a
// mutex; handoffs.go). pond and zap are workloads for it:
//
//	go -C bench/detect run . -handoffs -w golang-lru,pond,zap
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/precog-dev/precog/detect/conmem"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/oscs"
	"github.com/precog-dev/precog/detect/unicorn"
	"github.com/precog-dev/precog/hwmodel"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

var (
	rounds    = flag.Int("rounds", 3, "measurement rounds per trace")
	only      = flag.String("w", "", "comma-separated workload `names` to run (default all)")
	keep      = flag.String("keep", "", "record into (or reuse the recordings in) `dir` instead of a temporary directory")
	hbOnly    = flag.Bool("hb-only", false, "measure reading and hb.Analyze (with and without LockOrder) only, not the checkers")
	hand      = flag.Bool("handoffs", false, "instead of measuring, list the findings with and without the hand-off orders (handoffs.go)")
	read      = flag.String("read", "", "only read the trace `file` (see -read-how), for /usr/bin/time -v's peak RSS")
	sitesFile = flag.String("sites", "", "with -read-how lookahead: the recording's sites.json (tells a select's send cases)")
	proof     = flag.String("stream-proof", "", "compare the race findings of the in-memory path and races.CheckStream on every trace of the recording in `dir` (streamproof.go)")
	cmProof   = flag.String("conmem-proof", "", "compare the con-null, con-uninit, con-closed, con-index, con-map and test lifetime findings of the in-memory path and conmem.CheckStream on every trace of the recording in `dir` (conmemproof.go)")
	windows   = flag.String("windows", "100000000,64", "with -stream-proof or -conmem-proof: comma-separated CheckStream windows, in events")
	window    = flag.Int("window", 0, "with -read-how races: CheckStream's window in events (0: hb.DefaultWindow)")
	cpuProf   = flag.String("cpuprofile", "", "with -read: write a CPU profile to `file`")
	readHow   = flag.String("read-how", "all", "with -read: `all` (trace.ReadAll), hb (and hb.Analyze), stream, lookahead (how far hb looks ahead), races (races.CheckStream), racesmem (ReadAll, hb.Analyze LockOrder, races.Check), conmem (conmem.CheckStream) or conmemmem (ReadAll, hb.Analyze, conmem.Check without spin loops) (trace.OrderedReader, no event kept)")
)

// A workload is a set of test packages of bench/corpus.
type workload struct {
	name     string
	patterns []string
	flags    []string
}

var workloads = []workload{
	{"x/sync", []string{"golang.org/x/sync/..."}, nil},
	{"conc", []string{"github.com/sourcegraph/conc/..."}, nil},
	{"raft", []string{"go.etcd.io/raft/v3"}, nil},
	{"golang-lru", []string{"github.com/hashicorp/golang-lru/v2/..."}, nil},
	// pond's test with 100,000 goroutines, which precog test skipped
	// before hb's clocks were persistent trees (not in the default set:
	// run it with -w pond-100k, and -hb-only for the clocks alone).
	{"pond-100k", []string{"github.com/alitto/pond/v2"}, []string{"-run", "TestSubpoolStopAndWait$"}},
	// Not measured by default (-w picks them): pond's 100,000-goroutine
	// test and zap's suite are for -handoffs.
	{"pond", []string{"github.com/alitto/pond/v2/..."}, nil},
	{"zap", []string{"go.uber.org/zap/..."}, nil},
}

// defaultWorkloads are the workloads measured without -w.
var defaultWorkloads = []string{"x/sync", "conc", "raft", "golang-lru"}

func main() {
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "detect: "+format+"\n", args...) }
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go -C bench/detect run . [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 || *rounds < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if *proof != "" || *cmProof != "" {
		var ws []int
		for w := range strings.SplitSeq(*windows, ",") {
			n, err := strconv.Atoi(w)
			if err != nil || n < 1 {
				log("bad -windows %q", *windows)
				os.Exit(2)
			}
			ws = append(ws, n)
		}
		prove, dir := streamProof, *proof
		if *cmProof != "" {
			prove, dir = conmemProof, *cmProof
		}
		if err := prove(dir, ws); err != nil {
			log("%v", err)
			os.Exit(1)
		}
		return
	}
	if *read != "" {
		if *cpuProf != "" {
			f, err := os.Create(*cpuProf)
			if err != nil {
				log("%v", err)
				os.Exit(1)
			}
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
			// A run stopped by a signal (timeout) keeps its profile.
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
			go func() {
				<-sig
				pprof.StopCPUProfile()
				log("stopped by a signal after %.1f s CPU", cpu().Seconds())
				os.Exit(1)
			}()
		}
		var err error
		if *readHow == "lookahead" {
			err = lookahead(*read, *sitesFile)
		} else {
			err = readTrace(*read, *readHow)
		}
		if err != nil {
			log("%v", err)
			pprof.StopCPUProfile()
			os.Exit(1)
		}
		return
	}
	names := strings.Join(defaultWorkloads, ",")
	if *only != "" {
		names = *only
	}
	var ws []workload
	{
		for name := range strings.SplitSeq(names, ",") {
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

func run(ws []workload, log func(string, ...any)) error {
	corpus, err := findCorpus()
	if err != nil {
		return err
	}
	dir := *keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "precog-bench-detect-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	precog := filepath.Join(dir, "precog")
	log("building precog")
	build := exec.Command("go", "build", "-o", precog, "./cmd/precog")
	build.Dir = filepath.Join(corpus, "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building precog: %v\n%s", err, out)
	}
	var rows []row
	for _, w := range ws {
		out := filepath.Join(dir, strings.ReplaceAll(w.name, "/", "_"))
		if _, err := os.Stat(filepath.Join(out, record.IndexFile)); err != nil || *keep == "" {
			log("recording %s", w.name)
			args := append([]string{"record", "-o", out, "-baseline=false"}, w.flags...)
			cmd := exec.Command(precog, append(args, w.patterns...)...)
			cmd.Dir = corpus
			if msg, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("recording %s: %v\n%s", w.name, err, msg)
			}
		}
		if *hand {
			if err := handoffs(w.name, out); err != nil {
				return err
			}
			continue
		}
		log("measuring %s", w.name)
		r, err := measure(w.name, out)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}
	if *hand {
		fmt.Printf("\n- command: `go -C bench/detect run . %s`\n", strings.Join(os.Args[1:], " "))
		return nil
	}
	printTable(rows)
	fmt.Printf("\n- command: `go -C bench/detect run . %s`\n", strings.Join(os.Args[1:], " "))
	fmt.Printf("- %s; nproc %d; GOMAXPROCS %d\n", runtime.Version(), runtime.NumCPU(), runtime.GOMAXPROCS(0))
	return nil
}

// A row is one checker's totals over the traces of one workload.
type row struct {
	workload, checker string
	traces, events    int
	time              time.Duration // median round, summed over traces
	alloc             uint64        // bytes allocated, summed over traces
	live              uint64        // largest live heap that the result kept, over traces
	note              string
}

// A checker is one measured step: it takes the trace's events and hb graph
// and returns a result (kept alive while the live heap is measured) and an
// optional note.
type checker struct {
	name string
	run  func(tr *trace.Trace, g *hb.Graph, sites *trace.SiteTable) (any, string)
}

// checkers are the steps measured after hb.Analyze.
var checkers = []checker{
	{"conmem", func(tr *trace.Trace, g *hb.Graph, sites *trace.SiteTable) (any, string) {
		var st conmem.Stats
		fs := conmem.Check(g, sites, conmem.Options{Stats: &st})
		return fs, fmt.Sprintf("%d spin-loop edges", st.SpinEdges)
	}},
	{"unicorn patterns", func(tr *trace.Trace, g *hb.Graph, sites *trace.SiteTable) (any, string) {
		rp := unicorn.Patterns(g, unicorn.Options{})
		unicornSum.pairs += rp.Pairs
		unicornSum.combined += rp.Combined
		unicornSum.distinct += len(rp.Patterns)
		return rp, fmt.Sprintf("%d pairs, %d combined, %d distinct patterns (all rounds)", unicornSum.pairs, unicornSum.combined, unicornSum.distinct)
	}},
	{"oscs (Base)", func(tr *trace.Trace, g *hb.Graph, sites *trace.SiteTable) (any, string) {
		return oscsRun(g, sites, oscs.Base)
	}},
	{"oscs (Opt)", func(tr *trace.Trace, g *hb.Graph, sites *trace.SiteTable) (any, string) {
		return oscsRun(g, sites, oscs.Opt)
	}},
	{"hwmodel replay", func(tr *trace.Trace, g *hb.Graph, sites *trace.SiteTable) (any, string) {
		machine = hwmodel.Replay(g, hwmodel.Default())
		hwSum.accesses += machine.Timing.Accesses
		hwSum.lookups += machine.Timing.AHBLookups
		return machine, fmt.Sprintf("Table 1 machine; %d AHB lookups in %d accesses (all rounds)", hwSum.lookups, hwSum.accesses)
	}},
	{"oscs (HW)", func(tr *trace.Trace, g *hb.Graph, sites *trace.SiteTable) (any, string) {
		return oscs.Check(g, sites, oscs.Options{Hardware: machine}), "OSCS-Opt over the replay's AHB history"
	}},
}

// machine is the last replay, which "oscs (HW)" checks with.
var machine *hwmodel.Machine

// hwSum sums the replays' counts over the traces of the current workload
// and the rounds.
var hwSum struct{ accesses, lookups int }

// oscsRun runs OSCS with algorithm a and notes the largest access history
// it kept, over the traces measured so far.
func oscsRun(g *hb.Graph, sites *trace.SiteTable, a oscs.Algorithm) (any, string) {
	fs, st := oscs.CheckStats(g, sites, oscs.Options{Algorithm: a})
	peak := &oscsPeak[a]
	peak.entries = max(peak.entries, st.PeakEntries)
	peak.bytes = max(peak.bytes, st.PeakBytes+st.SharedBytes)
	return fs, fmt.Sprintf("history peak %d entries, %.1f KiB", peak.entries, float64(peak.bytes)/1024)
}

// unicornSum sums Unicorn's counts over the traces of the current workload
// and the rounds.
var unicornSum struct{ pairs, combined, distinct int }

// oscsPeak is the largest OSCS access history of any trace of the current
// workload, per algorithm.
var oscsPeak [2]struct {
	entries int
	bytes   int64
}

func measure(name, dir string) ([]row, error) {
	ix, err := record.ReadIndex(dir)
	if err != nil {
		return nil, err
	}
	sites, err := trace.LoadSites(filepath.Join(dir, ix.Sites))
	if err != nil {
		return nil, err
	}
	oscsPeak = [2]struct {
		entries int
		bytes   int64
	}{}
	unicornSum = struct{ pairs, combined, distinct int }{}
	hwSum = struct{ accesses, lookups int }{}
	read := &row{workload: name, checker: "read trace"}
	hbRow := &row{workload: name, checker: "hb.Analyze"}
	lo := &row{workload: name, checker: "hb.Analyze LockOrder"}
	rows := make([]*row, len(checkers))
	for i, c := range checkers {
		rows[i] = &row{workload: name, checker: c.name}
	}
	for _, p := range ix.Packages {
		for _, t := range p.Tests {
			if t.Trace == "" {
				continue
			}
			path := filepath.Join(dir, t.Trace)
			var tr *trace.Trace
			add(read, *rounds, func() any {
				f, err := os.Open(path)
				if err != nil {
					panic(err)
				}
				defer f.Close()
				tr, _ = trace.ReadAll(f) // a broken trace's events before the damage count
				return tr
			})
			n := len(tr.Events)
			for _, r := range append([]*row{read, hbRow}, rows...) {
				r.traces++
				r.events += n
			}
			var g *hb.Graph
			add(hbRow, *rounds, func() any {
				g = hb.Analyze(tr.Events, hb.Options{Sites: sites})
				return g
			})
			if *hbOnly {
				lo.traces++
				lo.events += n
				g = nil
				add(lo, *rounds, func() any { return hb.Analyze(tr.Events, hb.Options{Sites: sites, LockOrder: true}) })
				continue
			}
			for i, c := range checkers {
				var note string
				add(rows[i], *rounds, func() any {
					res, n := c.run(tr, g, sites)
					note = n
					return res
				})
				if note != "" {
					rows[i].note = note
				}
			}
		}
	}
	out := []row{*read, *hbRow}
	if *hbOnly {
		return append(out, *lo), nil
	}
	for _, r := range rows {
		out = append(out, *r)
	}
	return out, nil
}

// add runs f rounds times and adds the median time, the allocation of one
// run and the live heap its result keeps to r.
func add(r *row, rounds int, f func() any) {
	var times []time.Duration
	var ms0, ms1 runtime.MemStats
	for k := range rounds {
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		start := time.Now()
		res := f()
		times = append(times, time.Since(start))
		if k == 0 {
			runtime.ReadMemStats(&ms1)
			r.alloc += ms1.TotalAlloc - ms0.TotalAlloc
			runtime.GC()
			runtime.ReadMemStats(&ms1)
			if ms1.HeapAlloc > ms0.HeapAlloc {
				r.live = max(r.live, ms1.HeapAlloc-ms0.HeapAlloc)
			}
		}
		runtime.KeepAlive(res)
	}
	slices.Sort(times)
	r.time += times[len(times)/2]
}

func printTable(rows []row) {
	fmt.Println("| workload | step | traces | events | time | per M events | vs reading | allocated | live after | note |")
	fmt.Println("|---|---|--:|--:|--:|--:|--:|--:|--:|---|")
	var readTime time.Duration
	for _, r := range rows {
		if r.checker == "read trace" {
			readTime = r.time
		}
		perM := time.Duration(0)
		if r.events > 0 {
			perM = time.Duration(float64(r.time) / float64(r.events) * 1e6)
		}
		fmt.Printf("| %s | %s | %d | %d | %s | %s | %.2fx | %s | %s | %s |\n", r.workload, r.checker, r.traces, r.events,
			r.time.Round(time.Millisecond), perM.Round(time.Millisecond), float64(r.time)/float64(readTime),
			mib(r.alloc), mib(r.live), r.note)
	}
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

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

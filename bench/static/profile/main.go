// Command profile runs precog's checks the way precog vet does (go/packages
// with all syntax and tests, then go/analysis/checker) and writes a CPU
// profile of the analysis, to see where precog vet's time goes. It also
// prints, for each analyzer, the time spent in its Run summed over
// packages; run with -sequential for these to be close to CPU time, since
// in parallel they also count the time that runs wait for a processor.
//
// Usage, from bench/corpus so that its modules resolve:
//
//	go -C ../static run ./profile -C $PWD -cpuprofile /tmp/cpu.pprof net/http
//	go tool pprof -top -cum /tmp/cpu.pprof
package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/precog-dev/precog/analyzers/suite"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

var (
	dir        = flag.String("C", ".", "directory to load the packages from")
	cpuprofile = flag.String("cpuprofile", "", "write a CPU profile of the analysis to `file`")
	memprofile = flag.String("memprofile", "", "write a heap profile, taken after the analysis, to `file`")
	tests      = flag.Bool("test", true, "also load the packages' tests")
	sequential = flag.Bool("sequential", false, "run the analysis on one goroutine")
	stopAfter  = flag.Duration("stopafter", 0, "if the analysis is still running after this long, write the profiles and exit with status 2")
	perPkg     = flag.Int("pkgs", 0, "also print the `n` packages whose analyses took longest, with each analyzer's time")
)

func main() {
	flag.Parse()
	if err := run(flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		os.Exit(1)
	}
}

func run(patterns []string) error {
	checks := suite.Checks()
	// Like precog vet, one process analyses every package: the budget's
	// time and heap limits, meant for go vet's process per package,
	// would stop a package for what the others take (and did: otter's
	// conuninit was cut at 30 s without a word).
	for name, v := range suite.SharedProcessFlags {
		check, fl, _ := strings.Cut(name, ".")
		for _, a := range checks {
			if a.Name == check {
				if err := a.Flags.Set(fl, v); err != nil {
					return fmt.Errorf("setting %s: %w", name, err)
				}
			}
		}
	}
	times := timeRuns(checks)

	start := time.Now()
	cfg := &packages.Config{Dir: *dir, Mode: packages.LoadAllSyntax | packages.NeedModule, Tests: *tests}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return fmt.Errorf("loading packages: %w", err)
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		return fmt.Errorf("%d errors loading packages", n)
	}
	fmt.Fprintf(os.Stderr, "load: %v, %d root packages\n", time.Since(start).Round(time.Millisecond), len(pkgs))

	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start = time.Now()
	if *stopAfter > 0 {
		time.AfterFunc(*stopAfter, func() {
			pprof.StopCPUProfile()
			fmt.Fprintf(os.Stderr, "analysis stopped after %v\n", *stopAfter)
			times.print()
			if err := writeHeap(); err != nil {
				fmt.Fprintln(os.Stderr, "profile:", err)
			}
			os.Exit(2)
		})
	}
	graph, err := checker.Analyze(checks, pkgs, &checker.Options{Sequential: *sequential})
	if err != nil {
		return fmt.Errorf("analyzing: %w", err)
	}
	fmt.Fprintf(os.Stderr, "analysis: %v\n", time.Since(start).Round(time.Millisecond))
	diags, failed := 0, 0
	for act := range graph.All() {
		if act.Err != nil {
			failed++
		}
		if act.IsRoot {
			diags += len(act.Diagnostics)
			for _, d := range act.Diagnostics {
				if d.Category == "limit" {
					fmt.Fprintf(os.Stderr, "budget: %s: %s\n", act.Package.PkgPath, d.Message)
				}
			}
		}
	}
	fmt.Fprintf(os.Stderr, "%d diagnostics, %d failed actions\n", diags, failed)
	times.print()

	return writeHeap()
}

// writeHeap writes the heap profile, if asked for.
func writeHeap() error {
	if *memprofile == "" {
		return nil
	}
	f, err := os.Create(*memprofile)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runTimes sums the time each analyzer spends in Run.
type runTimes struct {
	mu    sync.Mutex
	total map[string]time.Duration
	count map[string]int
	// pkg sums, per package (test variants apart), each analyzer's time.
	pkg map[string]map[string]time.Duration
}

// timeRuns wraps the Run of each analyzer reachable from as to time it.
func timeRuns(as []*analysis.Analyzer) *runTimes {
	t := &runTimes{total: make(map[string]time.Duration), count: make(map[string]int), pkg: make(map[string]map[string]time.Duration)}
	seen := make(map[*analysis.Analyzer]bool)
	var visit func([]*analysis.Analyzer)
	visit = func(as []*analysis.Analyzer) {
		for _, a := range as {
			if seen[a] {
				continue
			}
			seen[a] = true
			visit(a.Requires)
			run, name := a.Run, a.Name
			a.Run = func(p *analysis.Pass) (any, error) {
				start := time.Now()
				defer func() {
					d := time.Since(start)
					t.mu.Lock()
					t.total[name] += d
					t.count[name]++
					id := p.Pkg.Path()
					if t.pkg[id] == nil {
						t.pkg[id] = make(map[string]time.Duration)
					}
					t.pkg[id][name] += d
					t.pkg[id][""] += d
					t.mu.Unlock()
				}()
				return run(p)
			}
		}
	}
	visit(as)
	return t
}

func (t *runTimes) print() {
	t.mu.Lock()
	defer t.mu.Unlock()
	names := make([]string, 0, len(t.total))
	for n := range t.total {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(t.total[b], t.total[a]) })
	fmt.Fprintln(os.Stderr, "time in Run, summed over packages (an analyzer still running is not counted):")
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-14s %10v  %5d packages\n", n, t.total[n].Round(time.Millisecond), t.count[n])
	}
	if *perPkg <= 0 {
		return
	}
	pkgs := make([]string, 0, len(t.pkg))
	for p := range t.pkg {
		pkgs = append(pkgs, p)
	}
	slices.SortFunc(pkgs, func(a, b string) int { return cmp.Or(cmp.Compare(t.pkg[b][""], t.pkg[a][""]), cmp.Compare(a, b)) })
	fmt.Fprintf(os.Stderr, "the %d packages whose analyses took longest (a package and its test variant together):\n", *perPkg)
	for _, p := range pkgs[:min(*perPkg, len(pkgs))] {
		fmt.Fprintf(os.Stderr, "  %-50s %10v:", p, t.pkg[p][""].Round(time.Millisecond))
		as := make([]string, 0, len(t.pkg[p]))
		for a := range t.pkg[p] {
			if a != "" && t.pkg[p][a] >= 10*time.Millisecond {
				as = append(as, a)
			}
		}
		slices.SortFunc(as, func(a, b string) int { return cmp.Compare(t.pkg[p][b], t.pkg[p][a]) })
		for _, a := range as {
			fmt.Fprintf(os.Stderr, " %s %v", a, t.pkg[p][a].Round(time.Millisecond))
		}
		fmt.Fprintln(os.Stderr)
	}
}

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
}

// timeRuns wraps the Run of each analyzer reachable from as to time it.
func timeRuns(as []*analysis.Analyzer) *runTimes {
	t := &runTimes{total: make(map[string]time.Duration), count: make(map[string]int)}
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
}

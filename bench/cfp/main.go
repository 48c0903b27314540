// Command cfp measures CFP (../../shared/papers/cfp.txt) on real test
// suites pinned in bench/corpus and on the CFP corpus (testdata/cfp), in
// three parts, each printing a table for bench/RESULTS.md:
//
//	-part cost       the cheap run against the plain test binary, with the
//	                 optimizations off, each alone and together (the paper's
//	                 Table 10), and the full recording precog test does
//	                 without CFP, for scale. Every variant's test binary is
//	                 built once and run whole (all its tests in one
//	                 process), in -rounds interleaved rounds; the table gives
//	                 the median per-round ratio of CPU time (user+sys) to the
//	                 plain binary's, with min and max, and the trace bytes.
//	-part guided     precog test -cfp=false against CFP-guided precog test:
//	                 CPU (user+sys of precog and everything it runs) and wall
//	                 time, the tests and functions selected, findings,
//	                 reports and duplication rate, and the confirmed findings
//	                 of full detection that guided detection lost.
//	-part stability  precog cover -runs N: how much each test's pairs
//	                 fluctuate over N plain runs.
//
// Usage, from the repository root (bench/cfp is a module of its own):
//
//	go -C bench/cfp run . -part cost -rounds 5
//	go -C bench/cfp run . -part guided
//	go -C bench/cfp run . -part stability -runs 10
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/instrument"
)

var (
	part    = flag.String("part", "cost", "what to measure: cost, guided or stability")
	rounds  = flag.Int("rounds", 5, "cost: interleaved rounds")
	runs    = flag.Int("runs", 10, "stability: runs per test")
	only    = flag.String("w", "", "comma-separated workload `names` (default: all of the part's)")
	timeout = flag.String("timeout", "2m", "go test -timeout for each test process")
)

// A workload is a set of test packages in a module.
type workload struct {
	name     string
	dir      string // "corpus" (bench/corpus) or "cfp" (testdata/cfp)
	patterns []string
	flags    []string
}

var workloads = []workload{
	{"cfp corpus", "cfp", []string{"./..."}, nil},
	{"x/sync", "corpus", []string{"golang.org/x/sync/..."}, nil},
	{"conc", "corpus", []string{"github.com/sourcegraph/conc/..."}, nil},
	{"golang-lru", "corpus", []string{"github.com/hashicorp/golang-lru/v2/..."}, nil},
	{"raft", "corpus", []string{"go.etcd.io/raft/v3"}, nil},
	{"pond", "corpus", []string{"github.com/alitto/pond/v2"}, nil},
	{"bbolt", "corpus", []string{"go.etcd.io/bbolt"}, []string{"-short"}},
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("bench/cfp: ")
	flag.Parse()
	root, err := findRoot()
	if err != nil {
		log.Fatal(err)
	}
	ws := workloads
	if *only != "" {
		ws = nil
		for name := range strings.SplitSeq(*only, ",") {
			i := slices.IndexFunc(workloads, func(w workload) bool { return w.name == name })
			if i < 0 {
				log.Fatalf("unknown workload %q", name)
			}
			ws = append(ws, workloads[i])
		}
	}
	tmp, err := os.MkdirTemp("", "precog-bench-cfp-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	precog := filepath.Join(tmp, "precog")
	if out, err := command(root, "go", "build", "-o", precog, "./cmd/precog").CombinedOutput(); err != nil {
		log.Fatalf("building precog: %v\n%s", err, out)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	switch *part {
	case "cost":
		err = cost(root, tmp, ws)
	case "guided":
		err = guided(root, precog, ws)
	case "stability":
		err = stability(root, precog, ws)
	default:
		err = fmt.Errorf("unknown part %q", *part)
	}
	if err != nil {
		log.Fatal(err)
	}
	end, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\n- command: `go -C bench/cfp run . %s`\n", strings.Join(os.Args[1:], " "))
	fmt.Printf("- %s; nproc %d; load average at start %s, at end %s\n", runtime.Version(), runtime.NumCPU(),
		strings.Join(strings.Fields(string(load))[:3], " "), strings.Join(strings.Fields(string(end))[:3], " "))
}

func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "bench", "corpus", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no bench/corpus/go.mod in the working directory or above it: run from within the precog repository")
		}
		dir = parent
	}
}

func (w workload) path(root string) string {
	if w.dir == "cfp" {
		return filepath.Join(root, "testdata", "cfp")
	}
	return filepath.Join(root, "bench", "corpus")
}

func command(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	return cmd
}

// cpu returns the user+sys time of a finished command, its children
// included.
func cpu(cmd *exec.Cmd) time.Duration {
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// A variant is one build of a workload's test binaries.
type variant struct {
	name string
	cfp  *instrument.CFPOptions // nil: no CFP plan
	env  []string               // besides PRECOG_TRACE
	inst bool                   // instrumented at all
}

var variants = []variant{
	{name: "plain"},
	{name: "cheap, no opt", cfp: &instrument.CFPOptions{}, env: []string{"PRECOG_ACCESSES=none"}, inst: true},
	{name: "cheap, opt1", cfp: &instrument.CFPOptions{Opt1: true, Pre: true}, env: []string{"PRECOG_ACCESSES=none"}, inst: true},
	{name: "cheap, opt2", cfp: &instrument.CFPOptions{Opt2: true, Loops: true, Pre: true}, env: []string{"PRECOG_ACCESSES=none"}, inst: true},
	{name: "cheap, opt1+2", cfp: &instrument.AllCFP, env: []string{"PRECOG_ACCESSES=none"}, inst: true},
	{name: "full recording", inst: true},
}

// cost measures the cheap run's CPU against the plain binary's.
func cost(root, tmp string, ws []workload) error {
	type cell struct {
		ratios []float64
		bytes  int64
		base   time.Duration
	}
	fmt.Println("| workload | variant | CPU / plain (median [min, max]) | trace bytes | plain CPU |")
	fmt.Println("|---|---|---|---|---|")
	for _, w := range ws {
		dir := w.path(root)
		pkgs, err := listPackages(dir, w)
		if err != nil {
			return err
		}
		cells := make([]cell, len(variants))
		bins := make([][]string, len(variants))
		for vi, v := range variants {
			log.Printf("%s: building %s", w.name, v.name)
			var flags []string
			if v.inst {
				cfg := instrument.Config{Dir: dir, Patterns: w.patterns, CacheDir: filepath.Join(tmp, "cache"), CFP: v.cfp}
				res, err := instrument.Instrument(context.Background(), cfg)
				if err != nil {
					return fmt.Errorf("%s %s: %w", w.name, v.name, err)
				}
				flags = res.BuildFlags
			}
			for pi, p := range pkgs {
				bin := filepath.Join(tmp, fmt.Sprintf("%d-%d-%d.test", len(w.name), vi, pi))
				args := append(append([]string{"test", "-c", "-o", bin}, flags...), p)
				if out, err := command(dir, "go", args...).CombinedOutput(); err != nil {
					return fmt.Errorf("%s %s: go test -c: %v\n%s", w.name, v.name, err, out)
				}
				if _, err := os.Stat(bin); err == nil { // no binary: no test files
					bins[vi] = append(bins[vi], bin)
				}
			}
		}
		for r := range *rounds {
			log.Printf("%s: round %d of %d", w.name, r+1, *rounds)
			order := make([]int, len(variants))
			for i := range order {
				order[i] = i
			}
			if r%2 == 1 {
				slices.Reverse(order)
			}
			times := make([]time.Duration, len(variants))
			for _, vi := range order {
				for bi, bin := range bins[vi] {
					tr := filepath.Join(tmp, "trace")
					cmd := exec.Command(bin, append([]string{"-test.timeout=" + *timeout}, w.flags...)...)
					cmd.Dir = filepath.Dir(bin)
					if pkgDir, err := packageDir(dir, pkgs[bi]); err == nil {
						cmd.Dir = pkgDir
					}
					cmd.Env = os.Environ()
					if variants[vi].inst {
						cmd.Env = append(append(cmd.Env, "PRECOG_TRACE="+tr), variants[vi].env...)
					}
					var out bytes.Buffer
					cmd.Stdout, cmd.Stderr = &out, &out
					if err := cmd.Run(); err != nil {
						log.Printf("%s %s %s: %v (the run counts; its output ends: %.200s)", w.name, variants[vi].name, filepath.Base(bin), err, tail(out.String()))
					}
					times[vi] += cpu(cmd)
					if fi, err := os.Stat(tr); err == nil && r == 0 {
						cells[vi].bytes += fi.Size()
					}
					os.Remove(tr)
				}
			}
			for vi := range variants {
				cells[vi].ratios = append(cells[vi].ratios, float64(times[vi])/float64(times[0]))
				if vi == 0 {
					cells[0].base += times[0]
				}
			}
		}
		for vi, v := range variants {
			c := cells[vi]
			bytesCol := "-"
			if v.inst {
				bytesCol = size(c.bytes)
			}
			fmt.Printf("| %s | %s | %.2fx [%.2f, %.2f] | %s | %s |\n", w.name, v.name, median(c.ratios), slices.Min(c.ratios), slices.Max(c.ratios),
				bytesCol, (cells[0].base / time.Duration(*rounds)).Round(time.Millisecond))
		}
	}
	return nil
}

func tail(s string) string {
	if len(s) > 200 {
		return s[len(s)-200:]
	}
	return s
}

func listPackages(dir string, w workload) ([]string, error) {
	out, err := command(dir, "go", append([]string{"list"}, w.patterns...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("go list %v: %v", w.patterns, err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if !strings.Contains(p, "/failpoint") && !strings.Contains(p, "/cmd/") { // bbolt's tests/failpoint needs a gofail build
			pkgs = append(pkgs, p)
		}
	}
	return pkgs, nil
}

func packageDir(dir, pkg string) (string, error) {
	out, err := command(dir, "go", "list", "-f", "{{.Dir}}", pkg).Output()
	return strings.TrimSpace(string(out)), err
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// guidedSummary is the summary line of CFP-guided detection.
var guidedSummary = regexp.MustCompile(`cfp: detected in (\d+) of (\d+) tests and (\d+) of (\d+) functions`)

// guided compares full and CFP-guided precog test.
func guided(root, precog string, ws []workload) error {
	fmt.Println("| workload | mode | CPU | wall | tests | functions | findings | reports | duplication | confirmed | confirmed lost |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, w := range ws {
		dir := w.path(root)
		pkgs, err := listPackages(dir, w)
		if err != nil {
			return err
		}
		type result struct {
			cpu, wall time.Duration
			fs        []finding.Finding
			summary   []string
			stderr    string
		}
		var res [2]result
		for i, full := range []bool{true, false} {
			log.Printf("%s: precog test -cfp=%v", w.name, !full)
			args := append([]string{"test", "-json", "-timeout", *timeout, "-cfp=" + strconv.FormatBool(!full)}, w.flags...)
			cmd := command(dir, precog, append(args, pkgs...)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			res[i].wall = time.Since(start)
			res[i].cpu = cpu(cmd)
			res[i].stderr = stderr.String()
			if code := cmd.ProcessState.ExitCode(); err != nil && code != 3 {
				return fmt.Errorf("%s: precog test -cfp=%v: %v\n%s", w.name, !full, err, tail(stderr.String()))
			}
			for line := range strings.Lines(stdout.String()) {
				var f finding.Finding
				if err := json.Unmarshal([]byte(line), &f); err != nil {
					return fmt.Errorf("%s: -json line %q: %v", w.name, line, err)
				}
				res[i].fs = append(res[i].fs, f)
			}
			res[i].summary = guidedSummary.FindStringSubmatch(stderr.String())
		}
		confirmed := func(fs []finding.Finding) map[string]bool {
			m := make(map[string]bool)
			for _, f := range fs {
				if f.Status == finding.Confirmed {
					m[f.ID] = true
				}
			}
			return m
		}
		fullConf, guidedConf := confirmed(res[0].fs), confirmed(res[1].fs)
		var lost []string
		for id := range fullConf {
			if !guidedConf[id] {
				for _, f := range res[0].fs {
					if f.ID == id {
						lost = append(lost, f.Kind+" "+id)
					}
				}
			}
		}
		slices.Sort(lost)
		for i, mode := range []string{"full", "guided"} {
			r := res[i]
			reports := 0
			for _, f := range r.fs {
				reports += f.Reports
			}
			tests, funcs := "all", "all"
			if m := r.summary; m != nil {
				tests, funcs = m[1]+" of "+m[2], m[3]+" of "+m[4]
			}
			lostCol := ""
			if i == 1 {
				lostCol = strconv.Itoa(len(lost))
				if len(lost) > 0 {
					lostCol += ": " + strings.Join(lost, ", ")
				}
			}
			speed := ""
			if i == 1 {
				speed = fmt.Sprintf(" (speedup %.2fx)", float64(res[0].cpu)/float64(r.cpu))
			}
			fmt.Printf("| %s | %s | %s%s | %s | %s | %s | %d | %d | %.2f | %d | %s |\n", w.name, mode,
				r.cpu.Round(100*time.Millisecond), speed, r.wall.Round(100*time.Millisecond), tests, funcs,
				len(r.fs), reports, finding.Duplication(r.fs), len(confirmed(r.fs)), lostCol)
		}
	}
	return nil
}

// stability runs precog cover -runs N and summarizes the fluctuation.
func stability(root, precog string, ws []workload) error {
	fmt.Printf("| workload | tests | tests with pairs | pairs (union) | tests that fluctuate | mean fluctuation | max fluctuation |\n")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, w := range ws {
		dir := w.path(root)
		pkgs, err := listPackages(dir, w)
		if err != nil {
			return err
		}
		log.Printf("%s: precog cover -runs %d", w.name, *runs)
		args := append([]string{"cover", "-json", "-timeout", *timeout, "-runs", strconv.Itoa(*runs)}, w.flags...)
		cmd := command(dir, precog, append(args, pkgs...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: precog cover: %v\n%s", w.name, err, tail(stderr.String()))
		}
		var tests, withPairs, moving, pairs int
		var sum, maxF float64
		for line := range strings.Lines(stdout.String()) {
			var o struct {
				Pairs, New  int
				Fluctuation float64
			}
			if err := json.Unmarshal([]byte(line), &o); err != nil {
				return err
			}
			tests++
			pairs += o.New
			if o.Pairs > 0 {
				withPairs++
				sum += o.Fluctuation
			}
			if o.Fluctuation > 0 {
				moving++
			}
			maxF = max(maxF, o.Fluctuation)
		}
		mean := 0.0
		if withPairs > 0 {
			mean = sum / float64(withPairs)
		}
		fmt.Printf("| %s | %d | %d | %d | %d | %.2f%% | %.2f%% |\n", w.name, tests, withPairs, pairs, moving, 100*mean, 100*maxF)
	}
	return nil
}

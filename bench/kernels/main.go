// Command kernels measures precog test on the kernel corpus
// (testdata/kernels): for each kernel package, whether precog predicts its
// bug from the runs its expect file asks for (one, for the ConMem and OSCS
// kernels) while the bug did not happen in those runs, what else it
// reports, and how often the bug happens by itself: the natural failure
// rate of the plain test binary over -n runs. Then validation: how many of
// the kernel's findings precog test confirmed by forcing their
// interleaving, how often each confirmed finding's reproducer (precog
// repro) makes the test fail again over -repro runs, optionally with -load
// busy processes competing for the CPUs, and the time validation took
// against the recording's.
//
// With -perturb-compare 5,10,20 it measures instead how often Unicorn
// ranks each Unicorn kernel's expected pattern first under each -perturb
// mode of precog test (random delays against targeted reversals) at those
// numbers of runs per test, with -reps seeds each.
//
// With -status N -k a,b it measures instead how often each expected
// finding of those kernels gets its expected status over N runs of precog
// test, beside -load busy processes: the validation flake rate that
// TestKernels' one retry tolerates.
//
// Usage, from the repository root (bench/kernels is a module of its own, so
// that it stays out of the main module's go test ./...):
//
//	go -C bench/kernels run . -n 100
//	go -C bench/kernels run . -status 30 -k apache,loadscript,vector,doneadd
//	go -C bench/kernels run . -perturb-compare 5,10,20 -reps 3
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/expect"
	"github.com/precog-dev/precog/pipeline/record"
)

var (
	natural = flag.Int("n", 100, "plain runs of each kernel's test binary, for the natural failure rate")
	only    = flag.String("k", "", "comma-separated kernel `packages` to run (default all)")
	timeout = flag.Duration("timeout", 30*time.Second, "time limit of one plain run")
	repro   = flag.Int("repro", 100, "runs of each confirmed finding's reproducer")
	load    = flag.Int("load", 2, "busy-looping processes to run beside the reproducers, to load the machine")
	spin    = flag.Bool("spin", false, "(internal) loop forever: one process of -load")
)

const module = "precog.example/kernels"

func main() {
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "kernels: "+format+"\n", args...) }
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go -C bench/kernels run . [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *spin {
		for {
		}
	}
	if flag.NArg() > 0 || *natural < 0 || *repro < 0 || *load < 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *why != "" {
		if err := explainUnicorn(*why); err != nil {
			log("%v", err)
			os.Exit(1)
		}
		return
	}
	if err := run(log); err != nil {
		log("%v", err)
		os.Exit(1)
	}
}

// A result is one kernel's row.
type result struct {
	pkg             string
	runs            int
	expected        []string // kinds
	cmp             expect.Result
	recordedFailed  int // recorded runs in which the test failed
	recordedRuns    int
	naturalFailures int
	took            time.Duration
	class           string // what the expect file's comments say the kernel is, if not a plain bug or control

	findings []finding.Finding
	// record, validate: the times precog test reported for recording
	// (with instrumenting) and validating.
	record, validate time.Duration
	// testWall is the wall time of the recorded test processes alone.
	testWall time.Duration
	// repros: per confirmed finding, the runs of its reproducer that
	// failed as predicted.
	repros []int
}

// classify returns what an expect file's comments say of its kernel: a
// known false-positive shape (its findings are false), or a bug precog
// does not detect (it expects nothing).
func classify(expect string) string {
	switch {
	case strings.Contains(expect, "known false positive"), strings.Contains(expect, "known false-positive shape"):
		return "known false-positive shape"
	case strings.Contains(expect, "NOT detected"):
		return "bug not detected (see its expect file)"
	}
	return ""
}

func run(log func(string, ...any)) error {
	root, err := findRoot()
	if err != nil {
		return err
	}
	kernels := filepath.Join(root, "testdata", "kernels")
	work, err := os.MkdirTemp("", "precog-bench-kernels-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	precog := filepath.Join(work, "precog")
	log("building precog")
	if err := goCmd(root, "build", "-o", precog, "./cmd/precog"); err != nil {
		return err
	}
	pkgs, err := packages(kernels)
	if err != nil {
		return err
	}
	if *perturbRuns != "" {
		if err := comparePerturb(log, precog, kernels, work, pkgs); err != nil {
			return err
		}
		fmt.Printf("\n- command: `go -C bench/kernels run . %s`\n", strings.Join(os.Args[1:], " "))
		fmt.Printf("- %s; nproc %d\n", runtime.Version(), runtime.NumCPU())
		return nil
	}
	var rows []result
	for range *load {
		spinner := exec.Command(os.Args[0], "-spin")
		if err := spinner.Start(); err != nil {
			return err
		}
		defer spinner.Process.Kill()
	}
	if *statusRuns > 0 {
		if *only == "" {
			return fmt.Errorf("-status needs -k: the kernels to run")
		}
		if err := statusRates(log, precog, kernels, work, pkgs); err != nil {
			return err
		}
		fmt.Printf("\n- command: `go -C bench/kernels run . %s`\n", strings.Join(os.Args[1:], " "))
		fmt.Printf("- %s; nproc %d\n", runtime.Version(), runtime.NumCPU())
		return nil
	}
	for _, pkg := range pkgs {
		data, err := os.ReadFile(filepath.Join(kernels, pkg, "expect"))
		if err != nil {
			return err
		}
		e, err := expect.Parse(data)
		if err != nil {
			return fmt.Errorf("%s/expect: %v", pkg, err)
		}
		log("%s", pkg)
		r := result{pkg: pkg, runs: e.Runs, class: classify(string(data))}
		for _, f := range e.Findings {
			r.expected = append(r.expected, f.Kind)
		}
		if r.naturalFailures, err = naturalFailures(kernels, work, pkg); err != nil {
			return err
		}
		out := filepath.Join(work, "out", pkg)
		start := time.Now()
		args := []string{"test", "-json", "-runs", fmt.Sprint(e.Runs), "-o", out, "-cache", filepath.Join(work, "cache")}
		if e.Timeout > 0 {
			args = append(args, "-timeout", e.Timeout.String())
		}
		dir, pattern, importPath := where(kernels, pkg)
		cmd := exec.Command(precog, append(args, pattern)...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		r.took = time.Since(start)
		if code := cmd.ProcessState.ExitCode(); code != 0 && code != 3 {
			return fmt.Errorf("precog test ./%s: %v\n%s", pkg, err, stderr.Bytes())
		}
		var fs []finding.Finding
		sc := bufio.NewScanner(&stdout)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var f finding.Finding
			if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
				return fmt.Errorf("precog test ./%s -json: %v", pkg, err)
			}
			fs = append(fs, f)
		}
		r.cmp = expect.Compare(e, filepath.Join(kernels, pkg), importPath, fs)
		r.findings = fs
		r.record, r.validate = times(stderr.String())
		for _, f := range fs {
			if f.Status != finding.Confirmed || *repro == 0 {
				continue
			}
			n, err := reproduce(precog, kernels, out, filepath.Join(work, "cache"), f.ID)
			if err != nil {
				return fmt.Errorf("%s: %v", pkg, err)
			}
			r.repros = append(r.repros, n)
		}
		if r.recordedRuns, r.recordedFailed, r.testWall, err = recordedOutcomes(out); err != nil {
			return err
		}
		rows = append(rows, r)
	}
	printTable(rows)
	printValidation(rows)
	fmt.Printf("\n- command: `go -C bench/kernels run . %s`\n", strings.Join(os.Args[1:], " "))
	fmt.Printf("- %s; nproc %d\n", runtime.Version(), runtime.NumCPU())
	return nil
}

func printTable(rows []result) {
	fmt.Println("| kernel | expected | runs | detected | recorded runs failed | other findings | natural failures | precog test time |")
	fmt.Println("|---|---|--:|---|--:|--:|--:|--:|")
	detected, seeds := 0, 0
	for _, r := range rows {
		exp := strings.Join(r.expected, ", ")
		det := "—"
		if r.class != "" {
			if exp == "" {
				exp = "nothing"
			}
			exp += " (" + r.class + ")"
		} else if len(r.expected) > 0 {
			seeds++
			det = "no"
			if len(r.cmp.Missing) == 0 {
				det = "yes"
				detected++
			}
		} else {
			exp = "nothing (negative control)"
		}
		fmt.Printf("| %s | %s | %d | %s | %d/%d | %d | %d/%d | %s |\n", r.pkg, exp, r.runs, det,
			r.recordedFailed, r.recordedRuns, len(r.cmp.Extra), r.naturalFailures, *natural, r.took.Round(10*time.Millisecond))
	}
	fmt.Printf("\n%d of %d kernels with expected findings detected.\n", detected, seeds)
	for _, r := range rows {
		for _, k := range r.cmp.Extra {
			fmt.Printf("- %s: also reported `%s`\n", r.pkg, k)
		}
		for _, m := range r.cmp.Missing {
			fmt.Printf("- %s: missed `%s`\n", r.pkg, m.Key())
		}
	}
}

// naturalFailures builds pkg's plain test binary and runs it *natural
// times, counting the runs that fail.
// where returns the directory to run go or precog in for kernel pkg, its
// package pattern there and its import path: a kernel with a go.mod of its
// own (for an older go version) is a module apart.
func where(kernels, pkg string) (dir, pattern, importPath string) {
	data, err := os.ReadFile(filepath.Join(kernels, pkg, "go.mod"))
	if err != nil {
		return kernels, "./" + pkg, module + "/" + pkg
	}
	for line := range strings.Lines(string(data)) {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return filepath.Join(kernels, pkg), ".", strings.TrimSpace(m)
		}
	}
	return filepath.Join(kernels, pkg), ".", pkg
}

func naturalFailures(kernels, work, pkg string) (int, error) {
	bin := filepath.Join(work, "bin", pkg+".test")
	dir, pattern, _ := where(kernels, pkg)
	if err := goCmd(dir, "test", "-c", "-o", bin, pattern); err != nil {
		return 0, err
	}
	failures := 0
	for range *natural {
		cmd := exec.Command(bin, "-test.timeout", timeout.String())
		cmd.Dir = filepath.Join(kernels, pkg)
		if err := cmd.Run(); err != nil {
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				return 0, err
			}
			failures++
		}
	}
	return failures, nil
}

// recordedOutcomes counts the recorded runs in the -o directory of precog
// test and those whose test did not pass.
func recordedOutcomes(out string) (runs, failed int, wall time.Duration, err error) {
	ix, err := record.ReadIndex(out)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, p := range ix.Packages {
		for _, t := range p.Tests {
			outcomes := []record.Outcome{t.Outcome}
			wall += t.Wall
			for _, r := range t.Runs {
				outcomes = append(outcomes, r.Outcome)
				wall += r.Wall
			}
			for _, o := range outcomes {
				runs++
				if o.Failed() {
					failed++
				}
			}
		}
	}
	return runs, failed, wall, nil
}

// packages returns the kernel packages: directories of kernels with an
// expect file.
func packages(kernels string) ([]string, error) {
	entries, err := os.ReadDir(kernels)
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(kernels, e.Name(), "expect")); err == nil {
			if *only == "" || slices.Contains(strings.Split(*only, ","), e.Name()) {
				pkgs = append(pkgs, e.Name())
			}
		}
	}
	return pkgs, nil
}

func goCmd(dir string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "testdata", "kernels", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no testdata/kernels/go.mod in the working directory or above it: run from within the precog repository")
		}
		dir = parent
	}
}

// times reads the recording and validation times from precog test's
// summary on stderr.
func times(stderr string) (record, validate time.Duration) {
	if m := regexp.MustCompile(`recorded in (\S+), detected`).FindStringSubmatch(stderr); m != nil {
		record, _ = time.ParseDuration(m[1])
	}
	if m := regexp.MustCompile(`(?m)^validated: .* in (\S+)$`).FindStringSubmatch(stderr); m != nil {
		validate, _ = time.ParseDuration(m[1])
	}
	return record, validate
}

// reproduce runs the reproducer of finding id *repro times and returns how
// many runs failed as predicted.
func reproduce(precog, kernels, out, cache, id string) (int, error) {
	cmd := exec.Command(precog, "repro", "-o", out, "-cache", cache, "-count", fmt.Sprint(*repro), id)
	cmd.Dir = kernels
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if code := cmd.ProcessState.ExitCode(); code != 0 && code != 3 {
		return 0, fmt.Errorf("precog repro %s: %v\n%s", id, err, stderr.Bytes())
	}
	var n, of int
	if m := regexp.MustCompile(`reproduced in (\d+) of (\d+) runs`).FindSubmatch(stdout); m != nil {
		fmt.Sscan(string(m[1]), &n)
		fmt.Sscan(string(m[2]), &of)
	} else if bytes.HasPrefix(stdout, []byte("reproduced:")) || bytes.Contains(stdout, []byte("\nreproduced:")) {
		n = 1
	}
	return n, nil
}

// printValidation prints the validation table: per kernel, its findings by
// status, the success rate of its reproducers, and the time validation
// took against the recording's.
func printValidation(rows []result) {
	fmt.Printf("\n| kernel | findings | confirmed | not confirmed | diverged | timed out | apart | not validated | reproducers: failing runs of %d | natural failures | record | recorded runs | validate | validate/record | validate/recorded runs |\n", *repro)
	fmt.Println("|---|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|")
	var totalRec, totalVal, totalRuns time.Duration
	n, confirmedKernels, bugKernels, controlConfirmed := 0, 0, 0, 0
	for _, r := range rows {
		count := map[finding.Status]int{}
		for _, f := range r.findings {
			count[f.Status]++
		}
		n += len(r.findings)
		totalRec += r.record
		totalVal += r.validate
		totalRuns += r.testWall
		var reps []string
		for _, x := range r.repros {
			reps = append(reps, fmt.Sprint(x))
		}
		if r.class != "" || len(r.expected) == 0 {
			controlConfirmed += count[finding.Confirmed]
		} else {
			bugKernels++
			if count[finding.Confirmed] > 0 {
				confirmedKernels++
			}
		}
		ratio := func(a, b time.Duration) string {
			if b <= 0 {
				return "—"
			}
			return fmt.Sprintf("%.2f", float64(a)/float64(b))
		}
		fmt.Printf("| %s | %d | %d | %d | %d | %d | %d | %d | %s | %d/%d | %s | %s | %s | %s | %s |\n", r.pkg, len(r.findings),
			count[finding.Confirmed], count[finding.NotConfirmed], count[finding.Diverged], count[finding.TimedOut], count[finding.Apart], count[finding.Predicted],
			strings.Join(reps, ", "), r.naturalFailures, *natural, r.record.Round(10*time.Millisecond), r.testWall.Round(time.Millisecond),
			r.validate.Round(time.Millisecond), ratio(r.validate, r.record), ratio(r.validate, r.testWall))
	}
	fmt.Printf("\n%d of %d bug kernels have a confirmed finding; %d findings confirmed in the negative controls and known false-positive shapes.\n",
		confirmedKernels, bugKernels, controlConfirmed)
	if totalRec > 0 && n > 0 {
		fmt.Printf("Validation: %s for %d findings (%s per finding) against %s of instrumenting, building and recording (%.2fx) and %s of recorded test processes alone (%.2fx).\n",
			totalVal.Round(10*time.Millisecond), n, (totalVal / time.Duration(n)).Round(time.Millisecond), totalRec.Round(10*time.Millisecond), float64(totalVal)/float64(totalRec),
			totalRuns.Round(10*time.Millisecond), float64(totalVal)/float64(totalRuns))
	}
}

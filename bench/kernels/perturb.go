package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/expect"
)

var (
	perturbRuns = flag.String("perturb-compare", "", "instead of the kernel table, compare precog test's -perturb modes on the kernels with an expected unicorn finding: for each comma-separated `runs` count (such as 5,10,20), whether Unicorn ranks the expected pattern first")
	perturbReps = flag.Int("reps", 3, "with -perturb-compare: repetitions of each (kernel, mode, runs), with seeds 0, 1000, 2000, ...")
	modes       = flag.String("modes", "random,targeted", "with -perturb-compare: the -perturb modes to compare")
)

// A cell is the outcome of the repetitions of one (kernel, mode, runs).
type cell struct {
	first  int // repetitions where the expected unicorn finding was reported (Unicorn reports only its top rank)
	other  int // repetitions where Unicorn reported something else and not it
	failed int // failing runs, summed over the repetitions
	runs   int // runs, summed
}

// comparePerturb runs precog test -validate=false on every kernel whose
// expect file wants a unicorn finding, with each -perturb mode and runs
// count, and prints, per kernel and in total, how often Unicorn ranked the
// expected pattern first.
func comparePerturb(log func(string, ...any), precog, kernels, work string, pkgs []string) error {
	var counts []int
	for _, s := range strings.Split(*perturbRuns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 2 {
			return fmt.Errorf("-perturb-compare: %q is not a runs count of at least 2", s)
		}
		counts = append(counts, n)
	}
	ms := strings.Split(*modes, ",")
	type row struct {
		pkg   string
		cells map[string]*cell // mode/runs
	}
	var rows []row
	for _, pkg := range pkgs {
		data, err := os.ReadFile(filepath.Join(kernels, pkg, "expect"))
		if err != nil {
			return err
		}
		e, err := expect.Parse(data)
		if err != nil {
			return fmt.Errorf("%s/expect: %v", pkg, err)
		}
		var want []expect.Finding
		for _, f := range e.Findings {
			if strings.HasPrefix(f.Kind, "unicorn-") {
				want = append(want, f)
			}
		}
		if len(want) == 0 {
			continue
		}
		r := row{pkg: pkg, cells: make(map[string]*cell)}
		for _, m := range ms {
			for _, n := range counts {
				c := &cell{}
				r.cells[m+"/"+strconv.Itoa(n)] = c
				for rep := range *perturbReps {
					log("%s -perturb=%s -runs %d (seed %d)", pkg, m, n, rep*1000)
					fs, runs, failed, err := precogTest(precog, kernels, work, pkg, m, n, rep*1000)
					if err != nil {
						return err
					}
					c.failed += failed
					c.runs += runs
					res := expect.Compare(&expect.File{Findings: want}, filepath.Join(kernels, pkg), importPathOf(kernels, pkg), unicornOnly(fs))
					switch {
					case len(res.Missing) == 0:
						c.first++
					case len(unicornOnly(fs)) > 0:
						c.other++
					}
				}
			}
		}
		rows = append(rows, r)
	}
	fmt.Printf("| kernel |")
	for _, m := range ms {
		for _, n := range counts {
			fmt.Printf(" %s, %d runs |", m, n)
		}
	}
	fmt.Println()
	fmt.Print("|---|")
	for range len(ms) * len(counts) {
		fmt.Print("--:|")
	}
	fmt.Println()
	total := make(map[string]int)
	for _, r := range rows {
		fmt.Printf("| %s |", r.pkg)
		for _, m := range ms {
			for _, n := range counts {
				k := m + "/" + strconv.Itoa(n)
				c := r.cells[k]
				other := ""
				if c.other > 0 {
					other = fmt.Sprintf(", %d other", c.other)
				}
				fmt.Printf(" %d/%d (failing runs %d/%d%s) |", c.first, *perturbReps, c.failed, c.runs, other)
				if 2*c.first > *perturbReps {
					total[k]++
				}
			}
		}
		fmt.Println()
	}
	fmt.Print("| **kernels ranked first (in most repetitions)** |")
	for _, m := range ms {
		for _, n := range counts {
			fmt.Printf(" **%d of %d** |", total[m+"/"+strconv.Itoa(n)], len(rows))
		}
	}
	fmt.Println()
	return nil
}

// precogTest runs precog test -json -validate=false on kernel pkg and
// returns its findings, its recorded runs (of all its tests) and how many
// of them failed.
func precogTest(precog, kernels, work, pkg, mode string, runs, seed int) ([]finding.Finding, int, int, error) {
	out := filepath.Join(work, "perturb", pkg)
	args := []string{"test", "-json", "-validate=false", "-runs", fmt.Sprint(runs), "-perturb", mode, "-seed", fmt.Sprint(seed),
		"-o", out, "-cache", filepath.Join(work, "cache")}
	dir, pattern, _ := where(kernels, pkg)
	cmd := exec.Command(precog, append(args, pattern)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 0 && code != 3 {
		return nil, 0, 0, fmt.Errorf("precog test ./%s: %v\n%s", pkg, err, stderr.Bytes())
	}
	var fs []finding.Finding
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var f finding.Finding
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return nil, 0, 0, fmt.Errorf("precog test ./%s -json: %v", pkg, err)
		}
		fs = append(fs, f)
	}
	total, failed, _, err := recordedOutcomes(out)
	return fs, total, failed, err
}

func unicornOnly(fs []finding.Finding) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if strings.HasPrefix(f.Kind, "unicorn-") {
			out = append(out, f)
		}
	}
	return out
}

func importPathOf(kernels, pkg string) string {
	_, _, ip := where(kernels, pkg)
	return ip
}

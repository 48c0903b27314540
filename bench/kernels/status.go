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
	"slices"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/expect"
)

var statusRuns = flag.Int("status", 0, "instead of the kernel table, run precog test this many times on each kernel of -k (as TestKernels does, with the runs and timeout of its expect file) beside -load busy processes, and count how often each expected finding gets the status its expect file gives: the validation flake rate")

// statusRates runs precog test *statusRuns times on each kernel and prints,
// per expected finding, how often it had the expected status, and the
// reasons of the runs where it had not.
func statusRates(log func(string, ...any), precog, kernels, work string, pkgs []string) error {
	fmt.Println("| kernel | expected finding | expected status | runs | as expected | other statuses (reasons) |")
	fmt.Println("|---|---|---|--:|--:|---|")
	for _, pkg := range pkgs {
		data, err := os.ReadFile(filepath.Join(kernels, pkg, "expect"))
		if err != nil {
			return err
		}
		e, err := expect.Parse(data)
		if err != nil {
			return fmt.Errorf("%s/expect: %v", pkg, err)
		}
		type tally struct {
			ok      int
			other   map[string]int // "status: reason" -> runs
			missing int
		}
		tallies := make([]tally, len(e.Findings))
		for i := range tallies {
			tallies[i].other = make(map[string]int)
		}
		extra := 0
		for run := range *statusRuns {
			log("%s: run %d of %d", pkg, run+1, *statusRuns)
			args := []string{"test", "-json", "-runs", fmt.Sprint(e.Runs), "-cache", filepath.Join(work, "cache")}
			if e.Timeout > 0 {
				args = append(args, "-timeout", e.Timeout.String())
			} else {
				args = append(args, "-timeout", "1m")
			}
			dir, pattern, importPath := where(kernels, pkg)
			cmd := exec.Command(precog, append(args, pattern)...)
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
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
			r := expect.Compare(e, filepath.Join(kernels, pkg), importPath, fs)
			extra += len(r.Extra)
			for _, k := range r.Extra {
				log("%s: run %d: reported but not expected: %s", pkg, run+1, k)
			}
			for _, m := range r.Missing {
				log("%s: run %d: not reported: %s", pkg, run+1, m.Key())
			}
			for _, m := range r.WrongStatus {
				why := ""
				if v := m.Got.Validation; v != nil {
					why = v.Reason
				}
				log("%s: run %d: %s is %s, want %s: %s", pkg, run+1, m.Want.Key(), m.Got.Status, m.Want.Status, why)
			}
			for i, want := range e.Findings {
				switch {
				case slices.ContainsFunc(r.Missing, func(m expect.Finding) bool { return m.Line == want.Line }):
					tallies[i].missing++
				case slices.ContainsFunc(r.WrongStatus, func(m expect.Mismatch) bool { return m.Want.Line == want.Line }):
					for _, m := range r.WrongStatus {
						if m.Want.Line != want.Line {
							continue
						}
						why := ""
						if v := m.Got.Validation; v != nil {
							why = v.Reason
						}
						tallies[i].other[fmt.Sprintf("%s: %s", m.Got.Status, why)]++
					}
				default:
					tallies[i].ok++
				}
			}
		}
		for i, want := range e.Findings {
			t := tallies[i]
			var other []string
			for _, k := range slices.Sorted(mapKeys(t.other)) {
				other = append(other, fmt.Sprintf("%d × %s", t.other[k], k))
			}
			if t.missing > 0 {
				other = append(other, fmt.Sprintf("%d × not reported", t.missing))
			}
			fmt.Printf("| %s | `%s` | %s | %d | %d | %s |\n", pkg, want.Key(), want.Status, *statusRuns, t.ok, strings.Join(other, "; "))
		}
		if extra > 0 {
			fmt.Printf("| %s | (unexpected findings) | | %d | | %d reported in all runs together |\n", pkg, *statusRuns, extra)
		}
	}
	return nil
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

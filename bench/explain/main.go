// Command explain measures precog explain on the kernel corpus
// (testdata/kernels): for each kernel package with an explain file (see
// internal/expect, ReadExplain), it runs precog explain -json on the file's
// test and prints whether the root cause is right, the executions it took
// in the paper's columns (orig+supp+race+vio), how many re-executions
// followed the failing run's schedule to the point under study, its wall
// time and its trace size, beside the execution-suppression paper's Table II
// (execution-suppression.txt §4) where the kernel ports one of its bugs.
//
// Usage, from the repository root (bench/explain is a module of its own, so
// that it stays out of the main module's go test ./...):
//
//	go -C bench/explain run .
//	go -C bench/explain run . -k fig4,mozilla2x
//	go -C bench/explain run . -n 3   # three runs (rows) per kernel
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/precog-dev/precog/internal/expect"
)

var (
	only    = flag.String("k", "", "comma-separated kernel `packages` to run (default all with an explain file)")
	binary  = flag.String("precog", "", "precog `binary` to measure (default: build this repository's)")
	timeout = flag.Duration("timeout", 10*time.Minute, "time limit of one precog explain")
	runs    = flag.Int("n", 1, "precog explain `runs` per kernel (a row each)")
)

// paper is Table II's row for the bugs the kernels port: the executions
// (orig+supp+race+vio) and the maximum trace.
var paper = map[string]string{
	"fig4":      "1+3+1+0 (read from Fig. 5, no table row)",
	"fig6":      "Figs. 5(A)-(C) and 7, no table row",
	"mysqld4":   "1+1+0+0, 2.1 M entries (50 MB)",
	"mozilla2x": "1+1+0+2, 23.4 M entries (585 MB)",
	"mozilla3x": "1+1+0+2, 39.5 M entries (987 MB)",
	"axel":      "1+2+0+0, 0.27 M entries (6 MB)",
}

// A report is what precog explain -json prints (issue 11): the fields the
// harness reads. Others (the trace size's) are looked up by name.
type report struct {
	Source     string `json:"source"` // natural, forced (...), perturbed (...)
	Root       *site  `json:"root"`
	Kind       string `json:"kind"`
	Sites      []site `json:"sites"`
	Executions struct {
		Orig, Supp, Race, Vio int
	} `json:"executions"`
	MaxEvents int `json:"maxEvents"`
	// Reexecutions (precog after 2026-11) say whether each re-execution
	// followed the failing run's schedule to the point under study.
	Reexecutions *[]struct {
		Diverged bool `json:"diverged"`
	} `json:"reexecutions"`
}

// followed says how many re-executions followed the schedule, of how
// many; "-" for a precog that does not say.
func (r *report) followed() string {
	if r.Reexecutions == nil {
		return "-"
	}
	n := 0
	for _, re := range *r.Reexecutions {
		if !re.Diverged {
			n++
		}
	}
	return fmt.Sprintf("%d/%d", n, len(*r.Reexecutions))
}

type site struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Expr string `json:"expr"`
}

func main() {
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "explain: "+format+"\n", args...) }
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go -C bench/explain run . [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(log); err != nil {
		log("%v", err)
		os.Exit(1)
	}
}

func run(log func(string, ...any)) error {
	root, err := findRoot()
	if err != nil {
		return err
	}
	kernels := filepath.Join(root, "testdata", "kernels")
	work, err := os.MkdirTemp("", "precog-bench-explain-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	precog := *binary
	if precog == "" {
		precog = filepath.Join(work, "precog")
		log("building precog")
		build := exec.Command("go", "build", "-o", precog, "./cmd/precog")
		build.Dir, build.Stderr = root, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build ./cmd/precog: %w", err)
		}
	}
	pkgs, err := explained(kernels)
	if err != nil {
		return err
	}
	fmt.Println("| kernel | fails | failing run | want | got | right | executions (orig+supp+race+vio) | re-executions on schedule | paper (Table II) | wall | largest trace |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	right := 0
	var all []string
	for _, pkg := range pkgs {
		for range *runs {
			all = append(all, pkg)
		}
	}
	for _, pkg := range all {
		dir := filepath.Join(kernels, pkg)
		x, err := expect.ReadExplain(filepath.Join(dir, "explain"))
		if err != nil {
			return err
		}
		log("%s", pkg)
		want := strings.TrimSpace(x.Kind + " " + strings.Join(x.Sites, " "))
		args := []string{"explain", "-json", "-run", x.Test}
		if x.Timeout > 0 {
			args = append(args, "-timeout", x.Timeout.String())
		}
		cmd := exec.Command(precog, append(args, "./"+pkg+"/")...)
		cmd.Dir = kernels
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		if err := cmd.Start(); err != nil {
			return err
		}
		timer := time.AfterFunc(*timeout, func() { cmd.Process.Kill() })
		runErr := cmd.Wait()
		timer.Stop()
		wall := time.Since(start)
		r, fields, err := decode(stdout.Bytes())
		if err != nil {
			fmt.Printf("| `%s` | %s | | %s | no report: %s | no | | | %s | %s | |\n", pkg, x.Failing, want, oneLine(err, runErr, stderr.Bytes()), paper[pkg], wall.Round(100*time.Millisecond))
			continue
		}
		kind := normKind(r.Kind, r.Root)
		var rootRef *expect.SiteRef
		if r.Root != nil && r.Root.File != "" {
			rootRef = &expect.SiteRef{File: abs(dir, r.Root.File), Line: r.Root.Line}
		}
		var sites []expect.SiteRef
		for _, s := range r.Sites {
			sites = append(sites, expect.SiteRef{File: abs(dir, s.File), Line: s.Line})
		}
		got := kind
		if rootRef != nil {
			got += " " + rootRef.Rel(dir)
			for _, s := range sites {
				if s != *rootRef {
					got += " " + s.Rel(dir)
				}
			}
		}
		verdict := "yes"
		if err := x.Check(dir, kind, rootRef, sites); err != nil {
			verdict = "no: " + err.Error()
		} else {
			right++
		}
		e := r.Executions
		fmt.Printf("| `%s` | %s | %s | %s | %s | %s | %d (%d+%d+%d+%d) | %s | %s | %s | %d events, %s |\n", pkg, x.Failing, strings.ReplaceAll(r.Source, "|", "/"), want, got, verdict,
			e.Orig+e.Supp+e.Race+e.Vio, e.Orig, e.Supp, e.Race, e.Vio, r.followed(), paper[pkg], wall.Round(100*time.Millisecond), r.MaxEvents, traceSize(fields))
	}
	fmt.Printf("\n%d of %d root causes right.\n\n", right, len(all))
	fmt.Printf("- command: `go -C bench/explain run . %s`\n", strings.Join(os.Args[1:], " "))
	load := "unknown"
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(data))[:3], " ")
	}
	fmt.Printf("- %s; nproc %d; load average at the end %s (wall times depend on it)\n", runtime.Version(), runtime.NumCPU(), load)
	return nil
}

// decode decodes precog explain -json's output: one object, the report.
// fields are its top-level fields, for the ones the harness looks up by
// name.
func decode(out []byte) (report, map[string]json.RawMessage, error) {
	var r report
	var fields map[string]json.RawMessage
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return r, nil, errors.New("no output")
	}
	if err := json.Unmarshal(out, &fields); err != nil {
		return r, nil, fmt.Errorf("-json output: %v", err)
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return r, nil, fmt.Errorf("-json output: %v", err)
	}
	return r, fields, nil
}

// normKind maps the report's kind to an explain file's: race, atomicity,
// order, definition or none (no root reported).
func normKind(kind string, root *site) string {
	k := strings.ToLower(kind)
	switch {
	case root == nil || root.File == "" || k == "" || strings.Contains(k, "none") || strings.Contains(k, "no root"):
		return expect.None
	case strings.Contains(k, "race"):
		return expect.Race
	case strings.Contains(k, "atomicity"):
		return expect.Atomicity
	case strings.Contains(k, "order"):
		return expect.Order
	case strings.Contains(k, "definition"):
		return expect.Definition
	}
	return k
}

// traceSize prints the report's trace size: its top-level numeric fields
// whose names say trace.
func traceSize(fields map[string]json.RawMessage) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		var n float64
		if strings.Contains(strings.ToLower(k), "trace") && json.Unmarshal(fields[k], &n) == nil {
			out = append(out, fmt.Sprintf("%s %g", k, n))
		}
	}
	if len(out) == 0 {
		return "—"
	}
	return strings.Join(out, ", ")
}

// abs makes a reported file absolute, relative to the kernel's directory
// if it is not.
func abs(dir, file string) string {
	if filepath.IsAbs(file) {
		return file
	}
	if strings.HasPrefix(file, filepath.Base(dir)+"/") {
		return filepath.Join(filepath.Dir(dir), file)
	}
	return filepath.Join(dir, file)
}

// oneLine says why there was no report, in one line.
func oneLine(err, runErr error, stderr []byte) string {
	msg := err.Error()
	if runErr != nil {
		msg += " (" + runErr.Error() + ")"
	}
	if lines := strings.Split(strings.TrimSpace(string(stderr)), "\n"); len(lines) > 0 && lines[len(lines)-1] != "" {
		msg += ": " + lines[len(lines)-1]
	}
	return strings.ReplaceAll(msg, "|", "/")
}

// explained returns the kernel packages, by directory, that have an
// explain file (and are selected by -k).
func explained(kernels string) ([]string, error) {
	var pkgs []string
	err := filepath.WalkDir(kernels, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "explain" {
			rel, err := filepath.Rel(kernels, filepath.Dir(path))
			if err != nil {
				return err
			}
			pkgs = append(pkgs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if *only != "" {
		sel := strings.Split(*only, ",")
		for _, k := range sel {
			if !slices.Contains(pkgs, k) {
				return nil, fmt.Errorf("-k: %s has no explain file", k)
			}
		}
		pkgs = slices.DeleteFunc(pkgs, func(p string) bool { return !slices.Contains(sel, p) })
	}
	slices.Sort(pkgs)
	if len(pkgs) == 0 {
		return nil, errors.New("no kernel has an explain file")
	}
	return pkgs, nil
}

// findRoot finds the repository root: the directory above holding
// cmd/precog.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "cmd", "precog")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the precog repository")
		}
		dir = parent
	}
}

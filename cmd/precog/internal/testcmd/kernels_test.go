package testcmd_test

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/corpus"
	"github.com/precog-dev/precog/internal/expect"
	"github.com/precog-dev/precog/internal/precogbin"
)

// kernels is the module of bug kernels and negative controls.
var kernels = corpus.Dir()

// kernelsModule is its module path.
const kernelsModule = "precog.example/kernels"

// kernelTimeout is a kernel's -timeout where its expect file gives none:
// the kernels that hang, and only they, give a shorter one.
const kernelTimeout = time.Minute

// kernelPackages returns the corpus's packages, by directory.
func kernelPackages(t *testing.T) []string {
	t.Helper()
	pkgs, err := corpus.Packages(kernels)
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestKernels runs precog test over the kernel corpus, once per group of
// packages that want the same number of runs, and checks each package's
// findings against its expect file: every expected finding reported with
// the status the file gives (confirmed by validation, or predicted only),
// and nothing else. A kernel whose findings are right but whose status is
// not is run once more on its own, and judged by that run.
//
// It runs a precog binary built from this tree without -race
// (internal/precogbin): under go test -race, the same analysis of the
// whole corpus in this process took twice the CPU. Most other tests here
// run precog test in this process, under the race detector.
func TestKernels(t *testing.T) {
	cache := sharedCache
	// Packages that want the same runs and timeout share a precog test.
	// A kernel that is a module of its own (for an old go version in its
	// go.mod) runs alone, from its directory.
	type group struct {
		runs    int
		timeout time.Duration
		module  string
	}
	groups := make(map[group][]string)
	expects := make(map[string]*expect.File)
	var missing []string
	for _, pkg := range kernelPackages(t) {
		data, err := os.ReadFile(filepath.Join(kernels, pkg, "expect"))
		if errors.Is(err, os.ErrNotExist) {
			missing = append(missing, pkg)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		e, err := expect.Parse(data)
		if err != nil {
			t.Errorf("%s/expect: %v", pkg, err)
			continue
		}
		expects[pkg] = e
		g := group{e.Runs, cmp.Or(e.Timeout, kernelTimeout), modulePath(t, pkg)}
		groups[g] = append(groups[g], pkg)
	}
	if len(missing) > 0 {
		t.Errorf("kernel packages without an expect file: %s", strings.Join(missing, " "))
	}
	keys := slices.SortedFunc(maps.Keys(groups), func(a, b group) int {
		return cmp.Or(cmp.Compare(a.runs, b.runs), cmp.Compare(a.timeout, b.timeout), cmp.Compare(a.module, b.module))
	})
	// run runs precog test on the packages of group g and returns their
	// findings, or false if it failed.
	run := func(g group, pkgs []string) ([]finding.Finding, bool) {
		sarifFile := filepath.Join(t.TempDir(), "findings.sarif")
		// -timeout: a kernel that hangs under some interleaving fails its
		// run in a minute (or its expect file's timeout) rather than
		// holding CI for go test's ten. -record-budget 0: every kernel
		// is recorded however loaded the machine (the 93-kernel group's
		// recording took 7 minutes at load 20).
		args := []string{"test", "-json", "-sarif", sarifFile, "-cache", cache, "-timeout", g.timeout.String(), "-runs", strconv.Itoa(g.runs), "-record-budget", "0"}
		for _, p := range pkgs {
			args = append(args, "./"+p)
		}
		dir := kernels
		if g.module != "" {
			dir, args = filepath.Join(kernels, pkgs[0]), append(args[:len(args)-1], "./...")
		}
		stdout, stderr, code := precogbin.Run(t, dir, args...)
		if code != 0 && code != 3 {
			t.Errorf("precog %s exited %d:\n%s", strings.Join(args, " "), code, stderr)
			return nil, false
		}
		t.Logf("precog %s:\n%s", strings.Join(args, " "), stderr)
		fs := decodeFindings(t, stdout)
		if data, err := os.ReadFile(sarifFile); err != nil {
			t.Error(err)
		} else {
			validateSARIF(t, data, len(fs))
		}
		return fs, true
	}
	// check runs group g and checks each of its packages.
	check := func(g group) {
		pkgs := groups[g]
		fs, ok := run(g, pkgs)
		if !ok {
			return
		}
		// A kernel whose findings are all as expected but whose
		// validation status is not gets one more precog test of its own:
		// confirmation forces real interleavings, and under the load of
		// go test -race ./... a timing-sensitive test can miss the bound
		// of a forced run (bench/kernels measures each rate). So does a
		// kernel whose test failed by itself when recorded though its
		// expect file wants no such failure: the kernels hide their bugs
		// behind sleeps, which a loaded machine can outlast (a reader
		// descheduled past bubblereal's TTL), and the failed run's trace
		// is another schedule's. Detection must be exact the first time
		// the recorded run takes its usual schedule; a status must hold
		// in one of two.
		var again []string
		for _, pkg := range pkgs {
			dir := filepath.Join(kernels, pkg)
			r := expect.Compare(expects[pkg], dir, cmp.Or(g.module, kernelsModule+"/"+pkg), fs)
			if failed := failedByItself(dir, r.Extra, fs); failed != "" {
				t.Logf("%s: %s; running the kernel again", pkg, failed)
				again = append(again, pkg)
				continue
			}
			if len(r.WrongStatus) > 0 && len(r.Missing) == 0 && len(r.Extra) == 0 {
				for _, m := range r.WrongStatus {
					why := ""
					if v := m.Got.Validation; v != nil {
						why = " (" + v.Reason + ")"
					}
					t.Logf("%s: expect line %d: %s is %s, want %s%s; running the kernel again", pkg, m.Want.Line, m.Want.Key(), m.Got.Status, m.Want.Status, why)
				}
				again = append(again, pkg)
			}
		}
		retried := make(map[string][]finding.Finding)
		if len(again) > 0 && g.module == "" {
			if fs2, ok := run(g, again); ok {
				for _, pkg := range again {
					retried[pkg] = fs2
				}
			}
		}
		for _, pkg := range pkgs {
			got := fs
			if fs2, ok := retried[pkg]; ok {
				got = fs2
			}
			if g.module == "" {
				corpusMu.Lock()
				corpusFindings[pkg] = got
				corpusMu.Unlock()
			}
			t.Run(pkg, func(t *testing.T) {
				checkPackage(t, pkg, cmp.Or(g.module, kernelsModule+"/"+pkg), expects[pkg], got)
			})
		}
	}
	// The groups of kernels that hang (an expect file's timeout) spend
	// their runs waiting for that bound, not computing: they run beside
	// the others rather than after them (about 20 s of .ci/run's wall
	// time, where testcmd is the last package to finish).
	var hanging sync.WaitGroup
	for _, g := range keys {
		if g.timeout != kernelTimeout {
			hanging.Go(func() { check(g) })
		}
	}
	for _, g := range keys {
		if g.timeout == kernelTimeout {
			check(g)
		}
	}
	hanging.Wait()
}

// failedByItself returns what says that a run of a kernel's test failed
// by itself (a crash or test-failed finding, which only a run's own
// failure gives) where its expect file wants no such finding (extra, the
// keys of the unexpected findings of kernel directory dir), or "".
func failedByItself(dir string, extra []string, fs []finding.Finding) string {
	for _, f := range fs {
		if (f.Kind == finding.Crash || f.Kind == finding.TestFailed) && slices.Contains(extra, expect.Key(dir, f)) {
			return fmt.Sprintf("reported but not expected: %s (%s)", expect.Key(dir, f), f.Message)
		}
	}
	return ""
}

// corpusFindings holds the findings of TestKernels' runs, by kernel
// directory of the kernels' module, for the tests that want the runtime
// findings of kernels whatever their status (TestStaticAndRuntimeIDs):
// a precog test of their own would build and record those kernels again,
// in a package set of its own (site ids are numbered over the set).
var (
	corpusMu       sync.Mutex
	corpusFindings = make(map[string][]finding.Finding)
)

// checkPackage compares the findings of the tests of kernel package pkg
// with its expect file.
func checkPackage(t *testing.T, pkg, importPath string, e *expect.File, fs []finding.Finding) {
	dir := filepath.Join(kernels, pkg)
	r := expect.Compare(e, dir, importPath, fs)
	for _, x := range r.Missing {
		t.Errorf("expect line %d: not reported: %s", x.Line, x.Key())
	}
	for _, x := range e.Findings {
		if x.Status == "" {
			t.Errorf("expect line %d: %s gives no status (confirmed or predicted)", x.Line, x.Key())
		}
	}
	for _, m := range r.WrongStatus {
		why := ""
		if v := m.Got.Validation; v != nil {
			why = ": " + v.Reason
		}
		t.Errorf("expect line %d: %s is %s, want %s%s", m.Want.Line, m.Want.Key(), m.Got.Status, m.Want.Status, why)
	}
	for _, k := range r.Extra {
		for _, f := range fs {
			if expect.Key(dir, f) == k {
				t.Errorf("reported but not expected: %s\n\t%s (id %s, tests %s)", k, f.Message, f.ID, strings.Join(f.Tests, " "))
			}
		}
	}
}

// modulePath returns the module path of kernel directory pkg if it is a
// module of its own, "" if it is a package of the kernels' module.
func modulePath(t *testing.T, pkg string) string {
	data, err := os.ReadFile(filepath.Join(kernels, pkg, "go.mod"))
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatalf("%s/go.mod has no module line", pkg)
	return ""
}

// decodeFindings decodes -json output: one finding per line.
func decodeFindings(t *testing.T, stdout string) []finding.Finding {
	t.Helper()
	var fs []finding.Finding
	for line := range strings.Lines(stdout) {
		var f finding.Finding
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("-json output line %q: %v", line, err)
		}
		fs = append(fs, f)
	}
	return fs
}

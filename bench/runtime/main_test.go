package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/precog-dev/precog/pipeline/instrument"
)

func TestVariantEnv(t *testing.T) {
	env := []string{"HOME=/h", "GODEBUG=gctrace=1", "PATH=/p"}
	for _, c := range []struct {
		env      []string
		settings string
		want     []string
	}{
		{env, "", env},
		{env, "adaptivestackstart=0", []string{"HOME=/h", "PATH=/p", "GODEBUG=gctrace=1,adaptivestackstart=0"}},
		{[]string{"HOME=/h"}, "adaptivestackstart=0", []string{"HOME=/h", "GODEBUG=adaptivestackstart=0"}},
	} {
		if got := variantEnv(slices.Clone(c.env), c.settings); !slices.Equal(got, c.want) {
			t.Errorf("variantEnv(%q, %q) = %q, want %q", c.env, c.settings, got, c.want)
		}
	}
}

// TestSameOutcomes: a test that ends otherwise in one run drops the
// workload, but for the flaky ones and their subtests, and those that failed
// in a plain or -race run; a test missing from a run drops it too.
func TestSameOutcomes(t *testing.T) {
	run := func(o map[string]string) []sample { return []sample{{outcomes: o}} }
	pass := map[string]string{"TestA": "PASS", "TestFlaky": "PASS", "TestFlaky/sub": "PASS"}
	var all [numVariants][]sample
	for v := range numVariants {
		all[v] = run(pass)
	}
	if _, err := sameOutcomes(all, nil); err != nil {
		t.Errorf("the same outcomes: %v", err)
	}
	all[precog] = run(map[string]string{"TestA": "PASS", "TestFlaky": "FAIL", "TestFlaky/sub": "FAIL"})
	if _, err := sameOutcomes(all, []string{"TestFlaky"}); err != nil {
		t.Errorf("a flaky test's failure: %v", err)
	}
	if _, err := sameOutcomes(all, nil); err == nil {
		t.Error("a test that failed in a precog run only: no error")
	}
	all[race] = append(all[race], run(map[string]string{"TestA": "PASS", "TestFlaky": "FAIL", "TestFlaky/sub": "FAIL"})...)
	if byItself, err := sameOutcomes(all, nil); err != nil || !slices.Equal(byItself, []string{"TestFlaky"}) {
		t.Errorf("a test that failed in a -race run too: %v, left out %q; want TestFlaky left out", err, byItself)
	}
	all[race] = run(pass)
	all[precog] = run(map[string]string{"TestA": "FAIL", "TestFlaky": "PASS", "TestFlaky/sub": "PASS"})
	if _, err := sameOutcomes(all, []string{"TestFlaky"}); err == nil {
		t.Error("another test's failure beside a flaky one: no error")
	}
	all[precog] = run(map[string]string{"TestFlaky": "PASS"})
	if _, err := sameOutcomes(all, []string{"TestFlaky"}); err == nil {
		t.Error("a test missing from a run: no error")
	}
}

// TestPrecogEnv: tracebackancestors only for a build with marks, the
// user's settings kept after it either way.
func TestPrecogEnv(t *testing.T) {
	for _, c := range []struct {
		env   []string
		marks bool
		want  []string
	}{
		{[]string{"HOME=/h", "GODEBUG=gctrace=1"}, true, []string{"HOME=/h", "GODEBUG=tracebackancestors=5,gctrace=1"}},
		{[]string{"HOME=/h", "GODEBUG=gctrace=1"}, false, []string{"HOME=/h", "GODEBUG=gctrace=1"}},
		{[]string{"HOME=/h"}, true, []string{"HOME=/h", "GODEBUG=tracebackancestors=5"}},
		{[]string{"HOME=/h"}, false, []string{"HOME=/h"}},
	} {
		if got := precogEnv(slices.Clone(c.env), c.marks); !slices.Equal(got, c.want) {
			t.Errorf("precogEnv(%q, %v) = %q, want %q", c.env, c.marks, got, c.want)
		}
	}
}

// TestRunsMarks: a whole binary's run needs tracebackancestors when one of
// the tests it runs may reach a marked call: not a benchmark's.
func TestRunsMarks(t *testing.T) {
	for _, c := range []struct {
		marks []string
		tests map[string][]string
		want  bool
	}{
		{nil, nil, false},
		{[]string{"p"}, nil, true}, // every test
		{[]string{"p"}, map[string][]string{"p": {"BenchmarkA", "BenchmarkB"}}, false},
		{[]string{"p"}, map[string][]string{"p": {"BenchmarkA", "TestB"}}, true},
		{[]string{"q"}, map[string][]string{"q": {"TestB"}}, false},
	} {
		inst := &instrument.Result{Marks: c.marks, MarkTests: c.tests}
		if got := runsMarks(inst, "p"); got != c.want {
			t.Errorf("runsMarks(%v, %v) = %v, want %v", c.marks, c.tests, got, c.want)
		}
	}
}

// TestKeptMarks: a kept build's marks file decides; without one (an
// older harness's), tracebackancestors as precog then set it for every test.
func TestKeptMarks(t *testing.T) {
	dir := t.TempDir()
	if !keptMarks(dir) {
		t.Error("no marks file: false, want true")
	}
	for _, c := range []struct {
		text string
		want bool
	}{{"false\n", false}, {"true\n", true}} {
		if err := os.WriteFile(filepath.Join(dir, marksFile), []byte(c.text), 0o666); err != nil {
			t.Fatal(err)
		}
		if got := keptMarks(dir); got != c.want {
			t.Errorf("marks file %q: %v, want %v", c.text, got, c.want)
		}
	}
}

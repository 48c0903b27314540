package testcmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/report"
	"github.com/precog-dev/precog/cmd/precog/internal/results"
	"github.com/precog-dev/precog/cmd/precog/internal/testcmd"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/leakcheck"
	"github.com/precog-dev/precog/internal/precogbin"
	"github.com/precog-dev/precog/internal/sarif"
	"github.com/precog-dev/precog/internal/sarif/sariftest"
	"github.com/precog-dev/precog/internal/testcache"
)

// sharedCache is the precog cache of every test here that builds, shared
// with the other packages' end-to-end tests (internal/testcache).
var sharedCache = testcache.Dir()

func TestMain(m *testing.M) {
	code := leakcheck.Main(m)
	precogbin.Remove()
	os.Exit(code)
}

func precog(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	env := &cli.Env{Stdout: &out, Stderr: &errs, Dir: dir}
	code = cli.Main(t.Context(), env, []*cli.Command{testcmd.Command()}, args)
	return out.String(), errs.String(), code
}

// TestErrors checks that what precog test cannot do costs one line on
// stderr and exit status 2 for a bad command line (1 for a directory -C
// cannot enter), before anything is built.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"-runs", "0", "./mysql"}, "-runs must be between 1 and 1000, got 0", cli.ExitUsage},
		{[]string{"-runs", "1001", "./mysql"}, "-runs must be between 1 and 1000, got 1001", cli.ExitUsage},
		{[]string{"-runs", "x", "./mysql"}, "invalid value \"x\" for flag -runs", cli.ExitUsage},
		{[]string{"./mysql", "-count", "3"}, "precog test runs each test in a process of its own, once per run; use -runs N for more runs", cli.ExitUsage},
		{[]string{"-race", "./mysql"}, "precog test and -race instrument the same accesses", cli.ExitUsage},
		{[]string{"-cover", "./mysql"}, "coverage is not supported", cli.ExitUsage},
		{[]string{"-nosuchflag", "./mysql"}, "flag provided but not defined: -nosuchflag", cli.ExitUsage},
		{[]string{"-timeout", "-1s", "./mysql"}, "-timeout must be 0 (no limit) or positive", cli.ExitUsage},
		{[]string{"-max-goroutines", "-1", "./mysql"}, "-max-goroutines must be 0 (no limit) or positive, got -1", cli.ExitUsage},
		{[]string{"-max-trace", "-1", "./mysql"}, "-max-trace must be 0 (no limit) or a positive number of MiB, got -1", cli.ExitUsage},
		{[]string{"-max-record", "-1", "./mysql"}, "-max-record must be 0 (no limit) or a positive number of MiB, got -1", cli.ExitUsage},
		{[]string{"-max-trace-time", "-1s", "./mysql"}, "-max-trace-time must be 0 (no limit) or positive, got -1s", cli.ExitUsage},
		{[]string{"-detect-budget", "-1s", "./mysql"}, "-detect-budget must be 0 (no limit) or positive, got -1s", cli.ExitUsage},
		{[]string{"-record-budget", "-1s", "./mysql"}, "-record-budget must be 0 (no limit) or positive, got -1s", cli.ExitUsage},
		{[]string{"-deadline", "-1s", "./mysql"}, "-deadline must be 0 (none) or positive, got -1s", cli.ExitUsage},
		{[]string{"-C", "nosuchdir", "./mysql"}, "-C: ", cli.ExitError},
		{[]string{"-ci", "./...", "./mysql"}, "-ci takes a directory, got the package pattern ./...: write -ci DIR ./...", cli.ExitUsage},
		{[]string{"./mysql", "-ci", "-o", "traces"}, "-ci takes a directory, got the flag -o", cli.ExitUsage},
		{[]string{"-perturb", "sometimes", "./mysql"}, "invalid value \"sometimes\" for flag -perturb: want targeted, random, off", cli.ExitUsage},
		{[]string{"-fail-on", "always", "./mysql"}, "invalid value \"always\" for flag -fail-on: want confirmed, predicted or forced", cli.ExitUsage},
		{[]string{"-perturb-budget", "0s", "./mysql"}, "-perturb-budget must be positive, got 0s", cli.ExitUsage},
	} {
		_, stderr, code := precog(t, kernels, append([]string{"test"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("precog test %s: exit %d, stderr %q; want %d and one line with %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
	}
}

// TestBrokenPackage checks that a package that does not compile is one
// clear error, and that beside others, as under go test, the others are
// tested and the broken one named, a line; a package whose tests import a
// broken one is not tested either. With them, a failure only recording
// showed is not confirmed.
func TestBrokenPackage(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/broken\n\ngo 1.22\n")
	write(t, filepath.Join(dir, "b.go"), "package broken\n\nfunc F() int { return \"x\" }\n")
	write(t, filepath.Join(dir, "b_test.go"), "package broken\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { F() }\n")
	ci := filepath.Join(t.TempDir(), "ci")
	_, stderr, code := precog(t, dir, "test", "-cache", sharedCache, "-ci", ci, ".")
	if code != cli.ExitError || !strings.Contains(stderr, "b.go:3") {
		t.Errorf("exit %d, stderr:\n%s\nwant 1 and the compile error's position", code, stderr)
	}
	if n := strings.Count(stderr, "\n"); n > 2 {
		t.Errorf("%d lines on stderr, want one or two:\n%s", n, stderr)
	}
	// A nightly job's directory says why it has no results: its summary
	// has the error and exit status 1, its SARIF an unsuccessful run.
	rd, err := results.Read(ci)
	if err != nil {
		t.Fatalf("-ci directory after the error: %v", err)
	}
	if s := rd.Summary; s.Exit != cli.ExitError || !strings.Contains(s.Error, "b.go:3:23") || len(rd.Findings) != 0 || len(rd.Tests) != 0 {
		t.Errorf("-ci summary: exit %d, error %q, %d findings, %d tests; want 1, the compile error, none, none", s.Exit, s.Error, len(rd.Findings), len(rd.Tests))
	}
	if text, err := os.ReadFile(filepath.Join(ci, results.SummaryText)); err != nil || !strings.HasPrefix(string(text), "no results: package example.com/broken: b.go:3:23") {
		t.Errorf("-ci summary.txt %q (%v), want the error", text, err)
	}
	var log sarif.Log
	if data, err := os.ReadFile(filepath.Join(ci, results.SARIFFile)); err != nil || json.Unmarshal(data, &log) != nil ||
		len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 || log.Runs[0].Invocations[0].ExecutionSuccessful {
		t.Errorf("-ci SARIF (%v): want one run whose invocation did not succeed:\n%+v", err, log)
	}
	// A good package beside it, a package whose external test imports
	// the broken one, and a package of two failing tests: the first
	// two named, a line each, the others tested (results' TestJudgeBroken
	// has the exit status 1 of a broken package without a confirmed
	// finding).
	write(t, filepath.Join(dir, "good", "g.go"), "package good\n\nfunc G() int { return 1 }\n")
	write(t, filepath.Join(dir, "good", "g_test.go"), "package good\n\nimport \"testing\"\n\nfunc TestG(t *testing.T) {\n\tif G() != 1 {\n\t\tt.Fatal(\"G\")\n\t}\n}\n")
	write(t, filepath.Join(dir, "user", "u_test.go"), "package user_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/broken\"\n)\n\nfunc TestU(t *testing.T) { broken.F() }\n")
	write(t, filepath.Join(dir, "user", "u.go"), "package user\n")
	// TestMaps fails only when recorded (the shim maps its trace file, as
	// recording's slowdown fails a test that depends on timing): passing
	// without recording, it is not confirmed. TestCount fails in every
	// run: confirmed, which makes the exit 3.
	write(t, filepath.Join(dir, "rec", "r.go"), "package rec\n")
	write(t, filepath.Join(dir, "rec", "r_test.go"), recordedOnlyTest)
	// A package whose TestMain exits for want of its environment, as go
	// test would run it: left out, as go test fails it alone.
	write(t, filepath.Join(dir, "envmain", "e_test.go"), "package envmain\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tif os.Getenv(\"ENVMAIN_SERVER\") == \"\" {\n\t\tfmt.Println(\"ENVMAIN_SERVER is not set\")\n\t\tos.Exit(1)\n\t}\n\tos.Exit(m.Run())\n}\n\nfunc TestE(t *testing.T) {}\n")
	stdout, stderr, code := precog(t, dir, "test", "-json", "-cache", sharedCache, "./...")
	for _, want := range []string{
		"not tested: package example.com/broken: b.go:3:23: cannot use \"x\" (untyped string constant) as int value in return statement\n",
		"not tested: package example.com/broken/user: imports package example.com/broken: b.go:3:23: cannot use \"x\"",
		"not tested: package example.com/broken/envmain: listing its tests: ENVMAIN_SERVER is not set\n",
		"in 3 tests of 2 packages",
		"(3 packages not tested: 2 do not build, 1 failed to list its tests)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("./...: stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code != cli.ExitFindings || strings.Count("\n"+stderr, "\nnot tested: ") != 3 {
		t.Errorf("./...: exit %d, stderr:\n%s\nwant 3 (a confirmed finding) and three packages not tested", code, stderr)
	}
	status := make(map[string]finding.Status)
	for _, f := range decodeFindings(t, stdout) {
		if f.Kind == finding.TestFailed {
			status[f.Tests[0]] = f.Status
			if f.Tests[0] == "example.com/broken/rec.TestMaps" && !strings.Contains(f.Validation.Reason, "passed in 2 runs without recording") {
				t.Errorf("TestMaps: reason %q", f.Validation.Reason)
			}
		}
	}
	if want := map[string]finding.Status{"example.com/broken/rec.TestMaps": finding.NotConfirmed, "example.com/broken/rec.TestCount": finding.Confirmed}; !maps.Equal(status, want) {
		t.Errorf("./...: test-failed findings %v, want %v", status, want)
	}

	// A recording budget spent before the first test: no test runs, the
	// summary and a note say so, and the broken packages still make the
	// exit 1.
	_, stderr, code = precog(t, dir, "test", "-record-budget", "1ns", "-cache", sharedCache, "./...")
	for _, want := range []string{
		"in 0 tests of 2 packages",
		"(3 tests not recorded, over -record-budget)",
		"recording stopped after 1ns (-record-budget) with 3 tests not run, 0 recorded",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("-record-budget 1ns: stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code != cli.ExitError {
		t.Errorf("-record-budget 1ns: exit %d, want 1 (packages not tested)", code)
	}

	// A deadline reached before anything was tested (while
	// instrumenting): the deadline is the error, not what it did to the
	// go command running then, and a nightly job's directory says so.
	ci = filepath.Join(t.TempDir(), "ci-deadline")
	_, stderr, code = precog(t, dir, "test", "-deadline", "1ns", "-cache", sharedCache, "-ci", ci, "./good")
	if want := "precog: the -deadline of 1ns was reached before detection began (at: instrumenting)\n"; code != cli.ExitError || stderr != want {
		t.Errorf("-deadline 1ns: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	if rd, err := results.Read(ci); err != nil || rd.Summary.Error != "the -deadline of 1ns was reached before detection began (at: instrumenting)" || rd.Summary.Exit != cli.ExitError {
		t.Errorf("-deadline 1ns: -ci summary (%v): %+v; want the deadline as its error, exit 1", err, rd)
	}
	// The control: a deadline the run fits in changes nothing of it.
	_, stderr, code = precog(t, dir, "test", "-deadline", "1h", "-cache", sharedCache, "./good")
	if code != cli.ExitOK || strings.Contains(stderr, "deadline") {
		t.Errorf("-deadline 1h: exit %d, stderr:\n%s\nwant 0 and no word of the deadline", code, stderr)
	}

	// Every package with tests left out, their tests importing a package
	// that only a build tag brings in, beside one with no test files:
	// each is named with the excluded package's own error (not the
	// importer's "could not import"), not hidden behind "no test files"
	// for the package left. The control: that package alone has no test
	// files.
	write(t, filepath.Join(dir, "tagged", "t.go"), "//go:build precogtag\n\npackage tagged\n")
	write(t, filepath.Join(dir, "needs", "n.go"), "package needs\n")
	write(t, filepath.Join(dir, "needs", "n_test.go"), "package needs\n\nimport (\n\t\"testing\"\n\n\t_ \"example.com/broken/tagged\"\n)\n\nfunc TestN(t *testing.T) {}\n")
	write(t, filepath.Join(dir, "plain", "p.go"), "package plain\n")
	_, stderr, code = precog(t, dir, "test", "-cache", sharedCache, "./needs", "./plain")
	if want := "not tested: package example.com/broken/needs: imports package example.com/broken/tagged: build constraints exclude all Go files"; code != cli.ExitError || !strings.Contains(stderr, want) || strings.Contains(stderr, "no test files") {
		t.Errorf("./needs ./plain: exit %d, stderr:\n%s\nwant 1 and %q", code, stderr, want)
	}
	_, stderr, code = precog(t, dir, "test", "-cache", sharedCache, "./plain")
	if code != cli.ExitError || !strings.Contains(stderr, "no test files in ./plain") || strings.Contains(stderr, "build constraints") {
		t.Errorf("./plain: exit %d, stderr:\n%s\nwant 1 and no test files", code, stderr)
	}
	// Its tests all behind a build tag (gosnmp's, held-out rehearsal
	// 44): the line says so.
	write(t, filepath.Join(dir, "plain", "p_test.go"), "//go:build precogtag\n\npackage plain\n\nimport \"testing\"\n\nfunc TestP(t *testing.T) {}\n")
	_, stderr, code = precog(t, dir, "test", "-cache", sharedCache, "./plain")
	if want := "no test files in ./plain (1 test file excluded by build constraints, as " + filepath.Join("plain", "p_test.go") + ": pass their tags with -tags)"; code != cli.ExitError || !strings.Contains(stderr, want) {
		t.Errorf("./plain with a tagged test: exit %d, stderr:\n%s\nwant 1 and %q", code, stderr, want)
	}
}

// recordedOnlyTest is a package's tests: TestMaps fails when the process
// maps a file other than its executable, as it does when recorded;
// TestCount always fails.
const recordedOnlyTest = `package rec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMaps(t *testing.T) {
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	exe, _ := os.Executable()
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 6 && strings.HasPrefix(f[5], "/") && f[5] != exe {
			t.Fatalf("mapped %s", filepath.Base(f[5]))
		}
	}
}

func TestCount(t *testing.T) {
	if n := 2; n != 3 {
		t.Fatalf("count = %d, want 3", n)
	}
}
`

// TestHelp checks that the help lists the flags precog test takes.
func TestHelp(t *testing.T) {
	stdout, _, code := precog(t, "", "help", "test")
	if code != 0 {
		t.Fatalf("help test exited %d", code)
	}
	for _, want := range []string{"usage: precog test [flags] [go test flags] [packages]", "-runs n", "-json", "-show-apart", "-sarif file", "-o dir", "-seed seed", "-cache dir", "-run regexp", "Exit status", "refused: ", "\tapart          a data race"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help test lacks %q:\n%s", want, stdout)
		}
	}
}

// TestTestOutput runs precog test on kernels and checks the three output
// forms of one run against each other: the text on stdout, the JSON lines
// of the -ci directory (written by -json's own encoder, report.JSON) and
// the -sarif log: the same findings, with the fields -json promises (a
// forced finding's order among them), text lines that start with the
// first site's position and kind, and a SARIF log that validates. (It
// ran precog test twice, -json and text, each validating anew: one run
// gives the three forms the same findings and statuses. The tests that
// decode -json's stdout check that -json prints there.)
func TestTestOutput(t *testing.T) {
	cache := sharedCache
	pkgs := []string{"./mysql", "./mapwrites"}
	sarifFile := filepath.Join(t.TempDir(), "out.sarif")
	ci := filepath.Join(t.TempDir(), "ci")
	text, stderr, code := precog(t, kernels, append([]string{"test", "-cache", cache, "-sarif", sarifFile, "-ci", ci}, pkgs...)...)
	if code != cli.ExitOK && code != cli.ExitFindings {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(ci, results.FindingsFile))
	if err != nil {
		t.Fatal(err)
	}
	jsonOut := string(data)
	fs := decodeFindings(t, jsonOut)
	confirmed, forced := 0, 0
	for _, f := range fs {
		if f.Status == finding.Confirmed {
			confirmed++
		}
	}
	if (code == cli.ExitFindings) != (confirmed > 0) {
		t.Errorf("exit %d with %d confirmed findings (-fail-on=confirmed)", code, confirmed)
	}
	if !strings.Contains(stderr, "validated: ") {
		t.Errorf("no validation summary on stderr:\n%s", stderr)
	}
	if !strings.Contains(stderr, "duplication rate") {
		t.Errorf("no summary on stderr:\n%s", stderr)
	}
	for line := range strings.Lines(jsonOut) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"id", "kind", "status", "sites", "tests"} {
			if _, ok := m[k]; !ok {
				t.Errorf("JSON finding lacks %q: %s", k, line)
			}
		}
	}
	for _, f := range fs {
		if f.ID == "" || len(f.Tests) == 0 || len(f.Sites) == 0 {
			t.Errorf("finding %+v: want an id, tests and sites", f)
		}
		switch {
		case f.Kind == "con-null" && (f.Status != finding.Confirmed || f.Repro == "" || f.Validation == nil || f.Validation.Effect != "panic"):
			t.Errorf("the MySQL finding %s is %s (repro %q): want confirmed by a panic, with a reproducer", f.ID, f.Status, f.Repro)
		case f.Status != finding.Confirmed && f.Repro != "":
			t.Errorf("finding %s is %s but has a reproducer", f.ID, f.Status)
		}
		// A finding validation forced carries the order it forced, which
		// the HTML report's timeline draws.
		if v := f.Validation; v != nil && v.Runs > 0 && len(f.Witnesses) > 0 {
			if v.Order == nil || len(v.Order.Edges)+len(v.Order.Together) == 0 {
				t.Errorf("finding %s (%s, %s) was forced %d times but carries no order", f.ID, f.Kind, f.Status, v.Runs)
			}
			forced++
		}
		for _, s := range f.Sites {
			if !filepath.IsAbs(s.File) || s.Line <= 0 || s.Role == "" {
				t.Errorf("finding %s: site %+v wants an absolute file, a line and a role", f.ID, s)
			}
		}
	}
	if forced == 0 {
		t.Errorf("no finding was forced: want the MySQL con-null at least")
	}
	if data, err = os.ReadFile(sarifFile); err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, data, len(fs))

	// The text leaves out the findings set apart, and says how many on
	// stderr; the rest it shows.
	shown, apart := report.Apart(fs)
	for _, f := range apart {
		if strings.Contains(text, "id "+f.ID+",") {
			t.Errorf("the text shows %s, set apart", f.ID)
		}
	}
	if has := strings.Contains(stderr, "set apart and not shown"); has != (len(apart) > 0) || has && !strings.Contains(stderr, results.ApartLine(apart)) {
		t.Errorf("%d findings set apart, but stderr says otherwise:\n%s", len(apart), stderr)
	}
	fs = shown

	// Heads and statuses: the text lists each block's head line, and
	// within the run the confirmed blocks first.
	var heads []string
	var statuses []bool // per head: confirmed
	for line := range strings.Lines(text) {
		if !strings.HasPrefix(line, "\t") {
			heads = append(heads, line)
			statuses = append(statuses, false)
		} else if strings.HasPrefix(line, "\tid ") && strings.Contains(line, ", confirmed (") && len(statuses) > 0 {
			statuses[len(statuses)-1] = true
		}
	}
	// The findings of a kind reported at one site are one block of the
	// text (finding.Heads), whichever of them heads it in that run.
	groups, confirmedGroups, size := 0, 0, map[int]int{}
	fheads := finding.Heads(fs)
	for i, h := range fheads {
		if h == i {
			groups++
			if fs[i].Status == finding.Confirmed {
				confirmedGroups++
			}
		}
		size[h]++
	}
	if len(heads) != groups {
		t.Fatalf("%d findings in text, %d groups of the %d in JSON:\n%s", len(heads), groups, len(fs), text)
	}
	nconfirmed := 0
	for i := range statuses {
		if statuses[i] {
			nconfirmed++
		}
		if i > 0 && statuses[i] && !statuses[i-1] {
			t.Errorf("text lists the confirmed finding %q after a predicted one", heads[i])
		}
	}
	if nconfirmed != confirmedGroups {
		t.Errorf("text marks %d blocks confirmed, the JSON of the same run %d", nconfirmed, confirmedGroups)
	}
	for i, f := range fs {
		rel, _ := filepath.Rel(kernels, f.Sites[0].File)
		head := ": " + f.Kind + ": "
		if size[fheads[i]] == 1 {
			head += f.Message // alone: its own block
		}
		if !slices.ContainsFunc(heads, func(h string) bool {
			return strings.HasPrefix(h, rel+":") && strings.Contains(h, head)
		}) || !strings.Contains(text, "id "+f.ID+",") {
			t.Errorf("no text line %s...: %s: with id %s in\n%s", rel, f.Kind, f.ID, text)
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}

func validateSARIF(t *testing.T, data []byte, results int) {
	t.Helper()
	if err := sariftest.Validate(data); err != nil {
		t.Fatalf("invalid SARIF: %v", err)
	}
	var log struct{ Runs []struct{ Results []any } }
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	if n := len(log.Runs[0].Results); n != results {
		t.Errorf("%d SARIF results, want %d", n, results)
	}
}

// TestInterruptedValidation interrupts precog test -ci (as a CI job's
// timeout sends SIGTERM) once validation has begun: the findings that
// detection made are printed and written to the -ci directory, whose
// summary says the run was interrupted and what was left out, and the exit
// status is the signal's. The test's forced runs (PRECOG_CONTROL set:
// shim/plan.EnvVar) sleep, so validation is still running when the
// interrupt comes.
func TestInterruptedValidation(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/slow\n\ngo 1.22\n")
	write(t, filepath.Join(dir, "s.go"), `package slow

// P is read by one goroutine and cleared by another.
var P = new(int)

// Read dereferences P if it is set.
func Read() int {
	if P != nil {
		return *P
	}
	return 0
}
`)
	write(t, filepath.Join(dir, "s_test.go"), `package slow

import (
	"os"
	"sync"
	"testing"
	"time"
)

func TestClear(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); Read() }()
	P = nil
	wg.Wait()
	if os.Getenv("PRECOG_CONTROL") != "" {
		time.Sleep(20 * time.Second) // a forced run outlasts the interrupt
	}
}
`)
	// A run whose finding needed no forced run (confirmed in 15 ms once,
	// in CI under load: the recorded run can show the clear between
	// Read's check and its dereference itself) has nothing to interrupt:
	// it is tried again, three runs at most.
	var (
		tmp, ci        string
		code           int
		stdout, stderr bytes.Buffer
	)
	for attempt := 1; ; attempt++ {
		tmp = t.TempDir()
		t.Setenv("TMPDIR", tmp)
		ctx, cancel := context.WithCancelCause(t.Context())
		watched := make(chan bool, 1)
		go func() {
			// Validation's work directory appears: interrupt.
			for ctx.Err() == nil {
				if m, _ := filepath.Glob(filepath.Join(tmp, "precog-validate-*")); len(m) > 0 {
					cancel(&cli.Interrupt{Signal: syscall.SIGTERM})
					watched <- true
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
			watched <- false
		}()
		ci = filepath.Join(t.TempDir(), "ci")
		stdout.Reset()
		stderr.Reset()
		env := &cli.Env{Stdout: &stdout, Stderr: &stderr, Dir: dir}
		code = cli.Main(ctx, env, []*cli.Command{testcmd.Command()}, []string{"test", "-json", "-cfp=false", "-cache", sharedCache, "-ci", ci, "."})
		cancel(nil)
		if interrupted := <-watched; interrupted || attempt == 3 {
			break
		}
		t.Logf("attempt %d: no forced run was interrupted (exit %d); stderr:\n%s", attempt, code, stderr.String())
	}
	if code != 143 || !strings.HasSuffix(stderr.String(), "precog: interrupted by SIGTERM\n") {
		t.Fatalf("exit %d, want 143 and the interrupt's line last; stderr:\n%s", code, stderr.String())
	}
	printed := decodeFindings(t, stdout.String())
	if len(printed) == 0 {
		t.Fatalf("no findings printed; stderr:\n%s", stderr.String())
	}
	rd, err := results.Read(ci)
	if err != nil {
		t.Fatalf("-ci directory: %v", err)
	}
	s := rd.Summary
	if s.Interrupted != "interrupted by SIGTERM" || s.Exit != code || len(rd.Findings) != len(printed) || s.Error != "" {
		t.Errorf("-ci summary: interrupted %q, error %q, exit %d, %d findings (%d printed); want SIGTERM's, none, the process's %d, all", s.Interrupted, s.Error, s.Exit, len(rd.Findings), len(printed), code)
	}
	if !slices.ContainsFunc(s.Notes, func(n string) bool {
		return strings.HasPrefix(n, "interrupted by SIGTERM during validation: the findings it had not finished are timed out")
	}) {
		t.Errorf("notes %q: want one saying validation was interrupted", s.Notes)
	}
	if text, err := os.ReadFile(filepath.Join(ci, results.SummaryText)); err != nil || !strings.HasPrefix(string(text), "partial results: interrupted by SIGTERM\n") {
		t.Errorf("-ci summary.txt %q (%v), want it to say the results are partial", text, err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in the temporary directory: %v", left)
	}
}

// TestInterruptedBeforeAnalysis: a run interrupted before any test was
// analysed says what -deadline would have done, unless it had one.
func TestInterruptedBeforeAnalysis(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/early\n\ngo 1.22\n")
	write(t, filepath.Join(dir, "e_test.go"), "package early\n\nimport \"testing\"\n\nfunc TestE(t *testing.T) {}\n")
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, "precog: interrupted by SIGTERM; no test was analysed yet; with -deadline D a run ends by itself within D and writes its results\n"},
		{[]string{"-deadline", "1h"}, "precog: interrupted by SIGTERM\n"},
	} {
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(&cli.Interrupt{Signal: syscall.SIGTERM})
		var stdout, stderr bytes.Buffer
		env := &cli.Env{Stdout: &stdout, Stderr: &stderr, Dir: dir}
		args := append(append([]string{"test", "-cache", sharedCache}, c.flags...), ".")
		code := cli.Main(ctx, env, []*cli.Command{testcmd.Command()}, args)
		if code != 143 || stderr.String() != c.want {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant 143 and:\n%s", c.flags, code, stderr.String(), c.want)
		}
	}
}

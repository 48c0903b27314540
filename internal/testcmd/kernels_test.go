package testcmd_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
)

// kernels is the module of bug kernels and negative controls.
var kernels, _ = filepath.Abs(filepath.Join("..", "..", "testdata", "kernels"))

// kernelsModule is its module path.
const kernelsModule = "precog.example/kernels"

// An expectation is a kernel package's expect file: how many runs per test
// precog test should record, and the findings it must report, nothing
// else.
type expectation struct {
	runs     int
	findings []expected
}

// An expected finding: its kind and the set of its sites' file:line, the
// file relative to the package's directory.
type expected struct {
	kind  string
	sites []string // sorted, without duplicates
	line  int      // in the expect file
}

func (e expected) key() string { return e.kind + " " + strings.Join(e.sites, " ") }

// parseExpect parses an expect file:
//
//	# comments, also after a line's content
//	runs 10                          (optional; default 1)
//	con-null mysql.go:70 mysql.go:61 (kind, then the sites as file:line)
func parseExpect(data []byte) (*expectation, error) {
	e := &expectation{runs: 1}
	seenRuns := false
	seen := make(map[string]int)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == "runs" {
			if seenRuns {
				return nil, fmt.Errorf("line %d: a second runs line", n)
			}
			seenRuns = true
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: want runs N", n)
			}
			r, err := strconv.Atoi(f[1])
			if err != nil || r < 1 {
				return nil, fmt.Errorf("line %d: runs %q is not a positive number", n, f[1])
			}
			e.runs = r
			continue
		}
		if !validKind(f[0]) {
			return nil, fmt.Errorf("line %d: unknown kind %q", n, f[0])
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("line %d: %s has no sites", n, f[0])
		}
		x := expected{kind: f[0], line: n}
		for _, s := range f[1:] {
			file, l, ok := strings.Cut(s, ":")
			ln, err := strconv.Atoi(l)
			if !ok || file == "" || err != nil || ln < 1 {
				return nil, fmt.Errorf("line %d: site %q is not file:line", n, s)
			}
			x.sites = append(x.sites, filepath.ToSlash(filepath.Clean(file))+":"+strconv.Itoa(ln))
		}
		slices.Sort(x.sites)
		x.sites = slices.Compact(x.sites)
		if prev, dup := seen[x.key()]; dup {
			return nil, fmt.Errorf("line %d: the finding of line %d again", n, prev)
		}
		seen[x.key()] = n
		e.findings = append(e.findings, x)
	}
	return e, sc.Err()
}

// validKind reports whether k is a kind of finding.
func validKind(k string) bool {
	switch k {
	case "con-null", "con-uninit", "con-closed", "con-index", "con-map", "oscs":
		return true
	}
	n, ok := strings.CutPrefix(k, "unicorn-p")
	i, err := strconv.Atoi(n)
	return ok && err == nil && i >= 1 && i <= 17 && strconv.Itoa(i) == n
}

// reportedKey is the key of a reported finding as an expect file would
// write it, for the package in directory dir: sites under dir are relative
// to it, others keep their absolute path (and match no expect line).
func reportedKey(dir string, f finding.Finding) string {
	var sites []string
	for _, s := range f.Sites {
		file := s.File
		if rel, err := filepath.Rel(dir, file); err == nil && filepath.IsLocal(rel) {
			file = filepath.ToSlash(rel)
		}
		sites = append(sites, file+":"+strconv.Itoa(s.Line))
	}
	slices.Sort(sites)
	return f.Kind + " " + strings.Join(slices.Compact(sites), " ")
}

// kernelPackages returns the directories of testdata/kernels that hold Go
// files: one package each.
func kernelPackages(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(kernels)
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		gofiles, _ := filepath.Glob(filepath.Join(kernels, e.Name(), "*.go"))
		if len(gofiles) > 0 {
			pkgs = append(pkgs, e.Name())
		}
	}
	return pkgs
}

// TestKernels runs precog test over the kernel corpus, once per group of
// packages that want the same number of runs, and checks each package's
// findings against its expect file: every expected finding reported, and
// nothing else.
func TestKernels(t *testing.T) {
	cache := t.TempDir()
	groups := make(map[int][]string) // runs -> package dirs
	expects := make(map[string]*expectation)
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
		e, err := parseExpect(data)
		if err != nil {
			t.Errorf("%s/expect: %v", pkg, err)
			continue
		}
		expects[pkg] = e
		groups[e.runs] = append(groups[e.runs], pkg)
	}
	if len(missing) > 0 {
		t.Errorf("kernel packages without an expect file: %s", strings.Join(missing, " "))
	}
	for _, runs := range slices.Sorted(maps.Keys(groups)) {
		pkgs := groups[runs]
		args := []string{"test", "-json", "-cache", cache, "-runs", strconv.Itoa(runs)}
		for _, p := range pkgs {
			args = append(args, "./"+p)
		}
		stdout, stderr, code := precog(t, kernels, args...)
		if code != 0 && code != 3 {
			t.Errorf("precog %s exited %d:\n%s", strings.Join(args, " "), code, stderr)
			continue
		}
		t.Logf("precog %s:\n%s", strings.Join(args, " "), stderr)
		fs := decodeFindings(t, stdout)
		for _, pkg := range pkgs {
			t.Run(pkg, func(t *testing.T) {
				checkPackage(t, pkg, expects[pkg], fs)
			})
		}
	}
}

// checkPackage compares the findings of the tests of kernel package pkg
// with its expectation.
func checkPackage(t *testing.T, pkg string, e *expectation, fs []finding.Finding) {
	dir := filepath.Join(kernels, pkg)
	prefix := kernelsModule + "/" + pkg + "."
	got := make(map[string]finding.Finding)
	for _, f := range fs {
		if slices.ContainsFunc(f.Tests, func(test string) bool { return strings.HasPrefix(test, prefix) }) {
			got[reportedKey(dir, f)] = f
		}
	}
	want := make(map[string]bool)
	for _, x := range e.findings {
		want[x.key()] = true
		if _, ok := got[x.key()]; !ok {
			t.Errorf("expect line %d: not reported: %s", x.line, x.key())
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if !want[k] {
			f := got[k]
			t.Errorf("reported but not expected: %s\n\t%s (id %s, tests %s)", k, f.Message, f.ID, strings.Join(f.Tests, " "))
		}
	}
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

func TestParseExpect(t *testing.T) {
	e, err := parseExpect([]byte(`# MySQL-1
runs 10   # enough to fail
con-null mysql.go:70 mysql.go:61
oscs a.go:3 ./b.go:4 a.go:3  # a set: order and repeats do not matter
# known false positive: nothing
unicorn-p14 x.go:1
`))
	if err != nil {
		t.Fatal(err)
	}
	if e.runs != 10 || len(e.findings) != 3 {
		t.Fatalf("runs %d, %d findings; want 10, 3", e.runs, len(e.findings))
	}
	for i, want := range []string{
		"con-null mysql.go:61 mysql.go:70",
		"oscs a.go:3 b.go:4",
		"unicorn-p14 x.go:1",
	} {
		if got := e.findings[i].key(); got != want {
			t.Errorf("finding %d = %q, want %q", i, got, want)
		}
	}
	if e, err := parseExpect([]byte("# a control\n\n")); err != nil || e.runs != 1 || len(e.findings) != 0 {
		t.Errorf("control: %+v, %v; want runs 1, no findings", e, err)
	}
	for _, bad := range []string{
		"runs 0",
		"runs x",
		"runs 2\nruns 3",
		"runs",
		"con-nul a.go:1",
		"unicorn-p18 a.go:1",
		"unicorn-p01 a.go:1",
		"con-null",
		"con-null a.go",
		"con-null a.go:0",
		"con-null :4",
		"con-null a.go:1 b.go:2\ncon-null b.go:2 a.go:1",
	} {
		if _, err := parseExpect([]byte(bad)); err == nil {
			t.Errorf("parseExpect(%q) succeeded, want an error", bad)
		}
	}
}

func TestReportedKey(t *testing.T) {
	dir := filepath.FromSlash("/k/mysql")
	f := finding.Finding{Kind: "con-null", Sites: []finding.Site{
		{File: filepath.FromSlash("/k/mysql/mysql.go"), Line: 70, Col: 5, Role: "deref"},
		{File: filepath.FromSlash("/k/mysql/mysql.go"), Line: 61, Col: 2, Role: "nil-store"},
		{File: filepath.FromSlash("/k/mysql/mysql.go"), Line: 61, Col: 9, Role: "nil-store"},
		{File: filepath.FromSlash("/k/other/o.go"), Line: 3, Col: 1, Role: "x"},
	}}
	want := "con-null /k/other/o.go:3 mysql.go:61 mysql.go:70"
	if got := reportedKey(dir, f); filepath.ToSlash(got) != want {
		t.Errorf("reportedKey = %q, want %q", got, want)
	}
}

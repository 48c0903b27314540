package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/precog-dev/precog/internal/testmod"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/precog-dev/precog/analyzers/suite"
	"github.com/precog-dev/precog/internal/leakcheck"
	"github.com/precog-dev/precog/internal/sarif"
	"github.com/precog-dev/precog/internal/sarif/sariftest"
	"github.com/precog-dev/precog/internal/testcache"
	"golang.org/x/tools/go/analysis"
)

// binDir holds the binaries that the tests build, once per test binary.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "precog-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := leakcheck.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

var builds sync.Map // package path to func() (string, error)

// build builds the command in pkg (relative to this directory) as name and
// returns the path of the executable.
func build(t *testing.T, pkg, name string) string {
	t.Helper()
	f, _ := builds.LoadOrStore(pkg, sync.OnceValues(func() (string, error) {
		exe := filepath.Join(binDir, name)
		out, err := exec.Command("go", "build", "-o", exe, pkg).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
		}
		return exe, nil
	}))
	exe, err := f.(func() (string, error))()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// precog builds cmd/precog, with the suite's checks.
func precog(t *testing.T) string { return build(t, ".", "precog") }

// vettool builds the same wiring with checktest's analyzers, which find
// things in small modules.
func vettool(t *testing.T) string { return build(t, "./testdata/vettool", "vettool") }

// writeModule writes a module example.com/m with files into a new
// temporary directory and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	return testmod.New(t, files)
}

// cleanModule has nothing for a check to find: goroutines joined before
// their results are used, a mutex around shared state, and a package that
// imports another, so that facts flow.
func cleanModule(t *testing.T) string {
	return writeModule(t, map[string]string{
		"counter/counter.go": `// Package counter counts under a lock.
package counter

import "sync"

// Counter is safe for concurrent use.
type Counter struct {
	mu sync.Mutex
	n  map[string]int
}

// Add adds one to key.
func (c *Counter) Add(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = make(map[string]int)
	}
	c.n[key]++
}

// Get returns the count of key.
func (c *Counter) Get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}
`,
		"counter/counter_test.go": `package counter

import (
	"sync"
	"testing"
	"time"
)

func TestAdd(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { c.Add("k") })
	}
	wg.Wait()
	if got := c.Get("k"); got != 4 {
		t.Errorf("Get = %d, want 4", got)
	}
}

// TestGet reads what a goroutine set after a select whose other case
// ends the test: t.Fatal never returns (ctrlflow's facts on package
// testing, which go vet -vettool must compute as precog vet does).
func TestGet(t *testing.T) {
	var n int
	done := make(chan struct{})
	go func() {
		var c Counter
		c.Add("k")
		n = c.Get("k")
		close(done)
	}()
	select {
	case <-time.After(time.Minute):
		t.Fatal("timed out")
	case <-done:
	}
	if n != 1 {
		t.Errorf("Get = %d, want 1", n)
	}
}
`,
		"work/work.go": `// Package work fans out and joins.
package work

import "example.com/m/counter"

// Run counts words on one goroutine each and waits for all of them.
func Run(words []string) int {
	var c counter.Counter
	done := make(chan struct{})
	for _, w := range words {
		go func() {
			c.Add(w)
			done <- struct{}{}
		}()
	}
	for range words {
		<-done
	}
	return c.Get("go")
}
`,
	})
}

// brokenModule has a package that does not type-check.
func brokenModule(t *testing.T) string {
	return writeModule(t, map[string]string{
		"bad/bad.go": "package bad\n\nfunc F() int { return foo }\n",
	})
}

// factsModule has a finding that needs a fact from another package.
func factsModule(t *testing.T) string {
	return writeModule(t, map[string]string{
		"a/a.go": "package a\n\n// Spawn starts a goroutine.\nfunc Spawn(f func()) {\n\tgo f()\n}\n",
		"b/b.go": "package b\n\nimport \"example.com/m/a\"\n\n// Run calls a function that starts a goroutine.\nfunc Run() { a.Spawn(func() {}) }\n",
	})
}

// crash matches the output of a Go program that died of a panic, rather
// than turning it into an internal error.
var crash = regexp.MustCompile(`(?m)^(panic|fatal error): `)

type result struct {
	stdout, stderr string
	code           int
}

// run runs a command in dir.
func run(t *testing.T, dir, name string, args ...string) result {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	r := result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
	if crash.MatchString(r.stderr) {
		t.Errorf("%s %s crashed:\n%s", name, args, r.stderr)
	}
	return r
}

// checkFlags returns -NAME=value for each of the suite's checks.
func checkFlags(value string) []string {
	var flags []string
	for _, a := range suite.Checks() {
		flags = append(flags, "-"+a.Name+"="+value)
	}
	return flags
}

func TestGoVetClean(t *testing.T) {
	t.Parallel()
	bin, dir := precog(t), cleanModule(t)
	// go vet keys its cached facts by the flags, so each set of flags
	// analyses the standard library packages the module imports (testing's
	// tree) again: -json shares a run with every check enabled by name
	// (go vet must know the flags, and the clean module must stay clean
	// whatever checks the suite gains), which checks both.
	for _, args := range [][]string{
		{"./..."},
		append(append([]string{"-json"}, checkFlags("true")...), "./..."),
	} {
		r := run(t, dir, "go", append([]string{"vet", "-vettool=" + bin}, args...)...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("go vet -vettool=precog %s: exit %d, stderr:\n%s", args, r.code, r.stderr)
		}
		if slices.Contains(args, "-json") {
			if strings.Contains(r.stdout, `"posn"`) {
				t.Errorf("go vet -json reported findings in the clean module:\n%s", r.stdout)
			}
		} else if r.stdout != "" {
			t.Errorf("go vet %s printed:\n%s", args, r.stdout)
		}
	}
}

func TestGoVetBroken(t *testing.T) {
	t.Parallel()
	r := run(t, brokenModule(t), "go", "vet", "-vettool="+precog(t), "./...")
	if r.code == 0 || !strings.Contains(r.stderr, "bad/bad.go:3:23: undefined: foo") {
		t.Errorf("go vet on a package that does not type-check: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestGoVetFacts checks the vet tool protocol end to end with analyzers
// that find something: facts flow from package a to package b, -json and
// the check flags pass through go vet, and a panicking check costs one
// diagnostic.
func TestGoVetFacts(t *testing.T) {
	t.Parallel()
	bin, dir := vettool(t), factsModule(t)
	const (
		spawn = "b/b.go:6:14: call of a.Spawn, which starts a goroutine\n"
		goStm = "a/a.go:5:2: go statement in Spawn\n"
	)
	r := run(t, dir, "go", "vet", "-vettool="+bin, "-panics=false", "./...")
	if r.code != 1 || !strings.Contains(r.stderr, spawn) || !strings.Contains(r.stderr, goStm) {
		t.Errorf("go vet: exit %d, stderr:\n%s\nwant exit 1 with %q and %q", r.code, r.stderr, spawn, goStm)
	}
	r = run(t, dir, "go", "vet", "-vettool="+bin, "-gostmt", "./...")
	if r.code != 1 || strings.Contains(r.stderr, "call of") || !strings.Contains(r.stderr, goStm) {
		t.Errorf("go vet -gostmt: exit %d, stderr:\n%s\nwant only %q", r.code, r.stderr, goStm)
	}
	r = run(t, dir, "go", "vet", "-vettool="+bin, "-json", "-panics=false", "./...")
	if r.code != 0 || !strings.Contains(r.stdout, `"category": "test-spawn"`) {
		t.Errorf("go vet -json: exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, dir, "go", "vet", "-vettool="+bin, "-panics", "./b")
	if r.code != 1 || strings.Count(r.stderr, "internal error: analyzer panics panicked on package example.com/m/b: boom") != 1 {
		t.Errorf("go vet -panics: exit %d, stderr:\n%s\nwant one internal error", r.code, r.stderr)
	}
}

func TestBinary(t *testing.T) {
	t.Parallel()
	bin, clean, broken := precog(t), cleanModule(t), brokenModule(t)

	version := run(t, clean, bin, "version")
	full := run(t, clean, bin, "-V=full")
	if version.code != 0 || version.stdout != full.stdout ||
		!regexp.MustCompile(`^precog version \S+ go\S+ buildID=[0-9a-f]{64}\n$`).MatchString(version.stdout) {
		t.Errorf("precog version = %q, precog -V=full = %q; want the same line", version.stdout, full.stdout)
	}

	if r := run(t, clean, bin); r.code != 2 || !strings.Contains(r.stderr, "precog <command> [arguments]") {
		t.Errorf("precog with no arguments: exit %d (want 2, a usage error), stderr:\n%s", r.code, r.stderr)
	}
	help := run(t, clean, bin, "help", "vet")
	for _, f := range checkFlags("") {
		if flag := strings.TrimSuffix(f, "="); !strings.Contains(help.stdout, "\n  "+flag+"\n") {
			t.Errorf("precog help vet does not document %s:\n%s", flag, help.stdout)
		}
	}

	if r := run(t, clean, bin, "vet", "-cache", testcache.Dir(), "-sarif", "out.sarif", "./..."); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("precog vet on the clean module: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(clean, "out.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sariftest.Validate(data); err != nil {
		t.Fatalf("invalid SARIF: %v\n%s", err, data)
	}
	var log sarif.Log
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	var ruleIDs, checkIDs []string
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		ruleIDs = append(ruleIDs, r.ID)
	}
	for _, a := range suite.Checks() {
		checkIDs = append(checkIDs, suite.IDs[a.Name])
	}
	if !slices.Equal(ruleIDs, checkIDs) {
		t.Errorf("SARIF rules are %q, want one per check: %q", ruleIDs, checkIDs)
	}

	r := run(t, broken, bin, "vet", "-cache", testcache.Dir(), "./...")
	if want := "precog: package example.com/m/bad: bad/bad.go:3:23: undefined: foo\n"; r.code != 1 || r.stderr != want {
		t.Errorf("precog vet on a broken package: exit %d, stderr %q; want 1 and %q", r.code, r.stderr, want)
	}
}

// TestGoTmpDir: with GOTMPDIR set, precog's go commands work in a
// directory of precog's own in it, named as its TMPDIR one and removed
// at the end, and what a killed precog left there (a directory of a gone
// process, unchanged for hours) is removed; a directory of a gone process
// that changed lately and other names stay.
func TestGoTmpDir(t *testing.T) {
	t.Parallel()
	bin, clean := precog(t), cleanModule(t)
	gone := exec.Command("go", "env", "GOROOT") // any short-lived process
	if err := gone.Run(); err != nil {
		t.Skip("no process to outlive:", err)
	}
	dead := strconv.Itoa(gone.Process.Pid)
	gotmp := t.TempDir()
	old := time.Now().Add(-3 * time.Hour)
	for _, name := range []string{"precog-" + dead + "-1", "precog-" + dead + "-2", "precog-go-3"} {
		if err := os.MkdirAll(filepath.Join(gotmp, name, "b001"), 0o700); err != nil {
			t.Fatal(err)
		}
		if name != "precog-"+dead+"-2" {
			if err := os.Chtimes(filepath.Join(gotmp, name), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command(bin, "vet", "-cache", testcache.Dir(), "./...")
	cmd.Dir = clean
	cmd.Env = append(os.Environ(), "GOTMPDIR="+gotmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("precog vet: %v\n%s", err, out)
	}
	var left []string
	entries, _ := os.ReadDir(gotmp)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{"precog-" + dead + "-2", "precog-go-3"}; !slices.Equal(left, want) {
		t.Errorf("GOTMPDIR holds %q after precog vet, want %q", left, want)
	}
}

// TestSeededBug runs the binary on the shape of the MySQL-1 kernel: a
// field checked for nil and then dereferenced while another goroutine
// stores nil to it. It starts to run when the suite has the con-null check.
func TestSeededBug(t *testing.T) {
	t.Parallel()
	if !slices.ContainsFunc(suite.Checks(), func(a *analysis.Analyzer) bool { return a.Name == "connull" }) {
		t.Skip("the suite has no connull check yet")
	}
	bin := precog(t)
	dir := writeModule(t, map[string]string{
		"seeded/seeded.go": `// Package seeded has a Con-NULL bug.
package seeded

type proc struct{ info *string }

// Run may crash: the goroutine can store nil between the check and the use.
func Run() string {
	s := "running"
	p := &proc{info: &s}
	done := make(chan struct{})
	go func() {
		p.info = nil
		close(done)
	}()
	var out string
	if p.info != nil {
		out = *p.info
	}
	<-done
	return out
}
`,
	})
	r := run(t, dir, bin, "vet", "-cache", testcache.Dir(), "./...")
	if r.code != 3 || !regexp.MustCompile(`(?m)^seeded/seeded.go:\d+:\d+: .* \[con-null\]$`).MatchString(r.stdout) {
		t.Errorf("precog vet on a seeded con-null bug: exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// go vet prints each diagnostic's category as precog vet does, and
	// related information as it is.
	r = run(t, dir, "go", "vet", "-vettool="+bin, "./...")
	if r.code == 0 || !regexp.MustCompile(`(?m)^seeded/seeded.go:\d+:\d+: .* \[con-null\]\n(.*: \t.*[^\]]\n)+`).MatchString(r.stderr) {
		t.Errorf("go vet -vettool=precog on a seeded con-null bug: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = run(t, dir, "go", "vet", "-vettool="+bin, "-json", "./...")
	if !strings.Contains(r.stdout, `"category": "con-null"`) {
		t.Errorf("go vet -json -vettool=precog on a seeded con-null bug: exit %d, stdout:\n%s", r.code, r.stdout)
	}
}

// TestDriverDoesNotLinkShim: the precog command and the packages under it
// depend on the shim's format packages only, never on the recording
// runtime (package shim, whose init records the process when PRECOG_TRACE
// is set, and shim/rt, which imports it).
func TestDriverDoesNotLinkShim(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/precog-dev/precog/cmd/precog/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const shim = "github.com/precog-dev/precog/shim"
	formats := map[string]bool{shim + "/trace": true, shim + "/plan": true}
	deps := strings.Fields(string(out))
	for _, p := range deps {
		if (p == shim || strings.HasPrefix(p, shim+"/")) && !formats[p] {
			t.Errorf("the driver depends on %s", p)
		}
	}
	if !slices.Contains(deps, shim+"/plan") {
		t.Errorf("go list -deps does not list %s/plan, which the driver uses: %v", shim, deps)
	}
}

// TestGoVetFix applies precog's suggested fixes with go vet -fix, on a
// copy of conuninit's fix scenario, and checks that the result is the
// scenario's golden file and that go vet then reports only the findings
// that had no fix.
func TestGoVetFix(t *testing.T) {
	t.Parallel()
	bin := precog(t)
	const scenario = "../../analyzers/conuninit/testdata/src/addfix/addfix.go"
	src, err := os.ReadFile(scenario)
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(scenario + ".golden")
	if err != nil {
		t.Fatal(err)
	}
	dir := writeModule(t, map[string]string{"addfix/addfix.go": string(src)})
	r := run(t, dir, "go", "vet", "-vettool="+bin, "-fix", "./...")
	if r.code != 0 {
		t.Errorf("go vet -fix: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	fixed, err := os.ReadFile(filepath.Join(dir, "addfix", "addfix.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fixed, golden) {
		t.Errorf("go vet -fix wrote:\n%s\nwant the golden file:\n%s", fixed, golden)
	}
	r = run(t, dir, "go", "vet", "-vettool="+bin, "./...")
	var lines []string // the findings, without their evidence
	for _, l := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		if !strings.HasPrefix(l, "#") && !strings.Contains(l, ": \t") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 || !strings.Contains(lines[0], "s.workers.Done may run before") || !strings.Contains(lines[1], "c.pending.Done may run before") {
		t.Errorf("go vet after -fix: exit %d, stderr:\n%s\nwant only the two findings without a fix (StartAll's and Spread's)", r.code, r.stderr)
	}
}

// TestFactsOnlyError checks that a run of the vet tool for the facts of a
// dependency (VetxOnly) says why it fails: unitchecker alone exits with
// status 1 and no message, which failed go vet std without a word when a
// dependency's facts file could not be read. The control, a package with
// no imports, writes its facts file and exits 0 in silence.
func TestFactsOnlyError(t *testing.T) {
	t.Parallel()
	bin, dir := precog(t), t.TempDir()
	facts := func(name, src string, vetx map[string]string) result {
		t.Helper()
		file := filepath.Join(dir, name+".go")
		if err := os.WriteFile(file, []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
		imports := map[string]string{}
		for path := range vetx {
			imports[path] = path
		}
		cfg, err := json.Marshal(map[string]any{
			"ID": name, "ImportPath": name, "GoFiles": []string{file},
			"ImportMap": imports, "PackageVetx": vetx, "VetxOnly": true,
			"VetxOutput": filepath.Join(dir, name+".vetx"), "Stdout": filepath.Join(dir, name+".stdout"),
		})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".cfg")
		if err := os.WriteFile(path, cfg, 0o666); err != nil {
			t.Fatal(err)
		}
		return run(t, dir, bin, path)
	}

	r := facts("a", "package a\n\nimport \"fmt\"\n\nfunc F() { fmt.Println() }\n",
		map[string]string{"fmt": filepath.Join(dir, "gone", "vet.out")})
	want := `invalid vetx file for "fmt"`
	if r.code == 0 || !strings.Contains(r.stderr, want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("facts-only run with a missing facts file: exit %d, stderr:\n%s\nwant a non-zero exit and one line with %q", r.code, r.stderr, want)
	}

	r = facts("b", "package b\n\nfunc F() int { return 1 }\n", map[string]string{})
	if r.code != 0 || r.stderr != "" || r.stdout != "" {
		t.Errorf("facts-only run of a package without imports: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0 in silence", r.code, r.stdout, r.stderr)
	}
	if fi, err := os.Stat(filepath.Join(dir, "b.vetx")); err != nil || fi.Size() == 0 {
		t.Errorf("facts-only run of a package without imports wrote no facts file: %v", err)
	}
}

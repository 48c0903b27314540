package vetcmd_test

import (
	"bytes"
	"encoding/json"
	"github.com/precog-dev/precog/internal/testmod"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/report/htmltest"
	"github.com/precog-dev/precog/cmd/precog/internal/vetcmd"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/checktest"
	"github.com/precog-dev/precog/internal/headless"
	"github.com/precog-dev/precog/internal/leakcheck"
	"github.com/precog-dev/precog/internal/sarif"
	"github.com/precog-dev/precog/internal/sarif/sariftest"
	"github.com/precog-dev/precog/internal/testcache"
	"golang.org/x/tools/go/analysis"
)

func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }

// module is a small module in which checktest's checks find something.
// Line 8 of a/a.go has multi-byte characters before its go statement, for
// the UTF-16 columns of SARIF.
var module = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.26\n",
	"a/a.go": `package a

// Spawn starts a goroutine.
func Spawn(f func()) {
	go f()
}

func wide(f func()) { _ = "héllo→"; go f() }
`,
	// No imports, not even testing: loading the standard library from
	// source for checks with facts would cost most of these tests' time.
	"a/a_test.go": `package a

// Helper is a test helper.

func Helper() {
	done := make(chan bool)
	go func() { done <- true }()
	<-done
}
`,
	"b/b.go": `package b

import "example.com/m/a"

// Run calls a function that starts a goroutine.
func Run() { a.Spawn(func() {}) }
`,
	"clean/clean.go": "package clean\n\n// F is fine.\nfunc F() int { return 1 }\n",
}

const (
	findingsText = `a/a.go:5:2: go statement in Spawn [test-go]
	a/a.go:4:6: Spawn declared here
a/a.go:8:40: go statement in wide [test-go]
	a/a.go:8:6: wide declared here
a/a_test.go:7:2: go statement in Helper [test-go]
	a/a_test.go:5:6: Helper declared here
b/b.go:6:14: call of a.Spawn, which starts a goroutine [test-spawn]
`
	exitFindings = 3
	exitError    = 1
)

// checks are the checks most tests run. Spawns uses facts, so that vet
// loads every dependency from source; with the test files, which bring in
// the testing package through the generated test main, a run takes seconds
// under the race detector, and most tests use -test=false or GoStmt alone.
var checks = []*analysis.Analyzer{checktest.GoStmt, checktest.Spawns}

// noTestsText is findingsText without the findings in test files.
func noTestsText() string {
	lines := strings.SplitAfter(findingsText, "\n")
	return strings.Join(append(lines[:4:4], lines[6:]...), "")
}

// writeModule writes files into a new temporary directory and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	return testmod.New(t, files)
}

// vet runs "precog vet args..." in-process in dir with the given checks.
func vet(t *testing.T, dir string, checks []*analysis.Analyzer, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	env := &cli.Env{Stdout: &out, Stderr: &errs, Dir: dir}
	code = cli.Main(t.Context(), env, []*cli.Command{vetcmd.Command(checks, checktest.IDs)}, append([]string{"vet", "-cache", testcache.Dir()}, args...))
	return out.String(), errs.String(), code
}

func TestText(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, module)
	stdout, stderr, code := vet(t, dir, checks, "./...")
	if code != exitFindings || stderr != "" {
		t.Errorf("exit %d, stderr %q; want %d and nothing", code, stderr, exitFindings)
	}
	if stdout != findingsText {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, findingsText)
	}
}

func TestClean(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, module)
	for _, args := range [][]string{
		{"./clean"},
		{"-json", "./clean"},
		{"-C", "clean"}, // no pattern means "."
	} {
		stdout, stderr, code := vet(t, dir, checks, args...)
		if code != 0 || stdout != "" || stderr != "" {
			t.Errorf("vet %s: exit %d, stdout %q, stderr %q; want 0 and nothing", args, code, stdout, stderr)
		}
	}
}

// TestLimitNotes checks that a note of an analysis stopped at its budget
// (kind limit) is printed but, alone, leaves the exit status 0: it says
// what was not checked, not a bug; beside a finding the status is 3.
func TestLimitNotes(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, module)
	note := &analysis.Analyzer{Name: "note", Doc: "says that the analysis stopped at its budget",
		Run: func(pass *analysis.Pass) (any, error) {
			pass.Report(analysis.Diagnostic{Pos: pass.Files[0].Package, Category: finding.Limit, Message: "analysis budget exhausted"})
			return nil, nil
		}}
	ids := map[string]string{"note": finding.Limit}
	maps.Copy(ids, checktest.IDs)
	for _, c := range []struct {
		checks []*analysis.Analyzer
		pkg    string
		code   int
	}{
		{[]*analysis.Analyzer{note}, "./clean", 0},
		{[]*analysis.Analyzer{note, checktest.GoStmt}, "./b", 0},
		{[]*analysis.Analyzer{note, checktest.GoStmt}, "./a", exitFindings},
	} {
		var out, errs bytes.Buffer
		env := &cli.Env{Stdout: &out, Stderr: &errs, Dir: dir}
		code := cli.Main(t.Context(), env, []*cli.Command{vetcmd.Command(c.checks, ids)}, []string{"vet", "-cache", testcache.Dir(), "-test=false", c.pkg})
		if code != c.code || !strings.Contains(out.String(), "analysis budget exhausted [limit]") {
			t.Errorf("%d checks on %s: exit %d, stdout %q, stderr %q; want %d and the note", len(c.checks), c.pkg, code, out.String(), errs.String(), c.code)
		}
	}
}

// TestFlags checks the flags that choose what is checked and how paths
// are shown.
func TestFlags(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, module)
	lines := strings.SplitAfter(findingsText, "\n")
	noTests := noTestsText()
	goOnly := strings.Join(lines[:6], "")
	spawnOnly := lines[6]
	for _, tc := range []struct {
		dir  string
		args []string
		want string
	}{
		{dir, []string{"-test=false", "./..."}, noTests},
		{dir, []string{"-spawns", "-test=false", "./..."}, spawnOnly},
		{dir, []string{"-spawns=false", "./..."}, goOnly},
		{dir, []string{"-gostmt=true", "-spawns=false", "./..."}, goOnly},
		{dir, []string{"-C", "b"}, strings.Replace(spawnOnly, "b/b.go", "b.go", 1)},
		// Paths outside the working directory stay absolute.
		{filepath.Join(dir, "b"), []string{"-spawns=false", "-test=false", "../a"},
			strings.ReplaceAll(strings.Join(lines[:4], ""), "a/a.go", filepath.Join(dir, "a", "a.go"))},
	} {
		stdout, stderr, code := vet(t, tc.dir, checks, tc.args...)
		if code != exitFindings || stderr != "" || stdout != tc.want {
			t.Errorf("vet %s: exit %d, stderr %q, stdout:\n%s\nwant exit %d and:\n%s", tc.args, code, stderr, stdout, exitFindings, tc.want)
		}
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, module)
	stdout, stderr, code := vet(t, dir, checks, "-json", "-test=false", "./...")
	if code != exitFindings || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want %d and nothing", code, stderr, exitFindings)
	}
	var got []map[string]any
	for line := range strings.Lines(stdout) {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %q is not a JSON object: %v", line, err)
		}
		got = append(got, v)
	}
	if len(got) != 3 {
		t.Fatalf("got %d JSON lines, want 3:\n%s", len(got), stdout)
	}
	// Numbers decode as float64. Files are absolute, as in precog test's
	// findings; the first site places the finding and has no role, and
	// names the function declaration it is in (the ID counts from there).
	file := filepath.Join(dir, "a", "a.go")
	want := map[string]any{
		"id":       got[1]["id"],
		"kind":     "test-go",
		"status":   "static",
		"analyzer": "gostmt",
		"package":  "example.com/m/a",
		"message":  "go statement in wide",
		"url":      "https://example.com/checks/gostmt#test-go",
		"sites": []any{map[string]any{
			"file": file, "line": 8.0, "col": 40.0, "endLine": 8.0, "endCol": 46.0,
			"decl": "wide", "declLine": 8.0,
		}},
		"related": []any{map[string]any{
			"file": file, "line": 8.0, "col": 6.0, "endLine": 8.0, "endCol": 10.0,
			"message": "wide declared here",
		}},
		"evidence": map[string]any{},
		"tests":    []any{},
		"reports":  1.0,
	}
	if g, w := mustJSON(t, got[1]), mustJSON(t, want); g != w {
		t.Errorf("second finding:\n%s\nwant:\n%s", g, w)
	}
	if id, _ := got[1]["id"].(string); len(id) != 12 {
		t.Errorf("id %q, want 12 hex digits", id)
	}
	// Spawns has no URL, so its findings have none.
	if _, ok := got[2]["url"]; ok || got[2]["kind"] != "test-spawn" {
		t.Errorf("last finding = %v, want a test-spawn finding without url", got[2])
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v) // sorts map keys
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSARIF(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, module)
	stdout, stderr, code := vet(t, dir, checks, "-sarif", "out.sarif", "-test=false", "./...")
	if code != exitFindings || stderr != "" || stdout != noTestsText() {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant %d and the text findings", code, stderr, stdout, exitFindings)
	}
	data, err := os.ReadFile(filepath.Join(dir, "out.sarif"))
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
	run := log.Runs[0]
	if got, want := run.OriginalURIBaseIDs["%SRCROOT%"].URI, "file://"+filepath.ToSlash(dir)+"/"; got != want {
		t.Errorf("%%SRCROOT%% = %q, want %q", got, want)
	}
	rules := run.Tool.Driver.Rules
	if len(rules) != 2 || rules[0].ID != "test-go" || rules[1].ID != "test-spawn" {
		t.Fatalf("rules = %+v, want test-go and test-spawn", rules)
	}
	if r := rules[0]; r.Name != "gostmt" || r.ShortDescription.Text != "report go statements" ||
		!strings.HasPrefix(r.FullDescription.Text, "report go statements\n\nGostmt reports") ||
		r.HelpURI != "https://example.com/checks/gostmt" {
		t.Errorf("rule test-go = %+v", r)
	}
	if len(run.Results) != 3 {
		t.Fatalf("got %d results, want 3", len(run.Results))
	}
	wide := run.Results[1]
	loc := wide.Locations[0].PhysicalLocation
	if loc.ArtifactLocation != (sarif.ArtifactLocation{URI: "a/a.go", URIBaseID: "%SRCROOT%"}) {
		t.Errorf("artifact = %+v, want a/a.go under %%SRCROOT%%", loc.ArtifactLocation)
	}
	// Byte columns 40-46 of `_ = "héllo→"; go f()` are UTF-16 columns 37-43.
	if *loc.Region != (sarif.Region{StartLine: 8, StartColumn: 37, EndLine: 8, EndColumn: 43}) {
		t.Errorf("region = %+v, want 8:37-8:43", *loc.Region)
	}
	rel := wide.RelatedLocations
	if len(rel) != 1 || rel[0].ID != 1 || rel[0].Message.Text != "wide declared here" {
		t.Errorf("related locations = %+v", rel)
	}
	if inv := run.Invocations[0]; !inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 0 {
		t.Errorf("invocation = %+v, want a clean success", inv)
	}
}

func TestSARIFStdout(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, module)
	// Panics adds internal errors, which SARIF records as notifications; a
	// check with no finding still has a rule.
	stdout, stderr, code := vet(t, dir, []*analysis.Analyzer{checktest.GoStmt, checktest.Panics}, "-sarif", "-", "./clean")
	if code != exitError || stderr != "precog: no findings, but 1 internal error(s) in precog's checks\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if err := sariftest.Validate([]byte(stdout)); err != nil {
		t.Fatalf("stdout is not a valid SARIF log: %v\n%s", err, stdout)
	}
	var log sarif.Log
	if err := json.Unmarshal([]byte(stdout), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if len(run.Results) != 0 {
		t.Errorf("results = %+v, want none", run.Results)
	}
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, " ") != "test-go panics" {
		t.Errorf("rule IDs = %q, want test-go and, for a check without an ID, its name", ids)
	}
	inv := run.Invocations[0]
	if inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 ||
		!strings.Contains(inv.ToolExecutionNotifications[0].Message.Text, "analyzer panics panicked") {
		t.Errorf("invocation = %+v, want one internal error", inv)
	}
}

// TestSARIFUnknownID checks that a log stays valid when a check's findings
// have a category that is not the check's ID: the category gets a rule too.
func TestSARIFUnknownID(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, module)
	var out, errs bytes.Buffer
	env := &cli.Env{Stdout: &out, Stderr: &errs, Dir: dir}
	code := cli.Main(t.Context(), env, []*cli.Command{vetcmd.Command([]*analysis.Analyzer{checktest.GoStmt}, nil)},
		[]string{"vet", "-sarif", "-", "-test=false", "./a"})
	if code != exitFindings || errs.Len() > 0 {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	if err := sariftest.Validate(out.Bytes()); err != nil {
		t.Fatalf("invalid SARIF: %v\n%s", err, out.Bytes())
	}
	var log sarif.Log
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	rules := log.Runs[0].Tool.Driver.Rules
	if len(rules) != 2 || rules[0].ID != "gostmt" || rules[1].ID != "test-go" {
		t.Errorf("rules = %+v, want gostmt, named after the check, and test-go, its findings' category", rules)
	}
}

// TestPanickingCheck checks that a check that panics costs one finding with
// its stack, not the run: the other check's findings still appear.
func TestPanickingCheck(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, module)
	stdout, stderr, code := vet(t, dir, []*analysis.Analyzer{checktest.Panics, checktest.GoStmt}, "./a")
	if code != exitFindings || stderr != "" {
		t.Errorf("exit %d, stderr %q; want %d and nothing", code, stderr, exitFindings)
	}
	// Once for package a, though it is also checked as "a [a.test]".
	if n := strings.Count(stdout, "[internal-error]"); n != 1 {
		t.Errorf("%d internal errors, want 1:\n%s", n, stdout)
	}
	first := "a/a.go:1:1: internal error: analyzer panics panicked on package example.com/m/a: boom [internal-error]\n"
	if !strings.HasPrefix(stdout, first) {
		t.Errorf("stdout does not start with %q:\n%s", first, stdout)
	}
	if !strings.Contains(stdout, "checktest.go") {
		t.Errorf("internal error has no stack:\n%s", stdout)
	}
	for _, want := range strings.SplitAfter(findingsText, "\n")[:6] {
		if !strings.Contains(stdout, want) {
			t.Errorf("finding %q is missing:\n%s", want, stdout)
		}
	}
}

// TestFailingCheck checks that a check that returns an error is reported
// once per package, and that the other checks' findings still appear.
func TestFailingCheck(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, module)
	stdout, stderr, code := vet(t, dir, []*analysis.Analyzer{checktest.Fails, checktest.GoStmt}, "-test=false", "./a", "./clean")
	if want := "precog: check fails failed on package example.com/m/a: no luck\n" +
		"precog: check fails failed on package example.com/m/clean: no luck\n"; code != exitError || stderr != want {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitError, want)
	}
	if want := strings.Join(strings.SplitAfter(findingsText, "\n")[:4], ""); stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
}

// TestErrors checks that each way vet can fail costs exactly one line on
// stderr and exit status 1, or 2 for a bad flag (a usage error).
func TestErrors(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{
		"go.mod":            "module example.com/m\n\ngo 1.26\n",
		"bad/bad.go":        "package bad\n\nfunc F() int { return foo }\n\nfunc G() int { return bar }\n",
		"usesbad/u.go":      "package usesbad\n\nimport \"example.com/m/bad\"\n\nfunc H() int { return bad.F() }\n",
		"syn/s.go":          "package syn\n\nfunc F() int { return\n",
		"badtest/b.go":      "package badtest\n",
		"badtest/b_test.go": "package badtest\n\nvar _ = undefinedInTest\n",
		"empty/README":      "no Go here\n",
		"redecl/a.go":       "package redecl\n\nfunc F() {}\n",
		"redecl/b.go":       "package redecl\n\nfunc F() {}\n",
	})
	noMod := writeModule(t, map[string]string{"a.go": "package a\n"})
	for _, tc := range []struct {
		dir  string
		args []string
		want string // a regexp for the whole of stderr
		code int
	}{
		// Checks without facts need syntax for the root packages only.
		{dir, []string{"./bad"}, `package example.com/m/bad: bad/bad.go:3:23: undefined: foo \(and 1 more error\)`, exitError},
		{dir, []string{"./syn"}, `package example.com/m/syn: syn/s.go:3:\d+: syntax error: .*`, exitError},
		{dir, []string{"./usesbad"}, `package example.com/m/bad: bad/bad.go:3:23: undefined: foo \(and 1 more error\)`, exitError},
		{dir, []string{"./badtest"}, `package example.com/m/badtest: badtest/b_test.go:3:9: undefined: undefinedInTest \(its tests do not type-check; precog vet -test=false checks the package without them\)`, exitError},
		// Not go/types' "\tother declaration of F", at a.go.
		{dir, []string{"./redecl"}, `package example.com/m/redecl: redecl/b.go:3:6: F redeclared in this block`, exitError},
		{dir, []string{"./empty/..."}, `no packages matched ./empty/...`, exitError},
		{dir, []string{"./empty"}, `./empty: no Go files in .*`, exitError},
		{dir, []string{"./missing"}, `./missing: .*missing: directory not found`, exitError},
		{dir, []string{"example.com/nope"}, `package example.com/nope: no required module provides package example.com/nope; to add it: go get example.com/nope`, exitError},
		{dir, []string{"-bogus", "./bad"}, `flag provided but not defined: -bogus \(run 'precog help vet' for usage\)`, 2},
		{dir, []string{"-test=maybe"}, `invalid boolean value "maybe" for -test: parse error \(run 'precog help vet' for usage\)`, 2},
		{dir, []string{"-C", "nowhere"}, `-C: stat .*nowhere: no such file or directory`, exitError},
		// Without a module, go list fails when asked for dependencies, as
		// for checks with facts, and matches nothing otherwise.
		{noMod, []string{"-spawns"}, `loading packages: go.mod file not found in current directory or any parent directory; see 'go help modules'`, exitError},
		{noMod, []string{"-spawns=false"}, `no packages matched .: no go.mod file in .* or any parent directory`, exitError},
	} {
		if !slices.Contains(tc.args, "-spawns") {
			tc.args = append([]string{"-spawns=false"}, tc.args...)
		}
		stdout, stderr, code := vet(t, tc.dir, checks, tc.args...)
		re := regexp.MustCompile(`^precog: ` + tc.want + "\n$")
		if code != tc.code || stdout != "" || !re.MatchString(stderr) {
			t.Errorf("vet %s: exit %d, stdout %q, stderr %q; want exit %d, nothing and a line matching %s",
				tc.args, code, stdout, stderr, tc.code, re)
		}
	}
}

// TestErrorsAndFindings checks that findings in the packages that loaded
// are reported, and that the broken ones still make the run fail.
func TestErrorsAndFindings(t *testing.T) {
	t.Parallel()
	files := map[string]string{"bad/bad.go": "package bad\n\nfunc F() int { return foo }\n"}
	for name, content := range module {
		files[name] = content
	}
	dir := writeModule(t, files)
	stdout, stderr, code := vet(t, dir, checks, "-test=false", "./...")
	if want := "precog: package example.com/m/bad: bad/bad.go:3:23: undefined: foo\n" +
		"precog: checked 3 of 4 packages (their findings, if any, are above); 1 was not: it has the errors above, or imports a package that has them\n"; code != exitError || stderr != want {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitError, want)
	}
	if want := noTestsText(); stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	run := func(args ...string) string {
		var out, errs bytes.Buffer
		env := &cli.Env{Stdout: &out, Stderr: &errs}
		if code := cli.Main(t.Context(), env, []*cli.Command{vetcmd.Command(checks, checktest.IDs)}, args); code != 0 || errs.Len() > 0 {
			t.Errorf("precog %s: exit %d, stderr %q", args, code, errs.String())
		}
		return out.String()
	}
	help := run("help", "vet")
	for _, want := range []string{
		"usage: precog vet [flags] [packages]\n",
		"\n  -gostmt\n    \tenable the test-go check: report go statements\n",
		"\n  -spawns\n    \tenable the test-spawn check: report calls of functions that start goroutines\n",
		"\n  -sarif file\n",
		"\n  -json\n",
		"\nExit status\n",
		"\t3  findings",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("precog help vet does not contain %q:\n%s", want, help)
		}
	}
	// -h has help's usage line, first paragraph and flags, and names help.
	usage, _, _ := strings.Cut(help, "\n\n")
	first, _, _ := strings.Cut(strings.TrimPrefix(help, usage+"\n\n"), "\n\n")
	_, flags, _ := strings.Cut(help, "\nFlags:\n")
	if h := run("vet", "-h"); !strings.HasPrefix(h, usage+"\n\n"+first+"\n\nRun 'precog help vet' ") || !strings.HasSuffix(h, "\nFlags:\n"+flags) || len(h) >= len(help) {
		t.Errorf("precog vet -h is not help's usage, first paragraph and flags:\n%s", h)
	}
}

// TestHTML checks precog vet -html: the page, rendered in headless
// Chromium, shows the findings -json prints in the same run.
func TestHTML(t *testing.T) {
	bin := headless.Browser(t)
	dir := writeModule(t, module)
	stdout, stderr, code := vet(t, dir, checks, "-json", "-html", "out.html", "-test=false", "./...")
	if code != exitFindings || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want %d and nothing", code, stderr, exitFindings)
	}
	var fs []finding.Finding
	for line := range strings.Lines(stdout) {
		var f finding.Finding
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	if len(fs) != 3 {
		t.Fatalf("%d findings, want 3", len(fs))
	}
	if err := htmltest.Check(headless.DOM(t, bin, filepath.Join(dir, "out.html")), fs); err != nil {
		t.Error(err)
	}
}

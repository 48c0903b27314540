package gclplugin_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/precog-dev/precog/analyzers/suite"
	"github.com/precog-dev/precog/internal/sarif/sariftest"
)

// requireEnv names the variable that turns the skips of TestGolangciLint
// into failures, for the CI step that must run it for real.
const requireEnv = "PRECOG_GCLPLUGIN_REQUIRE"

// TestGolangciLint builds golangci-lint with the plugin from the recipe
// in ./golangci-lint, runs it with the recipe's .golangci.yml over the
// kernel corpus, and checks that it reports exactly what precog's checks
// report there when run as precog vet runs them (every package with its
// tests, each finding once), and that its SARIF log is valid.
func TestGolangciLint(t *testing.T) {
	if testing.Short() {
		skip(t, "builds golangci-lint with the plugin, minutes on two cores when the build cache is cold: run without -short")
	}
	bin := installGolangciLint(t)
	kernels, err := filepath.Abs("../testdata/kernels")
	if err != nil {
		t.Fatal(err)
	}
	want := vetFindings(t, kernels)
	if len(want) == 0 {
		t.Fatal("precog's checks report nothing on the kernels: the comparison would prove nothing")
	}

	t.Run("all", func(t *testing.T) {
		sarifFile := filepath.Join(t.TempDir(), "precog.sarif")
		got := runGolangciLint(t, bin, kernels, "golangci-lint/.golangci.yml", "--output.sarif.path="+sarifFile)
		compare(t, got, want)
		checkSARIF(t, sarifFile, got)
	})

	// A setting that turns a check off, as -connull=false does for precog vet.
	t.Run("connull=false", func(t *testing.T) {
		cfg, err := os.ReadFile("golangci-lint/.golangci.yml")
		if err != nil {
			t.Fatal(err)
		}
		const settings = "        settings:\n"
		if !bytes.Contains(cfg, []byte(settings)) {
			t.Fatalf(".golangci.yml has no line %q to follow", settings)
		}
		cfg = bytes.Replace(cfg, []byte(settings), []byte(settings+"          connull: false\n"), 1)
		path := filepath.Join(t.TempDir(), ".golangci.yml")
		if err := os.WriteFile(path, cfg, 0o666); err != nil {
			t.Fatal(err)
		}
		var rest []finding
		for _, f := range want {
			if strings.TrimSuffix(f.Analyzer, "(related information)") != "connull" {
				rest = append(rest, f)
			}
		}
		if len(rest) == len(want) {
			t.Fatal("connull reports nothing on the kernels: turning it off would prove nothing")
		}
		compare(t, runGolangciLint(t, bin, kernels, path), rest)
	})

	// --fix applies precog's suggested fixes: conuninit's fix scenario
	// must become its golden file.
	t.Run("fix", func(t *testing.T) {
		const scenario = "../analyzers/conuninit/testdata/src/addfix/addfix.go"
		src, err := os.ReadFile(scenario)
		if err != nil {
			t.Fatal(err)
		}
		golden, err := os.ReadFile(scenario + ".golden")
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for name, data := range map[string][]byte{"go.mod": []byte("module addfix\n\ngo 1.26\n"), "addfix.go": src} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o666); err != nil {
				t.Fatal(err)
			}
		}
		runGolangciLint(t, bin, dir, "golangci-lint/.golangci.yml", "--fix")
		fixed, err := os.ReadFile(filepath.Join(dir, "addfix.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fixed, golden) {
			t.Errorf("golangci-lint --fix wrote:\n%s\nwant the golden file:\n%s", fixed, golden)
		}
	})
}

// skip skips the test, or fails it where requireEnv says it must run.
func skip(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv(requireEnv) != "" {
		t.Fatalf(format+" (failing instead of skipping: %s is set)", append(args, requireEnv)...)
	}
	t.Skipf(format, args...)
}

// installGolangciLint builds the recipe into a directory that outlives
// the test, so that the next run relinks nothing when nothing changed
// (go install skips an up-to-date binary). It skips the test when the
// recipe's modules cannot be downloaded.
func installGolangciLint(t *testing.T) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		skip(t, "no cache directory for the golangci-lint binary: %v", err)
	}
	gobin := filepath.Join(cache, "precog", "gclplugin")
	recipe, err := filepath.Abs("golangci-lint")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOBIN="+gobin, "GOWORK=off", "GOFLAGS=-mod=readonly")
	download := exec.Command("go", "mod", "download")
	download.Dir, download.Env = recipe, env
	if out, err := download.CombinedOutput(); err != nil {
		skip(t, "cannot download golangci-lint and its dependencies (is the module proxy reachable? GOPROXY=%s): %v\n%s", goEnv("GOPROXY"), err, out)
	}
	install := exec.Command("go", "install", ".")
	install.Dir, install.Env = recipe, env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("building the recipe in %s: %v\n%s", recipe, err, out)
	}
	return filepath.Join(gobin, "golangci-lint")
}

func goEnv(name string) string {
	out, _ := exec.Command("go", "env", name).Output()
	return strings.TrimSpace(string(out))
}

// A finding is a diagnostic as both drivers show it: its position, the
// analyzer that reported it and its message.
type finding struct {
	File         string // absolute
	Line, Column int
	Analyzer     string
	Message      string
}

func (f finding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", f.File, f.Line, f.Column, f.Analyzer, f.Message)
}

func sortFindings(fs []finding) {
	slices.SortFunc(fs, func(a, b finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column),
			cmp.Compare(a.Analyzer, b.Analyzer), cmp.Compare(a.Message, b.Message))
	})
}

// vetFindings runs precog's checks over the packages under dir and their
// tests, as precog vet does, and returns each finding and piece of
// evidence once.
func vetFindings(t *testing.T, dir string) []finding {
	t.Helper()
	cfg := &packages.Config{
		Mode:  packages.LoadAllSyntax,
		Dir:   dir,
		Tests: true,
		Env:   append(os.Environ(), "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("the kernels do not load")
	}
	// As precog vet, which analyzes its packages in one process too.
	for name, v := range suite.SharedProcessFlags {
		check, flag, _ := strings.Cut(name, ".")
		for _, a := range suite.Checks() {
			if a.Name == check {
				if err := a.Flags.Set(flag, v); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	graph, err := checker.Analyze(suite.Checks(), pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[finding]bool)
	var out []finding
	for act := range graph.All() {
		if !act.IsRoot {
			continue
		}
		if act.Err != nil {
			t.Fatalf("%s: %v", act, act.Err)
		}
		add := func(p token.Position, analyzer, msg string) {
			f := finding{File: p.Filename, Line: p.Line, Column: p.Column, Analyzer: analyzer, Message: msg}
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
		fset := act.Package.Fset
		for _, d := range act.Diagnostics {
			pos := fset.Position(d.Pos)
			add(pos, act.Analyzer.Name, d.Message)
			// golangci-lint shows each piece of evidence as an issue of
			// its own, at the finding's position when it is in another
			// file.
			for _, r := range d.Related {
				rpos := fset.Position(r.Pos)
				if rpos.Filename != pos.Filename {
					rpos = pos
				}
				add(rpos, act.Analyzer.Name+"(related information)", r.Message)
			}
		}
	}
	sortFindings(out)
	return out
}

// runGolangciLint runs golangci-lint with the configuration cfg in dir and
// returns the findings of its JSON output.
func runGolangciLint(t *testing.T, bin, dir, cfg string, args ...string) []finding {
	t.Helper()
	cfg, err := filepath.Abs(cfg)
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{"run", "-c", cfg, "--path-mode=abs", "--show-stats=false",
		"--output.json.path=stdout"}, args...)
	cmd := exec.Command(bin, append(args, "./...")...)
	cmd.Dir = dir
	// A cache of its own: no result of an earlier build of the plugin.
	cmd.Env = append(os.Environ(), "GOLANGCI_LINT_CACHE="+t.TempDir(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	// golangci-lint exits 1 when it reports issues.
	if ee := (*exec.ExitError)(nil); err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
		t.Fatalf("golangci-lint %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	var report struct {
		Issues []struct {
			FromLinter string
			Text       string
			Pos        struct {
				Filename     string
				Line, Column int
			}
		}
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("golangci-lint's JSON output: %v\n%s", err, out)
	}
	var got []finding
	for _, is := range report.Issues {
		if is.FromLinter != "precog" {
			t.Errorf("an issue of linter %q: %s", is.FromLinter, is.Text)
			continue
		}
		// golangci-lint prefixes the analyzer's name when it is not the
		// linter's.
		name, msg, _ := strings.Cut(is.Text, ": ")
		got = append(got, finding{File: is.Pos.Filename, Line: is.Pos.Line, Column: is.Pos.Column, Analyzer: name, Message: msg})
	}
	sortFindings(got)
	return got
}

func compare(t *testing.T, got, want []finding) {
	t.Helper()
	for _, f := range want {
		if !slices.Contains(got, f) {
			t.Errorf("golangci-lint does not report %s", f)
		}
	}
	for _, f := range got {
		if !slices.Contains(want, f) {
			t.Errorf("golangci-lint reports %s, which precog vet does not", f)
		}
	}
}

// checkSARIF validates golangci-lint's SARIF log against the schema and
// checks that it holds the findings of its JSON output. golangci-lint
// names no rules, so sariftest's checks of rules do not apply.
func checkSARIF(t *testing.T, path string, findings []finding) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := sariftest.ValidateSchema(data); err != nil {
		t.Errorf("golangci-lint's SARIF log is not valid SARIF 2.1.0: %v", err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("SARIF log has %d runs, want 1", len(log.Runs))
	}
	var got []finding
	for _, r := range log.Runs[0].Results {
		if r.RuleID != "precog" || len(r.Locations) != 1 {
			t.Errorf("SARIF result %+v: want rule precog and one location", r)
			continue
		}
		l := r.Locations[0].PhysicalLocation
		name, msg, _ := strings.Cut(r.Message.Text, ": ")
		got = append(got, finding{File: l.ArtifactLocation.URI, Line: l.Region.StartLine, Column: l.Region.StartColumn, Analyzer: name, Message: msg})
	}
	sortFindings(got)
	if !slices.Equal(got, findings) {
		t.Errorf("SARIF results differ from the JSON output:\n%v\nwant\n%v", got, findings)
	}
}

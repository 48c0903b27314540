package suite_test

import (
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"

	"github.com/precog-dev/precog/analyzers/limits"
	"github.com/precog-dev/precog/analyzers/suite"
	"github.com/precog-dev/precog/internal/corpus"
	"github.com/precog-dev/precog/pipeline/static"
)

// TestKernels runs every check over every package of the kernel corpus
// and its tests as precog vet does, with pipeline/static's ordered driver
// on a lazily loaded program: together the checks must report exactly
// what the want comments say (corpus.CheckVet), and in each kernel only
// one check may report, so that one bug gives one diagnostic. Then it
// compares the drivers on a sample (driverSample): the ordered driver and
// checker on the program loaded whole must give the same actions with the
// same errors and diagnostics (their positions, URLs and related
// positions included). It is the corpus's only static run in this
// module's tests: each check's own test runs it over its fixtures, and
// the drivers' other tests are pipeline/static's.
func TestKernels(t *testing.T) {
	all, err := corpus.Packages(corpus.Dir())
	if err != nil {
		t.Fatal(err)
	}
	// A kernel that is a module of its own is vetted from its own
	// directory, not as a package of the corpus's module.
	var pkgs, patterns []string
	for _, p := range all {
		if !corpus.Apart(corpus.Dir(), p) {
			pkgs = append(pkgs, p)
			patterns = append(patterns, "./"+p)
		}
	}
	if len(pkgs) == 0 {
		t.Fatal("no kernels found")
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	// The packages are analyzed at once, in one process: as precog vet
	// does, turn off the budget's limits on wall time and heap growth,
	// which would count the other packages' and vary from run to run (the
	// work limit holds).
	for name, value := range suite.SharedProcessFlags {
		check, flag, _ := strings.Cut(name, ".")
		if check != limits.Analyzer.Name {
			t.Fatalf("shared-process flag %s is not the limits check's", name)
		}
		setFlag(t, flag, value)
	}
	actions, diags := vetCorpus(t, true, patterns)
	if len(actions) < len(patterns) {
		t.Fatalf("%d actions for %d packages", len(actions), len(patterns))
	}
	owner := make(map[string]string) // package -> the category reported there
	for _, d := range corpus.CheckVet(t, pkgs, diags) {
		pkg := path.Dir(d.File)
		if c, ok := owner[pkg]; ok && c != d.Category {
			t.Errorf("%s: %s reported in a kernel where %s reports too: %s", d.File, d.Category, c, d.Message)
		}
		owner[pkg] = d.Category
	}

	sample := driverSample(t, pkgs, owner)
	if len(sample) == 0 {
		t.Fatal("no kernel to compare the drivers on")
	}
	t.Logf("drivers compared on %s", strings.Join(sample, " "))
	checked, _ := vetCorpus(t, false, sample)
	ordered, _ := vetCorpus(t, true, sample)
	corpus.SameActions(t, checked, ordered)
}

// driverSample returns the patterns of the kernels on which TestKernels
// compares the two drivers: for each category reported, the first kernel
// (by path) where it reports, and the negative controls, whose silence
// must not depend on the driver either. Kernels that import net/http or
// os/exec are left out: their dependencies were half of checker's CPU.
// checker's load of the whole corpus took 80 s of CPU under the race
// detector, three quarters of this test; the ordered driver runs over
// every kernel above.
func driverSample(t *testing.T, pkgs []string, owner map[string]string) []string {
	var sample []string
	seen := make(map[string]bool)
	for _, p := range pkgs { // sorted by path
		c, reported := owner[p]
		if reported && seen[c] || !reported && !strings.HasPrefix(p, "negative/") || importsHeavy(t, p) {
			continue
		}
		seen[c] = true
		sample = append(sample, "./"+p)
	}
	return sample
}

// importsHeavy reports whether a file of the kernel package p imports
// net/http or os/exec.
func importsHeavy(t *testing.T, p string) bool {
	files, err := filepath.Glob(filepath.Join(corpus.Dir(), filepath.FromSlash(p), "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "net/http" || path == "os/exec" {
				return true
			}
		}
	}
	return false
}

// vetCorpus runs the checks over the corpus packages matching patterns,
// with their tests, loaded lazily (for the ordered driver) or whole (for
// checker), and renders every action visited: its error, whether it is a
// root, and its diagnostics with their positions, URLs and related
// positions. It also returns the diagnostics of the root actions.
func vetCorpus(t *testing.T, lazy bool, patterns []string) (map[string]string, []corpus.Diag) {
	t.Helper()
	prog, err := static.Load(t.Context(), static.Config{Dir: corpus.Dir(), Patterns: patterns, Tests: true, AllSyntax: true, Lazy: lazy})
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[string]string)
	var diags []corpus.Diag
	err = prog.Analyze(t.Context(), suite.Checks(), func(act *checker.Action) {
		if act.IsRoot {
			for _, d := range act.Diagnostics {
				x, err := corpus.NewDiag(act.Package.Fset.Position(d.Pos), d.Category, d.Message)
				if err != nil {
					t.Fatal(err)
				}
				diags = append(diags, x)
			}
		}
		if act.IsRoot && act.Err != nil {
			t.Errorf("%s: %v", act, act.Err)
		}
		if _, dup := got[act.String()]; dup {
			t.Errorf("%s visited twice", act)
		}
		got[act.String()] = corpus.RenderAction(act)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range prog.Errors {
		t.Errorf("lazy %v: %s", lazy, e)
	}
	return got, diags
}

// TestSelect checks go vet's rule for choosing checks from flags.
func TestSelect(t *testing.T) {
	names := func(as []*analysis.Analyzer) string {
		var s []string
		for _, a := range as {
			s = append(s, a.Name)
		}
		return strings.Join(s, " ")
	}
	checks := []*analysis.Analyzer{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	for _, tc := range []struct {
		set  map[string]bool
		want string
	}{
		{nil, "a b c"},
		{map[string]bool{"b": false}, "a c"},
		{map[string]bool{"b": true}, "b"},
		{map[string]bool{"a": true, "b": false, "c": true}, "a c"},
		{map[string]bool{"a": false, "b": false, "c": false}, ""},
	} {
		if got := names(suite.Select(checks, tc.set)); got != tc.want {
			t.Errorf("Select(%v) = %q, want %q", tc.set, got, tc.want)
		}
	}
}

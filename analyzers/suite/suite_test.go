package suite_test

import (
	"path"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/analysis/passes/buildssa"

	"github.com/precog-dev/precog/analyzers/cfpplan"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/limits"
	"github.com/precog-dev/precog/analyzers/suite"
	"github.com/precog-dev/precog/internal/corpus"
	"github.com/precog-dev/precog/pipeline/static"
)

// TestKernels runs every check over every package of the kernel corpus
// and its tests as precog vet does, with pipeline/static's ordered driver
// on a lazily loaded program: together the checks must report exactly
// what the want comments say (corpus.CheckVet), and in each kernel only
// one check may report, so that one bug gives one diagnostic. It is the
// corpus's only static run in this module's tests: each check's own test
// runs it over its fixtures. The ordered driver is compared with checker
// by pipeline/static's TestOrderedFacts and TestOrderedErrors; comparing
// them here over the corpus cost 80 s of CPU under -race (checker's whole
// load), then 32 s over a sample, which .ci/run's 900 s could not keep.
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
	actions, diags := vetCorpus(t, patterns)
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
}

// vetCorpus runs the checks over the corpus packages matching patterns,
// with their tests, loaded lazily for the ordered driver, and renders
// every action visited: its error, whether it is a
// root, and its diagnostics with their positions, URLs and related
// positions. It also returns the diagnostics of the root actions.
func vetCorpus(t *testing.T, patterns []string) (map[string]string, []corpus.Diag) {
	t.Helper()
	prog, err := static.Load(t.Context(), static.Config{Dir: corpus.Dir(), Patterns: patterns, Tests: true, AllSyntax: true, Lazy: true})
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
		t.Error(e)
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

// TestOneSSA checks that no analyzer the checks, the facts-only run or
// CFP's planner run requires x/tools' buildssa: they read the SSA form of
// ssabuild, which cuts the calls model.NoReturn names, and a rule that asks
// pass.ResultOf for buildssa.Analyzer finds nothing there and is off with
// no error (ordering's field-close rule was, until staticprec43 found it).
func TestOneSSA(t *testing.T) {
	seen := make(map[*analysis.Analyzer]bool)
	var walk func(a *analysis.Analyzer, path string)
	walk = func(a *analysis.Analyzer, path string) {
		if seen[a] {
			return
		}
		seen[a] = true
		for _, r := range a.Requires {
			if r == buildssa.Analyzer {
				t.Errorf("%s requires buildssa: require ssabuild.Analyzer, as the other checks do", path)
			}
			walk(r, path+" -> "+r.Name)
		}
	}
	for _, a := range slices.Concat(suite.Checks(), suite.FactsOnly(), []*analysis.Analyzer{cfpplan.Analyzer}) {
		walk(a, a.Name)
	}
	if !seen[ssabuild.Analyzer] {
		t.Error("no analyzer requires ssabuild: the walk is not reaching the checks' SSA")
	}
}

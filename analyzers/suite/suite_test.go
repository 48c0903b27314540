package suite_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/precog-dev/precog/analyzers/suite"
)

// TestKernelsReportOnlyTheirCheck runs every check over every kernel of
// testdata/static. Each check's own test verifies, with analysistest, that
// it reports what its kernels' want comments say; this test verifies that
// the other checks stay silent there, and that no check reports anything
// in the negative controls, so that one bug gives one diagnostic.
func TestKernelsReportOnlyTheirCheck(t *testing.T) {
	dir, err := filepath.Abs("../../testdata/static")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &packages.Config{
		Mode:  packages.LoadAllSyntax,
		Dir:   filepath.Join(dir, "src"),
		Tests: true,
		Env:   append(os.Environ(), "GOPATH="+dir, "GO111MODULE=off", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) == 0 {
		t.Fatal("no kernels found")
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
	}
	graph, err := checker.Analyze(suite.Checks(), pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{}
	for name, id := range suite.IDs {
		owners[name] = id
	}
	seen := map[string]bool{}
	for act := range graph.All() {
		if !act.IsRoot {
			continue
		}
		if act.Err != nil {
			t.Errorf("%s: %v", act, act.Err)
			continue
		}
		pkg := act.Package.PkgPath
		group, _, _ := strings.Cut(pkg, "/")
		seen[group] = true
		for _, d := range act.Diagnostics {
			owner, ok := owners[group]
			if ok && d.Category == owner {
				continue
			}
			t.Errorf("%s: %s reported in a %s kernel: %s", act.Package.Fset.Position(d.Pos), d.Category, group, d.Message)
		}
	}
	var groups []string
	for g := range seen {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	want := []string{"conclosed", "conindex", "conmap", "connull", "conuninit", "negative"}
	if strings.Join(groups, " ") != strings.Join(want, " ") {
		t.Errorf("kernel groups = %v, want %v", groups, want)
	}
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

package static

import (
	"github.com/precog-dev/precog/internal/testmod"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/analysis/passes/inspect"
)

// writeModule writes a module example.com/m with files into a new
// temporary directory.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	return testmod.New(t, files)
}

// TestLoad loads a module with a broken package, a package that imports
// it and a test: the broken one is one error line with its file relative
// to the directory, the importer is ill-typed without a line of its own,
// go test's generated main is dropped, and the root is the module's.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := writeModule(t, map[string]string{
		"a/a.go":      "package a\n\nfunc F() int { return \"x\" }\n",
		"b/b.go":      "package b\n\nimport \"example.com/m/a\"\n\nvar V = a.F()\n",
		"c/c.go":      "package c\n\nfunc G() int { return 1 }\n",
		"c/c_test.go": "package c\n\nimport \"testing\"\n\nfunc TestG(t *testing.T) { G() }\n",
	})
	prog, err := Load(t.Context(), Config{Dir: dir, Patterns: []string{"./..."}, Tests: true})
	if err != nil {
		t.Fatal(err)
	}
	if prog.Root != dir {
		t.Errorf("root %s, want %s", prog.Root, dir)
	}
	want := []string{"package example.com/m/a: a/a.go:3:23: cannot use \"x\" (untyped string constant) as int value in return statement"}
	if !slices.Equal(prog.Errors, want) {
		t.Errorf("errors\n%q\nwant\n%q", prog.Errors, want)
	}
	var ids []string
	for _, p := range prog.Packages {
		ids = append(ids, p.ID)
	}
	wantIDs := []string{"example.com/m/a", "example.com/m/b", "example.com/m/c", "example.com/m/c [example.com/m/c.test]"}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("packages %v, want %v", ids, wantIDs)
	}

	if _, err := Load(t.Context(), Config{Dir: dir, Patterns: []string{"example.com/m/nonesuch/..."}}); err == nil || !strings.Contains(err.Error(), "no packages matched") {
		t.Errorf("a pattern matching nothing: error %v", err)
	}
}

// TestAnalyze checks that Analyze visits every action, requirements before
// the analyzers that need them, and says which are roots.
func TestAnalyze(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := writeModule(t, map[string]string{
		"a/a.go": "package a\n\nfunc F() int { return 1 }\n",
		"b/b.go": "package b\n\nimport \"example.com/m/a\"\n\nvar V = a.F()\n",
	})
	prog, err := Load(t.Context(), Config{Dir: dir, Patterns: []string{"./b"}, AllSyntax: true})
	if err != nil {
		t.Fatal(err)
	}
	count := &analysis.Analyzer{
		Name:       "count",
		Doc:        "count files",
		Requires:   []*analysis.Analyzer{inspect.Analyzer},
		ResultType: reflect.TypeFor[int](),
		Run:        func(pass *analysis.Pass) (any, error) { return len(pass.Files), nil },
	}
	var order []string
	err = Analyze([]*analysis.Analyzer{count}, prog.Packages, func(act *checker.Action) {
		if act.Err != nil {
			t.Errorf("%s: %v", act, act.Err)
		}
		if act.IsRoot != (act.Analyzer == count) { // a requested analyzer on a root package
			t.Errorf("%s: IsRoot %v", act, act.IsRoot)
		}
		order = append(order, act.String())
	})
	if err != nil {
		t.Fatal(err)
	}
	// count uses no facts: it and what it requires run on the root only,
	// the requirement first.
	if want := []string{"inspect@example.com/m/b", "count@example.com/m/b"}; !slices.Equal(order, want) {
		t.Errorf("visited %v, want %v", order, want)
	}
	if NeedFacts([]*analysis.Analyzer{count}) {
		t.Error("NeedFacts of an analyzer without facts")
	}
}

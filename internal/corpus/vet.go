package corpus

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/precog-dev/precog/analyzers/budget"
)

// A Diag is a diagnostic as precog vet prints it: once, however many
// package variants (p and "p [p.test]") reported it.
type Diag struct {
	File     string // slash-separated, relative to the corpus
	Line     int
	Col      int
	Category string
	Message  string
}

func (d Diag) String() string {
	return fmt.Sprintf("%s:%d:%d: %s [%s]", d.File, d.Line, d.Col, d.Message, d.Category)
}

// CheckVet runs analyzers over the corpus packages pkgs with their tests,
// as precog vet does, and compares what they report with the want comments
// of those packages: each want must be matched by a diagnostic on its line,
// and each diagnostic by a want on its line. Unlike analysistest, which
// checks each package variant on its own, it judges the union of the
// variants' diagnostics, so that a kernel whose goroutines start in its
// test is checked as precog vet reports it. It returns the diagnostics.
func CheckVet(t testing.TB, analyzers []*analysis.Analyzer, pkgs []string) []Diag {
	t.Helper()
	dir := Dir()
	patterns := make([]string, len(pkgs))
	for i, p := range pkgs {
		patterns[i] = "./" + p
	}
	cfg := &packages.Config{
		Mode:  packages.LoadAllSyntax | packages.NeedModule,
		Dir:   dir,
		Tests: true,
		Env:   append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod"),
	}
	loaded, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	packages.Visit(loaded, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
	})
	// The packages are analyzed at once, in one process: as precog vet
	// does, turn off the budget's limits on wall time and heap growth,
	// which would count the other packages' (the work limit holds).
	for _, name := range []string{"time", "mem"} {
		if err := budget.Analyzer.Flags.Set(name, "0"); err != nil {
			t.Fatal(err)
		}
	}
	graph, err := checker.Analyze(analyzers, loaded, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[Diag]bool)
	var diags []Diag
	for act := range graph.All() {
		if !act.IsRoot {
			continue
		}
		if act.Err != nil {
			t.Errorf("%s: %v", act, act.Err)
			continue
		}
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			rel, err := filepath.Rel(dir, pos.Filename)
			if err != nil {
				t.Fatal(err)
			}
			x := Diag{File: filepath.ToSlash(rel), Line: pos.Line, Col: pos.Column, Category: d.Category, Message: d.Message}
			if !seen[x] {
				seen[x] = true
				diags = append(diags, x)
			}
		}
	}
	slices.SortFunc(diags, func(a, b Diag) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), cmp.Compare(a.Message, b.Message))
	})

	all, err := Wants(dir)
	if err != nil {
		t.Fatal(err)
	}
	var wants []Want
	for _, w := range all {
		if slices.Contains(pkgs, filepath.ToSlash(filepath.Dir(w.File))) {
			wants = append(wants, w)
		}
	}
	for _, w := range wants {
		if !slices.ContainsFunc(diags, func(d Diag) bool { return matches(w, d) }) {
			t.Errorf("%s:%d: no diagnostic was reported matching `%s`", w.File, w.Line, w.Pattern)
		}
	}
	for _, d := range diags {
		if !slices.ContainsFunc(wants, func(w Want) bool { return matches(w, d) }) {
			t.Errorf("unexpected diagnostic: %s", d)
		}
	}
	return diags
}

func matches(w Want, d Diag) bool {
	return w.File == d.File && w.Line == d.Line && w.Pattern.MatchString(d.Message)
}

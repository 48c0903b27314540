package corpus

import (
	"cmp"
	"fmt"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/checker"
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

// NewDiag returns the Diag of a diagnostic at pos in a corpus package.
func NewDiag(pos token.Position, category, message string) (Diag, error) {
	rel, err := filepath.Rel(Dir(), pos.Filename)
	if err != nil {
		return Diag{}, err
	}
	return Diag{File: filepath.ToSlash(rel), Line: pos.Line, Col: pos.Column, Category: category, Message: message}, nil
}

// CheckVet compares diags, what precog's checks reported over the corpus
// packages pkgs with their tests, with the want comments of those
// packages: each want must be matched by a diagnostic on its line, and
// each diagnostic by a want on its line. Unlike analysistest, which checks
// each package variant on its own, it judges the union of the variants'
// diagnostics (a diagnostic reported by several counts once), so that a
// kernel whose goroutines start in its test is checked as precog vet
// reports it. It returns the diagnostics, each once, sorted.
func CheckVet(t testing.TB, pkgs []string, diags []Diag) []Diag {
	t.Helper()
	slices.SortFunc(diags, func(a, b Diag) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col),
			cmp.Compare(a.Message, b.Message), cmp.Compare(a.Category, b.Category))
	})
	diags = slices.Compact(diags)

	all, err := Wants(Dir())
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

// SameActions reports, as errors of t, the actions that two drivers of the
// same analyzers (precog vet's ordered driver and x/tools' checker) did not
// both visit or rendered differently; both maps take an action's key to its
// rendering.
func SameActions(t testing.TB, checked, ordered map[string]string) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(checked)) {
		if o, ok := ordered[k]; !ok {
			t.Errorf("%s: visited by checker only", k)
		} else if o != checked[k] {
			t.Errorf("%s: checker gave\n%s\nthe ordered driver gave\n%s", k, checked[k], o)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(ordered)) {
		if _, ok := checked[k]; !ok {
			t.Errorf("%s: visited by the ordered driver only", k)
		}
	}
}

// RenderAction renders an action a driver visited, for SameActions: its
// error, whether it is a root, and its diagnostics with their positions,
// URLs and related positions.
func RenderAction(act *checker.Action) string {
	var b strings.Builder
	fmt.Fprintf(&b, "root %v err %v\n", act.IsRoot, act.Err)
	pos := func(p token.Pos) string { return act.Package.Fset.Position(p).String() }
	for _, d := range act.Diagnostics {
		fmt.Fprintf(&b, "%s-%s: %s [%s] %s\n", pos(d.Pos), pos(d.End), d.Message, d.Category, d.URL)
		for _, r := range d.Related {
			fmt.Fprintf(&b, "\t%s-%s: %s\n", pos(r.Pos), pos(r.End), r.Message)
		}
	}
	return b.String()
}

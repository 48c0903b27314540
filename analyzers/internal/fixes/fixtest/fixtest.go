// Package fixtest checks an analyzer's suggested fixes: that they give the
// fixtures' golden files (what analysistest.RunWithSuggestedFixes checks,
// here on the results of a fixturetest run, which loads the standard
// library once for all of a check's fixtures), that the fixed code
// compiles, and that the fixes repair what they were offered for.
package fixtest

import (
	"bytes"
	"cmp"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// Golden checks that the suggested fixes of the diagnostics in results, in
// the packages pkgs of the GOPATH-style testdata directory dir, all
// applied, turn each file of those packages that has a .golden version
// into it, both formatted: the plain form of
// analysistest.RunWithSuggestedFixes's golden files (one with every fix).
// Two fixes that edit overlapping text are an error, as there, but for
// the same edit offered twice.
func Golden(t *testing.T, dir string, results []*analysistest.Result, pkgs ...string) {
	t.Helper()
	edits := make(map[string][]analysis.TextEdit) // by file name
	covered := make(map[string]bool)
	var fset *token.FileSet
	for _, r := range results {
		act := r.Action
		if act == nil || !slices.Contains(pkgs, act.Package.PkgPath) {
			continue
		}
		covered[act.Package.PkgPath], fset = true, act.Package.Fset
		for _, d := range act.Diagnostics {
			for _, fix := range d.SuggestedFixes {
				for _, e := range fix.TextEdits {
					name := fset.File(e.Pos).Name()
					edits[name] = append(edits[name], e)
				}
			}
		}
	}
	for _, pkg := range pkgs {
		if !covered[pkg] {
			t.Fatalf("the run's results do not cover %s", pkg)
		}
		goldens, err := filepath.Glob(filepath.Join(dir, "src", filepath.FromSlash(pkg), "*.go.golden"))
		if err != nil {
			t.Fatal(err)
		}
		if len(goldens) == 0 {
			t.Errorf("%s has no golden file", pkg)
		}
		for _, golden := range goldens {
			name := strings.TrimSuffix(golden, ".golden")
			fixed, err := applyEdits(fset, name, edits[name])
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if want, err = format.Source(want); err != nil {
				t.Errorf("%s: %v", golden, err)
				continue
			}
			if !bytes.Equal(fixed, want) {
				t.Errorf("%s: the fixes do not give its golden file: %s", name, firstDiff(fixed, want))
			}
		}
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		line := func(ls []string) string {
			if i < len(ls) {
				return fmt.Sprintf("%q", ls[i])
			}
			return "the end of the file"
		}
		if line(g) != line(w) {
			return fmt.Sprintf("line %d is %s, want %s", i+1, line(g), line(w))
		}
	}
	return "they differ"
}

// applyEdits applies edits to the file name, read from disk, and formats
// the result.
func applyEdits(fset *token.FileSet, name string, edits []analysis.TextEdit) ([]byte, error) {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	if len(edits) == 0 {
		return nil, fmt.Errorf("no fix edits the file")
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	slices.SortFunc(edits, func(a, b analysis.TextEdit) int {
		return cmp.Or(cmp.Compare(off(a.Pos), off(b.Pos)), cmp.Compare(off(a.End), off(b.End)))
	})
	var out bytes.Buffer
	last := 0
	for i, e := range edits {
		if i > 0 && off(e.Pos) == off(edits[i-1].Pos) && off(e.End) == off(edits[i-1].End) && bytes.Equal(e.NewText, edits[i-1].NewText) {
			continue // the same edit again
		}
		start, end := off(e.Pos), off(e.End)
		if e.End == token.NoPos {
			end = start
		}
		if start < last {
			return nil, fmt.Errorf("fixes overlap at offset %d", start)
		}
		out.Write(src[last:start])
		out.Write(e.NewText)
		last = end
	}
	out.Write(src[last:])
	fixed, err := format.Source(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("the fixed file does not format: %v\n%s", err, out.Bytes())
	}
	return fixed, nil
}

// Recheck checks the fixes of analyzer a in packages pkgs of the
// GOPATH-style testdata directory dir, whose files' .golden versions hold
// the result of its fixes: results are what a run that covered pkgs
// returned (the diagnostics before the fixes). The golden versions, each package in a
// directory of one module, must build, and a's diagnostics on them (one
// load, which analyses the standard library packages they import once)
// must be those before but the ones that came with a fix. Diagnostics are
// matched by the function that holds them and their message, since fixes
// move lines.
func Recheck(t *testing.T, a *analysis.Analyzer, dir string, results []*analysistest.Result, pkgs ...string) {
	t.Helper()
	before := make(map[string][]diag)
	for _, r := range results {
		act := r.Action
		if act == nil || act.Analyzer.Name != a.Name || !slices.Contains(pkgs, act.Package.PkgPath) {
			continue
		}
		before[act.Package.PkgPath] = sorted(diags(act.Package.Syntax, act.Diagnostics))
	}
	fixed := t.TempDir()
	for _, pkg := range pkgs {
		if _, ok := before[pkg]; !ok {
			t.Fatalf("the run's results do not cover %s", pkg)
		}
		src := filepath.Join(dir, "src", filepath.FromSlash(pkg))
		files, err := filepath.Glob(filepath.Join(src, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(fixed, filepath.FromSlash(pkg))
		if err := os.MkdirAll(out, 0o777); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f + ".golden")
			if os.IsNotExist(err) {
				data, err = os.ReadFile(f)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, filepath.Base(f)), data, 0o666); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(fixed, "go.mod"), []byte("module fixed\n\ngo 1.26\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "./...")
	build.Dir = fixed
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the fixed %s do not build: %v\n%s", strings.Join(pkgs, ", "), err, out)
	}
	after := diagnose(t, a, fixed, "GOWORK=off", "GOFLAGS=-mod=mod")
	for _, pkg := range pkgs {
		compare(t, pkg, before[pkg], after["fixed/"+pkg])
	}
}

// compare checks the diagnostics of one package after its fixes against
// those before.
func compare(t *testing.T, pkg string, before, after []diag) {
	t.Helper()
	fixes := 0
	for _, d := range before {
		still := slices.ContainsFunc(after, d.same)
		switch {
		case d.fixed && still:
			t.Errorf("%s: %s: still reported after its fix", pkg, d)
		case !d.fixed && !still:
			t.Errorf("%s: %s: no longer reported, although it had no fix", pkg, d)
		}
		if d.fixed {
			fixes++
		}
	}
	for _, d := range after {
		if !slices.ContainsFunc(before, d.same) {
			t.Errorf("%s: %s: reported only after the fixes", pkg, d)
		}
	}
	if fixes == 0 {
		t.Errorf("no diagnostic in %s came with a fix", pkg)
	}
}

type diag struct {
	fn, message string
	fixed       bool
}

func (d diag) same(e diag) bool { return d.fn == e.fn && d.message == e.message }

func (d diag) String() string { return fmt.Sprintf("in %s: %s", d.fn, d.message) }

// diagnose runs a over every package of the module in dir and returns
// each package's diagnostics, by import path.
func diagnose(t *testing.T, a *analysis.Analyzer, dir string, env ...string) map[string][]diag {
	t.Helper()
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: dir, Env: append(os.Environ(), env...)}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatalf("%s does not load", dir)
	}
	graph, err := checker.Analyze([]*analysis.Analyzer{a}, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string][]diag)
	for act := range graph.All() {
		if !act.IsRoot || act.Analyzer != a {
			continue
		}
		if act.Err != nil {
			t.Fatal(act.Err)
		}
		path := act.Package.PkgPath
		out[path] = sorted(append(out[path], diags(act.Package.Syntax, act.Diagnostics)...))
	}
	return out
}

func diags(files []*ast.File, ds []analysis.Diagnostic) []diag {
	var out []diag
	for _, d := range ds {
		out = append(out, diag{fn: funcAt(files, d.Pos), message: d.Message, fixed: len(d.SuggestedFixes) > 0})
	}
	return out
}

func sorted(ds []diag) []diag {
	slices.SortFunc(ds, func(a, b diag) int { return cmp.Or(strings.Compare(a.fn, b.fn), strings.Compare(a.message, b.message)) })
	return ds
}

// funcAt names the top-level function or method declaration holding pos.
func funcAt(files []*ast.File, pos token.Pos) string {
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Pos() <= pos && pos < fd.End() {
				if fd.Recv != nil && len(fd.Recv.List) == 1 {
					return types.ExprString(fd.Recv.List[0].Type) + "." + fd.Name.Name
				}
				return fd.Name.Name
			}
		}
	}
	return "(outside functions)"
}

// Package fixtest checks what analysistest.RunWithSuggestedFixes does not:
// that the fixed code compiles, and that the fixes repair what they were
// offered for.
package fixtest

import (
	"cmp"
	"fmt"
	"go/ast"
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

// Recheck checks the fixes of analyzer a in packages pkgs of the
// GOPATH-style testdata directory dir, whose files' .golden versions hold
// the result of its fixes: results are what analysistest.
// RunWithSuggestedFixes returned for a run that covered pkgs (the
// diagnostics before the fixes). The golden versions, each package in a
// directory of one module, must build, and a's diagnostics on them (one
// load, which analyses the standard library packages they import once)
// must be those before but the ones that came with a fix. Diagnostics are
// matched by the function that holds them and their message, since fixes
// move lines.
func Recheck(t *testing.T, a *analysis.Analyzer, dir string, results []*analysistest.Result, pkgs ...string) {
	t.Helper()
	before := make(map[string][]diag)
	for _, r := range results {
		if r.Pass == nil || r.Pass.Analyzer != a || !slices.Contains(pkgs, r.Pass.Pkg.Path()) {
			continue
		}
		before[r.Pass.Pkg.Path()] = sorted(diags(r.Pass.Files, r.Diagnostics))
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

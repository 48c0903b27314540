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
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// Recheck runs analyzer a over package pkg of the GOPATH-style testdata
// directory dir, whose files' .golden versions hold the result of its
// fixes, then over the golden versions built as a module of their own. The
// golden package must build, the diagnostics that came with a fix must be
// gone, and the others must remain. Diagnostics are matched by the
// function that holds them and their message, since fixes move lines.
func Recheck(t *testing.T, a *analysis.Analyzer, dir, pkg string) {
	t.Helper()
	src := filepath.Join(dir, "src", filepath.FromSlash(pkg))
	before := diagnose(t, a, src, "GOPATH="+dir, "GO111MODULE=off")

	fixed := t.TempDir()
	files, err := filepath.Glob(filepath.Join(src, "*.go"))
	if err != nil {
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
		if err := os.WriteFile(filepath.Join(fixed, filepath.Base(f)), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(fixed, "go.mod"), []byte("module "+pkg+"\n\ngo 1.26\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "./...")
	build.Dir = fixed
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the fixed %s does not build: %v\n%s", pkg, err, out)
	}
	after := diagnose(t, a, fixed, "GOWORK=off", "GOFLAGS=-mod=mod")

	fixes := 0
	for _, d := range before {
		still := slices.ContainsFunc(after, d.same)
		switch {
		case d.fixed && still:
			t.Errorf("%s: still reported after its fix", d)
		case !d.fixed && !still:
			t.Errorf("%s: no longer reported, although it had no fix", d)
		}
		if d.fixed {
			fixes++
		}
	}
	for _, d := range after {
		if !slices.ContainsFunc(before, d.same) {
			t.Errorf("%s: reported only after the fixes", d)
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

func diagnose(t *testing.T, a *analysis.Analyzer, dir string, env ...string) []diag {
	t.Helper()
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: dir, Env: append(os.Environ(), env...)}
	pkgs, err := packages.Load(cfg, ".")
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
	var out []diag
	for act := range graph.All() {
		if !act.IsRoot || act.Analyzer != a {
			continue
		}
		if act.Err != nil {
			t.Fatal(act.Err)
		}
		for _, d := range act.Diagnostics {
			out = append(out, diag{fn: funcAt(act.Package.Syntax, d.Pos), message: d.Message, fixed: len(d.SuggestedFixes) > 0})
		}
	}
	slices.SortFunc(out, func(a, b diag) int { return cmp.Or(strings.Compare(a.fn, b.fn), strings.Compare(a.message, b.message)) })
	return out
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

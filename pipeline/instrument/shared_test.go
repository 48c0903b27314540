package instrument

import (
	"context"
	"go/ast"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/packages"
)

// The module testdata/shared (counter, ring and uses) is loaded and
// analyzed once for TestSharedAPI, TestSharedTestedAPI and TestUses:
// loading the standard library that its tests import, from source under
// -race, is most of each test's time.
var sharedAnalysis struct {
	once sync.Once
	sel  *selection
	s    *sharedSet
	err  error
}

// analyzedShared returns the selection and the analysis of testdata/shared.
func analyzedShared(t *testing.T) (*selection, *sharedSet) {
	t.Helper()
	if testing.Short() {
		t.Skip("loads packages from source")
	}
	sharedAnalysis.once.Do(func() {
		ctx := context.Background()
		dir, _ := filepath.Abs("testdata/shared")
		prog, err := load(ctx, Config{Dir: dir, Patterns: []string{"./..."}})
		if err != nil {
			sharedAnalysis.err = err
			return
		}
		ld, err := split(prog, false)
		if err != nil {
			sharedAnalysis.err = err
			return
		}
		mod, err := findModule(ctx, dir, nil)
		if err != nil {
			sharedAnalysis.err = err
			return
		}
		sel := selectFiles(ld.pkgs, ld.home, mod, nil)
		keep := func(p *packages.Package) bool { return wanted(p, ld.home, mod, nil) }
		sharedAnalysis.s, sharedAnalysis.err = analyzeShared(ctx, prog, sel.roots, keep, nil, nil, false)
		sel.attach()
		sharedAnalysis.sel = sel
	})
	if sharedAnalysis.err != nil {
		t.Fatal(sharedAnalysis.err)
	}
	return sharedAnalysis.sel, sharedAnalysis.s
}

// TestSharedAPI checks the filter on a package whose concurrency is all in
// its external test: the field its exported methods write is shared, the
// field written only before the object escapes is not.
func TestSharedAPI(t *testing.T) {
	sel, s := analyzedShared(t)
	want := map[string]bool{"n": true, "name": false}
	seen := map[string]int{}
	for _, f := range sel.files {
		if filepath.Base(f.path) != "counter.go" {
			continue
		}
		shared := s.predicate(f.pkg.Fset, f.syntax)
		ast.Inspect(f.syntax, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			w, ok := want[sel.Sel.Name]
			if !ok {
				return true
			}
			seen[sel.Sel.Name]++
			pos := f.pkg.Fset.Position(sel.Sel.Pos())
			if got := shared(sel.Sel.Pos()); got != w {
				t.Errorf("%s: c.%s shared = %v, want %v", pos, sel.Sel.Name, got, w)
			}
			return true
		})
	}
	if seen["n"] != 2 || seen["name"] != 2 {
		t.Errorf("saw %v selectors, want n and name twice each", seen)
	}
}

// TestSharedTestedAPI checks the filter on a package whose own test uses
// its API on one goroutine (testdata/shared/ring, pond's ring buffer): the
// slots its exported methods read and write are shared, as callers in
// other packages may run them concurrently; the slot written before the
// ring escapes is not. Each index expression's line says which it is.
func TestSharedTestedAPI(t *testing.T) {
	sel, s := analyzedShared(t)
	checked := map[bool]int{}
	for _, f := range sel.files {
		if filepath.Base(f.path) != "ring.go" {
			continue
		}
		if !strings.HasSuffix(f.pkg.ID, ".test]") {
			t.Errorf("ring.go rewritten from %s, want its test variant", f.pkg.ID)
		}
		src, _ := os.ReadFile(f.path)
		lines := strings.Split(string(src), "\n")
		shared := s.predicate(f.pkg.Fset, f.syntax)
		ast.Inspect(f.syntax, func(n ast.Node) bool {
			ix, ok := n.(*ast.IndexExpr)
			if !ok {
				return true
			}
			pos := f.pkg.Fset.Position(ix.Lbrack)
			line := lines[pos.Line-1]
			var want bool
			switch {
			case strings.HasSuffix(line, "// shared"):
				want = true
			case strings.HasSuffix(line, "// local: r has not escaped yet"):
			default:
				return true // an instantiation
			}
			checked[want]++
			if got := shared(ix.Lbrack); got != want {
				t.Errorf("%s: %s shared = %v, want %v", pos, strings.TrimSpace(line), got, want)
			}
			return true
		})
	}
	if checked[true] != 3 || checked[false] != 1 {
		t.Errorf("checked %d shared and %d local slots, want 3 and 1", checked[true], checked[false])
	}
}

// TestSharedAppended checks the filter on a slice filled only by append
// (testdata/shared/applog): the read of an element is shared when the
// elements are pointer-shaped, whose appends the rewriter records as
// stores of the elements, and not when they are numbers. Each index
// expression's line says which it is.
func TestSharedAppended(t *testing.T) {
	sel, s := analyzedShared(t)
	checked := map[bool]int{}
	for _, f := range sel.files {
		if filepath.Base(f.path) != "applog.go" {
			continue
		}
		src, _ := os.ReadFile(f.path)
		lines := strings.Split(string(src), "\n")
		shared := s.predicate(f.pkg.Fset, f.syntax)
		ast.Inspect(f.syntax, func(n ast.Node) bool {
			ix, ok := n.(*ast.IndexExpr)
			if !ok {
				return true
			}
			pos := f.pkg.Fset.Position(ix.Lbrack)
			line := lines[pos.Line-1]
			var want bool
			switch {
			case strings.HasSuffix(line, "// shared"):
				want = true
			case strings.Contains(line, "// unshared"):
			default:
				return true
			}
			checked[want]++
			if got := shared(ix.Lbrack); got != want {
				t.Errorf("%s: %s shared = %v, want %v", pos, strings.TrimSpace(line), got, want)
			}
			return true
		})
	}
	if checked[true] != 1 || checked[false] != 1 {
		t.Errorf("checked %d shared and %d unshared elements, want 1 and 1", checked[true], checked[false])
	}
}

// TestUses checks trace.Site.Uses against the uses:"..." comments of
// testdata/shared/uses/uses.go: one per read of a field on the line, in
// column order; and, on lines with writes:"..." comments there and in
// heap.go, the Uses of the fields the line assigns.
func TestUses(t *testing.T) {
	sel, s := analyzedShared(t)
	want := regexp.MustCompile(`\buses:"([^"]*)"`)
	wantWrite := regexp.MustCompile(`writes:"([^"]*)"`)
	checked := 0
	for _, f := range sel.files {
		if base := filepath.Base(f.path); base != "uses.go" && base != "heap.go" {
			continue
		}
		src, _ := os.ReadFile(f.path)
		lines := strings.Split(string(src), "\n")
		uses, writes := s.usesOf(f.pkg.Fset), s.writeUsesOf(f.pkg.Fset)
		got, wgot := map[int][]string{}, map[int][]string{}
		ast.Inspect(f.syntax, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok {
				for _, l := range as.Lhs {
					if sel, ok := l.(*ast.SelectorExpr); ok {
						line := f.pkg.Fset.Position(sel.Pos()).Line
						wgot[line] = append(wgot[line], writes(sel.Sel.Pos()))
					}
				}
			}
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "s" && sel.Sel.Name != "reader" {
					line := f.pkg.Fset.Position(sel.Pos()).Line
					got[line] = append(got[line], uses(sel.Sel.Pos()))
				}
			}
			return true
		})
		for i, l := range lines {
			if ms := wantWrite.FindAllStringSubmatch(l, -1); ms != nil {
				var w []string
				for _, m := range ms {
					w = append(w, m[1])
				}
				checked++
				if !slices.Equal(wgot[i+1], w) {
					t.Errorf("%s:%d: write uses %q, want %q", filepath.Base(f.path), i+1, wgot[i+1], w)
				}
			}
			ms := want.FindAllStringSubmatch(l, -1)
			if ms == nil {
				continue
			}
			var w []string
			for _, m := range ms {
				w = append(w, m[1])
			}
			checked++
			if !slices.Equal(got[i+1], w) {
				t.Errorf("uses.go:%d: uses %q, want %q", i+1, got[i+1], w)
			}
		}
	}
	if checked == 0 {
		t.Error("no uses annotations checked")
	}
	checkLoadCallUses(t, sel, s)
}

// checkLoadCallUses checks the Uses of the atomic load calls of
// testdata/shared/uses/atomic.go against its loads:"..." comments (TestUses, on
// the same analysis): deref for a pointer loaded and dereferenced
// unchecked (atomic.Pointer's and atomic.Value's Load, atomic.LoadPointer,
// sync.Map's Load with its ok unused), nothing for one compared with nil,
// asserted with comma-ok, guarded by ok, or an integer.
func checkLoadCallUses(t *testing.T, sel *selection, s *sharedSet) {
	want := regexp.MustCompile(`\bloads:"([^"]*)"`)
	checked := 0
	for _, f := range sel.files {
		if filepath.Base(f.path) != "atomic.go" {
			continue
		}
		src, _ := os.ReadFile(f.path)
		uses := s.usesOf(f.pkg.Fset)
		got := map[int][]string{}
		ast.Inspect(f.syntax, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if fun, ok := c.Fun.(*ast.SelectorExpr); ok && (fun.Sel.Name == "Load" || fun.Sel.Name == "LoadPointer") {
					line := f.pkg.Fset.Position(c.Pos()).Line
					got[line] = append(got[line], uses(c.Lparen))
				}
			}
			return true
		})
		for i, l := range strings.Split(string(src), "\n") {
			var w []string
			for _, m := range want.FindAllStringSubmatch(l, -1) {
				w = append(w, m[1])
			}
			if w == nil && got[i+1] == nil {
				continue
			}
			checked++
			if !slices.Equal(got[i+1], w) {
				t.Errorf("atomic.go:%d: load uses %q, want %q", i+1, got[i+1], w)
			}
		}
	}
	if checked != 10 {
		t.Errorf("checked %d lines of atomic.go, want 10", checked)
	}
}

package instrument

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"regexp"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// TestSealedUnlocks checks sealedUnlocks on testdata/src/sealed: every
// Unlock's line is marked sealed or kept, and a deferred Unlock is never
// sealed.
func TestSealedUnlocks(t *testing.T) {
	fset := token.NewFileSet()
	path := filepath.Join("testdata", "src", "sealed", "sealed.go")
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	pkg, _, err := ssautil.BuildPackage(&types.Config{Importer: importer.Default()}, fset, types.NewPackage("sealed", ""), []*ast.File{f}, ssa.SanityCheckFunctions)
	if err != nil {
		t.Fatal(err)
	}
	want := make(map[int]bool) // line: sealed
	mark := regexp.MustCompile(`// (sealed|kept)\b`)
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if m := mark.FindStringSubmatch(c.Text); m != nil {
				want[fset.Position(c.Pos()).Line] = m[1] == "sealed"
			}
		}
	}
	got := make(map[int]bool)
	pure := newPurity()
	for _, m := range pkg.Members {
		typ, ok := m.(*ssa.Type)
		if !ok {
			continue
		}
		ms := pkg.Prog.MethodSets.MethodSet(types.NewPointer(typ.Type()))
		for i := range ms.Len() {
			for _, pos := range sealedUnlocks(pkg.Prog.MethodValue(ms.At(i)), pure) {
				got[fset.Position(pos).Line] = true
			}
		}
	}
	for line, sealed := range want {
		if got[line] != sealed {
			t.Errorf("line %d: sealed %v, want %v", line, got[line], sealed)
		}
	}
	for line := range got {
		if _, ok := want[line]; !ok {
			t.Errorf("line %d: sealed, not marked", line)
		}
	}
	if len(want) < 10 {
		t.Errorf("%d marked Unlocks: the fixture did not parse as meant", len(want))
	}
}

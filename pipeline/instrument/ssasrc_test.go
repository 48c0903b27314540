package instrument

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// srcPackage parses testdata/src/NAME/NAME.go, comments included, and
// builds it as package NAME.
func srcPackage(t *testing.T, name string) (*token.FileSet, *ast.File, *ssa.Package) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("testdata", "src", name, name+".go"), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	pkg, _, err := ssautil.BuildPackage(&types.Config{Importer: importer.Default()}, fset, types.NewPackage(name, ""), []*ast.File{f}, ssa.SanityCheckFunctions)
	if err != nil {
		t.Fatal(err)
	}
	return fset, f, pkg
}

// methods returns the methods of the pointers to pkg's named types.
func methods(pkg *ssa.Package) []*ssa.Function {
	var out []*ssa.Function
	for _, m := range pkg.Members {
		typ, ok := m.(*ssa.Type)
		if !ok {
			continue
		}
		ms := pkg.Prog.MethodSets.MethodSet(types.NewPointer(typ.Type()))
		for i := range ms.Len() {
			out = append(out, pkg.Prog.MethodValue(ms.At(i)))
		}
	}
	return out
}

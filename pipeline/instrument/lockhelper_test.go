package instrument

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/ssa"
)

// TestLockStepHelpers checks the two-step analysis through lock helpers
// (testdata/src/lockhelpers): SetIfZero's two-step names the lines of
// Get's and Set's calls of the helper, where the rewriter records the
// helper's Lock, not the helper's own line.
func TestLockStepHelpers(t *testing.T) {
	dir := analysistest.TestData()
	src, err := os.ReadFile(filepath.Join(dir, "src", "lockhelpers", "lockhelpers.go"))
	if err != nil {
		t.Fatal(err)
	}
	names := make(map[string]string) // "line" -> mark
	mark := regexp.MustCompile(`// lock:(\w+)`)
	for i, line := range strings.Split(string(src), "\n") {
		if m := mark.FindStringSubmatch(line); m != nil {
			names[strconv.Itoa(i+1)] = m[1]
		}
	}
	var got []string
	for _, r := range analysistest.Run(t, dir, lockStepAnalyzer, "lockhelpers") {
		pairs, _ := r.Result.([]lockPair)
		for _, p := range pairs {
			name := func(pos string) string {
				i := strings.LastIndexByte(pos, ':')
				if n, ok := names[pos[i+1:]]; ok {
					return n
				}
				return pos[i+1:]
			}
			got = append(got, name(p.From)+">"+name(p.To))
		}
	}
	slices.Sort(got)
	if want := []string{"get>set"}; !slices.Equal(got, want) {
		t.Errorf("two-steps %v, want %v", got, want)
	}
}

// TestSealedHelpers checks sealedUnlocks through lock helpers
// (testdata/src/lockhelpers): each unlock helper's call is marked sealed
// or kept.
func TestSealedHelpers(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("testdata", "src", "lockhelpers", "lockhelpers.go"), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{
		Types: make(map[ast.Expr]types.TypeAndValue), Defs: make(map[*ast.Ident]types.Object),
		Uses: make(map[*ast.Ident]types.Object), Implicits: make(map[ast.Node]types.Object),
		Selections: make(map[*ast.SelectorExpr]*types.Selection), Scopes: make(map[ast.Node]*types.Scope),
		Instances: make(map[*ast.Ident]types.Instance), FileVersions: make(map[*ast.File]string),
	}
	tpkg, err := (&types.Config{Importer: importer.Default()}).Check("lockhelpers", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	helpers := lockHelpers(tpkg, info, []*ast.File{f}, nil, func(*ast.File) bool { return true })
	if len(helpers) != 2 {
		t.Fatalf("%d lock helpers, want 2 (lock, unlock)", len(helpers))
	}
	prog := ssa.NewProgram(fset, ssa.SanityCheckFunctions)
	for _, imp := range tpkg.Imports() {
		prog.CreatePackage(imp, nil, nil, true)
	}
	pkg := prog.CreatePackage(tpkg, []*ast.File{f}, info, false)
	pkg.Build()

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
	for _, fn := range methods(pkg) {
		for _, pos := range sealedUnlocks(fn, newPurity(), helpers) {
			got[fset.Position(pos).Line] = true
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
}

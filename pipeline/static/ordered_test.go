package static

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/precog-dev/precog/internal/corpus"
)

// actions runs analyzers over the packages matching patterns in dir,
// loaded with cfg's Lazy as given, and renders every action visited: its
// error, whether it is a root, and its diagnostics with their positions,
// URLs and related positions. It also returns the program.
func actions(t *testing.T, dir string, lazy bool, analyzers []*analysis.Analyzer, patterns ...string) (map[string]string, *Program) {
	t.Helper()
	prog, err := Load(t.Context(), Config{Dir: dir, Patterns: patterns, Tests: true, AllSyntax: true, Lazy: lazy})
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[string]string)
	err = prog.Analyze(t.Context(), analyzers, func(act *checker.Action) {
		if _, dup := got[act.String()]; dup {
			t.Errorf("%s visited twice", act)
		}
		got[act.String()] = corpus.RenderAction(act)
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, prog
}

// The ordered driver and checker are compared on the kernel corpus, with
// precog's checks, by analyzers/suite's TestKernels, which judges the
// diagnostics by the corpus's want comments in the same run (one analysis
// of the corpus per driver in the module's tests, not two).

// factsModule has facts cross packages: c imports b, which imports a.
var factsModule = map[string]string{
	"a/a.go": `package a

type T struct{ F int }

func (T) M()          {}
func (T) unexported() {}

func Exported()   {}
func unexported() {}

var V int

const C = 1
`,
	"b/b.go": `package b

import "example.com/m/a"

type U = a.T

func B() { a.Exported() }

var W a.T
`,
	"c/c.go": `package c

import "example.com/m/b"

func C() { b.B(); b.W.M() }
`,
}

// named is a fact that names its object.
type named struct{ Name string }

func (*named) AFact() {}

// pkgFact marks a package.
type pkgFact struct{ Path string }

func (*pkgFact) AFact() {}

// factsAnalyzer puts a fact on every package-level object of its package,
// the methods and fields of its types and the package itself, and reports
// the object and package facts its pass sees.
var factsAnalyzer = &analysis.Analyzer{
	Name:      "facts",
	Doc:       "list facts",
	FactTypes: []analysis.Fact{new(named), new(pkgFact)},
	Run: func(pass *analysis.Pass) (any, error) {
		scope := pass.Pkg.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			pass.ExportObjectFact(obj, &named{obj.Name()})
			if tn, ok := obj.(*types.TypeName); ok {
				if n, ok := tn.Type().(*types.Named); ok {
					for m := range n.Methods() {
						pass.ExportObjectFact(m, &named{name + "." + m.Name()})
					}
					if s, ok := n.Underlying().(*types.Struct); ok {
						for f := range s.Fields() {
							pass.ExportObjectFact(f, &named{name + "." + f.Name()})
						}
					}
				}
			}
		}
		pass.ExportPackageFact(&pkgFact{pass.Pkg.Path()})
		var seen []string
		for _, f := range pass.AllObjectFacts() {
			if f.Object.Pkg() != pass.Pkg {
				seen = append(seen, f.Object.Pkg().Name()+"."+f.Fact.(*named).Name)
			}
		}
		for _, f := range pass.AllPackageFacts() {
			seen = append(seen, "package "+f.Fact.(*pkgFact).Path)
		}
		slices.Sort(seen)
		if len(pass.Files) > 0 {
			pass.Reportf(pass.Files[0].Package, "%s", strings.Join(seen, ", "))
		}
		// Facts read back by object, as analyzers read them.
		ast.Inspect(pass.Files[0], func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if obj := pass.TypesInfo.Uses[id]; obj != nil && obj.Pkg() != nil && obj.Pkg() != pass.Pkg {
					var f named
					pass.Reportf(id.Pos(), "%s: fact %v", id.Name, pass.ImportObjectFact(obj, &f))
				}
			}
			return true
		})
		return nil, nil
	},
}

// TestOrderedFacts checks that facts reach a package's passes as checker
// passes them on: those of a direct import's exported functions and
// variables, and of any dependency's methods, fields, types and
// constants.
func TestOrderedFacts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := writeModule(t, factsModule)
	checked, _ := actions(t, dir, false, []*analysis.Analyzer{factsAnalyzer}, "./c")
	ordered, prog := actions(t, dir, true, []*analysis.Analyzer{factsAnalyzer}, "./c")
	corpus.SameActions(t, checked, ordered)
	// Through b, c sees a's type, method, field and constant, not its
	// function or variable; unexported functions reach no one.
	want := "a.C, a.T, a.T.F, a.T.M, a.T.unexported, b.B, b.U, b.W, package example.com/m/a, package example.com/m/b, package example.com/m/c"
	if got := checked["facts@example.com/m/c"]; !strings.Contains(got, ": "+want+" [") {
		t.Errorf("c's pass saw facts\n%s\nwant %s", got, want)
	}
	// Once analysed, nothing of the packages is left but their metadata.
	packages.Visit(prog.Packages, nil, func(p *packages.Package) {
		if p.Types != nil || p.Syntax != nil || p.TypesInfo != nil {
			t.Errorf("%s: types, syntax or types.Info kept", p)
		}
	})
	prog.Packages[0].Fset.Iterate(func(f *token.File) bool {
		t.Errorf("file %s kept in the file set", f.Name())
		return true
	})
	// Progress names each package of the import graph while it is
	// analysed and counts it once done, the root last (a chain: one at a
	// time).
	prog, err := Load(t.Context(), Config{Dir: dir, Patterns: []string{"./c"}, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	prog.Progress = func(done, total int, running []string) {
		steps = append(steps, fmt.Sprintf("%d/%d %s", done, total, strings.Join(running, "+")))
	}
	if err := prog.Analyze(t.Context(), []*analysis.Analyzer{factsAnalyzer}, func(*checker.Action) {}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(steps, ", "), "0/3 example.com/m/a, 1/3 , 1/3 example.com/m/b, 2/3 , 2/3 example.com/m/c, 3/3 "; got != want {
		t.Errorf("progress %s, want %s", got, want)
	}
}

// TestOrderedErrors checks that a lazily loaded program reports the
// packages that fail to parse or type-check as a whole one does, marks the
// same packages ill-typed and analyses only the others.
func TestOrderedErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := writeModule(t, map[string]string{
		"a/a.go":      "package a\n\nfunc F() int { return \"x\" }\n",
		"b/b.go":      "package b\n\nimport \"example.com/m/a\"\n\nvar V = a.F()\n",
		"c/c.go":      "package c\n\nfunc G() int { return 1 }\n",
		"c/c_test.go": "package c\n\nimport \"testing\"\n\nfunc TestG(t *testing.T) { G() }\n",
		"s/s.go":      "package s\n\nfunc H() int { return\n",
		"t/t.go":      "//go:build never\n\npackage t\n",
		"u/u.go":      "package u\n\nimport _ \"example.com/m/t\"\n",
		"v/v.go":      "package v\n",
		"v/helper.go": "//go:build test\n\npackage v\n\nfunc Helper() {}\n",
		"v/v_test.go": "package v\n\nimport \"testing\"\n\nfunc TestV(t *testing.T) { Helper() }\n",
	})
	count := &analysis.Analyzer{
		Name:       "count",
		Doc:        "count files",
		FactTypes:  []analysis.Fact{new(named)},
		ResultType: reflect.TypeFor[int](),
		Run:        func(pass *analysis.Pass) (any, error) { return len(pass.Files), nil },
	}
	checked, whole := actions(t, dir, false, []*analysis.Analyzer{count}, "./...")
	ordered, lazy := actions(t, dir, true, []*analysis.Analyzer{count}, "./...")
	corpus.SameActions(t, checked, ordered)
	if !slices.Equal(whole.Errors, lazy.Errors) || len(lazy.Errors) != 5 {
		t.Errorf("errors\n%q\nwant\n%q", lazy.Errors, whole.Errors)
	}
	// u's line says why it does not build: t's error, not go/types'
	// "could not import example.com/m/t (invalid package name: "")".
	want := "package example.com/m/u: u/u.go:3:10: imports package example.com/m/t: build constraints exclude all Go files in "
	if i := slices.IndexFunc(lazy.Errors, func(e string) bool { return strings.HasPrefix(e, want) }); i < 0 {
		t.Errorf("errors\n%q\nwant one starting %q", lazy.Errors, want)
	}
	// v's tests call a function of a file only -tags test builds: the
	// line names the file and the tag.
	want = "package example.com/m/v: v/v_test.go:5:28: undefined: Helper (Helper is declared in helper.go, which builds only with //go:build test: pass -tags test)"
	if !slices.Contains(lazy.Errors, want) {
		t.Errorf("errors\n%q\nwant %q", lazy.Errors, want)
	}
	for i, p := range lazy.Packages {
		if p.IllTyped != whole.Packages[i].IllTyped {
			t.Errorf("%s: IllTyped %v, want %v", p, p.IllTyped, whole.Packages[i].IllTyped)
		}
	}
}

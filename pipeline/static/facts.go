package static

import (
	"fmt"
	"go/types"
	"net/url"
	"reflect"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/objectpath"
)

// A factSet is what one fact analyzer left for a package's importers:
// the package's own facts and those it inherited, each named by package
// path and object path, so that it holds no types.
type factSet struct {
	objects  []*objectFact
	packages []*packageFact
}

// An objectFact is a fact about an object, named without the object.
type objectFact struct {
	pkg   string // path of the object's package
	path  objectpath.Path
	typ   reflect.Type
	reach reach
	fact  analysis.Fact
}

// A packageFact is a fact about a package, named by its path.
type packageFact struct {
	pkg  string
	typ  reflect.Type
	fact analysis.Fact
}

// reach says how far an object's fact goes, under checker's rule
// (exportedFrom) for the facts a package's importers inherit.
type reach uint8

const (
	never  reach = iota // objects outside the API; objects objectpath cannot name
	direct              // exported functions, variables: to the package's direct importers
	always              // methods, fields, types, constants: to every package that depends on it
)

func reachOf(obj types.Object) reach {
	switch obj := obj.(type) {
	case *types.Func:
		if obj.Signature().Recv() != nil {
			return always
		}
		if obj.Exported() {
			return direct
		}
	case *types.Var:
		if obj.IsField() {
			return always
		}
		return direct
	case *types.TypeName, *types.Const:
		return always
	}
	return never
}

// passes reports whether f reaches the importers of the package at path.
func (f *objectFact) passes(path string) bool {
	return f.reach == always || f.reach == direct && f.pkg == path
}

type objectKey struct {
	obj types.Object
	typ reflect.Type
}

type packageKey struct {
	pkg *types.Package
	typ reflect.Type
}

// passFacts are the facts one pass sees: inherited from the package's
// imports, decoded against the pass's view of its dependencies, and its
// own.
type passFacts struct {
	pkg      *types.Package
	enc      objectpath.Encoder
	objects  map[objectKey]*objectFact
	packages map[packageKey]*packageFact
	done     bool
}

// inherit gathers the facts of analyzer a that u's pass sees. closure
// maps the path of every package u depends on to its types.
func inherit(a *analysis.Analyzer, u *unit, closure map[string]*types.Package) *passFacts {
	pf := &passFacts{pkg: u.pkg.Types, objects: make(map[objectKey]*objectFact), packages: make(map[packageKey]*packageFact)}
	decoded := make(map[*objectFact]bool)
	for _, imp := range u.imports {
		fs := imp.facts[a]
		if fs == nil {
			continue
		}
		for _, f := range fs.objects {
			if decoded[f] || !f.passes(imp.pkg.PkgPath) {
				continue
			}
			decoded[f] = true
			if pkg := closure[f.pkg]; pkg != nil {
				if obj, err := objectpath.Object(pkg, f.path); err == nil {
					pf.objects[objectKey{obj, f.typ}] = f
				}
			}
		}
		for _, f := range fs.packages {
			if pkg := closure[f.pkg]; pkg != nil {
				pf.packages[packageKey{pkg, f.typ}] = f
			}
		}
	}
	return pf
}

// bind gives the pass of act access to the facts, as checker's Action
// does.
func (pf *passFacts) bind(pass *analysis.Pass, act *checker.Action) {
	pass.ImportObjectFact = func(obj types.Object, ptr analysis.Fact) bool {
		if obj == nil {
			panic("nil object")
		}
		if f := pf.objects[objectKey{obj, factType(ptr)}]; f != nil {
			reflect.ValueOf(ptr).Elem().Set(reflect.ValueOf(f.fact).Elem())
			return true
		}
		return false
	}
	pass.ExportObjectFact = func(obj types.Object, fact analysis.Fact) {
		if pf.done {
			panic(fmt.Sprintf("%s: Pass.ExportObjectFact(%s, %T) called after Run", act, obj, fact))
		}
		if obj.Pkg() != pf.pkg {
			panic(fmt.Sprintf("internal error: in analysis %s of package %s: Fact.Set(%s, %T): can't set facts on objects belonging another package",
				act.Analyzer, act.Package, obj, fact))
		}
		f := &objectFact{pkg: obj.Pkg().Path(), typ: factType(fact), reach: reachOf(obj), fact: fact}
		if path, err := pf.enc.For(obj); err == nil {
			f.path = path
		} else {
			f.reach = never
		}
		pf.objects[objectKey{obj, f.typ}] = f
	}
	pass.ImportPackageFact = func(pkg *types.Package, ptr analysis.Fact) bool {
		if pkg == nil {
			panic("nil package")
		}
		if f := pf.packages[packageKey{pkg, factType(ptr)}]; f != nil {
			reflect.ValueOf(ptr).Elem().Set(reflect.ValueOf(f.fact).Elem())
			return true
		}
		return false
	}
	pass.ExportPackageFact = func(fact analysis.Fact) {
		if pf.done {
			panic(fmt.Sprintf("%s: Pass.ExportPackageFact(%T) called after Run", act, fact))
		}
		pf.packages[packageKey{pf.pkg, factType(fact)}] = &packageFact{pkg: pf.pkg.Path(), typ: factType(fact), fact: fact}
	}
	pass.AllObjectFacts = func() []analysis.ObjectFact {
		facts := make([]analysis.ObjectFact, 0, len(pf.objects))
		for k, f := range pf.objects {
			facts = append(facts, analysis.ObjectFact{Object: k.obj, Fact: f.fact})
		}
		return facts
	}
	pass.AllPackageFacts = func() []analysis.PackageFact {
		facts := make([]analysis.PackageFact, 0, len(pf.packages))
		for k, f := range pf.packages {
			facts = append(facts, analysis.PackageFact{Package: k.pkg, Fact: f.fact})
		}
		return facts
	}
}

// export ends the pass and returns what its package's importers may
// inherit.
func (pf *passFacts) export() *factSet {
	pf.done = true
	fs := new(factSet)
	for _, f := range pf.objects {
		if f.reach != never {
			fs.objects = append(fs.objects, f)
		}
	}
	for _, f := range pf.packages {
		fs.packages = append(fs.packages, f)
	}
	return fs
}

func factType(fact analysis.Fact) reflect.Type {
	t := reflect.TypeOf(fact)
	if t.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("invalid Fact type: got %T, want pointer", fact))
	}
	return t
}

// resolveURL resolves a diagnostic's URL against its analyzer's, as
// checker does (driverutil.ResolveURL).
func resolveURL(a *analysis.Analyzer, d analysis.Diagnostic) (string, error) {
	if d.URL == "" && d.Category == "" && a.URL == "" {
		return "", nil
	}
	raw := d.URL
	if d.URL == "" && d.Category != "" {
		raw = "#" + d.Category
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("invalid Diagnostic.URL %q: %s", raw, err)
	}
	base, err := url.Parse(a.URL)
	if err != nil {
		return "", fmt.Errorf("invalid Analyzer.URL %q: %s", a.URL, err)
	}
	return base.ResolveReference(u).String(), nil
}

// analysisModule converts a module as checker does.
func analysisModule(m *packages.Module) *analysis.Module {
	if m == nil {
		return nil
	}
	var modErr *analysis.ModuleError
	if m.Error != nil {
		modErr = &analysis.ModuleError{Err: m.Error.Err}
	}
	return &analysis.Module{
		Path:      m.Path,
		Version:   m.Version,
		Replace:   analysisModule(m.Replace),
		Time:      m.Time,
		Main:      m.Main,
		Indirect:  m.Indirect,
		Dir:       m.Dir,
		GoMod:     m.GoMod,
		GoVersion: m.GoVersion,
		Error:     modErr,
	}
}

package static

import (
	"container/heap"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"math"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sort"
	"strings"

	"github.com/sourcegraph/conc/pool"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// The ordered driver analyses a program loaded with Config.Lazy one
// package at a time, in dependency order, and keeps of each package only
// what the packages still to come need from it.
//
// Why not go/analysis/checker: it needs every package of the import graph
// parsed and type-checked before it starts (packages.LoadAllSyntax), runs
// every action at once, and keeps every action's result (syntax, types.Info,
// SSA form, call graphs, points-to sets) until it returns. On
// golang.org/x/tools/go/... and internal/... that peaked at 3.9 GiB, and the
// standard library with its tests (2,499 package variants, 2.3 GiB of syntax
// and types alone) ran out of a 6 GiB address space.
//
// Why not a process per package, as unitchecker under go vet: it would
// type-check every dependency again from export data in each process and
// write facts to files, and precog vet would lose what it is for (one
// sorted report, results visited in memory by precog test's instrumenter
// and by the SARIF writer). One process that analyses in dependency order
// gets the same bound:
//
//   - a package is parsed and type-checked from source (as go/packages
//     would, so that types, positions and type errors are the same as with
//     LoadAllSyntax) when all its imports are done, by one of GOMAXPROCS
//     workers; of the ready packages the first in a depth-first postorder
//     of the roots goes first, so that the dependencies of one root, test
//     variants included, finish together and are released together;
//   - its actions run one after the other, requirements first; after they
//     are visited its syntax, types.Info and results are dropped;
//   - its types.Package, and the files' line tables in the FileSet, stay
//     as long as a package that imports it is not done (the importer's
//     types point into them), and go then;
//   - facts stay in memory but, as unitchecker keeps them, named by
//     package path and objectpath rather than by types.Object, so that
//     they do not hold the types of a released package; a package's
//     facts are decoded against its own view of its dependencies. A fact
//     reaches an importer under checker's rule (exportedFrom): the
//     exported functions' and the package-level variables' facts of a
//     direct import, and those of methods, fields, types and constants of
//     any dependency.
//
// What bounds the peak: the types of the packages still imported by one
// not yet done, plus, per worker, one package's syntax, types.Info and
// analysis results. One package's analysis can take hundreds of MiB (the
// points-to sets and the concurrent objects of encoding/gob's tests, 600
// MiB): under a memory limit (debug.SetMemoryLimit, GOMEMLIMIT), a
// package starts beside others only while the live heap is under half the
// limit, so that two such packages do not run at once.
type ordered struct {
	fset      *token.FileSet
	analyzers []*analysis.Analyzer // every analyzer to run somewhere, requirements first
	requested map[*analysis.Analyzer]bool
	units     []*unit                                 // in depth-first postorder of the roots
	progress  func(done, total int, running []string) // Program.Progress
	keep      func(*packages.Package) bool            // Program.Keep
	cache     *factCache                              // Program.FactCache; nil if off
}

// kept reports whether u's package is kept after it is visited
// (Program.Keep).
func (o *ordered) kept(u *unit) bool { return o.keep != nil && o.keep(u.pkg) }

// A unit is one package of the import graph with its actions.
type unit struct {
	pkg       *packages.Package
	imports   []*unit // sorted by import path, as checker orders an action's dependencies
	importers []*unit
	order     int // index in depth-first postorder: the scheduling priority
	waiting   int // imports not yet done
	users     int // importers not yet done
	root      bool
	// run are the analyzers to run on the package, in the order of
	// ordered.analyzers: for a root, the requested ones; for any package,
	// what they require, and a fact analyzer that runs on an importer.
	run     map[*analysis.Analyzer]bool
	actions map[*analysis.Analyzer]*checker.Action
	facts   map[*analysis.Analyzer]*factSet // for importers, per fact analyzer
	files   []*token.File
	key     string // in the fact cache; "" if it has none (factCache.key)
	panic   bool   // a worker panicked on it
}

// newOrdered builds the action graph of analyzers over roots.
func newOrdered(analyzers []*analysis.Analyzer, roots []*packages.Package) *ordered {
	o := &ordered{fset: token.NewFileSet(), requested: make(map[*analysis.Analyzer]bool)}
	seenA := make(map[*analysis.Analyzer]bool)
	var addA func(a *analysis.Analyzer)
	addA = func(a *analysis.Analyzer) {
		if !seenA[a] {
			seenA[a] = true
			for _, r := range a.Requires {
				addA(r)
			}
			o.analyzers = append(o.analyzers, a)
		}
	}
	for _, a := range analyzers {
		addA(a)
		//precog:ignore con-map newOrdered fills requested before analyze starts the goroutines that read it
		o.requested[a] = true
	}

	byPkg := make(map[*packages.Package]*unit)
	var visit func(p *packages.Package) *unit
	visit = func(p *packages.Package) *unit {
		if u := byPkg[p]; u != nil {
			return u
		}
		u := &unit{pkg: p, run: make(map[*analysis.Analyzer]bool), actions: make(map[*analysis.Analyzer]*checker.Action)}
		byPkg[p] = u
		paths := make([]string, 0, len(p.Imports))
		for path := range p.Imports {
			paths = append(paths, path)
		}
		sort.Strings(paths)
		for _, path := range paths {
			imp := visit(p.Imports[path])
			u.imports = append(u.imports, imp)
			imp.importers = append(imp.importers, u)
			imp.users++
		}
		u.waiting = len(u.imports)
		u.order = len(o.units)
		o.units = append(o.units, u)
		return u
	}
	for _, p := range roots {
		u := visit(p)
		u.root = true
		for _, a := range analyzers {
			u.need(a)
		}
	}
	// Importers come before their imports in reverse postorder, so each
	// package's set is complete when it passes its fact analyzers on.
	for _, u := range slices.Backward(o.units) {
		for a := range u.run {
			if len(a.FactTypes) > 0 {
				for _, imp := range u.imports {
					imp.need(a)
				}
			}
		}
	}
	return o
}

// need adds a and what it requires to the analyzers run on u.
func (u *unit) need(a *analysis.Analyzer) {
	if !u.run[a] {
		u.run[a] = true
		for _, r := range a.Requires {
			u.need(r)
		}
	}
}

// analyze runs the graph, calling visit with each action of a package
// once the package is done, from the calling goroutine.
func (o *ordered) analyze(ctx context.Context, visit func(*checker.Action)) error {
	workers := runtime.GOMAXPROCS(0)
	admit := uint64(math.MaxUint64)
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		admit = uint64(limit) / 2
	}
	p := pool.New().WithMaxGoroutines(workers)
	finished := make(chan *unit)
	var ready unitHeap
	for _, u := range o.units {
		if u.waiting == 0 {
			ready = append(ready, u)
		}
	}
	heap.Init(&ready)
	inflight, broken, done := 0, false, 0
	var running []string // the import paths in flight, for o.progress
	report := func() {
		if o.progress != nil {
			o.progress(done, len(o.units), slices.Clone(running))
		}
	}
	for {
		for inflight < workers && len(ready) > 0 && ctx.Err() == nil && !broken {
			if inflight > 0 && heapLive() > admit {
				break // wait for a package in flight to finish
			}
			u := heap.Pop(&ready).(*unit)
			inflight++
			running = append(running, u.pkg.PkgPath)
			report()
			p.Go(func() {
				u.panic = true
				defer func() { finished <- u }()
				o.run(u)
				u.panic = false
			})
		}
		if inflight == 0 {
			break
		}
		u := <-finished
		inflight--
		if u.panic {
			broken = true // p.Wait panics with it
			continue
		}
		for _, a := range o.analyzers {
			if act := u.actions[a]; act != nil {
				if !act.IsRoot {
					act.Result = nil // as checker.Analyze leaves it
				}
				visit(act)
				act.Result = nil
			}
		}
		if !o.kept(u) {
			u.pkg.Syntax, u.pkg.TypesInfo = nil, nil
		}
		done++
		if i := slices.Index(running, u.pkg.PkgPath); i >= 0 {
			running = slices.Delete(running, i, i+1)
		}
		report()
		for _, imp := range u.imports {
			if imp.users--; imp.users == 0 {
				o.release(imp)
			}
		}
		if u.users == 0 {
			o.release(u)
		}
		for _, imp := range u.importers {
			if imp.waiting--; imp.waiting == 0 {
				heap.Push(&ready, imp)
			}
		}
	}
	p.Wait()
	return ctx.Err()
}

// run analyses u, or reads it from the fact cache.
func (o *ordered) run(u *unit) {
	if o.cache == nil {
		o.check(u)
		o.runActions(u)
		return
	}
	// Roots and kept packages have keys too: a package analysed only
	// for its facts may import them.
	u.key = o.cache.key(o, u)
	if !o.cacheable(u) {
		o.check(u)
		o.runActions(u)
		return
	}
	if o.cache.load(o, u) {
		return
	}
	o.check(u)
	o.runActions(u)
	o.cache.store(o, u)
}

// heapLive returns the heap that the last garbage collection found live.
func heapLive() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// release drops what u's importers needed: its types, facts and line
// tables (its facts only, if the package is kept).
func (o *ordered) release(u *unit) {
	u.facts = nil
	if o.kept(u) {
		return
	}
	u.pkg.Types = nil
	for _, f := range u.files {
		o.fset.RemoveFile(f)
	}
	u.files = nil
}

// check parses and type-checks u's package as go/packages does in
// LoadAllSyntax mode (packages.loadPackage): the same parser mode,
// types.Config and types.Info, and the same Errors and IllTyped.
func (o *ordered) check(u *unit) {
	p := u.pkg
	p.Fset = o.fset
	p.TypesInfo = &types.Info{
		Types:        make(map[ast.Expr]types.TypeAndValue),
		Defs:         make(map[*ast.Ident]types.Object),
		Uses:         make(map[*ast.Ident]types.Object),
		Implicits:    make(map[ast.Node]types.Object),
		Instances:    make(map[*ast.Ident]types.Instance),
		Scopes:       make(map[ast.Node]*types.Scope),
		Selections:   make(map[*ast.SelectorExpr]*types.Selection),
		FileVersions: make(map[*ast.File]string),
	}
	if p.PkgPath == "unsafe" {
		p.Types, p.Syntax = types.Unsafe, []*ast.File{}
		return
	}
	p.Types = types.NewPackage(p.PkgPath, p.Name)
	appendError := func(err error) {
		switch err := err.(type) {
		case *os.PathError:
			p.Errors = append(p.Errors, packages.Error{Pos: err.Path + ":1", Msg: err.Err.Error(), Kind: packages.ParseError})
		case scanner.ErrorList:
			for _, e := range err {
				p.Errors = append(p.Errors, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
			}
		case types.Error:
			p.TypeErrors = append(p.TypeErrors, err)
			p.Errors = append(p.Errors, packages.Error{Pos: err.Fset.Position(err.Pos).String(), Msg: err.Msg, Kind: packages.TypeError})
		default:
			p.Errors = append(p.Errors, packages.Error{Pos: "-", Msg: err.Error(), Kind: packages.UnknownError})
		}
	}
	p.Syntax = nil
	for _, name := range p.CompiledGoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			appendError(err)
			continue
		}
		// go/packages promises ast.Object resolution: no SkipObjectResolution.
		f, err := parser.ParseFile(o.fset, name, src, parser.AllErrors|parser.ParseComments)
		if err != nil {
			appendError(err)
		}
		if f != nil {
			p.Syntax = append(p.Syntax, f)
			u.files = append(u.files, o.fset.File(f.FileStart))
		}
	}
	tc := &types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			if imp := p.Imports[path]; imp != nil && imp.Types != nil {
				return imp.Types, nil
			}
			return nil, fmt.Errorf("no metadata for %s", path)
		}),
		Error: appendError,
		Sizes: p.TypesSizes,
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		tc.GoVersion = "go" + p.Module.GoVersion
	}
	err := types.NewChecker(tc, o.fset, p.Types, p.TypesInfo).Files(p.Syntax)
	if err != nil && len(p.Errors) == 0 {
		appendError(err)
	}
	p.IllTyped = len(p.Errors) > 0 || slices.ContainsFunc(u.imports, func(imp *unit) bool { return imp.pkg.IllTyped })
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// runActions runs u's analyzers, unless the package is ill-typed: then
// its importers are too, and none of them is analyzed.
func (o *ordered) runActions(u *unit) {
	if u.pkg.IllTyped {
		return
	}
	var closure map[string]*types.Package // u's view of its dependencies, for decoding facts
	for _, a := range o.analyzers {
		if !u.run[a] {
			continue
		}
		act := &checker.Action{Analyzer: a, Package: u.pkg, IsRoot: u.root && o.requested[a]}
		u.actions[a] = act
		for _, r := range a.Requires {
			act.Deps = append(act.Deps, u.actions[r])
		}
		if len(a.FactTypes) > 0 {
			for _, imp := range u.imports {
				act.Deps = append(act.Deps, imp.actions[a])
			}
			if closure == nil {
				closure = dependencies(u.pkg.Types)
			}
		}
		o.exec(u, act, closure)
	}
}

// exec runs one action, as checker's Action.execOnce does.
func (o *ordered) exec(u *unit, act *checker.Action, closure map[string]*types.Package) {
	var failed []string
	for _, dep := range act.Deps {
		if dep.Err != nil {
			failed = append(failed, dep.String())
		}
	}
	if failed != nil {
		sort.Strings(failed)
		act.Err = fmt.Errorf("failed prerequisites: %s", strings.Join(failed, ", "))
		return
	}
	a, p := act.Analyzer, u.pkg
	inputs := make(map[*analysis.Analyzer]any, len(a.Requires))
	for _, r := range a.Requires {
		inputs[r] = u.actions[r].Result
	}
	var facts *passFacts
	if len(a.FactTypes) > 0 {
		facts = inherit(a, u, closure)
	}
	module := &analysis.Module{}
	if m := p.Module; m != nil {
		module = analysisModule(m)
	}
	pass := &analysis.Pass{
		Analyzer:     a,
		Fset:         p.Fset,
		Files:        p.Syntax,
		OtherFiles:   p.OtherFiles,
		IgnoredFiles: p.IgnoredFiles,
		Pkg:          p.Types,
		TypesInfo:    p.TypesInfo,
		TypesSizes:   p.TypesSizes,
		TypeErrors:   p.TypeErrors,
		Module:       module,
		ResultOf:     inputs,
		Report:       func(d analysis.Diagnostic) { act.Diagnostics = append(act.Diagnostics, d) },
	}
	pass.ReadFile = readFile(pass)
	if facts != nil {
		facts.bind(pass, act)
	} else {
		pass.ImportObjectFact = func(types.Object, analysis.Fact) bool { return false }
		pass.ImportPackageFact = func(*types.Package, analysis.Fact) bool { return false }
		pass.ExportObjectFact = func(obj types.Object, fact analysis.Fact) {
			panic(fmt.Sprintf("%s: ExportObjectFact(%s, %T) by an analyzer without FactTypes", act, obj, fact))
		}
		pass.ExportPackageFact = func(fact analysis.Fact) {
			panic(fmt.Sprintf("%s: ExportPackageFact(%T) by an analyzer without FactTypes", act, fact))
		}
		pass.AllObjectFacts = func() []analysis.ObjectFact { return nil }
		pass.AllPackageFacts = func() []analysis.PackageFact { return nil }
	}
	act.Result, act.Err = func() (any, error) {
		result, err := a.Run(pass)
		if err != nil {
			return nil, err
		}
		if got, want := reflect.TypeOf(result), a.ResultType; got != want {
			return nil, fmt.Errorf("internal error: on package %s, analyzer %s returned a result of type %v, but declared ResultType %v",
				pass.Pkg.Path(), a, got, want)
		}
		for i := range act.Diagnostics {
			url, err := resolveURL(a, act.Diagnostics[i])
			if err != nil {
				return nil, err
			}
			act.Diagnostics[i].URL = url
		}
		return result, nil
	}()
	if facts != nil {
		if u.facts == nil {
			u.facts = make(map[*analysis.Analyzer]*factSet)
		}
		u.facts[a] = facts.export()
	}
	pass.ExportObjectFact, pass.ExportPackageFact = nil, nil
}

// readFile gives a pass the files of its package, as checker does
// (driverutil.CheckedReadFile).
func readFile(pass *analysis.Pass) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		ok := slices.Contains(pass.OtherFiles, name) || slices.Contains(pass.IgnoredFiles, name) ||
			slices.ContainsFunc(pass.Files, func(f *ast.File) bool { return pass.Fset.File(f.FileStart).Name() == name })
		if !ok {
			return nil, fmt.Errorf("Pass.ReadFile: %s is not among OtherFiles, IgnoredFiles, or names of Files", name)
		}
		return os.ReadFile(name)
	}
}

// dependencies maps the path of every package that pkg depends on,
// itself included, to its types.
func dependencies(pkg *types.Package) map[string]*types.Package {
	m := make(map[string]*types.Package)
	var add func(p *types.Package)
	add = func(p *types.Package) {
		if m[p.Path()] == nil {
			m[p.Path()] = p
			for _, imp := range p.Imports() {
				add(imp)
			}
		}
	}
	add(pkg)
	return m
}

// unitHeap orders the ready units by postorder.
type unitHeap []*unit

func (h unitHeap) Len() int           { return len(h) }
func (h unitHeap) Less(i, j int) bool { return h[i].order < h[j].order }
func (h unitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *unitHeap) Push(x any)        { *h = append(*h, x.(*unit)) }
func (h *unitHeap) Pop() any {
	old := *h
	u := old[len(old)-1]
	*h = old[:len(old)-1]
	return u
}

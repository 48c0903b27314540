package instrument

import (
	"go/ast"
	"go/doc"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Tests that may reach a mark. GODEBUG=tracebackancestors, which the
// shim's marks need (shim/mark.go), makes the runtime copy its creator's
// stack at every go statement of the process, and precog runs each
// top-level test in a process of its own: a test that never makes a
// marked call pays it for nothing (x/sync/syncmap's marks are in its
// benchmarks' b.RunParallel, errgroup's in an example that is never run).
// markTests finds, for each package under test, the top-level test
// functions (Test, Example, Fuzz and Benchmark functions of its test
// files; not an example without an output comment, which go test never
// runs) from which a function holding a mark is reachable over a
// reference graph of the packages the analysis kept the syntax of:
//
//   - a function (or method) declaration refers to every function and
//     method its body, function literals included, names: called, or
//     taken as a value (handed to a dependency, which may call it);
//   - a method of an interface (or of a type parameter's constraint),
//     named in a body, refers to every declared method of that name;
//   - a named type, named in a body, refers to every method declared on
//     it (a dependency may call them through an interface the value is
//     converted to) and to what its declaration names (embedded types'
//     methods are promoted);
//   - a reference into a package whose syntax was not kept and whose
//     imports reach a marked file counts as reaching a mark (its code is
//     not in the graph).
//
// A package's initialization (its variables' initializers and init
// functions) and TestMain run in every test's process: when one of those
// of the binary may reach a mark, every test of the package runs with the
// setting. The graph over-approximates what runs (every named function,
// every method of a named type), so a test left out cannot make a marked
// call but through reflection or a function value that no function of the
// graph names. Leaving a test out would lose only the mark's ordering
// (EvAfter, which only adds happens-before edges: never a missed race),
// and including one too many costs only time.
func markTests(roots []*packages.Package, markDecls map[string]map[int]bool) map[string][]string {
	g := &refGraph{
		edges:   make(map[string]map[string]bool),
		syntax:  make(map[string]bool),
		opaque:  make(map[string]bool),
		visited: make(map[*packages.Package]bool),
	}
	marked := make(map[string]bool) // files with a mark
	for f := range markDecls {
		marked[f] = true
	}
	// The packages whose syntax was kept, and those (without) whose
	// imports reach a marked file.
	memo := make(map[*packages.Package]bool)
	var reaches func(p *packages.Package) bool
	reaches = func(p *packages.Package) bool {
		if m, ok := memo[p]; ok {
			return m
		}
		memo[p] = false
		m := slices.ContainsFunc(p.CompiledGoFiles, func(f string) bool { return marked[f] })
		for _, q := range p.Imports {
			if m {
				break
			}
			m = reaches(q)
		}
		memo[p] = m
		return m
	}
	var all []*packages.Package
	var collect func(p *packages.Package)
	collect = func(p *packages.Package) {
		if g.visited[p] {
			return
		}
		g.visited[p] = true
		all = append(all, p)
		for _, q := range p.Imports {
			collect(q)
		}
	}
	for _, p := range roots {
		collect(p)
	}
	for _, p := range all {
		if hasSyntax(p) {
			g.syntax[p.PkgPath] = true
		}
	}
	for _, p := range all {
		if !hasSyntax(p) && !g.syntax[p.PkgPath] && reaches(p) {
			g.opaque[p.PkgPath] = true
		}
	}
	for _, p := range all {
		if hasSyntax(p) {
			g.addPackage(p, markDecls)
		}
	}
	reach := g.reachesMark()
	// Per package under test: its tests that may reach a mark, or every
	// test when initialization or TestMain may.
	tests := make(map[string][]string)
	every := make(map[string]bool)
	inits := make(map[*packages.Package]bool) // the binary's initialization may reach a mark
	var initReaches func(p *packages.Package) bool
	initReaches = func(p *packages.Package) bool {
		if m, ok := inits[p]; ok {
			return m
		}
		inits[p] = false
		m := reach[initNode(p.PkgPath)] || g.opaque[p.PkgPath]
		for _, q := range p.Imports {
			if m {
				break
			}
			m = initReaches(q)
		}
		inits[p] = m
		return m
	}
	for _, p := range roots {
		path := underTest(p)
		if initReaches(p) {
			every[path] = true
		}
		if !hasSyntax(p) {
			continue
		}
		for i, f := range p.Syntax {
			if i >= len(p.CompiledGoFiles) || !strings.HasSuffix(p.CompiledGoFiles[i], "_test.go") {
				continue
			}
			run := make(map[string]bool) // the examples go test runs: those with an output comment
			for _, ex := range doc.Examples(f) {
				if ex.Output != "" || ex.EmptyOutput {
					run["Example"+ex.Name] = true
				}
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || !reach[declKey(p, fd)] {
					continue
				}
				switch name := fd.Name.Name; {
				case name == "TestMain":
					every[path] = true
				case strings.HasPrefix(name, "Example") && !run[name]:
					// Compiled, never run.
				case testFunc(name):
					tests[path] = append(tests[path], name)
				}
			}
		}
	}
	out := make(map[string][]string)
	for path, names := range tests {
		if !every[path] {
			slices.Sort(names)
			out[path] = slices.Compact(names)
		}
	}
	for path := range every {
		out[path] = nil
	}
	return out
}

// testFunc reports whether a top-level function of a test file is one go
// test may run as a top-level test.
func testFunc(name string) bool {
	for _, prefix := range []string{"Test", "Example", "Fuzz", "Benchmark"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

func hasSyntax(p *packages.Package) bool {
	return p.TypesInfo != nil && len(p.Syntax) > 0
}

// A refGraph is markTests' reference graph. Nodes are strings: a
// function's or method's full name (types.Func.FullName of its origin),
// "init PATH" for a package's initialization, "type PATH.NAME" for a
// named type, "method NAME" for every method so named, and markNode.
type refGraph struct {
	edges   map[string]map[string]bool
	syntax  map[string]bool // import paths whose syntax the graph holds
	opaque  map[string]bool // import paths without, whose imports reach a marked file
	visited map[*packages.Package]bool
}

const markNode = "mark"

func initNode(path string) string { return "init " + path }

func (g *refGraph) edge(from, to string) {
	m := g.edges[from]
	if m == nil {
		m = make(map[string]bool)
		g.edges[from] = m
	}
	m[to] = true
}

// declKey is the node of a function declaration: init functions are their
// package's initialization.
func declKey(p *packages.Package, fd *ast.FuncDecl) string {
	fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func)
	if !ok || fd.Recv == nil && fd.Name.Name == "init" {
		return initNode(p.PkgPath)
	}
	return fn.Origin().FullName()
}

// typeNode is the node of a named type declared in a package.
func typeNode(tn *types.TypeName) string {
	return "type " + tn.Pkg().Path() + "." + tn.Name()
}

// addPackage adds the declarations of p's files; markDecls holds, per
// file, the lines of the declarations holding a mark (0: outside any
// function, in a variable's initializer).
func (g *refGraph) addPackage(p *packages.Package, markDecls map[string]map[int]bool) {
	for i, f := range p.Syntax {
		var file string
		if i < len(p.CompiledGoFiles) {
			file = p.CompiledGoFiles[i]
		}
		lines := markDecls[file]
		if lines[0] {
			g.edge(initNode(p.PkgPath), markNode)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				from := declKey(p, d)
				if lines[p.Fset.PositionFor(d.Pos(), false).Line] {
					g.edge(from, markNode)
				}
				if d.Recv != nil && len(d.Recv.List) == 1 {
					if fn, ok := p.TypesInfo.Defs[d.Name].(*types.Func); ok {
						g.edge("method "+d.Name.Name, from)
						if tn := recvTypeName(fn); tn != nil {
							g.edge(typeNode(tn), from)
						}
					}
				}
				if d.Body != nil {
					g.refs(p, from, d.Body)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, v := range s.Values {
							g.refs(p, initNode(p.PkgPath), v)
						}
					case *ast.TypeSpec:
						if tn, ok := p.TypesInfo.Defs[s.Name].(*types.TypeName); ok {
							g.refs(p, typeNode(tn), s.Type)
						}
					}
				}
			}
		}
	}
}

// recvTypeName returns the named type a method is declared on.
func recvTypeName(fn *types.Func) *types.TypeName {
	recv := fn.Signature().Recv()
	if recv == nil {
		return nil
	}
	t := recv.Type()
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Origin().Obj()
	}
	return nil
}

// refs adds the edges from node from to what n names.
func (g *refGraph) refs(p *packages.Package, from string, n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		switch obj := p.TypesInfo.Uses[id].(type) {
		case *types.Func:
			if obj.Pkg() == nil {
				return true
			}
			if g.opaque[obj.Pkg().Path()] {
				g.edge(from, markNode)
				return true
			}
			if recv := obj.Signature().Recv(); recv != nil && types.IsInterface(recv.Type()) {
				g.edge(from, "method "+obj.Name())
				return true
			}
			if g.syntax[obj.Pkg().Path()] {
				g.edge(from, obj.Origin().FullName())
			}
		case *types.TypeName:
			if obj.Pkg() == nil {
				return true
			}
			if g.opaque[obj.Pkg().Path()] {
				g.edge(from, markNode)
				return true
			}
			if g.syntax[obj.Pkg().Path()] {
				g.edge(from, typeNode(obj))
			}
		}
		return true
	})
}

// reachesMark returns the nodes from which markNode is reachable.
func (g *refGraph) reachesMark() map[string]bool {
	rev := make(map[string][]string)
	for from, tos := range g.edges {
		for to := range tos {
			rev[to] = append(rev[to], from)
		}
	}
	reach := map[string]bool{markNode: true}
	work := []string{markNode}
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		for _, m := range rev[n] {
			if !reach[m] {
				reach[m] = true
				work = append(work, m)
			}
		}
	}
	return reach
}

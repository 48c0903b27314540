package rewrite

import (
	"go/ast"
	"go/types"
	"strings"
)

// LocalCallees returns the functions and methods of a package that take
// their caller's shim.Local (Options.PassLocal): each gets a first
// parameter
//
//	func (l *list) length(precog_g *precog_shim.Local, ...) int
//
// and each call of it is given the caller's Local (precog_g, or
// &precog_g in a function that owns one), so that a call chain on one
// goroutine looks the goroutine's state up once, in its outermost
// instrumented function, instead of once per call.
//
// That is right only for calls that run on the caller's goroutine, and it
// changes the function's type, so a function qualifies only if every
// reference to it in the package is a direct call the rewriter sees:
//   - it is unexported (a function or a method of unexported name): no
//     other package can name it, and no interface of another package can
//     require it;
//   - no interface type of the package (named, literal or a constraint)
//     has a method of its name, so it satisfies no interface;
//   - it is never used as a value (f, x.m, T.m as operands, which a func
//     value or an interface could call later from anywhere), never the
//     call of a go statement (the new goroutine has its own state), and
//     never called with a multi-valued argument f(g());
//   - it is declared, and called, only in files and function bodies the
//     rewriter rewrites (not in a cgo file, not in a //go:nosplit or
//     //go:norace function), with named parameters, and is not named by a
//     //go:linkname, not init and not main;
//   - it is called at least once (else there is nothing to gain).
//
// Assembly may call a Go function by name, with the signature it was
// written for: the caller must leave out the functions a package's
// assembly names (the instrumenter drops them from the result; see its
// asmNames).
//
// Deferred calls qualify: they run on the goroutine that deferred them,
// before its frame (and its Local) is gone. Function literals never take
// the caller's Local; each has its own, since it may run anywhere.
//
// files are the package's files; rewritten reports whether the rewriter
// will rewrite a file (not a cgo file, say). The keys are the functions'
// origin objects.
func LocalCallees(pkg *types.Package, info *types.Info, files []*ast.File, rewritten func(*ast.File) bool) map[*types.Func]bool {
	decls := directFuncs(pkg, info, files, rewritten)
	if len(decls) == 0 {
		return nil
	}
	ok := make(map[*types.Func]bool, len(decls))
	for fn := range decls {
		ok[fn] = true
	}
	return ok
}

// directFuncs returns the functions and methods of a package, by their
// origin objects, whose every reference is a direct call that the
// rewriter sees, with their declarations: LocalCallees's conditions, which
// allow the rewriter to change the function's signature, and the
// function's calls with it. sync, sync/atomic, runtime and unsafe have
// none: their functions keep their signatures.
func directFuncs(pkg *types.Package, info *types.Info, files []*ast.File, rewritten func(*ast.File) bool) map[*types.Func]*ast.FuncDecl {
	switch pkg.Path() {
	case "sync", "sync/atomic", "runtime", "unsafe":
		return nil
	}
	ok := make(map[*types.Func]*ast.FuncDecl)
	ifaceNames := make(map[string]bool)
	linknamed := make(map[string]bool)
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if rest, found := strings.CutPrefix(c.Text, "//go:linkname "); found {
					if fs := strings.Fields(rest); len(fs) > 0 {
						linknamed[fs[0]] = true
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if it, isIface := n.(*ast.InterfaceType); isIface && it.Methods != nil {
				for _, m := range it.Methods.List {
					for _, id := range m.Names {
						ifaceNames[id.Name] = true
					}
				}
			}
			return true
		})
	}
	// Candidates: the declarations.
	for _, f := range files {
		if !rewritten(f) {
			continue
		}
		for _, d := range f.Decls {
			fd, isFunc := d.(*ast.FuncDecl)
			if !isFunc || fd.Body == nil || noInstrument(fd) || ast.IsExported(fd.Name.Name) ||
				fd.Name.Name == "_" || linknamed[fd.Name.Name] {
				continue
			}
			if fd.Recv == nil && (fd.Name.Name == "init" || fd.Name.Name == "main") {
				continue
			}
			if fd.Recv != nil && ifaceNames[fd.Name.Name] {
				continue
			}
			named := true
			for _, p := range fd.Type.Params.List {
				named = named && len(p.Names) > 0
			}
			obj, isObj := info.Defs[fd.Name].(*types.Func)
			if !named || !isObj {
				continue
			}
			ok[obj.Origin()] = fd
		}
	}
	if len(ok) == 0 {
		return nil
	}
	// Every reference must be a direct call in rewritten code.
	callee := func(id *ast.Ident) *types.Func {
		if f, isFunc := info.Uses[id].(*types.Func); isFunc && ok[f.Origin()] != nil {
			return f.Origin()
		}
		return nil
	}
	called := make(map[*types.Func]bool)
	for _, f := range files {
		calls := make(map[*ast.Ident]bool) // identifiers naming the callee of a direct call
		banned := !rewritten(f)
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if noInstrument(n) && !banned {
					banned = true
					ast.Inspect(n, visit)
					banned = false
					return false
				}
			case *ast.GoStmt:
				// Its call is a value use: the function runs on
				// another goroutine. Its arguments are the
				// parent's.
				for _, a := range n.Call.Args {
					ast.Inspect(a, visit)
				}
				ast.Inspect(n.Call.Fun, visit)
				return false
			case *ast.CallExpr:
				if id := calledIdent(n.Fun, info); id != nil && callee(id) != nil {
					multi := false
					if len(n.Args) == 1 {
						_, multi = info.TypeOf(n.Args[0]).(*types.Tuple)
					}
					if !banned && !multi {
						calls[id] = true
						called[callee(id)] = true
					}
				}
			case *ast.Ident:
				if fn := callee(n); fn != nil && !calls[n] {
					delete(ok, fn)
				}
			}
			return true
		}
		ast.Inspect(f, visit)
	}
	for fn := range ok {
		if !called[fn] {
			delete(ok, fn) // nothing to gain
		}
	}
	return ok
}

// calledIdent returns the identifier that names the function or method a
// direct call calls (f, f[T], x.m with x.m a method value's selection), or
// nil: a method expression T.m, a call of a func value and a conversion
// name none.
func calledIdent(fun ast.Expr, info *types.Info) *ast.Ident {
	fun = ast.Unparen(fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = ast.Unparen(x.X)
	case *ast.IndexListExpr:
		fun = ast.Unparen(x.X)
	}
	switch x := fun.(type) {
	case *ast.Ident:
		return x
	case *ast.SelectorExpr:
		if sel := info.Selections[x]; sel != nil && sel.Kind() == types.MethodVal {
			return x.Sel
		}
	}
	return nil
}

// localArgs gives the calls of the file to functions of opts.PassLocal
// the caller's Local as their first argument, and those functions'
// declarations the parameter (see LocalCallees): precog_g in a function
// that takes it, &precog_g in one that owns it (funcBody declares it),
// and a new Local where no function body's goroutine is known (a
// package-level initializer, the body of a range over a function, which
// the iterator may call on another goroutine).
func (r *rewriter) localArgs() {
	if len(r.opts.PassLocal) == 0 {
		return
	}
	type scope struct {
		ref  string         // the text of the Local's pointer here
		body *ast.BlockStmt // the body that owns it, if ref is &precog_g
	}
	fresh := scope{ref: "new(" + r.shim("Local") + ")"}
	var stack []scope
	top := func() scope {
		if len(stack) == 0 {
			return fresh
		}
		return stack[len(stack)-1]
	}
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body == nil || noInstrument(n) {
				return false // LocalCallees left out what it calls
			}
			s := scope{ref: "&precog_g", body: n.Body}
			if f, ok := r.info.Defs[n.Name].(*types.Func); ok && r.opts.PassLocal[f.Origin()] {
				s = scope{ref: "precog_g"}
				lo := r.off(n.Type.Params.Opening) + 1
				sep := ""
				if n.Type.Params.NumFields() > 0 {
					sep = ", "
				}
				flo, fhi := r.span(n.Type)
				r.ed.insert(lo, flo, fhi, lit("precog_g *"+r.shim("Local")+sep))
				r.passed = true
				if r.takesLocal == nil {
					r.takesLocal = make(map[*ast.BlockStmt]bool)
				}
				r.takesLocal[n.Body] = true
			}
			ast.Inspect(n.Type, visit)
			stack = append(stack, s)
			ast.Inspect(n.Body, visit)
			stack = stack[:len(stack)-1]
			return false
		case *ast.FuncLit:
			ast.Inspect(n.Type, visit)
			stack = append(stack, scope{ref: "&precog_g", body: n.Body})
			ast.Inspect(n.Body, visit)
			stack = stack[:len(stack)-1]
			return false
		case *ast.RangeStmt:
			t := r.typeOf(n.X)
			_, isTP := t.(*types.TypeParam)
			if _, isFunc := t.Underlying().(*types.Signature); !isFunc && !isTP {
				return true
			}
			for _, e := range []ast.Node{n.Key, n.Value, n.X} {
				if e != nil {
					ast.Inspect(e, visit)
				}
			}
			stack = append(stack, fresh)
			ast.Inspect(n.Body, visit)
			stack = stack[:len(stack)-1]
			return false
		case *ast.GoStmt:
			// LocalCallees left out the go statement's own call.
		case *ast.CallExpr:
			id := calledIdent(n.Fun, r.info)
			if id == nil {
				return true
			}
			f, ok := r.info.Uses[id].(*types.Func)
			if !ok || !r.opts.PassLocal[f.Origin()] {
				return true
			}
			s := top()
			sep := ""
			if len(n.Args) > 0 {
				sep = ", "
			}
			lo, hi := r.span(n)
			r.ed.insert(r.off(n.Lparen)+1, lo, hi, lit(s.ref+sep))
			r.passed = true
			if s.body != nil {
				if r.ownsLocal == nil {
					r.ownsLocal = make(map[*ast.BlockStmt]bool)
				}
				r.ownsLocal[s.body] = true
			}
		}
		return true
	}
	ast.Inspect(r.file, visit)
}

// localRef returns the text of the current function body's Local
// pointer for a shim call, and whether there is one: none outside
// function bodies and in the body of a range over a function.
func (r *rewriter) localRef() (string, bool) {
	if r.fn == nil || !r.fn.body || r.fn.inRangeFunc > 0 {
		return "", false
	}
	if r.fn.takes {
		return "precog_g", true
	}
	r.fn.local = true
	return "&precog_g", true
}

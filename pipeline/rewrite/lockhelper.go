package rewrite

import (
	"go/ast"
	"go/types"
)

// Lock helpers. Many packages wrap their mutex in small methods,
//
//	func (s *Spinner) lock()   { s.mu.Lock() }
//	func (s *Spinner) unlock() { s.mu.Unlock() }
//
// (pterm, pebble, badger, serf, pq, nats-server, buntdb, x/net, grpc),
// and call s.lock(); ...; s.unlock() in their operations. Recorded at
// the helper's own Lock and Unlock, every critical section of the type
// would begin and end in the helpers: no section would be one function's,
// and all would share one Lock site, which is what detect/oscs tells
// operations apart by (a whole operation, a caller's two steps, another
// call of the same operation). So the rewriter records a helper's lock
// operation at the site of the helper's call instead: the helper takes
// the site as a first parameter,
//
//	func (s *Spinner) lock(precog_site uint32) { ...; precog_shim.RWLockL(&precog_g, precog_site, s.mu) }
//
// and each call passes a site of its own, made at the call (s.lock(17)),
// of the helper's kind (lock, unlock, rlock, runlock), in the caller's
// function, its expression the lock's as the caller would write it
// (s.mu). Passing the site changes no behavior and costs the shim
// nothing: the helper runs as written, and its lock operation is recorded
// as any other, with a constant the call hands it. A deferred call
// (defer s.unlock()) is right too: the site is a constant argument.
//
// That needs the helper's signature changed, so a helper must be one of
// LocalCallees's functions, whose every reference is a direct call the
// rewriter sees (an unexported function that no interface of the package
// names, never used as a value nor started by a go statement): a call
// through a method value or an interface elsewhere would not pass a site.
// Such a function is a lock helper when its body makes exactly one lock
// operation, as a statement of the body's own list (so every call that
// returns made it once, whatever else the body does: pterm's helpers
// allocate the mutex first when it is nil): a call of Lock, Unlock, RLock
// or RUnlock of a sync.Mutex, sync.RWMutex or sync.Locker, or of another
// lock helper (which then passes its own site on), on a lock reached from
// the helper's receiver, one of its parameters or a package-level
// variable through fields and pointers. A function that both locks and
// unlocks is an operation, not a helper, and keeps its own sites.

// A LockHelper is a function of the package whose one lock operation is
// recorded at the site of each of its calls (see LockHelpers).
type LockHelper struct {
	// Kind is the site kind of the lock operation: lock, unlock, rlock
	// or runlock.
	Kind string
	// Op is the helper's lock operation: a call of a sync method or of
	// another helper, a statement of the helper's body.
	Op *ast.CallExpr
	// Root says where the lock is reached from: Recv, a parameter's
	// index, or Global; Path is the source text that follows the root's
	// name in the lock's expression (".mu"; for Global the whole
	// expression).
	Root int
	Path string
}

// Roots of a LockHelper's lock other than a parameter's index.
const (
	Recv   = -1
	Global = -2
)

// LockHelpers returns the lock helpers of a package (see the comment
// above), by their origin objects, from its files; rewritten reports
// whether the rewriter will rewrite a file. The rewriter records each
// helper's lock operation at its calls' sites (Options.LockHelpers);
// pipeline/instrument's static facts about lock calls (the two-steps,
// the sealed sections) take the helper's calls for lock calls.
func LockHelpers(pkg *types.Package, info *types.Info, files []*ast.File, rewritten func(*ast.File) bool) map[*types.Func]*LockHelper {
	decls := directFuncs(pkg, info, files, rewritten)
	if len(decls) == 0 {
		return nil
	}
	// touching holds the functions whose bodies make a lock operation,
	// directly or through the calls of other such functions: a call of
	// one counts as a lock operation of the body that makes it.
	touching := make(map[*types.Func]bool)
	for changed := true; changed; {
		changed = false
		for fn, d := range decls {
			if !touching[fn] && makesLockOp(d, info, touching) {
				touching[fn], changed = true, true
			}
		}
	}
	l := &helperFinder{info: info, decls: decls, touching: touching, helpers: make(map[*types.Func]*LockHelper), busy: make(map[*types.Func]bool)}
	for fn := range decls {
		l.of(fn)
	}
	for fn, h := range l.helpers {
		if h == nil {
			delete(l.helpers, fn)
		}
	}
	if len(l.helpers) == 0 {
		return nil
	}
	return l.helpers
}

// makesLockOp reports whether d's body calls a sync lock method or a
// function of touching.
func makesLockOp(d *ast.FuncDecl, info *types.Info, touching map[*types.Func]bool) bool {
	found := false
	ast.Inspect(d.Body, func(x ast.Node) bool {
		if c, ok := x.(*ast.CallExpr); ok && !found {
			found = syncLockKind(c, info) != "" || touchingCall(c, info, touching)
		}
		return !found
	})
	return found
}

func touchingCall(c *ast.CallExpr, info *types.Info, touching map[*types.Func]bool) bool {
	f, ok := calledFunc(c, info)
	return ok && touching[f]
}

// A helperFinder decides which functions are lock helpers, a helper's
// callee first (memoized in helpers, nil for a function that is none).
type helperFinder struct {
	info     *types.Info
	decls    map[*types.Func]*ast.FuncDecl
	touching map[*types.Func]bool
	helpers  map[*types.Func]*LockHelper
	busy     map[*types.Func]bool
}

func (l *helperFinder) of(fn *types.Func) *LockHelper {
	if h, ok := l.helpers[fn]; ok {
		return h
	}
	if l.busy[fn] || l.decls[fn] == nil {
		return nil // recursion: no helper
	}
	l.busy[fn] = true
	h := l.lockHelper(l.decls[fn])
	delete(l.busy, fn)
	l.helpers[fn] = h
	return h
}

// lockHelper returns d as a lock helper, or nil: its body makes exactly
// one lock operation (a call of a touching function counted as one), a
// statement of the body's list, on a lock it reaches from its receiver, a
// parameter or a package-level variable; a call of a function is a
// helper's operation when that function is a helper.
func (l *helperFinder) lockHelper(d *ast.FuncDecl) *LockHelper {
	info := l.info
	var op *ast.CallExpr
	n := 0
	ast.Inspect(d.Body, func(x ast.Node) bool {
		if c, ok := x.(*ast.CallExpr); ok && (syncLockKind(c, info) != "" || touchingCall(c, info, l.touching)) {
			n++
			op = c
		}
		return true
	})
	if n != 1 {
		return nil
	}
	top := false
	for _, s := range d.Body.List {
		if es, ok := s.(*ast.ExprStmt); ok && ast.Unparen(es.X) == op {
			top = true
		}
	}
	if !top {
		return nil
	}
	// The lock's expression: the sync call's receiver, or what the
	// called helper's lock is reached from.
	var x ast.Expr
	kind, suffix := syncLockKind(op, info), ""
	fun := ast.Unparen(op.Fun)
	switch kind {
	case "":
		f, _ := calledFunc(op, info)
		g := l.of(f)
		if g == nil {
			return nil
		}
		kind, suffix = g.Kind, g.Path
		switch {
		case g.Root == Global:
			return &LockHelper{Kind: kind, Op: op, Root: Global, Path: g.Path}
		case g.Root == Recv:
			se, ok := fun.(*ast.SelectorExpr)
			if !ok {
				return nil
			}
			x = se.X
		case g.Root < len(op.Args):
			x = op.Args[g.Root]
		default:
			return nil
		}
	case "other":
		return nil
	default:
		x = fun.(*ast.SelectorExpr).X
	}
	root, path, ok := lockRoot(x, info)
	if !ok {
		return nil
	}
	v, _ := info.Uses[root].(*types.Var)
	if v == nil {
		return nil
	}
	h := &LockHelper{Kind: kind, Op: op, Path: path + suffix}
	switch {
	case v.Pkg() != nil && v.Parent() == v.Pkg().Scope():
		h.Root, h.Path = Global, root.Name+h.Path
		return h
	case d.Recv != nil && len(d.Recv.List) == 1 && len(d.Recv.List[0].Names) == 1 && info.Defs[d.Recv.List[0].Names[0]] == v:
		h.Root = Recv
		return h
	}
	i := 0
	for _, p := range d.Type.Params.List {
		for _, id := range p.Names {
			if info.Defs[id] == v {
				h.Root = i
				return h
			}
			i++
		}
	}
	return nil
}

// syncLockKind returns the site kind of call c if it is a lock method of
// package sync that a helper may make (Lock, Unlock, RLock or RUnlock of
// a Mutex, RWMutex or Locker), "other" for one that no helper may make
// (TryLock, TryRLock and Cond.Wait, which no site of the caller could
// stand for), and "" for any other call.
func syncLockKind(c *ast.CallExpr, info *types.Info) string {
	se, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	sel := info.Selections[se]
	if sel == nil || sel.Kind() != types.MethodVal {
		return ""
	}
	op, ok := syncMethods[methodKey(sel)]
	if !ok {
		return ""
	}
	switch op.kind {
	case "lock", "unlock", "rlock", "runlock":
		return op.kind
	case "trylock", "tryrlock", "cond-wait":
		return "other"
	}
	return ""
}

// calledFunc returns the origin of the function or method that call c
// calls directly, if any.
func calledFunc(c *ast.CallExpr, info *types.Info) (*types.Func, bool) {
	id := calledIdent(c.Fun, info)
	if id == nil {
		return nil, false
	}
	f, ok := info.Uses[id].(*types.Func)
	if !ok {
		return nil, false
	}
	return f.Origin(), true
}

// lockRoot returns the identifier that the lock expression x starts from
// and the text that follows it, when x is that identifier followed by
// field selections only (s.mu, s.state.mu).
func lockRoot(x ast.Expr, info *types.Info) (*ast.Ident, string, bool) {
	path := ""
	for {
		switch e := x.(type) {
		case *ast.Ident:
			return e, path, true
		case *ast.SelectorExpr:
			if sel := info.Selections[e]; sel == nil || sel.Kind() != types.FieldVal {
				return nil, "", false
			}
			path = "." + e.Sel.Name + path
			x = e.X
		default:
			return nil, "", false
		}
	}
}

// helperOf returns the lock helper that c calls, nil if none.
func (r *rewriter) helperOf(c *ast.CallExpr) *LockHelper {
	if len(r.opts.LockHelpers) == 0 {
		return nil
	}
	f, ok := calledFunc(c, r.info)
	if !ok {
		return nil
	}
	return r.opts.LockHelpers[f]
}

// helperDecl gives a lock helper's declaration its first parameter,
// precog_site, which its lock operation records (see syncSites and
// helperCall).
func (r *rewriter) helperDecl(d *ast.FuncDecl) {
	f, ok := r.info.Defs[d.Name].(*types.Func)
	if !ok || r.opts.LockHelpers[f.Origin()] == nil {
		return
	}
	r.fn.siteOp = r.opts.LockHelpers[f.Origin()].Op
	text := "precog_site uint32"
	if d.Type.Params.NumFields() > 0 || r.takesLocal[d.Body] {
		// Before localArgs's precog_g, which was planned first.
		text += ", "
	}
	lo, hi := r.span(d.Type)
	r.ed.insert(r.off(d.Type.Params.Opening)+1, lo, hi, lit(text))
	r.passed = true
}

// helperCall gives a call of a lock helper its first argument: a site of
// the helper's kind made here, in the caller's function, whose
// expression is the lock's as the caller reaches it (the helper's Path
// after the call's receiver or argument), or the caller's own
// precog_site when the call is a helper's operation.
func (r *rewriter) helperCall(c *ast.CallExpr) {
	h := r.helperOf(c)
	if h == nil {
		return
	}
	var s string
	if r.fn != nil && r.fn.siteOp == c {
		s = "precog_site"
	} else {
		id := calledIdent(c.Fun, r.info)
		expr := h.Path
		switch {
		case h.Root == Recv:
			if se, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok {
				expr = r.text(se.X) + h.Path
			}
		case h.Root >= 0 && h.Root < len(c.Args):
			expr = r.text(c.Args[h.Root]) + h.Path
		}
		s = r.site(id.Pos(), h.Kind, nil)
		r.sites[len(r.sites)-1].Expr = exprText(expr)
		if h.Kind == "unlock" || h.Kind == "runlock" {
			r.loadUses(c, h.Kind)
			if end, ok := r.exits[c]; ok {
				p := r.fset.PositionFor(end, false)
				r.sites[len(r.sites)-1].ExitLine, r.sites[len(r.sites)-1].ExitCol = p.Line, p.Column
			}
		}
	}
	f, _ := calledFunc(c, r.info)
	if len(c.Args) > 0 || r.opts.PassLocal[f] {
		s += ", "
	}
	lo, hi := r.span(c)
	r.ed.insert(r.off(c.Lparen)+1, lo, hi, lit(s))
	r.passed = true
}

package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/precog-dev/precog/shim/trace"
)

// expr rewrites e, whose value is used (read).
func (r *rewriter) expr(e ast.Expr) {
	if e == nil {
		return
	}
	if tv, ok := r.info.Types[e]; ok && (tv.IsType() || tv.Value != nil || tv.IsBuiltin()) {
		return
	}
	switch x := e.(type) {
	case *ast.Ident:
		r.read(x)
	case *ast.ParenExpr:
		r.expr(x.X)
	case *ast.SelectorExpr:
		r.selector(x)
	case *ast.IndexExpr:
		if r.isMapIndex(x) {
			r.expr(x.X)
			r.mapOp(x.X, x.Lbrack, "map-read", "MR", x)
			r.expr(x.Index)
			return
		}
		if _, isFunc := r.typeOf(x.X).(*types.Signature); isFunc {
			return // instantiation
		}
		r.operand(x.X)
		r.expr(x.Index)
		r.read(x)
	case *ast.IndexListExpr:
		// instantiation
	case *ast.SliceExpr:
		r.operand(x.X)
		r.expr(x.Low)
		r.expr(x.High)
		r.expr(x.Max)
	case *ast.StarExpr:
		r.expr(x.X)
		r.read(x)
	case *ast.UnaryExpr:
		switch x.Op {
		case token.AND:
			r.addr(x.X)
			if _, isLit := ast.Unparen(x.X).(*ast.CompositeLit); isLit {
				r.newObject(x, x.OpPos, r.typeOf(x))
			}
		case token.ARROW:
			r.expr(x.X)
			r.recv(x, false)
		default:
			r.expr(x.X)
		}
	case *ast.BinaryExpr:
		r.expr(x.X)
		r.expr(x.Y)
	case *ast.CallExpr:
		r.call(x, callExpr)
	case *ast.CompositeLit:
		r.compositeLit(x, false)
	case *ast.FuncLit:
		r.funcLit(x, "", r.litTestParam(x.Type))
	case *ast.TypeAssertExpr:
		r.expr(x.X)
	case *ast.KeyValueExpr:
		r.expr(x.Key)
		r.expr(x.Value)
	}
}

// compositeLit rewrites the literal x, whose address is taken when
// addressed is set (&T{...}).
func (r *rewriter) compositeLit(x *ast.CompositeLit, addressed bool) {
	st, isStruct := r.typeOf(x).Underlying().(*types.Struct)
	for i, el := range x.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if !isStruct {
				r.expr(kv.Key)
			}
			r.expr(kv.Value)
			if id, ok := kv.Key.(*ast.Ident); ok && isStruct {
				if f, ok := r.info.Uses[id].(*types.Var); ok {
					r.connAs(kv.Value, f.Type(), false)
				}
			}
		} else {
			r.expr(el)
			if isStruct && i < st.NumFields() {
				r.connAs(el, st.Field(i).Type(), false)
			}
		}
	}
	if _, isMap := r.typeOf(x).Underlying().(*types.Map); isMap && x.Type != nil {
		// A literal whose type is elided must stay a literal.
		r.makeMap(x, x.Lbrace, addressed)
	}
}

// operand rewrites the operand x of an index, slice or selection: an array
// or struct value is not read as a whole, only addressed; anything else
// (a pointer, slice, string, map) is read.
func (r *rewriter) operand(x ast.Expr) {
	switch r.typeOf(x).Underlying().(type) {
	case *types.Array, *types.Struct:
		r.addr(x)
	default:
		r.expr(x)
	}
}

// addr rewrites e, whose location is used but not read as a whole: the
// operand of &, the target of an assignment, the receiver of a
// pointer-method call.
func (r *rewriter) addr(e ast.Expr) {
	switch x := e.(type) {
	case *ast.Ident:
	case *ast.ParenExpr:
		r.addr(x.X)
	case *ast.SelectorExpr:
		sel := r.info.Selections[x]
		if sel == nil || sel.Kind() != types.FieldVal {
			r.expr(e)
			return
		}
		if sel.Indirect() {
			r.expr(x.X)
		} else {
			r.addr(x.X)
		}
	case *ast.IndexExpr:
		if r.isMapIndex(x) {
			r.expr(e)
			return
		}
		r.operand(x.X)
		r.expr(x.Index)
	case *ast.StarExpr:
		r.expr(x.X)
	case *ast.CompositeLit:
		r.compositeLit(x, true)
	default:
		r.expr(e)
	}
}

// selector rewrites x.f used as a value.
func (r *rewriter) selector(x *ast.SelectorExpr) {
	if r.isPkgName(x.X) {
		r.read(x) // a package-level variable of another package
		return
	}
	sel := r.info.Selections[x]
	if sel == nil {
		return
	}
	switch sel.Kind() {
	case types.FieldVal:
		if sel.Indirect() {
			r.expr(x.X)
		} else {
			r.operand(x.X)
		}
		r.read(x)
	case types.MethodVal:
		if r.methodValue(x, sel) {
			return
		}
		r.receiver(x.X, sel)
	case types.MethodExpr:
	}
}

// receiver rewrites the receiver x of a method selection: a pointer is
// read, a value whose address the call takes is only addressed, a value
// the call copies is read.
func (r *rewriter) receiver(x ast.Expr, sel *types.Selection) {
	if _, xPtr := r.typeOf(x).Underlying().(*types.Pointer); !xPtr && !sel.Indirect() {
		if sig, _ := sel.Obj().Type().(*types.Signature); sig != nil && sig.Recv() != nil {
			if _, ptrRecv := sig.Recv().Type().(*types.Pointer); ptrRecv {
				r.addr(x)
				return
			}
		}
	}
	r.expr(x)
}

func (r *rewriter) isMapIndex(x *ast.IndexExpr) bool {
	_, ok := r.typeOf(x.X).Underlying().(*types.Map)
	return ok
}

// accessPos returns the position Options.Shared is asked about for an
// access through e.
func accessPos(e ast.Expr) token.Pos {
	switch x := e.(type) {
	case *ast.SelectorExpr:
		return x.Sel.Pos()
	case *ast.IndexExpr:
		return x.Lbrack
	case *ast.StarExpr:
		return x.Star
	case *ast.ParenExpr:
		return accessPos(x.X)
	}
	return e.Pos()
}

// location reports whether e denotes a variable whose accesses are
// instrumented: a package-level variable, an escaped local, or a location
// reached through a pointer, a slice, or such a variable.
func (r *rewriter) location(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		v, ok := r.info.Uses[x].(*types.Var)
		if !ok || x.Name == "_" || v.IsField() || v.Pkg() == nil {
			return false
		}
		if v.Parent() == v.Pkg().Scope() {
			return true
		}
		return r.escaped[v] || r.opts.Locals
	case *ast.ParenExpr:
		return r.location(x.X)
	case *ast.SelectorExpr:
		if r.isPkgName(x.X) {
			_, ok := r.info.Uses[x.Sel].(*types.Var)
			return ok
		}
		sel := r.info.Selections[x]
		if sel == nil || sel.Kind() != types.FieldVal {
			return false
		}
		return sel.Indirect() || r.location(x.X)
	case *ast.IndexExpr:
		switch t := coreType(r.typeOf(x.X)).(type) {
		case *types.Slice:
			return true
		case *types.Pointer:
			_, ok := t.Elem().Underlying().(*types.Array)
			return ok
		case *types.Array:
			return r.location(x.X)
		}
	case *ast.StarExpr:
		return true
	}
	return false
}

// shared reports whether the access through e is instrumented.
func (r *rewriter) shared(e ast.Expr) bool {
	if !r.location(e) {
		return false
	}
	if id, ok := e.(*ast.Ident); ok && r.perLoop[r.info.Uses[id]] {
		return true // see loopVarWrites
	}
	if r.opts.Shared != nil && !r.opts.Shared(accessPos(e)) {
		return false
	}
	if id := r.rootVar(e); id != nil {
		if v, ok := r.info.Uses[id].(*types.Var); ok && r.escaped[v] {
			if r.sharedVars[v] == nil {
				r.sharedVars[v] = make(map[string]bool)
			}
			if p := fieldPath(e); p != "" {
				r.sharedVars[v][p] = true
			}
		}
	}
	return true
}

// fieldPath returns the selectors by which e, whose root variable
// rootVar found, names a field of it (".a.b" for s.a.b), or "" for the
// variable itself or a path through an index.
func fieldPath(e ast.Expr) string {
	path := ""
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return path
		case *ast.ParenExpr:
			e = x.X
		case *ast.SelectorExpr:
			path = "." + x.Sel.Name + path
			e = x.X
		default:
			return ""
		}
	}
}

// read wraps the read of e in (*precog_shim.RL(&precog_g, SITE, &e)), or
// (*precog_shim.R(SITE, &e)) outside function bodies (accessCall); a read
// inside a loop of its function whose value flows into an index or a slice
// bound (Options.Uses has trace.UseIndex) in RIL or RI, which the shim's
// repeat filter keeps in every iteration of the loop when the loop also
// reads the location elsewhere (shim/repeat.go): con-index's validation
// forces a write into the loop's last iteration. An index read outside a
// loop of its function stays R: a small accessor called in turn (ristretto's
// node, reading pageSize at two sites per call) would otherwise be recorded
// at every call.
func (r *rewriter) read(e ast.Expr) {
	if !r.shared(e) {
		return
	}
	s := r.site(accessPos(e), "read", e)
	fn := "R"
	if r.opts.Uses != nil {
		uses := r.opts.Uses(accessPos(e))
		r.sites[len(r.sites)-1].Uses = uses
		if r.fn != nil && r.fn.loops > 0 && slices.Contains(strings.Fields(uses), trace.UseIndex) {
			fn = "RI"
		}
	}
	lo, hi := r.span(e)
	r.ed.open(lo, hi, lit("(*"+r.accessCall(fn, s)+"&"))
	r.ed.close(lo, hi, lit("))"))
}

// mapOp wraps the map operand m of an access in precog_shim.<fn>(SITE, m),
// or <fn>L(&precog_g, SITE, m) in a function body (see accessCall).
func (r *rewriter) mapOp(m ast.Expr, pos token.Pos, kind, fn string, whole ast.Node) {
	if _, isNamedTP := r.typeOf(m).(*types.TypeParam); isNamedTP {
		r.skip("map of type parameter type")
		return
	}
	if r.opts.Shared != nil && !r.opts.Shared(pos) {
		return
	}
	s := r.site(pos, kind, whole)
	lo, hi := r.span(m)
	call := r.shim(fn)
	if r.before120 {
		call = r.rt(map[string]string{"MR": "MapRead", "MW": "MapWrite", "MI": "MapIter"}[fn])
	}
	if l, ok := r.localRef(); ok {
		call += "L(" + l + ", "
	} else {
		call += "("
	}
	r.ed.open(lo, hi, lit(call+s+", "))
	r.ed.close(lo, hi, lit(")"))
}

// recv rewrites the receive <-ch into precog_shim.Recv(SITE, ch), or
// Recv2 when two is set (v, ok := <-ch).
func (r *rewriter) recv(u *ast.UnaryExpr, two bool) {
	if _, isTP := r.typeOf(u.X).(*types.TypeParam); isTP {
		r.skip("receive from type parameter type")
		return
	}
	fn := "Recv"
	if two {
		fn = "Recv2"
	}
	s := r.site(u.OpPos, "recv", u)
	lo, hi := r.span(u)
	op := r.off(u.OpPos)
	r.ed.replace(op, op+2, lo, hi, lit(r.shim(fn)+"("+s+", "))
	r.ed.close(lo, hi, lit(")"))
}

// coreType returns the underlying type of t or, for a type parameter, the
// underlying type that every type of its type set shares (its core type:
// S ~[]E indexes as a slice, and &s[i] is the element's address), or nil
// when the type set has no single one (~[]byte | ~string) or no terms
// (any, or a constraint of methods only). Accesses through an operand
// without a core type are not instrumented.
func coreType(t types.Type) types.Type {
	tp, ok := t.(*types.TypeParam)
	if !ok {
		return t.Underlying()
	}
	iface, _ := tp.Constraint().Underlying().(*types.Interface)
	if iface == nil || iface.NumEmbeddeds() != 1 {
		return nil
	}
	var terms []*types.Term
	switch e := iface.EmbeddedType(0).(type) {
	case *types.Union:
		for i := range e.Len() {
			terms = append(terms, e.Term(i))
		}
	case *types.TypeParam:
		return nil
	default:
		if _, isIface := e.Underlying().(*types.Interface); isIface {
			return nil
		}
		terms = append(terms, types.NewTerm(false, e))
	}
	var core types.Type
	for _, term := range terms {
		u := term.Type().Underlying()
		if _, isIface := u.(*types.Interface); isIface {
			return nil
		}
		if core != nil && !types.Identical(core, u) {
			return nil
		}
		core = u
	}
	return core
}

// PointerShaped reports whether values of type t are pointer-shaped
// (trace.UsePointer): a pointer, map, channel, func, interface or
// unsafe.Pointer, or a type parameter, which a generic container
// instantiates with such types as often as not.
func PointerShaped(t types.Type) bool {
	if _, ok := t.(*types.TypeParam); ok {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Chan, *types.Signature, *types.Interface:
		return true
	case *types.Basic:
		return u.Kind() == types.UnsafePointer
	}
	return false
}

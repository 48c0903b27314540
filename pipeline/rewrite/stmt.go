package rewrite

import (
	"go/ast"
	"go/scanner"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

func (r *rewriter) stmts(list []ast.Stmt) {
	for i, s := range list {
		if c := r.unlockStmt(s); c != nil {
			if end := r.exitAfter(list[i+1:]); end.IsValid() {
				if r.exits == nil {
					r.exits = make(map[*ast.CallExpr]token.Pos)
				}
				r.exits[c] = end
			}
		}
		r.stmt(s, true)
	}
}

// unlockStmt returns the call of s if s is a call statement of a method
// named Unlock or RUnlock, or of an unlocking lock helper
// (Options.LockHelpers), the calls whose sites record an exit (syncSites
// decides by the types which are a sync.Mutex's): exitAfter walks the rest
// of the list, which done for every call statement would be quadratic in
// a long block.
func (r *rewriter) unlockStmt(s ast.Stmt) *ast.CallExpr {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return nil
	}
	c, ok := ast.Unparen(es.X).(*ast.CallExpr)
	if !ok {
		return nil
	}
	if se, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok && (se.Sel.Name == "Unlock" || se.Sel.Name == "RUnlock") {
		return c
	}
	if h := r.helperOf(c); h != nil && (h.Kind == "unlock" || h.Kind == "runlock") {
		return c
	}
	return nil
}

// exitAfter returns the end of the return statement (or panic call) that
// the statements rest, which follow a statement in its list, reach in
// order, when nothing in them can jump past it: no goto, no label, no
// break or continue but those of a loop, switch or select inside rest.
// Otherwise it returns token.NoPos. Code after that position in the
// source does not run after the statement (in the same call): an Unlock
// followed by `return` in an early-exit branch
// (`if c.closed { mu.Unlock(); return }; c.closed = true`) hands nothing
// to the accesses below it (trace.Site.ExitLine).
func (r *rewriter) exitAfter(rest []ast.Stmt) token.Pos {
	for _, s := range rest {
		switch s := s.(type) {
		case *ast.ReturnStmt:
			return s.End()
		case *ast.ExprStmt:
			if c, ok := ast.Unparen(s.X).(*ast.CallExpr); ok {
				if id, ok := ast.Unparen(c.Fun).(*ast.Ident); ok && r.info.Uses[id] == types.Universe.Lookup("panic") {
					return s.End()
				}
			}
		}
		if jumpsOut(s) {
			return token.NoPos
		}
	}
	return token.NoPos
}

// jumpsOut reports whether s holds a label, a goto, or a break or
// continue that leaves s (labeled, or not inside a loop, switch or select
// of s); function literals are not looked into.
func jumpsOut(s ast.Stmt) bool {
	out := false
	var walk func(n ast.Node, breakable, loop bool)
	walk = func(n ast.Node, breakable, loop bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			if out || m == nil {
				return false
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.LabeledStmt:
				out = true
			case *ast.BranchStmt:
				switch {
				case m.Tok == token.FALLTHROUGH:
				case m.Label != nil, m.Tok == token.GOTO:
					out = true
				case m.Tok == token.BREAK:
					out = !breakable
				case m.Tok == token.CONTINUE:
					out = !loop
				}
			case *ast.ForStmt, *ast.RangeStmt:
				if m != n {
					walk(m, true, true)
					return false
				}
			case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				if m != n {
					walk(m, true, loop)
					return false
				}
			}
			return true
		})
	}
	switch s.(type) {
	case *ast.ForStmt, *ast.RangeStmt:
		walk(s, true, true)
	case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
		walk(s, true, false)
	default:
		walk(s, false, false)
	}
	return out
}

// stmt rewrites s; inList is true when s is in a statement list, where
// statements can be added after it (not an init or post statement).
func (r *rewriter) stmt(s ast.Stmt, inList bool) {
	switch s := s.(type) {
	case nil:
	case *ast.BlockStmt:
		r.stmts(s.List)
	case *ast.ExprStmt:
		if c, ok := ast.Unparen(s.X).(*ast.CallExpr); ok {
			ctx := callExpr
			if inList {
				ctx = callStmt
			}
			r.call(c, ctx)
			return
		}
		r.expr(s.X)
	case *ast.SendStmt:
		r.send(s)
	case *ast.IncDecStmt:
		r.incDec(s, inList)
	case *ast.AssignStmt:
		r.assign(s, inList)
	case *ast.GoStmt:
		r.goStmt(s)
	case *ast.DeferStmt:
		r.call(s.Call, callDefer)
	case *ast.LabeledStmt:
		if sel, ok := s.Stmt.(*ast.SelectStmt); ok {
			r.selectStmt(sel, s)
			return
		}
		r.stmt(s.Stmt, inList)
	case *ast.IfStmt:
		r.stmt(s.Init, false)
		r.deferInit(s.Init, ifBlocks(s))
		r.expr(s.Cond)
		r.stmts(s.Body.List)
		r.stmt(s.Else, true)
	case *ast.ForStmt:
		r.stmt(s.Init, false)
		r.fn.loops++
		r.expr(s.Cond)
		r.stmt(s.Post, false)
		r.stmts(s.Body.List)
		r.fn.loops--
	case *ast.RangeStmt:
		r.fn.loops++
		r.rangeStmt(s)
		r.fn.loops--
	case *ast.SwitchStmt:
		r.stmt(s.Init, false)
		var clauses []ast.Node
		for _, cc := range s.Body.List {
			clauses = append(clauses, cc)
		}
		r.deferInit(s.Init, clauses)
		r.expr(s.Tag)
		for _, cc := range s.Body.List {
			cc := cc.(*ast.CaseClause)
			for _, e := range cc.List {
				r.expr(e)
			}
			r.stmts(cc.Body)
		}
	case *ast.TypeSwitchStmt:
		r.stmt(s.Init, false)
		var x ast.Expr
		switch a := s.Assign.(type) {
		case *ast.ExprStmt:
			x = a.X
		case *ast.AssignStmt:
			x = a.Rhs[0]
		}
		if ta, ok := x.(*ast.TypeAssertExpr); ok {
			r.expr(ta.X)
		}
		for _, cc := range s.Body.List {
			r.stmts(cc.(*ast.CaseClause).Body)
		}
	case *ast.SelectStmt:
		r.selectStmt(s, nil)
	case *ast.ReturnStmt:
		for _, e := range s.Results {
			r.expr(e)
		}
		if len(s.Results) == 0 && inList {
			r.bareReturn(s)
		}
	case *ast.DeclStmt:
		gd, ok := s.Decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			return
		}
		var defs []ast.Expr
		for _, sp := range gd.Specs {
			vs := sp.(*ast.ValueSpec)
			r.values(vs.Names, vs.Values)
			if !r.opts.Locals && len(vs.Values) > 0 && inList {
				r.deferDef(s, vs.Names)
			}
			if r.opts.Locals {
				for _, id := range vs.Names {
					if id.Name != "_" {
						defs = append(defs, id)
					}
				}
			}
		}
		if len(defs) > 0 {
			all := make(map[ast.Expr]bool)
			for _, d := range defs {
				all[d] = true
			}
			r.wroteAfterDefs(s, defs, all, inList)
		}
	}
}

// bareReturn records the reads of the named results that the bare return
// s makes for its caller, before it: go/ssa gives them the return's
// position (analyzers/sharedloc), and so does the site.
func (r *rewriter) bareReturn(s *ast.ReturnStmt) {
	var text []piece
	for _, id := range r.fn.results {
		v, ok := r.info.Defs[id].(*types.Var)
		if !ok || !r.escaped[v] || r.opts.Shared != nil && !r.opts.Shared(s.Return) {
			continue
		}
		site := r.site(s.Return, "read", id)
		text = append(text, lit("_ = *"+r.accessCall("R", site)+"&"+id.Name+"); "))
	}
	if len(text) > 0 {
		lo, hi := r.span(s)
		r.ed.insert(lo, lo, hi, text...)
	}
}

// values rewrites the right-hand side of an assignment or declaration:
// a comma-ok receive (v, ok := <-ch) becomes Recv2.
func (r *rewriter) values(lhs []*ast.Ident, rhs []ast.Expr) {
	if len(lhs) == 2 && len(rhs) == 1 {
		if u, ok := ast.Unparen(rhs[0]).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
			r.expr(u.X)
			r.recv(u, true)
			return
		}
	}
	for _, e := range rhs {
		r.expr(e)
	}
}

// untypedOr reports whether e is untyped (a constant or nil) or of type t
// exactly: then W(site, &x, e) infers its type argument from x alone.
func (r *rewriter) untypedOr(e ast.Expr, t types.Type) bool {
	tv := r.info.Types[e]
	if tv.Type == nil {
		return false
	}
	if b, ok := tv.Type.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return true
	}
	return types.Identical(tv.Type, t)
}

func (r *rewriter) isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// send rewrites ch <- v into precog_shim.Send(SITE, ch, v).
func (r *rewriter) send(s *ast.SendStmt) {
	r.expr(s.Chan)
	r.expr(s.Value)
	ct := r.typeOf(s.Chan)
	ch, ok := ct.Underlying().(*types.Chan)
	if _, isTP := ct.(*types.TypeParam); isTP || !ok {
		r.skip("send on type parameter type")
		return
	}
	lo, hi := r.span(s)
	site := r.site(s.Arrow, "send", s.Chan)
	arrow := [2]int{r.off(s.Chan.End()), r.off(s.Value.Pos())}
	if r.untypedOr(s.Value, ch.Elem()) {
		r.ed.open(lo, hi, lit(r.shim("Send")+"("+site+", "))
		r.ed.replace(arrow[0], arrow[1], lo, hi, lit(", "))
	} else {
		r.ed.open(lo, hi, lit(r.rt("SendTo")+"("+site+", "))
		r.ed.replace(arrow[0], arrow[1], lo, hi, lit(").Send("))
	}
	r.ed.close(lo, hi, lit(")"))
}

// mapWrite rewrites the map operand of m[k] being assigned.
func (r *rewriter) mapWrite(x *ast.IndexExpr) {
	r.expr(x.X)
	r.mapOp(x.X, x.Lbrack, "map-write", "MW", x)
	r.expr(x.Index)
}

// incDec rewrites x++ on a shared x into W(SITE, &x, *R(SITE, &x) + 1).
func (r *rewriter) incDec(s *ast.IncDecStmt, inList bool) {
	if ix, ok := ast.Unparen(s.X).(*ast.IndexExpr); ok && r.isMapIndex(ix) {
		r.mapWrite(ix)
		return
	}
	r.addr(s.X)
	if !r.shared(s.X) {
		return
	}
	op := "+"
	if s.Tok == token.DEC {
		op = "-"
	}
	r.update(s, s.X, op, nil, inList)
}

// update rewrites x op= v (v nil: x++ or x--) on a shared x into
//
//	precog_shim.WN(&precog_g, SITE, &x, (*precog_shim.RL(&precog_g, SITE', &x)) op (v))
//
// when x can be evaluated twice, else, in a statement list, into
//
//	{ precog_p := &x; precog_shim.WN(&precog_g, SITE, precog_p, (*precog_shim.RL(&precog_g, SITE', precog_p)) op (v)) }
func (r *rewriter) update(s ast.Stmt, x ast.Expr, op string, v ast.Expr, inList bool) {
	// With calls in v, which may change x's operands, x's address is
	// taken once, first, where a statement can go.
	pure := r.isPure(x) && (v == nil || r.isPure(v) || !inList)
	if !pure && !inList {
		r.skip("update of an operand with side effects in an init or post statement")
		return
	}
	lo, hi := r.span(s)
	xlo, xhi := r.span(x)
	sr := r.site(accessPos(x), "read", x)
	sw := r.site(accessPos(x), "write", x)
	var mid []piece
	end := []piece{lit(")")}
	if pure {
		r.ed.open(lo, hi, lit(r.writeCall(sw, r.typeOf(x))+"&"))
		mid = []piece{lit(", (*" + r.accessCall("R", sr) + "&"), copyOf(xlo, xhi), lit(")) " + op + " ")}
	} else {
		r.ed.open(lo, hi, lit("{ precog_p := &"))
		mid = []piece{lit("; " + r.writeCall(sw, r.typeOf(x)) + "precog_p, (*" + r.accessCall("R", sr) + "precog_p)) " + op + " ")}
		end = []piece{lit(") }")}
	}
	if v == nil {
		r.ed.replace(xhi, hi, lo, hi, append(append(mid, lit("1")), end...)...)
		return
	}
	r.ed.replace(xhi, r.off(v.Pos()), lo, hi, append(mid, lit("("))...)
	r.ed.close(lo, hi, append([]piece{lit(")")}, end...)...)
}

// assign rewrites an assignment.
func (r *rewriter) assign(s *ast.AssignStmt, inList bool) {
	lo, hi := r.span(s)
	switch {
	case s.Tok == token.DEFINE:
		var ids []*ast.Ident
		for _, l := range s.Lhs {
			id, _ := l.(*ast.Ident)
			ids = append(ids, id)
		}
		r.values(ids, s.Rhs)
		if !r.opts.Locals && inList {
			r.deferDef(s, ids)
		}
		var wrote []ast.Expr
		var defs map[ast.Expr]bool
		for _, id := range ids {
			if id != nil && r.info.Defs[id] == nil && r.shared(id) {
				wrote = append(wrote, id)
			} else if id != nil && r.opts.Locals && r.info.Defs[id] != nil && id.Name != "_" {
				wrote = append(wrote, id)
				if defs == nil {
					defs = make(map[ast.Expr]bool)
				}
				defs[id] = true
			}
		}
		r.wroteAfterDefs(s, wrote, defs, inList)
	case s.Tok == token.ASSIGN && len(s.Lhs) == 1 && len(s.Rhs) == 1:
		l, v := s.Lhs[0], s.Rhs[0]
		if ix, ok := ast.Unparen(l).(*ast.IndexExpr); ok && r.isMapIndex(ix) {
			r.mapWrite(ix)
			r.expr(v)
			return
		}
		r.addr(l)
		r.expr(v)
		if r.isBlank(l) || !r.shared(l) {
			return
		}
		site := r.site(accessPos(l), "write", l)
		_, lhi := r.span(l)
		if r.untypedOr(v, r.typeOf(l)) {
			r.ed.open(lo, hi, lit(r.writeCall(site, r.typeOf(l))+"&"))
			r.ed.replace(lhi, r.off(v.Pos()), lo, hi, lit(", "))
		} else {
			r.ed.open(lo, hi, lit(r.rt("At")+"("+site+", &"))
			r.ed.replace(lhi, r.off(v.Pos()), lo, hi, lit(").Set("))
		}
		r.ed.close(lo, hi, lit(")"))
	case s.Tok == token.ASSIGN:
		var wrote []ast.Expr
		for _, l := range s.Lhs {
			if ix, ok := ast.Unparen(l).(*ast.IndexExpr); ok && r.isMapIndex(ix) {
				r.mapWrite(ix)
				continue
			}
			r.addr(l)
			if !r.isBlank(l) && r.shared(l) {
				wrote = append(wrote, l)
			}
		}
		if len(s.Lhs) == 2 && len(s.Rhs) == 1 {
			if u, ok := ast.Unparen(s.Rhs[0]).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				r.expr(u.X)
				if r.isBlank(s.Lhs[1]) || types.Identical(r.typeOf(s.Lhs[1]), types.Typ[types.Bool]) {
					r.recv(u, true)
				} else {
					r.skip("comma-ok receive into a named bool")
				}
				r.wroteAfter(s, wrote, inList)
				return
			}
		}
		for _, v := range s.Rhs {
			r.expr(v)
		}
		r.wroteAfter(s, wrote, inList)
	default: // op-assignment
		l, v := s.Lhs[0], s.Rhs[0]
		if ix, ok := ast.Unparen(l).(*ast.IndexExpr); ok && r.isMapIndex(ix) {
			r.mapWrite(ix)
			r.expr(v)
			return
		}
		r.addr(l)
		r.expr(v)
		if !r.shared(l) {
			return
		}
		r.update(s, l, strings.TrimSuffix(s.Tok.String(), "="), v, inList)
	}
}

// wroteAfter records, after the statement s, the writes of its shared
// targets ls that the statement did itself. Targets that are variables
// keep their address and are recorded by Wrote after s; others (a[i],
// p.f) may move in s itself (a[i], i = x, y), so their addresses are noted
// while s evaluates its operands:
//
//	{ var precog_l precog_rt.Writes; *precog_rt.Later(&precog_l, SITE, &a[i]), i = x, y; precog_l.Done() }
func (r *rewriter) wroteAfter(s ast.Stmt, ls []ast.Expr, inList bool) {
	r.wroteAfterDefs(s, ls, nil, inList)
}

// wroteAfterDefs is wroteAfter, recording the targets in defs (new
// variables, under Options.Locals) with precog_shim.Def.
func (r *rewriter) wroteAfterDefs(s ast.Stmt, ls []ast.Expr, defs map[ast.Expr]bool, inList bool) {
	if len(ls) == 0 {
		return
	}
	// In an init or post statement nothing can follow s: it becomes a
	// call of a function literal that runs it and records the writes
	// (func() { p.a, p.b = x, y; Wrote... }()), which assigns the same
	// variables (a post statement's are those of the next iteration). New
	// variables (Locals) cannot move into one.
	wrap := !inList
	if wrap && len(defs) > 0 {
		r.skip("new variables of an init statement")
		return
	}
	lo, hi := r.span(s)
	later := false
	for _, l := range ls {
		if _, isVar := ast.Unparen(l).(*ast.Ident); !isVar {
			later = true
		}
	}
	if later && len(ls) > maxWrites {
		r.skip("multiple assignment to too many shared targets")
		return
	}
	var text []piece
	for _, l := range ls {
		site := r.site(accessPos(l), "write", l)
		llo, lhi := r.span(l)
		if later {
			r.ed.open(llo, lhi, lit("*"+r.rt("Later")+"(&precog_l, "+site+", &"))
			r.ed.close(llo, lhi, lit(")"))
			continue
		}
		fn := r.rt("Wrote")
		if defs[l] {
			fn = r.shim("Def")
		}
		text = append(text, lit("; "+fn+"("+site+", &"), copyOf(llo, lhi), lit(")"))
	}
	if later {
		open, end := "{ var precog_l "+r.rt("Writes")+"; ", "; precog_l.Done() }"
		if wrap {
			open, end = "func() "+open, end+"()"
		}
		r.ed.open(lo, hi, lit(open))
		r.ed.close(lo, hi, lit(end))
		return
	}
	if wrap {
		r.ed.open(lo, hi, lit("func() { "))
		text = append(text, lit(" }()"))
	}
	r.ed.close(lo, hi, text...)
}

// tryable reports whether the channel operand ch of a select's receive
// may be evaluated a second time when control forces its clause (the
// Try* calls run only then): a pure expression, ctx.Done() (successive
// calls return the same channel) or time.After(d) and time.Tick(d) (a
// second, unused timer is harmless).
func (r *rewriter) tryable(ch ast.Expr) bool {
	if r.isPure(ch) {
		return true
	}
	c, ok := ast.Unparen(ch).(*ast.CallExpr)
	if !ok {
		return false
	}
	for _, a := range c.Args {
		if !r.isPure(a) {
			return false
		}
	}
	switch fun := ast.Unparen(c.Fun).(type) {
	case *ast.SelectorExpr:
		if sel := r.info.Selections[fun]; sel != nil {
			f, ok := sel.Obj().(*types.Func)
			return ok && f.FullName() == "(context.Context).Done" && r.isPure(fun.X)
		}
		f, ok := r.info.Uses[fun.Sel].(*types.Func)
		return ok && (f.FullName() == "time.After" || f.FullName() == "time.Tick")
	}
	return false
}

// movesIn reports whether the target l, which is not a variable, uses a
// variable that the same assignment assigns (a[i] in a[i], i = ...): then
// evaluating l again after the assignment may give another address.
func (r *rewriter) movesIn(l ast.Expr, targets ...ast.Expr) bool {
	if _, isVar := ast.Unparen(l).(*ast.Ident); isVar {
		return false
	}
	assigned := map[types.Object]bool{}
	for _, t := range targets {
		if id, ok := ast.Unparen(t).(*ast.Ident); ok && r.info.ObjectOf(id) != nil {
			assigned[r.info.ObjectOf(id)] = true
		}
	}
	moves := false
	ast.Inspect(l, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && assigned[r.info.ObjectOf(id)] {
			moves = true
		}
		return !moves
	})
	return moves
}

// goStmt rewrites a go statement: the parent gets the child's logical id
// from precog_shim.Go, the child calls Begin first and defers End.
//
//	go func() { ... }()      ->  { precog_id := precog_shim.Go(SITE); go func() { precog_shim.Begin(precog_id); defer precog_shim.End(); ... }() }
//	go func(x T) { ... }(a)  ->  go func(x T, precog_id uint64) { precog_shim.Begin(precog_id); defer precog_shim.End(); ... }(a, precog_shim.Go(SITE))
//	go f(a, b)               ->  go func() func() { precog_f, precog_a0, precog_a1 := f, a, b; precog_id := precog_shim.Go(SITE); return func() { precog_shim.Begin(precog_id); defer precog_shim.End(); precog_f(precog_a0, precog_a1) } }()()
//
// all on the go statement's lines, with the go keyword where it was (so
// "created by" lines stay true). The parent evaluates f and its arguments
// in the function literal it calls, before Go records the fork, as Go
// evaluates them before the goroutine starts (palm's `go
// ptree.operationRunner(ptree.cache, true)` read the cache after its fork,
// unordered with the child's reset of it), and the child runs the
// closure it returns: a go statement of a function value without
// arguments, which the compiler starts as it is, so the child's stack
// holds that closure alone below f (through precog_rt.Run, as before,
// it held the compiler's wrapper of Run's arguments, Run and the
// closure: pond's 50,000 workers grow their stacks, and each frame made
// every copy dearer). Constant arguments are not hoisted
// (their type comes from the parameter).
func (r *rewriter) goStmt(s *ast.GoStmt) {
	c := s.Call
	lo, hi := r.span(s)
	begin := " " + r.shim("Begin") + "(precog_id); defer " + r.shim("End") + "();"
	if fl, ok := ast.Unparen(c.Fun).(*ast.FuncLit); ok {
		site := r.site(s.Go, "go", nil)
		r.sites[len(r.sites)-1].Expr = "go func literal"
		if r.idParam(fl, c) {
			r.ed.closeAt(r.off(fl.Type.Params.Closing), lo, hi, lit(r.appended(fl.Type.Params.List[len(fl.Type.Params.List)-1].End(), fl.Type.Params.Closing, "precog_id uint64")))
			r.funcLit(fl, begin, "")
			for _, a := range c.Args {
				r.expr(a)
			}
			r.ed.closeAt(r.off(c.Rparen), lo, hi, lit(r.appended(c.Args[len(c.Args)-1].End(), c.Rparen, r.shim("Go")+"("+site+")")))
			return
		}
		r.ed.open(lo, hi, lit("{ precog_id := "+r.shim("Go")+"("+site+"); "))
		r.funcLit(fl, begin, "")
		for _, a := range c.Args {
			r.expr(a)
		}
		r.ed.close(lo, hi, lit(" }"))
		return
	}
	if reason := r.goUnhoistable(c); reason != "" {
		r.skip(reason)
		r.call(c, callDefer)
		return
	}
	// Plan the elements: the function, then each argument. A function
	// declared at package level is not hoisted (it may be generic, and
	// evaluating it has no effect): its text moves into the call.
	type elem struct {
		e     ast.Expr
		names []string // hoisted into these; none for constants
	}
	fun := elem{e: c.Fun, names: []string{"precog_f"}}
	if id := r.calleeIdent(ast.Unparen(c.Fun)); id != nil {
		if f, ok := r.info.Uses[id].(*types.Func); ok && f.Type().(*types.Signature).Recv() == nil {
			fun.names = nil
		}
	}
	elems := []elem{fun}
	for i, a := range c.Args {
		tv := r.info.Types[a]
		el := elem{e: a}
		switch t := tv.Type.(type) {
		case *types.Tuple:
			for j := 0; j < t.Len(); j++ {
				el.names = append(el.names, "precog_a"+strconv.Itoa(i)+"_"+strconv.Itoa(j))
			}
		default:
			if tv.Value == nil && !tv.IsNil() {
				el.names = []string{"precog_a" + strconv.Itoa(i)}
			}
		}
		elems = append(elems, el)
	}
	// The separator before an element that is not hoisted becomes
	// nothing: it may span lines only before anything was hoisted (a
	// newline after "{ " or ":= " ends no statement).
	hoisted := len(fun.names) > 0
	for i := 1; i < len(elems); i++ {
		a, b := r.off(elems[i-1].e.End()), r.off(elems[i].e.Pos())
		if (len(elems[i].names) == 0 || !hoisted) && hoisted && !r.ed.canReplace(a, b, "") {
			r.skip("go statement with a constant argument on its own line")
			r.call(c, callDefer)
			return
		}
		hoisted = hoisted || len(elems[i].names) == 1
	}
	r.expr(c.Fun)
	for _, a := range c.Args {
		r.expr(a)
	}
	var names []string // hoisted by the first statement
	for _, el := range elems {
		if len(el.names) == 1 {
			names = append(names, el.names[0])
		}
	}
	call := []piece{lit("precog_f(")}
	if len(fun.names) == 0 {
		flo, fhi := r.span(c.Fun)
		call = []piece{copyOf(flo, fhi), lit("(")}
		r.ed.replace(flo, fhi, lo, hi)
	}
	hoisted = len(fun.names) > 0
	for i, el := range elems[1:] {
		if i > 0 {
			call = append(call, lit(", "))
		}
		alo, ahi := r.span(el.e)
		if len(el.names) == 0 {
			call = append(call, copyOf(alo, ahi))
			r.ed.replace(alo, ahi, lo, hi)
		} else {
			call = append(call, lit(strings.Join(el.names, ", ")))
		}
		sep := ""
		switch {
		case len(el.names) > 1: // the only argument: f(g()) with g returning several values
			if hoisted {
				sep = "; "
			}
			sep += strings.Join(el.names, ", ") + " := "
		case len(el.names) == 1 && hoisted:
			sep = ", "
		}
		hoisted = hoisted || len(el.names) == 1
		r.ed.replace(r.off(elems[i].e.End()), alo, lo, hi, lit(sep))
	}
	if c.Ellipsis.IsValid() {
		call = append(call, lit("..."))
	}
	head := ""
	if len(names) > 0 {
		head = strings.Join(names, ", ") + " := "
	}
	site := r.site(s.Go, "go", c.Fun)
	r.ed.replace(r.off(s.Go)+len("go"), r.off(c.Fun.Pos()), lo, hi,
		lit(" func() func() { "+head))
	tail := append([]piece{lit("; precog_id := " + r.shim("Go") + "(" + site + "); return func() {" + begin + " ")}, call...)
	tail = append(tail, lit(") } }()()"))
	r.ed.replace(r.off(elems[len(elems)-1].e.End()), hi, lo, hi, tail...)
}

// idParam reports whether the go statement's function literal can take
// the child's id as one more parameter, after those it has: go
// func(x T) { ... }(a) becomes go func(x T, precog_id uint64) { ... }(a,
// precog_shim.Go(SITE)). Go evaluates the calls among a call's operands
// from left to right, and every recorded read is a call, so the parent
// records its reads of the arguments before the fork, as it makes them
// before the goroutine starts; with the id taken first, a read of shared
// state in an argument came after the child's start in the trace and raced
// with what the child writes. A literal without arguments has nothing to
// order; a variadic one cannot take a parameter after its last, one with
// unnamed parameters cannot take a named one, and f(g()) cannot take
// another argument: those keep the id in a variable taken first.
func (r *rewriter) idParam(fl *ast.FuncLit, c *ast.CallExpr) bool {
	ps := fl.Type.Params.List
	if len(c.Args) == 0 || len(ps) == 0 || c.Ellipsis.IsValid() {
		return false
	}
	if _, ok := ps[len(ps)-1].Type.(*ast.Ellipsis); ok || len(ps[0].Names) == 0 {
		return false
	}
	if _, ok := r.info.Types[c.Args[0]].Type.(*types.Tuple); ok {
		return false
	}
	return true
}

// appended returns text to insert at close (a list's closing parenthesis)
// to add item after the list's last element, which ends at last: with a
// comma before it unless the list already ends with one.
func (r *rewriter) appended(last, close token.Pos, item string) string {
	var sc scanner.Scanner
	src := r.ed.src[r.off(last):r.off(close)]
	sc.Init(token.NewFileSet().AddFile("", -1, len(src)), src, nil, 0)
	for {
		_, tok, _ := sc.Scan()
		if tok == token.COMMA {
			return item
		}
		if tok == token.EOF {
			return ", " + item
		}
	}
}

// goUnhoistable says why the call of a go statement cannot be split into
// hoisted operands and a call in a function literal, or "".
func (r *rewriter) goUnhoistable(c *ast.CallExpr) string {
	if tv, ok := r.info.Types[c.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
		return "go statement calling a builtin"
	}
	for _, a := range c.Args {
		tv := r.info.Types[a]
		if b, ok := tv.Type.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 && tv.Value == nil && !tv.IsNil() {
			return "go statement with an untyped argument"
		}
	}
	return ""
}

// rangeStmt rewrites a range statement.
func (r *rewriter) rangeStmt(s *ast.RangeStmt) {
	xt := r.typeOf(s.X)
	_, isTP := xt.(*types.TypeParam)
	switch xt.Underlying().(type) {
	case *types.Chan:
		if !isTP && r.rangeChan(s) {
			r.stmts(s.Body.List)
			return
		}
		r.expr(s.X)
	case *types.Map:
		r.expr(s.X)
		r.mapOp(s.X, s.For, "map-range", "MI", s.X)
	case *types.Slice:
		r.expr(s.X)
		if !isTP {
			r.rangeElems(s)
		}
	case *types.Signature:
		r.expr(s.X)
		r.fn.inRangeFunc++
		defer func() { r.fn.inRangeFunc-- }()
	default:
		r.expr(s.X)
		if isTP {
			r.fn.inRangeFunc++ // its core type may be a function's
			defer func() { r.fn.inRangeFunc-- }()
		}
	}
	if s.Tok == token.ASSIGN {
		var text []piece
		for _, l := range []ast.Expr{s.Key, s.Value} {
			if l == nil {
				continue
			}
			r.addr(l)
			if r.isBlank(l) || !r.shared(l) {
				continue
			}
			if !r.isPure(l) || r.movesIn(l, s.Key, s.Value) {
				r.skip("range assigning an operand that may move")
				continue
			}
			site := r.site(accessPos(l), "write", l)
			llo, lhi := r.span(l)
			text = append(text, lit(" "+r.rt("Wrote")+"("+site+", &"), copyOf(llo, lhi), lit(");"))
		}
		if len(text) > 0 {
			blo, bhi := r.span(s.Body)
			r.ed.insert(blo+1, blo, bhi, text...)
		}
	}
	if s.Tok == token.DEFINE && r.before122 {
		r.loopVarWrites(s)
	}
	r.stmts(s.Body.List)
}

// loopVarWrites records, below go1.22, the range statement's writes of
// its variables at the start of each iteration when a closure captures
// them: there is one variable per loop, which a goroutine started in an
// earlier iteration may still be reading (the race go vet's loopclosure
// warns of). From go1.22 on, each iteration has variables of its own.
func (r *rewriter) loopVarWrites(s *ast.RangeStmt) {
	var text []piece
	for _, l := range []ast.Expr{s.Key, s.Value} {
		id, ok := l.(*ast.Ident)
		if !ok || r.isBlank(id) {
			continue
		}
		v, ok := r.info.Defs[id].(*types.Var)
		if !ok || !r.escaped[v] {
			continue
		}
		site := r.site(id.Pos(), "write", id)
		text = append(text, lit(" "+r.rt("Wrote")+"("+site+", &"+id.Name+");"))
		// The static analysis does not see the loop's writes race with
		// the closures' reads: record every access of the variable.
		if r.perLoop == nil {
			r.perLoop = make(map[types.Object]bool)
		}
		r.perLoop[v] = true
	}
	if len(text) > 0 {
		blo, bhi := r.span(s.Body)
		r.ed.insert(blo+1, blo, bhi, text...)
	}
}

// rangeElems records the element reads of a range over a slice that
// binds the value, one before each iteration, as the race detector sees
// them: for i, v := range s becomes
//
//	for i, v := range precog_rt.Elems(SITE, s) {
//
// a range over a function (go1.23) that reads s[i] and yields it. s is
// evaluated once, as before, so a reslicing of s.buf by another goroutine
// while the loop runs over the old slice is seen as what it is: writes
// of the header, reads of the old elements. Files below go1.23 keep the
// plain range (the element reads are not recorded).
func (r *rewriter) rangeElems(s *ast.RangeStmt) {
	if _, fresh := ast.Unparen(s.X).(*ast.CompositeLit); fresh || s.Value == nil || r.isBlank(s.Value) || r.before123 {
		return
	}
	if r.opts.Shared != nil && !r.opts.Shared(accessPos(s.X)) && !r.opts.Shared(s.Range) {
		return
	}
	site := r.site(s.Range, "read", nil)
	// An element's name: no variable or field, as for an index
	// expression (hb.Graph.Loc).
	r.sites[len(r.sites)-1].Expr = exprText(r.text(s.X)) + "[i]"
	lo, hi := r.span(s.X)
	r.ed.open(lo, hi, lit(r.rt("Elems")+"("+site+", "))
	r.ed.close(lo, hi, lit(")"))
}

// rangeChan rewrites for v := range ch into a loop of receives:
//
//	for precog_r, v := precog_rt.RangeOf(SITE, ch); precog_r.Next(&v); {
//
// It reports false if it left the statement alone.
func (r *rewriter) rangeChan(s *ast.RangeStmt) bool {
	if s.Tok == token.ASSIGN && r.isBlank(s.Key) {
		// for _ = range ch receives and discards, as for range ch does;
		// &_ is not an operand.
		r.expr(s.X)
		lo, hi := r.span(s)
		xlo, xhi := r.span(s.X)
		site := r.site(s.X.Pos(), "recv", s.X)
		r.ed.replace(r.off(s.Key.Pos()), xlo, lo, hi, lit("precog_r, _ := "+r.rt("RangeOf")+"("+site+", "))
		r.ed.closeAt(xhi, lo, hi, lit("); precog_r.Next(nil); "))
		return true
	}
	if s.Tok == token.ASSIGN {
		// for v = range ch: v moves behind the channel, so it must be
		// evaluated the same anywhere on the line.
		if !r.isPure(s.Key) || !r.ed.canReplace(r.off(s.For), r.off(s.X.End()), "") {
			r.skip("range over a channel assigning an operand with side effects")
			return false
		}
	}
	r.expr(s.X)
	lo, hi := r.span(s)
	xlo, xhi := r.span(s.X)
	site := r.site(s.X.Pos(), "recv", s.X)
	start := r.rt("RangeOf") + "(" + site + ", "
	if s.Tok == token.ASSIGN {
		r.addr(s.Key)
		klo, khi := r.span(s.Key)
		r.ed.replace(klo, xlo, lo, hi, lit("precog_r, _ := "+start))
		r.ed.closeAt(xhi, lo, hi, lit("); precog_r.Next(&"), copyOf(klo, khi), lit("); "))
		return true
	}
	if s.Key != nil {
		r.ed.insert(r.off(s.Key.Pos()), lo, hi, lit("precog_r, "))
		r.ed.replace(r.off(s.Key.End()), xlo, lo, hi, lit(" := "+start))
		r.ed.closeAt(xhi, lo, hi, lit("); precog_r.Next(&"+r.text(s.Key)+"); "))
	} else {
		r.ed.replace(r.off(s.Range), xlo, lo, hi, lit("precog_r, _ := "+start))
		r.ed.closeAt(xhi, lo, hi, lit("); precog_r.Next(nil); "))
	}
	return true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// selectStmt rewrites a select statement (labeled by l, if not nil); see
// rt.Select for the protocol.
func (r *rewriter) selectStmt(s *ast.SelectStmt, l *ast.LabeledStmt) {
	type clause struct {
		cc      *ast.CommClause
		index   int
		ch, val ast.Expr
		recv    *ast.UnaryExpr
		assign  *ast.AssignStmt
	}
	var cls []clause
	n := 0
	ok := true
	for _, st := range s.Body.List {
		cc := st.(*ast.CommClause)
		cl := clause{cc: cc, index: -1}
		switch c := cc.Comm.(type) {
		case nil:
		case *ast.SendStmt:
			cl.ch, cl.val = c.Chan, c.Value
		case *ast.ExprStmt:
			cl.recv, _ = ast.Unparen(c.X).(*ast.UnaryExpr)
		case *ast.AssignStmt:
			cl.assign = c
			cl.recv, _ = ast.Unparen(c.Rhs[0]).(*ast.UnaryExpr)
		}
		if cc.Comm != nil {
			if cl.recv != nil {
				cl.ch = cl.recv.X
			}
			if cl.ch == nil {
				ok = false
			} else if _, isTP := r.typeOf(cl.ch).(*types.TypeParam); isTP {
				ok = false
			}
			cl.index = n
			n++
		}
		cls = append(cls, cl)
	}
	// The wrapper's block goes around the labeled statement, so that a
	// `break L` in a case still names the select; but a goto cannot jump
	// into a block, so for a label that a goto names the block goes
	// inside the label (fasthttp's pipeline writer loops back with `goto
	// againChW` to a select with a default: left out, its receives and
	// sends were missing from the trace and the reader's accesses of each
	// request raced with the caller's). A label named by both is left.
	wrapLabel := l != nil
	if l != nil && r.hasGoto(l.Label.Name) {
		if breaksTo(s, l.Label.Name) {
			ok = false
		}
		wrapLabel = false
	}
	if !ok || n > maxCases || len(cls) == 0 {
		if len(cls) > 0 {
			r.skip("select not rewritable")
		}
		for _, cl := range cls {
			if cl.ch != nil {
				r.expr(cl.ch)
			}
			if cl.val != nil {
				r.expr(cl.val)
			}
			r.stmts(cl.cc.Body)
		}
		return
	}
	site := r.site(s.Select, "select", nil)
	r.sites[len(r.sites)-1].Expr = "select"
	var cases []byte // for the site table: 'r' or 's' per case with an index, in index order
	for _, cl := range cls {
		if cl.index >= 0 {
			cases = append(cases, "sr"[b2i(cl.recv != nil)])
		}
	}
	r.sites[len(r.sites)-1].Cases = string(cases)
	var try []piece
	for _, cl := range cls {
		i := strconv.Itoa(cl.index)
		switch {
		case cl.cc.Comm == nil:
			try = append(try, lit(r.rt("TryDefault")+"(&precog_s); "))
		case cl.recv != nil:
			if r.tryable(cl.ch) {
				clo, chi := r.span(cl.ch)
				try = append(try, lit(r.rt("TryRecv")+"(&precog_s, "+i+", "), copyOf(clo, chi), lit("); "))
			}
		default:
			elem := r.typeOf(cl.ch).Underlying().(*types.Chan).Elem()
			if r.isPure(cl.ch) && r.isPure(cl.val) && r.untypedOr(cl.val, elem) {
				clo, chi := r.span(cl.ch)
				vlo, vhi := r.span(cl.val)
				try = append(try, lit(r.rt("TrySend")+"(&precog_s, "+i+", "), copyOf(clo, chi), lit(", "), copyOf(vlo, vhi), lit("); "))
			}
		}
	}
	var outer ast.Node = s
	if wrapLabel {
		outer = l
	}
	lo, hi := r.span(outer)
	pre := []piece{lit("{ precog_s := " + r.rt("Plan") + "(" + site + "); if precog_s.Forcing() { ")}
	pre = append(pre, try...)
	pre = append(pre, lit("}; "))
	r.ed.open(lo, hi, pre...)
	r.ed.close(lo, hi, lit(" }"))

	for _, cl := range cls {
		cc := cl.cc
		i := strconv.Itoa(cl.index)
		clo, chi := r.span(cc)
		var body []piece
		switch {
		case cc.Comm == nil:
			body = strs(" precog_s.Defaulted();")
		case cl.recv != nil:
			r.expr(cl.ch)
			colo, cohi := r.span(cc.Comm)
			xlo, xhi := r.span(cl.ch)
			r.ed.insert(xlo, colo, cohi, lit(r.rt("Recv")+"(&precog_s, "+i+", "))
			r.ed.closeAt(xhi, colo, cohi, lit(")"))
			ok := "precog_ok"
			// val names the received value for Got, which records its
			// fingerprint (hb pairs the receive with its send by it).
			val := ""
			var wrote []piece
			elem := r.typeOf(cl.ch).Underlying().(*types.Chan).Elem()
			if a := cl.assign; a != nil && smallElem(elem) {
				if id, isID := a.Lhs[0].(*ast.Ident); isID {
					switch {
					case id.Name == "_" && a.Tok == token.DEFINE:
						llo, lhi := r.span(id)
						r.ed.replace(llo, lhi, colo, cohi, lit("precog_v"))
						val = "precog_v"
					case id.Name != "_" && (a.Tok == token.DEFINE || types.Identical(r.typeOf(id), elem)):
						val = id.Name
					}
				}
			}
			switch a := cl.assign; {
			case a == nil && smallElem(elem):
				r.ed.insert(colo, colo, cohi, lit("precog_v, precog_ok := "))
				val = "precog_v"
			case a == nil:
				r.ed.insert(colo, colo, cohi, lit("_, precog_ok := "))
			case len(a.Lhs) == 1:
				if a.Tok == token.ASSIGN {
					ok = "precog_s.Ok"
				}
				_, lhi := r.span(a.Lhs[0])
				r.ed.closeAt(lhi, colo, cohi, lit(", "+ok))
			default:
				if r.isBlank(a.Lhs[1]) {
					if a.Tok == token.ASSIGN {
						ok = "precog_s.Ok"
					}
					blo, bhi := r.span(a.Lhs[1])
					r.ed.replace(blo, bhi, colo, cohi, lit(ok))
				} else {
					ok = "bool(" + r.text(a.Lhs[1]) + ")" // it may be of a named bool type
				}
			}
			if a := cl.assign; a != nil && a.Tok == token.ASSIGN {
				for _, l := range a.Lhs {
					r.addr(l)
					if r.isBlank(l) || !r.shared(l) {
						continue
					}
					if !r.isPure(l) || r.movesIn(l, a.Lhs...) {
						r.skip("select receive into an operand that may move")
						continue
					}
					ws := r.site(accessPos(l), "write", l)
					llo, lhi := r.span(l)
					wrote = append(wrote, lit(" "+r.rt("Wrote")+"("+ws+", &"), copyOf(llo, lhi), lit(");"))
				}
			}
			if val != "" {
				body = append(strs(" "+r.rt("Got")+"(&precog_s, "+i+", "+ok+", "+val+");"), wrote...)
			} else {
				body = append(strs(" precog_s.Received("+i+", "+ok+");"), wrote...)
			}
		default:
			r.expr(cl.ch)
			r.expr(cl.val)
			colo, cohi := r.span(cc.Comm)
			xlo, xhi := r.span(cl.ch)
			r.ed.insert(xlo, colo, cohi, lit(r.rt("Send")+"(&precog_s, "+i+", "))
			r.ed.closeAt(xhi, colo, cohi, lit(")"))
			if elem := r.typeOf(cl.ch).Underlying().(*types.Chan).Elem(); smallElem(elem) && r.info.Types[cl.val].Value == nil && types.Identical(r.typeOf(cl.val), elem) {
				// Val records the value's fingerprint for Sent (a
				// value of another type, converted by the send, would
				// have another one).
				vlo, vhi := r.span(cl.val)
				r.ed.insert(vlo, colo, cohi, lit(r.rt("Val")+"(&precog_s, "+i+", "))
				r.ed.closeAt(vhi, colo, cohi, lit(")"))
			}
			body = strs(" precog_s.Sent(" + i + ");")
		}
		colon := r.off(cc.Colon) + 1
		r.ed.insert(colon, clo, chi, body...)
		r.stmts(cc.Body)
	}
}

// smallElem reports whether a select's element of type t is small enough
// to copy into a call that records its fingerprint (rt.Got, rt.Val): at
// most 64 bytes, and not of a type parameter's size.
func smallElem(t types.Type) bool {
	if _, ok := t.(*types.TypeParam); ok {
		return false
	}
	small := true
	func() {
		defer func() {
			if recover() != nil {
				small = false // a size go/types cannot compute
			}
		}()
		small = types.SizesFor("gc", "amd64").Sizeof(t) <= 64
	}()
	return small
}

// breaksTo reports whether n holds a `break label`.
func breaksTo(n ast.Node, label string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if b, ok := n.(*ast.BranchStmt); ok && b.Tok == token.BREAK && b.Label != nil && b.Label.Name == label {
			found = true
		}
		return !found
	})
	return found
}

// hasGoto reports whether the file has a goto to a label with this name.
func (r *rewriter) hasGoto(label string) bool {
	found := false
	ast.Inspect(r.file, func(n ast.Node) bool {
		if b, ok := n.(*ast.BranchStmt); ok && b.Tok == token.GOTO && b.Label != nil && b.Label.Name == label {
			found = true
		}
		return !found
	})
	return found
}

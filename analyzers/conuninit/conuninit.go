package conuninit

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/concurrent"
	"github.com/precog-dev/precog/analyzers/internal/fixes"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/srcfuncs"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/suppress"
	"github.com/precog-dev/precog/analyzers/locksets"
	"github.com/precog-dev/precog/analyzers/sharedloc"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// ID is the check's stable identifier.
const ID = finding.ConUninit

// Analyzer reports Con-UnInit bugs.
var Analyzer = &analysis.Analyzer{
	Name:       "conuninit",
	Doc:        analyzerutil.MustExtractDoc(doc, "conuninit"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/conuninit",
	Requires:   concurrent.Requires,
	Run:        analyzerutil.Guard(run, analyzerutil.NoSites),
	ResultType: analyzerutil.SitesType,
}

func init() { suppress.DefineAll(Analyzer) }

type checker struct {
	env *concurrent.Env
	rep *suppress.Reporter
	// requests caches requestBefore by handler registration and write,
	// asked once per read of the location and context.
	requests map[[2]ssa.Instruction]answer
}

func run(pass *analysis.Pass) (any, error) {
	c := &checker{env: concurrent.New(pass), rep: suppress.New(pass, ID), requests: make(map[[2]ssa.Instruction]answer)}
	for _, loc := range c.env.Shared.Locs() {
		if !loc.Elem {
			c.location(c.env.Shared.ByLoc[loc])
		}
	}
	wgs := c.wgCalls()
	c.waitGroups(wgs)
	c.addsInside(pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA))
	c.addsInsideElsewhere(wgs)
	return c.rep.Finish(), nil
}

func (c *checker) location(accs []*sharedloc.Access) {
	var writes []*sharedloc.Access
	for _, a := range accs {
		if a.Op == sharedloc.Store || a.Op == sharedloc.AtomicStore {
			writes = append(writes, a)
		}
	}
	if len(writes) == 0 {
		return
	}
	// The sets the shapes report against store a value other than the
	// zero one: a store of the zero value (discordgo's `v.wsConn = nil`
	// when the voice connection is abandoned) sets nothing a read could
	// miss; every write still counts as one that may come first.
	var sets []*sharedloc.Access
	for _, w := range writes {
		if !zeroStore(w) {
			sets = append(sets, w)
		}
	}
	if len(sets) == 0 {
		return
	}
	for _, r := range accs {
		if r.Op != sharedloc.Load || checked(r.Instr.(ssa.Value)) {
			continue
		}
		for _, x := range c.env.Goroutines.Of(r.Fn()) {
			if !c.env.Spend() {
				return
			}
			if c.writtenIn(writes, x) || c.initializedBefore(r, x, writes) {
				continue
			}
			if c.goroutineReads(r, x, sets) || c.starterReads(r, x, sets) {
				break
			}
		}
	}
}

// zeroStore reports whether w stores the zero value of its type, a
// constant: nil, 0, "" or false.
func zeroStore(w *sharedloc.Access) bool {
	st, ok := w.Instr.(*ssa.Store)
	if !ok {
		return false
	}
	k, ok := st.Val.(*ssa.Const)
	if !ok {
		return false
	}
	if k.Value == nil {
		return true
	}
	switch k.Value.Kind() {
	case constant.Bool:
		return !constant.BoolVal(k.Value)
	case constant.String:
		return constant.StringVal(k.Value) == ""
	case constant.Int, constant.Float, constant.Complex:
		return constant.Sign(k.Value) == 0
	}
	return false
}

// writtenIn reports whether one of writes runs in context x: the reader
// initializes the location itself.
func (c *checker) writtenIn(writes []*sharedloc.Access, x *goroutines.Context) bool {
	for _, w := range writes {
		for _, wx := range c.env.Goroutines.Of(w.Fn()) {
			if wx == x {
				return true
			}
		}
	}
	return false
}

// initializedBefore reports whether some write happens before r, or r's
// location is incremented (a counter rather than an initialization). A
// write through r's object before each close of that object's channel,
// which r follows a receive from, is one (see ordering's
// SentAfterOwnWrite): many goroutines may run the closing functions.
func (c *checker) initializedBefore(r *sharedloc.Access, x *goroutines.Context, writes []*sharedloc.Access) bool {
	for _, w := range writes {
		if readModifyWrite(w) {
			return true
		}
		for _, wx := range c.env.Goroutines.Of(w.Fn()) {
			if !c.env.Spend() {
				return true // the check stops; report nothing more
			}
			if _, ok := c.env.Order.SomeBefore(w.Instr, wx, r.Instr, x); ok {
				return true
			}
		}
	}
	return c.env.Order.SentAfterOwnWrite(r, x, writes)
}

// goroutineReads handles the first shape: r runs on the goroutines of x,
// started at x.Site, and the starter writes the location only after
// starting them. The goroutines of a handler registered at x.Site start
// at the first request that can reach it, which may come after the write
// (requestBefore). A report whose pair rests on an assumption about what
// orders or protects its sides (concurrent.Env.StartAssumption), or on
// the handler's server getting no request before the write, is of low
// confidence, as the other checks' are.
func (c *checker) goroutineReads(r *sharedloc.Access, x *goroutines.Context, writes []*sharedloc.Access) bool {
	site := x.Site
	if site == nil {
		return false
	}
	flow := c.env.Goroutines.Flow
	var first *sharedloc.Access
	var req request
	for _, w := range writes {
		if w.Fn() != site.Parent() {
			continue
		}
		if flow.MayFollow(w.Instr, site) {
			return false // may be set before the goroutine starts
		}
		if first != nil || !flow.MayFollow(site, w.Instr) {
			continue
		}
		if x.Kind != goroutines.Handler {
			first = w
		} else if q, ok := c.requestBefore(site, w.Instr); ok {
			first, req = w, q
		}
	}
	if first == nil || c.env.Shared.Local(first) {
		return false
	}
	p, ok := c.env.Overlap(r, first, func(p concurrent.Pair) bool {
		return p.CA != x || c.env.Ordered(p) || c.lockedInit(p, site) || c.env.CheckedNotNil(p)
	})
	if !ok {
		return false
	}
	expr := c.env.Expr(r.Pos(), r.Loc.String())
	msg := fmt.Sprintf("%s may be read before it is set: the goroutine started at %s can run before %s sets it",
		expr, c.where(site.Pos(), r.Pos()), source.FuncName(site.Parent()))
	set := fmt.Sprintf("set here, after the goroutine starts, by %s", source.FuncName(first.Fn()))
	if req.at != nil {
		msg = fmt.Sprintf("%s may be read before it is set: the handler registered at %s can serve a request before %s sets it",
			expr, c.where(site.Pos(), r.Pos()), source.FuncName(site.Parent()))
		set = fmt.Sprintf("set here, after the handler is registered, by %s", source.FuncName(first.Fn()))
	}
	related := c.env.Related(p, set)
	if req.at != nil {
		note := "a request may reach the handler from here, before the set"
		if req.assume != "" {
			note = "the test server's address is handed on here, before the set"
		}
		related = append(related, analysis.RelatedInformation{Pos: req.at.Pos(), Message: note})
	}
	c.rep.ReportAssuming(both(c.env.StartAssumption(p), req.assume), analysis.Diagnostic{
		Pos:            r.Pos(),
		Message:        msg,
		Related:        related,
		SuggestedFixes: setBeforeGo(c.env.Pass, first.Pos(), site),
	}, analyzerutil.RoleAt{Role: finding.RoleRead, Pos: r.Pos()}, analyzerutil.RoleAt{Role: finding.RoleInit, Pos: first.Pos()})
	return true
}

// lockedInit reports whether the starter of p's reading goroutine (p.A
// is the read, p.B the starter's write after site) holds a mutex in write
// mode from the start of the goroutine through the write, in one critical
// section, and the goroutine holds the same mutex at the read: the
// goroutine's critical section can begin only after the starter's ends,
// so after the write (a timer callback that takes the lock its starter
// held while arming it and storing the timer). One critical section: the
// lock sets at site and at the write name the same acquisition, and site
// is not in a loop, where the starter could release and take the lock
// again at that acquisition between the two.
func (c *checker) lockedInit(p concurrent.Pair, site ssa.CallInstruction) bool {
	if c.env.Goroutines.Flow.InLoop(site) {
		return false
	}
	atSite, atWrite := c.env.Locks.At(site), c.env.Locks.At(p.B.Instr)
	if p.CB.Test == nil {
		atSite, atWrite = c.env.Locks.AtOutsideTests(site), c.env.Locks.AtOutsideTests(p.B.Instr)
	}
	for _, h := range atSite {
		if h.Mode != locksets.Write || !h.Pos.IsValid() {
			continue
		}
		g, ok := atWrite.Lookup(h.Mutex)
		if !ok || g.Mode != locksets.Write || g.Pos != h.Pos {
			continue
		}
		if _, ok := p.VA.Locks.Lookup(h.Mutex); ok {
			return true
		}
	}
	return false
}

// setBeforeGo returns the fix of the first shape, initialize then start:
// move the assignment at pos above the go statement that starts the
// reader. It offers one only when the repair is mechanical: the
// assignment is a statement of its own right after the go statement, it
// sets one variable or field named by variables and fields alone, its
// value calls no function (a call could wait for the goroutine, or need
// it started), and the go statement does not evaluate what it sets.
func setBeforeGo(pass *analysis.Pass, pos token.Pos, spawn ssa.CallInstruction) []analysis.SuggestedFix {
	goStmt, ok := source.Innermost[*ast.GoStmt](pass, spawn.Pos())
	if !ok || goStmt.Go != spawn.Pos() {
		return nil
	}
	assign, ok := source.Innermost[*ast.AssignStmt](pass, pos)
	if !ok || assign.Tok != token.ASSIGN || len(assign.Lhs) != 1 || len(assign.Rhs) != 1 || !names(assign.Lhs[0]) || !pure(pass, assign.Rhs[0]) {
		return nil
	}
	lhs := types.ExprString(assign.Lhs[0])
	evaluated := false
	ast.Inspect(goStmt.Call, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && types.ExprString(e) == lhs {
			evaluated = true
		}
		return !evaluated
	})
	if evaluated {
		return nil
	}
	file, ok := source.Innermost[*ast.File](pass, goStmt.Pos())
	if !ok || fixes.Next(file, goStmt) != ast.Stmt(assign) {
		return nil
	}
	edits, ok := fixes.MoveBefore(pass, assign, goStmt)
	if !ok {
		return nil
	}
	return []analysis.SuggestedFix{{
		Message:   fmt.Sprintf("set %s before the go statement", lhs),
		TextEdits: edits,
	}}
}

// pure reports whether evaluating e calls no function and receives from
// no channel: conversions and the builtins len, cap, make and new are
// allowed, and function literals, whose bodies do not run here.
func pure(pass *analysis.Pass, e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				ok = false
			}
		case *ast.CallExpr:
			if tv := pass.TypesInfo.Types[n.Fun]; tv.IsType() {
				break
			}
			id, isIdent := ast.Unparen(n.Fun).(*ast.Ident)
			b, isBuiltin := pass.TypesInfo.Uses[id].(*types.Builtin)
			if !isIdent || !isBuiltin {
				ok = false
				break
			}
			switch b.Name() {
			case "len", "cap", "make", "new":
			default:
				ok = false
			}
		}
		return ok
	})
	return ok
}

// starterReads handles the second shape: r runs in the function that
// starts goroutines which write the location, after starting them. A
// report rests on its pair's assumption (concurrent.Env.StartAssumption) and,
// after a call handed an io.Pipe's reader, on the call returning before
// the reader's end (see handOff): with either, it is of low confidence.
func (c *checker) starterReads(r *sharedloc.Access, x *goroutines.Context, writes []*sharedloc.Access) bool {
	flow := c.env.Goroutines.Flow
	for _, w := range writes {
		for _, wx := range c.env.Goroutines.Of(w.Fn()) {
			site := wx.Site
			if site == nil || site.Parent() != r.Fn() || !flow.MayFollow(site, r.Instr) || copiedBefore(r, site) {
				continue
			}
			p, ok := c.pair(r, x, w)
			if !ok || p.CB != wx {
				continue
			}
			expr := c.env.Expr(r.Pos(), r.Loc.String())
			related := c.env.Related(p, fmt.Sprintf("set here by %s", source.FuncName(w.Fn())))
			assume := c.env.StartAssumption(p)
			if h, ok := c.pipeHandOff(r, writes); ok {
				assume = both(assume, h.assumption(expr))
				related = append(related, h.related()...)
			}
			c.rep.ReportAssuming(assume, analysis.Diagnostic{
				Pos: r.Pos(),
				Message: fmt.Sprintf("%s may be read before it is set: %s sets it on the goroutine started at %s, which may not have run yet",
					expr, source.FuncName(w.Fn()), c.where(site.Pos(), r.Pos())),
				Related: related,
			}, analyzerutil.RoleAt{Role: finding.RoleRead, Pos: r.Pos()}, analyzerutil.RoleAt{Role: finding.RoleInit, Pos: w.Pos()})
			return true
		}
	}
	return false
}

// both returns the assumption of a report that rests on two, a and b,
// either of which may be "": the report holds only if both do, so its
// message names each.
func both(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ", and " + b
}

// copiedBefore reports whether r reads a field of a variable of its
// function that a store of a whole value set before site: a parameter
// passed by value, which lives on the heap since a goroutine takes its
// address (gocron's runJob(f jobFunction) starts `go f.singletonRunner()`
// and sends on f.singletonQueue), or `c := *orig`. The field holds what
// the copy's source held, which that source's own initialization set,
// wherever it ran, so the goroutine's write sets it again, not first.
func copiedBefore(r *sharedloc.Access, site ssa.Instruction) bool {
	load, ok := r.Instr.(*ssa.UnOp)
	if !ok {
		return false
	}
	addr := load.X
	for {
		fa, ok := addr.(*ssa.FieldAddr)
		if !ok {
			break
		}
		addr = fa.X
	}
	alloc, ok := addr.(*ssa.Alloc)
	if !ok || addr == load.X {
		return false
	}
	for _, ref := range *alloc.Referrers() {
		if st, ok := ref.(*ssa.Store); ok && st.Addr == alloc && ssaflow.Dominates(st, site) {
			return true
		}
	}
	return false
}

// pair finds contexts in which r (in x) and w overlap with no order. A
// read of a field that a nil check in the same critical section found
// set, under a mutex w holds too, is not a read before the set (see
// concurrent.CheckedInSection): `if s.ch != nil { s.ch <- v }` under
// s.mu, with every s.ch = c under s.mu.
func (c *checker) pair(r *sharedloc.Access, x *goroutines.Context, w *sharedloc.Access) (concurrent.Pair, bool) {
	return c.env.Overlap(r, w, func(p concurrent.Pair) bool {
		return p.CA != x || c.env.Ordered(p) || c.env.CheckedNotNil(p)
	})
}

// where renders pos relative to from: "line N" in the same file, or
// "file.go:N".
func (c *checker) where(pos, from token.Pos) string {
	fset := c.env.Pass.Fset
	p, f := fset.Position(pos), fset.Position(from)
	if p.Filename == f.Filename {
		return fmt.Sprintf("line %d", p.Line)
	}
	return fmt.Sprintf("%s:%d", shortFile(p.Filename), p.Line)
}

func shortFile(name string) string {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '/' {
			return name[i+1:]
		}
	}
	return name
}

// checked reports whether the loaded value v is compared, or used as a
// condition: code that checks the value expects to see its zero value.
// A struct copied to a local variable whose fields are then only read and
// checked is checked too: a poller that copies a status under its lock
// and tests the copy's fields for the zero ("not ready yet",
// moby/policy-helpers' `status := tp.status`, then `status.LastUpdated !=
// nil`) expects the zero struct, while one field used as is (`*st.At`
// after checking only st.Err) is still a use of the zero value.
func checked(v ssa.Value) bool {
	refs := v.Referrers()
	if refs == nil {
		return true // unused
	}
	if len(*refs) == 0 {
		return true
	}
	if _, ok := v.Type().Underlying().(*types.Struct); ok && copiesChecked(*refs) {
		return true
	}
	for _, u := range *refs {
		switch u := u.(type) {
		case *ssa.If:
			return true
		case *ssa.BinOp:
			switch u.Op {
			case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
				return true
			}
		case *ssa.TypeAssert:
			if u.CommaOk {
				return true
			}
		case *ssa.ChangeType:
			if checked(u) {
				return true
			}
		}
	}
	return false
}

// copiesChecked reports whether refs, the uses of a struct value, only
// copy it to local variables whose fields are read and checked.
func copiesChecked(refs []ssa.Instruction) bool {
	for _, u := range refs {
		st, ok := u.(*ssa.Store)
		if !ok {
			return false
		}
		a, ok := st.Addr.(*ssa.Alloc)
		if !ok || a.Heap || !fieldReadsChecked(a) {
			return false
		}
	}
	return true
}

// fieldReadsChecked reports whether the address addr, of a local struct
// variable or of a field in it, is used only to store into and to read
// fields that are checked: no read of it whole, and no escape of the
// address.
func fieldReadsChecked(addr ssa.Value) bool {
	for _, u := range *addr.Referrers() {
		switch u := u.(type) {
		case *ssa.Store:
			if u.Addr != addr {
				return false // the address itself escapes
			}
		case *ssa.FieldAddr:
			if !fieldReadsChecked(u) {
				return false
			}
		case *ssa.UnOp:
			if _, whole := addr.(*ssa.Alloc); whole || u.Op != token.MUL || !checked(u) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// readModifyWrite reports whether w stores a value computed from a load of
// its own location, as counters and accumulators do.
func readModifyWrite(w *sharedloc.Access) bool {
	if w.Op == sharedloc.AtomicStore {
		return true
	}
	b, ok := w.Val.(*ssa.BinOp)
	if !ok {
		return false
	}
	for _, operand := range []ssa.Value{b.X, b.Y} {
		if load, ok := operand.(*ssa.UnOp); ok && load.Op == token.MUL {
			if loc, ok := sharedloc.AddrLoc(load.X); ok && loc == w.Loc {
				return true
			}
		}
	}
	return false
}

// A wgCall is a call of a WaitGroup's Add, Done or Wait (method, as
// model names it) on the one WaitGroup object wg.
type wgCall struct {
	instr  ssa.CallInstruction
	method string
	wg     sharedloc.Loc
}

// wgCalls returns the package's calls of WaitGroup methods whose
// WaitGroup is one object, in the order of its functions and their
// instructions.
func (c *checker) wgCalls() []wgCall {
	var calls []wgCall
	for _, fn := range c.env.Goroutines.Funcs() {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				site, ok := instr.(ssa.CallInstruction)
				if !ok || site.Common().IsInvoke() || len(site.Common().Args) == 0 {
					continue
				}
				name := model.CalleeName(site.Common())
				if name != model.WaitGroupAdd && name != model.WaitGroupDone && name != model.WaitGroupWait {
					continue
				}
				if objs := c.env.Shared.Objects(site.Common().Args[0]); len(objs) == 1 {
					calls = append(calls, wgCall{site, name, objs[0]})
				}
			}
		}
	}
	return calls
}

// waitGroups reports Done calls that can run before their Add.
func (c *checker) waitGroups(calls []wgCall) {
	env := c.env
	flow := env.Goroutines.Flow
	var adds, dones []wgCall
	for _, call := range calls {
		switch call.method {
		case model.WaitGroupAdd:
			adds = append(adds, call)
		case model.WaitGroupDone:
			dones = append(dones, call)
		}
	}
	for _, d := range dones {
	contexts:
		for _, g := range env.Goroutines.Of(d.instr.Parent()) {
			if g.Site == nil {
				continue
			}
			starter := g.Site.Parent()
			var late ssa.CallInstruction
			for _, a := range adds {
				if a.wg != d.wg {
					continue
				}
				for _, ax := range env.Goroutines.Of(a.instr.Parent()) {
					if ax == g {
						continue contexts // the goroutine adds for itself
					}
				}
				if a.instr.Parent() != starter {
					continue
				}
				if flow.MayFollow(a.instr, g.Site) {
					continue contexts // an Add may precede the start
				}
				if late == nil && flow.MayFollow(g.Site, a.instr) {
					late = a.instr
				}
			}
			if late == nil {
				continue
			}
			done := d.wg.String() + ".Done"
			if call, ok := source.Call(env.Pass, d.instr.Pos()); ok {
				done = source.Render(call.Fun)
			}
			rel := []analysis.RelatedInformation{{Pos: late.Pos(), Message: fmt.Sprintf("Add called here by %s, after the goroutine starts", source.FuncName(starter))}}
			rel = append(rel, env.RootInfo(g)...)
			c.rep.Report(analysis.Diagnostic{
				Pos:            d.instr.Pos(),
				Message:        fmt.Sprintf("%s may run before the matching Add: %s calls Add only after starting this goroutine, and the counter can go negative (sync: negative WaitGroup counter)", done, source.FuncName(starter)),
				Related:        rel,
				SuggestedFixes: addBeforeGo(env.Pass, late, g.Site),
			}, analyzerutil.RoleAt{Role: finding.RoleDone, Pos: methodPos(env.Pass, d.instr.Pos())},
				analyzerutil.RoleAt{Role: finding.RoleAdd, Pos: methodPos(env.Pass, late.Pos())})
			break
		}
	}
}

// addsInside reports a Wait that may return before the Add of a goroutine
// that its function starts, because the goroutine calls Add itself: `go
// func() { wg.Add(1); defer wg.Done(); ... }()` and then wg.Wait(). Go's
// rule (sync.WaitGroup's doc) is that an Add starting from zero happens
// before Wait; here nothing orders them, so Wait can find the counter at
// zero and return while the work runs on (go vet's waitgroup check reports
// the Add; this names the Wait it races with, as precog test does). The
// starting function must not Add to the WaitGroup itself (then the counter
// may be above zero at its Wait) and the Wait must be able to follow the
// go statement. The goroutine's function is the go statement's own
// callee, a closure or a function handed the WaitGroup as an argument;
// this covers a spawner's wrapper (`go func() { wg.Add(1); f() }()` in a
// function that takes f), for which the goroutines analysis makes no
// context of its own.
func (c *checker) addsInside(in *buildssa.SSA) {
	for _, starter := range srcfuncs.Of(in) {
		for _, b := range starter.Blocks {
			for _, instr := range b.Instrs {
				if g, ok := instr.(*ssa.Go); ok {
					if entry := g.Call.StaticCallee(); entry != nil && entry.Blocks != nil {
						c.addInside(g, entry, starter)
					}
				}
			}
		}
	}
}

// wgArg returns the WaitGroup operand of call if it calls method, or nil.
func wgArg(call ssa.CallInstruction, method string) ssa.Value {
	if call.Common().IsInvoke() || len(call.Common().Args) == 0 || model.CalleeName(call.Common()) != method {
		return nil
	}
	return call.Common().Args[0]
}

func (c *checker) addInside(g *ssa.Go, entry, starter *ssa.Function) {
	env := c.env
	// same reports whether the starter's WaitGroup operand v is the one
	// the goroutine's Add takes, w: an argument of the go statement, or
	// one object both may only be.
	same := func(v, w ssa.Value) bool {
		if p, ok := w.(*ssa.Parameter); ok && p.Parent() == entry {
			if i := slices.Index(entry.Params, p); i >= 0 && i < len(g.Call.Args) && g.Call.Args[i] == v {
				return true
			}
		}
		a, b := env.Shared.Objects(v), env.Shared.Objects(w)
		return len(a) == 1 && len(b) == 1 && a[0] == b[0]
	}
	for _, b := range entry.Blocks {
		for _, instr := range b.Instrs {
			add, ok := instr.(ssa.CallInstruction)
			if !ok {
				continue
			}
			w := wgArg(add, model.WaitGroupAdd)
			if w == nil {
				continue
			}
			if isDone(add) {
				continue // a Done by another name
			}
			var wait ssa.CallInstruction
			for _, sb := range starter.Blocks {
				for _, si := range sb.Instrs {
					call, ok := si.(ssa.CallInstruction)
					if !ok {
						continue
					}
					if v := wgArg(call, model.WaitGroupAdd); v != nil && same(v, w) {
						return // the starter counts too: the counter may not be zero at its Wait
					}
					if v := wgArg(call, model.WaitGroupWait); v != nil && wait == nil && same(v, w) && env.Goroutines.Flow.MayFollow(g, call) {
						wait = call
					}
				}
			}
			if wait == nil {
				return
			}
			c.reportWaitFirst(wait, add, g, starter, entry)
			return
		}
	}
}

// addsInsideElsewhere reports what addsInside does for a Wait in another
// function than the one that starts the goroutine: a server's Start runs
// `go s.serve()`, serve begins with s.wg.Add(1) and defers s.wg.Done(),
// and Stop calls s.wg.Wait(). A Stop right after Start can find the
// counter at zero and return before serve runs at all. The WaitGroup must
// be one object, every Add to it must be made at the start's own function
// by the goroutine it counts (a function that only `go` statements run,
// which also calls Done), and the Wait must run on another goroutine that
// may overlap it. A starter that waits for anything after the go
// statement (a receive, a select, a Wait of a WaitGroup or a Cond), in
// its own body or in a function of the package it calls there, may be
// waiting for the goroutine to signal that it has added: such a start is
// left alone.
func (c *checker) addsInsideElsewhere(calls []wgCall) {
	env := c.env
	var adds, waits []wgCall
	outside := make(map[sharedloc.Loc]bool) // some Add outside the goroutine it counts
	dones := make(map[*ssa.Function][]sharedloc.Loc)
	for _, call := range calls {
		fn := call.instr.Parent()
		switch {
		case call.method == model.WaitGroupWait:
			waits = append(waits, call)
		case call.method == model.WaitGroupDone || isDone(call.instr):
			dones[fn] = append(dones[fn], call.wg)
		default:
			if !startsOwn(env.Goroutines, fn) {
				outside[call.wg] = true
			}
			adds = append(adds, call)
		}
	}
	for _, w := range waits {
		if outside[w.wg] {
			continue
		}
	adds:
		for _, a := range adds {
			fn := a.instr.Parent()
			if a.wg != w.wg || !slices.Contains(dones[fn], a.wg) {
				continue
			}
			for _, g := range env.Goroutines.Of(fn) {
				starter := g.Site.Parent()
				if starter == w.instr.Parent() || waitsAfter(env.Goroutines, starter, g.Site, 3) {
					continue // addsInside's, or a start that may wait for the Add
				}
				for _, cw := range env.Goroutines.Of(w.instr.Parent()) {
					if cw == g || !goroutines.MayOverlap(cw, g) {
						continue
					}
					c.reportWaitFirst(w.instr, a.instr, g.Site, w.instr.Parent(), fn)
					break adds
				}
			}
		}
	}
}

// isDone reports whether call is an Add of a constant delta below one.
func isDone(call ssa.CallInstruction) bool {
	d, ok := call.Common().Args[1].(*ssa.Const)
	return ok && d.Int64() <= 0
}

// startsOwn reports whether fn runs only as the function of `go`
// statements (or spawners) of the package: the goroutines it begins.
func startsOwn(gr *goroutines.Result, fn *ssa.Function) bool {
	cs := gr.Of(fn)
	for _, g := range cs {
		if g.Site == nil || g.Entry != fn {
			return false
		}
	}
	return len(cs) > 0
}

// waitsAfter reports whether fn may, after instr, wait for another
// goroutine: receive from a channel, select, or call a WaitGroup's or a
// Cond's Wait, in its own body or, depth calls down, in a function of the
// package it calls.
func waitsAfter(gr *goroutines.Result, fn *ssa.Function, instr ssa.Instruction, depth int) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			if instr != nil && !gr.Flow.MayFollow(instr, in) {
				continue
			}
			if blocks(gr, in, depth) {
				return true
			}
		}
	}
	return false
}

// blocks reports whether in may wait for another goroutine (waitsAfter).
func blocks(gr *goroutines.Result, in ssa.Instruction, depth int) bool {
	switch in := in.(type) {
	case *ssa.UnOp:
		return in.Op == token.ARROW
	case *ssa.Select:
		return true
	case ssa.CallInstruction:
		if _, isGo := in.(*ssa.Go); isGo {
			return false
		}
		switch model.CalleeName(in.Common()) {
		case model.WaitGroupWait, "(*sync.Cond).Wait":
			return true
		}
		if depth == 0 {
			return false
		}
		for _, callee := range gr.CallGraph.Callees(in) {
			if callee.Blocks != nil && waitsAfter(gr, callee, nil, depth-1) {
				return true
			}
		}
	}
	return false
}

// reportWaitFirst reports a Wait that may return before add, made at the
// start of the goroutine site starts.
func (c *checker) reportWaitFirst(wait, add ssa.CallInstruction, site ssa.CallInstruction, waiter, entry *ssa.Function) {
	name := "the WaitGroup"
	if call, ok := source.Call(c.env.Pass, wait.Pos()); ok {
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			name = source.Render(sel.X)
		}
	}
	c.rep.Report(analysis.Diagnostic{
		Pos: wait.Pos(),
		Message: fmt.Sprintf("%s.Wait in %s may return before %s calls Add with the counter at zero, and so before the work it counts; Add should come before the go statement",
			name, source.FuncName(waiter), source.FuncName(entry)),
		Related: []analysis.RelatedInformation{
			{Pos: add.Pos(), Message: fmt.Sprintf("Add called here by %s, inside the goroutine it counts", source.FuncName(entry))},
			{Pos: site.Pos(), Message: "goroutine started here"},
		},
	}, analyzerutil.RoleAt{Role: finding.RoleWait, Pos: methodPos(c.env.Pass, wait.Pos())},
		analyzerutil.RoleAt{Role: finding.RoleAdd, Pos: methodPos(c.env.Pass, add.Pos())})
}

// addBeforeGo returns the fix of a late Add: move it above the go
// statement that starts the goroutine. It offers one only when the repair
// is mechanical: the Add is a statement of its own right after the go
// statement, its WaitGroup is named by variables and fields alone and its
// delta is a constant, so that the Add means the same one line earlier.
// An Add further down, or after a loop of go statements, may count
// something else, and is left to the author.
func addBeforeGo(pass *analysis.Pass, add, spawn ssa.CallInstruction) []analysis.SuggestedFix {
	goStmt, ok := source.Innermost[*ast.GoStmt](pass, spawn.Pos())
	if !ok || goStmt.Go != spawn.Pos() {
		return nil // started by a call such as errgroup's Go
	}
	stmt, ok := source.Innermost[*ast.ExprStmt](pass, add.Pos())
	if !ok {
		return nil
	}
	call, ok := stmt.X.(*ast.CallExpr)
	if !ok || call.Lparen != add.Pos() || len(call.Args) != 1 || pass.TypesInfo.Types[call.Args[0]].Value == nil {
		return nil
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || !names(sel.X) {
		return nil
	}
	file, ok := source.Innermost[*ast.File](pass, goStmt.Pos())
	if !ok || fixes.Next(file, goStmt) != ast.Stmt(stmt) {
		return nil
	}
	edits, ok := fixes.MoveBefore(pass, stmt, goStmt)
	if !ok {
		return nil
	}
	return []analysis.SuggestedFix{{
		Message:   fmt.Sprintf("call %s before the go statement", types.ExprString(call)),
		TextEdits: edits,
	}}
}

// names reports whether e is an identifier or a chain of field selections
// (s.inflight, c.pool.wg), whose evaluation has no effect and no call.
func names(e ast.Expr) bool {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return true
		case *ast.SelectorExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return false
		}
	}
}

// methodPos returns the position of the method name of the call at pos,
// where the instrumenter puts the call's site (the Done of
// wg.Done()), or pos itself when it is not a method call.
func methodPos(pass *analysis.Pass, pos token.Pos) token.Pos {
	if call, ok := source.Call(pass, pos); ok {
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			return sel.Sel.Pos()
		}
	}
	return pos
}

package conclosed

import (
	"cmp"
	_ "embed"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/concurrent"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/internal/suppress"
	"github.com/precog-dev/precog/analyzers/sharedloc"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// ID is the check's stable identifier.
const ID = finding.ConClosed

// Analyzer reports uses after a concurrent close or release.
var Analyzer = &analysis.Analyzer{
	Name:       "conclosed",
	Doc:        analyzerutil.MustExtractDoc(doc, "conclosed"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/conclosed",
	Requires:   concurrent.Requires,
	Run:        analyzerutil.Guard(run, analyzerutil.NoSites),
	ResultType: analyzerutil.SitesType,
}

func init() { suppress.DefineAll(Analyzer) }

type checker struct {
	env      *concurrent.Env
	rep      *suppress.Reporter
	recovers map[*ssa.Function]bool
	fresh    map[*types.Var]bool // freshOnly's, by field
	claims   map[*sharedloc.Access]claimResult
	fresh2   map[[2]sharedloc.Loc]bool // freshEntries', by field and map
	// closePairs are the pairs of closes reported, by their positions in
	// order. A pair is one bug, reported once, at the close met first:
	// a close may be found under two locations (a helper's channel
	// parameter that callers fill from two fields), and under each a
	// close is reported with the first partner it meets, so without a
	// key of the whole package's the pair could come in both orders.
	closePairs map[[2]token.Pos]bool
}

func run(pass *analysis.Pass) (any, error) {
	c := &checker{env: concurrent.New(pass), rep: suppress.New(pass, ID), recovers: map[*ssa.Function]bool{}, fresh: map[*types.Var]bool{}, claims: map[*sharedloc.Access]claimResult{}, fresh2: map[[2]sharedloc.Loc]bool{}, closePairs: map[[2]token.Pos]bool{}}
	for _, loc := range c.env.Shared.Locs() {
		accs := c.env.Shared.ByLoc[loc]
		c.channels(loc, accs)
		c.mapRanges(accs)
		c.truncations(loc, accs)
	}
	c.releases()
	c.tests()
	return c.rep.Finish(), nil
}

// channels reports sends after, and closes concurrent with, a close of
// the channels at loc.
func (c *checker) channels(loc sharedloc.Loc, accs []*sharedloc.Access) {
	var closes []*sharedloc.Access
	for _, a := range accs {
		if a.Op == sharedloc.ChanClose && !c.recovered(a.Fn()) {
			closes = append(closes, a)
		}
	}
	if len(closes) == 0 {
		return
	}
	env := c.env
	tok := &tokenChan{c: c, loc: loc, accs: accs}
	for _, a := range accs {
		if c.recovered(a.Fn()) {
			continue
		}
		switch a.Op {
		case sharedloc.ChanSend:
			for _, cl := range closes {
				safe := func(p concurrent.Pair) bool {
					return env.Excluded(p) || env.ABefore(p) || c.stopped(p) || c.nilled(p) || env.TurnBefore(p) || env.Removed(p) || env.ElectedBefore(p) || c.sendClaimed(a, cl)
				}
				if p, ok := env.Overlap(a, cl, safe); ok {
					ch := c.chanExpr(a)
					closer := source.FuncName(cl.Fn())
					c.rep.ReportAssuming(env.Assumption(p), analysis.Diagnostic{
						Pos:     a.Pos(),
						Message: fmt.Sprintf("send on closed channel: %s may be closed concurrently by %s", ch, closer),
						Related: env.Related(p, fmt.Sprintf("%s closed here by %s", c.chanExpr(cl), closer)),
					}, analyzerutil.RoleAt{Role: finding.RoleSend, Pos: a.Pos()}, analyzerutil.RoleAt{Role: finding.RoleClose, Pos: cl.Pos()})
					break
				}
			}
		case sharedloc.ChanClose:
			if elected(a.Instr) {
				continue
			}
			for _, cl := range closes {
				key := closeKey(a, cl)
				if elected(cl.Instr) || c.closePairs[key] {
					continue
				}
				if c.claimed(a, cl) {
					continue
				}
				if p, assume, ok := c.closeOverlap(tok, a, cl); ok {
					c.closePairs[key] = true
					closer := source.FuncName(cl.Fn())
					what := fmt.Sprintf("%s closed here by %s", c.chanExpr(cl), closer)
					if cl == a {
						what = "the same close, on another goroutine"
					}
					c.rep.ReportAssuming(assume, analysis.Diagnostic{
						Pos:     a.Pos(),
						Message: fmt.Sprintf("close of closed channel: %s may also be closed by %s", c.chanExpr(a), closer),
						Related: env.Related(p, what),
					}, analyzerutil.RoleAt{Role: finding.RoleClose, Pos: a.Pos()}, analyzerutil.RoleAt{Role: finding.RoleClose, Pos: cl.Pos()})
					break
				}
			}
		}
	}
}

// closeKey identifies the pair of closes a and b, in either order.
func closeKey(a, b *sharedloc.Access) [2]token.Pos {
	if b.Pos() < a.Pos() {
		a, b = b, a
	}
	return [2]token.Pos{a.Pos(), b.Pos()}
}

// closeOverlap returns a pair of contexts in which the closes a and b may
// run at once, unprotected, and what a report of it assumes. A pair in
// which both closes take the channel's one token first (see tokenChan)
// is returned only when every unprotected pair does, with the token's
// assumption if the pair rests on no other.
func (c *checker) closeOverlap(tok *tokenChan, a, b *sharedloc.Access) (concurrent.Pair, string, bool) {
	env := c.env
	lowered := false
	p, ok := env.Overlap(a, b, func(p concurrent.Pair) bool {
		if env.Unprotected(p) {
			return true
		}
		if tok.both(p) {
			lowered = true
			return true
		}
		return false
	})
	if ok {
		return p, env.Assumption(p), true
	}
	if !lowered {
		return p, "", false
	}
	if p, ok = env.Overlap(a, b, env.Unprotected); !ok {
		return p, "", false
	}
	if assume := env.Assumption(p); assume != "" {
		return p, assume, true
	}
	return p, tok.assumption(p), true
}

// elected reports whether instr runs only on a branch decided by an
// atomic read-modify-write, as in
//
//	if atomic.AddInt32(&pending, -1) == 0 { close(done) }
//	if closed.CompareAndSwap(false, true) { close(ch) }
//
// which elects one goroutine to run it.
func elected(instr ssa.Instruction) bool {
	for b := instr.Block(); b != nil; b = b.Idom() {
		idom := b.Idom()
		if idom == nil {
			return false
		}
		ifi, ok := idom.Instrs[len(idom.Instrs)-1].(*ssa.If)
		if ok && atomicDerived(ifi.Cond, 4) {
			return true
		}
	}
	return false
}

func atomicDerived(v ssa.Value, depth int) bool {
	if depth == 0 {
		return false
	}
	switch v := v.(type) {
	case *ssa.Call:
		name := model.CalleeName(&v.Call)
		if !strings.HasPrefix(name, "sync/atomic.") && !strings.HasPrefix(name, "(*sync/atomic.") {
			return false
		}
		return strings.Contains(name, "Add") || strings.Contains(name, "CompareAndSwap") || strings.Contains(name, "Swap")
	case *ssa.BinOp:
		return atomicDerived(v.X, depth-1) || atomicDerived(v.Y, depth-1)
	case *ssa.UnOp:
		return atomicDerived(v.X, depth-1)
	case *ssa.Convert:
		// int(n.Add(1)) == total
		return atomicDerived(v.X, depth-1)
	case *ssa.ChangeType:
		return atomicDerived(v.X, depth-1)
	case *ssa.Extract:
		return atomicDerived(v.Tuple, depth-1)
	}
	return false
}

// recovered reports whether fn defers a function that calls recover, so
// that a panic in fn does not crash the program.
func (c *checker) recovered(fn *ssa.Function) bool {
	if r, ok := c.recovers[fn]; ok {
		return r
	}
	r := false
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			d, ok := instr.(*ssa.Defer)
			if !ok {
				continue
			}
			if callee := d.Call.StaticCallee(); callee != nil && callsRecover(callee) {
				r = true
			}
		}
	}
	c.recovers[fn] = r
	return r
}

func callsRecover(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if call, ok := instr.(*ssa.Call); ok {
				if b, ok := call.Call.Value.(*ssa.Builtin); ok && b.Name() == "recover" {
					return true
				}
			}
		}
	}
	return false
}

// mapRanges reports range loops over a map that another goroutine writes.
func (c *checker) mapRanges(accs []*sharedloc.Access) {
	for _, r := range accs {
		if r.Op != sharedloc.MapRange {
			continue
		}
		for _, w := range accs {
			if w.Op != sharedloc.MapUpdate && w.Op != sharedloc.MapDelete {
				continue
			}
			if p, ok := c.env.Overlap(r, w, c.env.Unprotected); ok {
				m := c.env.Expr(r.Pos(), r.Loc.Holder().String())
				if n, ok := source.Innermost[*ast.RangeStmt](c.env.Pass, r.Pos()); ok {
					m = source.Render(n.X)
				}
				writer := source.FuncName(w.Fn())
				c.rep.ReportAssuming(c.env.Assumption(p), analysis.Diagnostic{
					Pos:     r.Pos(),
					Message: fmt.Sprintf("%s is iterated here while %s may write it concurrently (concurrent map iteration and map write)", m, writer),
					Related: c.env.Related(p, fmt.Sprintf("map written here by %s", writer)),
				})
				break
			}
		}
	}
}

// truncations reports uses of a slice's elements while another goroutine
// truncates the slice to reuse its array (s.buf = s.buf[:0]).
func (c *checker) truncations(loc sharedloc.Loc, accs []*sharedloc.Access) {
	if loc.Elem {
		return
	}
	var truncs []*sharedloc.Access
	for _, a := range accs {
		if a.Op == sharedloc.Store && isTruncation(a) {
			truncs = append(truncs, a)
		}
	}
	if len(truncs) == 0 {
		return
	}
	for _, u := range c.env.Shared.ByLoc[loc.Contents()] {
		if u.Op != sharedloc.Load {
			continue
		}
		for _, t := range truncs {
			if p, ok := c.env.Overlap(u, t, c.env.Unprotected); ok {
				c.reportRelease(p, t, "truncates it to reuse its array")
				break
			}
		}
	}
}

// isTruncation reports whether a stores loc[:0] (or loc[0:0]) back to loc.
func isTruncation(a *sharedloc.Access) bool {
	s, ok := a.Val.(*ssa.Slice)
	if !ok || s.High == nil {
		return false
	}
	high, ok := s.High.(*ssa.Const)
	if !ok || high.Int64() != 0 {
		return false
	}
	load, ok := s.X.(*ssa.UnOp)
	if !ok {
		return false
	}
	loc, ok := sharedloc.AddrLoc(load.X)
	return ok && loc == a.Loc
}

// releases reports uses of buffers that another goroutine Resets and of
// objects that another goroutine returns to a sync.Pool. A call that only
// reads a buffer's counters (model.Counts) is no use.
func (c *checker) releases() {
	env := c.env
	resets := map[sharedloc.Loc][]*sharedloc.Access{} // by the buffer's location
	puts := map[sharedloc.Loc][]*sharedloc.Access{}   // by the location the object was loaded from
	uses := map[sharedloc.Loc][]*sharedloc.Access{}   // method calls on buffers, by location
	var locs []sharedloc.Loc                          // in order of first appearance
	seen := map[sharedloc.Loc]bool{}
	note := func(l sharedloc.Loc) {
		if !seen[l] {
			seen[l] = true
			locs = append(locs, l)
		}
	}
	for _, fn := range env.Goroutines.Funcs() {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(*ssa.Call)
				if !ok || call.Call.IsInvoke() || len(call.Call.Args) == 0 {
					continue
				}
				callee := call.Call.StaticCallee()
				if callee == nil {
					continue
				}
				name := model.Name(callee)
				recv := call.Call.Args[0]
				switch {
				case name == model.PoolPut && len(call.Call.Args) == 2:
					obj := call.Call.Args[1]
					for _, l := range env.Shared.Objects(obj) {
						note(l)
						puts[l] = append(puts[l], &sharedloc.Access{Instr: call, Loc: l, Op: sharedloc.Store, Base: sharedloc.Root(obj), Ptr: obj})
					}
				case callee.Signature.Recv() != nil && hasReset(recv.Type()):
					for _, l := range env.Shared.Objects(recv) {
						note(l)
						a := &sharedloc.Access{Instr: call, Loc: l, Op: sharedloc.Load, Base: sharedloc.Root(recv), Ptr: recv}
						if _, ok := model.Releases[name]; ok {
							a.Op = sharedloc.Store
							resets[l] = append(resets[l], a)
						} else if !model.Counts[name] {
							uses[l] = append(uses[l], a)
						}
					}
				}
			}
		}
	}
	for _, loc := range locs {
		for _, u := range uses[loc] {
			for _, r := range resets[loc] {
				if p, ok := env.Overlap(u, r, env.Unprotected); ok {
					c.reportRelease(p, r, "Resets it")
					break
				}
			}
		}
		if len(puts[loc]) == 0 {
			continue
		}
		for _, u := range env.Shared.ByLoc[loc] {
			if u.Op != sharedloc.Load || len(env.Derefs(u.Instr.(ssa.Value))) == 0 {
				continue
			}
			for _, r := range puts[loc] {
				if p, ok := env.Overlap(u, r, env.Unprotected); ok {
					c.reportRelease(p, r, "returns it to a sync.Pool")
					break
				}
			}
		}
	}
}

// hasReset reports whether t is a pointer to a type with a modeled
// releasing method.
func hasReset(t types.Type) bool {
	p, ok := t.Underlying().(*types.Pointer)
	if !ok {
		return false
	}
	named, ok := types.Unalias(p.Elem()).(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return false
	}
	name := "(*" + named.Obj().Pkg().Path() + "." + named.Obj().Name() + ")."
	for m := range model.Releases {
		if len(m) > len(name) && m[:len(name)] == name {
			return true
		}
	}
	return false
}

func (c *checker) reportRelease(p concurrent.Pair, release *sharedloc.Access, how string) {
	env := c.env
	use := p.A
	expr := env.Expr(use.Pos(), use.Loc.Holder().String())
	releaser := source.FuncName(release.Fn())
	c.rep.ReportAssuming(env.Assumption(p), analysis.Diagnostic{
		Pos:     use.Pos(),
		Message: fmt.Sprintf("%s may be used after %s releases it: it %s concurrently", expr, releaser, how),
		Related: env.Related(p, fmt.Sprintf("released here by %s", releaser)),
	})
}

// tests reports testing methods called from goroutines the test does not
// wait for.
func (c *checker) tests() {
	env := c.env
	// One diagnostic per goroutine and test: a goroutine that outlives
	// its test makes every testing call after the test's return panic,
	// and the fix (the test waits for it) is one, however many calls
	// it makes (gorilla/websocket: eight t.Errorf of one goroutine).
	type key struct {
		site ssa.Instruction
		test *ssa.Function
	}
	reports := make(map[key]*outliveReport)
	var order []key
	for _, fn := range env.Goroutines.Funcs() {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(*ssa.Call)
				if !ok || !model.TestingReports[model.CalleeName(&call.Call)] {
					continue
				}
				for _, g := range env.Goroutines.Of(fn) {
					if test, ret, ok := c.outlives(call, g); ok {
						k := key{g.Site, test}
						r := reports[k]
						if r == nil {
							r = &outliveReport{g: g, ret: ret}
							reports[k] = r
							order = append(order, k)
						}
						r.calls = append(r.calls, call)
						if a := c.serveClosedAssumption(call, test, testingParam(test)); a != "" {
							r.assume = a
						} else {
							r.plain = true
						}
						break
					}
				}
			}
		}
	}
	// Goroutines of one shape in many tests (each test starts a server
	// helper on a goroutine of its own and reports its error: go-mail's
	// 145 tests) are one finding, at the first, with one fix: the helper
	// joined by its tests.
	same := map[string][]key{}
	for _, k := range order {
		r := reports[k]
		slices.SortFunc(r.calls, func(a, b *ssa.Call) int { return cmp.Compare(a.Pos(), b.Pos()) })
		r.calls = slices.CompactFunc(r.calls, func(a, b *ssa.Call) bool { return a.Pos() == b.Pos() })
		if s := goroutineShape(r.g, r.calls); s != "" {
			s += "|" + r.assumption()
			same[s] = append(same[s], k)
		}
	}
	for _, k := range order {
		r := reports[k]
		var twins []key
		if s := goroutineShape(r.g, r.calls); s != "" {
			if ks := same[s+"|"+r.assumption()]; ks[0] != k {
				continue // reported with the first of its shape
			} else {
				twins = ks[1:]
			}
		}
		first := r.calls[0]
		name, helper := c.testName(k.test)
		msg := fmt.Sprintf("%s called from a goroutine that may outlive the test: %s can return before it runs, and then the call panics",
			env.Expr(first.Pos(), "testing method"), name)
		related := env.RootInfo(r.g)
		if more := len(r.calls) - 1; more > 0 {
			msg += fmt.Sprintf(" (as would %d more testing call%s of this goroutine)", more, plural(more))
			for _, call := range r.calls[1:] {
				related = append(related, analysis.RelatedInformation{Pos: call.Pos(), Message: env.Expr(call.Pos(), "testing method") + " panics too"})
			}
		}
		if n := len(twins); n > 0 {
			msg += fmt.Sprintf("; so may %d more goroutine%s of the same code", n, plural(n))
			for _, t := range twins {
				o := reports[t]
				tn, _ := c.testName(t.test)
				related = append(related, analysis.RelatedInformation{Pos: o.calls[0].Pos(), Message: "the same in " + tn})
			}
		}
		c.rep.ReportAssuming(r.assumption(), analysis.Diagnostic{
			Pos:     first.Pos(),
			Message: msg,
			Related: append(related, analysis.RelatedInformation{Pos: returnPos(r.ret), Message: retMsg(helper)}),
		})
	}
}

// An outliveReport is the testing calls of the goroutines of g that may
// run after their test has returned at ret.
type outliveReport struct {
	calls []*ssa.Call
	g     *goroutines.Context
	ret   ssa.Instruction
	// assume is what the report assumes when every call of it does
	// (serveClosedAssumption); plain, that one assumes nothing.
	assume string
	plain  bool
}

// assumption is what the report assumes, "" for nothing.
func (r *outliveReport) assumption() string {
	if r.plain {
		return ""
	}
	return r.assume
}

// goroutineShape returns what makes the function literal that g's
// goroutines run the same code as another one: the functions it calls
// (but the testing methods) and the testing calls reported in it, each
// with its format, when it calls something else than testing methods
// and each reported call has a constant first argument; "" otherwise.
func goroutineShape(g *goroutines.Context, calls []*ssa.Call) string {
	if g.Entry == nil || g.Entry.Parent() == nil {
		return ""
	}
	var callees []string
	for _, b := range g.Entry.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(ssa.CallInstruction)
			if !ok {
				continue
			}
			name := model.CalleeName(call.Common())
			if name == "" || model.TestingReports[name] {
				continue
			}
			callees = append(callees, name)
		}
	}
	if len(callees) == 0 {
		return ""
	}
	slices.Sort(callees)
	callees = slices.Compact(callees)
	var b strings.Builder
	b.WriteString(strings.Join(callees, " "))
	for _, call := range calls {
		args := call.Call.Args
		if len(args) < 2 {
			return ""
		}
		k, ok := args[1].(*ssa.Const)
		if !ok || k.Value == nil || k.Value.Kind() != constant.String {
			return ""
		}
		fmt.Fprintf(&b, "|%s %q", model.CalleeName(&call.Call), constant.StringVal(k.Value))
	}
	return b.String()
}

// testName names the test that a goroutine started in fn may outlive:
// fn itself when go test runs it or it is a function literal (a
// subtest's), or else, fn being a helper that takes the test's t, the
// tests that call it (up to maxHelperDepth calls up): "TestA (through
// newPair)", "TestA and 2 more tests (through newPair)". A function taken
// as a value, or that no test calls, is named itself: it is a test's body
// run through a function value (net/http's run(t, testCloseNotifier)),
// which ends the (sub)test when it returns.
func (c *checker) testName(fn *ssa.Function) (string, bool) {
	if fn.Parent() != nil || fn.Signature.Recv() != nil || testPrefix(fn.Name()) {
		return source.FuncName(fn), false
	}
	var tests []string
	seen := map[*ssa.Function]bool{fn: true}
	level := []*ssa.Function{fn}
	for range maxHelperDepth {
		var next []*ssa.Function
		for _, f := range level {
			for _, e := range c.env.Goroutines.CallGraph.Callers(f) {
				if e.Site == nil || callgraph.StaticCallee(e.Site.Common()) != f {
					if f == fn {
						return source.FuncName(fn), false // run as a value
					}
					continue
				}
				g := e.Caller.Func
				if seen[g] {
					continue
				}
				seen[g] = true
				if g.Parent() == nil && g.Signature.Recv() == nil && testPrefix(g.Name()) {
					tests = append(tests, source.FuncName(g))
				} else {
					next = append(next, g)
				}
			}
		}
		level = next
	}
	helper := source.FuncName(fn)
	slices.Sort(tests)
	switch len(tests) {
	case 0:
		return helper, false
	case 1:
		return fmt.Sprintf("%s (through %s)", tests[0], helper), true
	}
	return fmt.Sprintf("%s and %d more test%s (through %s)", tests[0], len(tests)-1, plural(len(tests)-1), helper), true
}

// maxHelperDepth bounds the calls testName follows up from a helper.
const maxHelperDepth = 3

func testPrefix(name string) bool {
	return strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Benchmark") || strings.HasPrefix(name, "Fuzz")
}

func retMsg(helper bool) string {
	if helper {
		return "the helper may return here first, and the test after it"
	}
	return "the test may return here first"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// outlives reports whether call, on a goroutine of g, may run after the
// test function that started g has returned, and gives that test and the
// return: one that may follow g's start and is not ordered after call.
func (c *checker) outlives(call ssa.Instruction, g *goroutines.Context) (*ssa.Function, ssa.Instruction, bool) {
	if g.Site == nil || (g.Kind != goroutines.Go && g.Kind != goroutines.Task && g.Kind != goroutines.Detached) {
		return nil, nil, false
	}
	test := g.Site.Parent()
	t := testingParam(test)
	if !callsOn(call, t) {
		return nil, nil, false // not the t of the test that starts g
	}
	if c.onSubtestsT(call, t, g, maxHelperDepth) {
		return nil, nil, false // the subtest's own call, on its own goroutine
	}
	if logs(call) && model.BubbleTests(test) != nil {
		return nil, nil, false // the log goes to the test blocked in synctest.Test
	}
	if c.beforeOrHung(call.(*ssa.Call), g) {
		return nil, nil, false // before the test's wait for its success send, or the test never returns
	}
	flow := c.env.Goroutines.Flow
	for _, tc := range c.env.Goroutines.Of(test) {
		for _, ret := range ssaflow.Returns(test) {
			if !flow.MayFollow(g.Site, ret) {
				continue // g does not run yet when the test returns there
			}
			if _, ordered := c.env.Order.Before(call, g, ret, tc); !ordered && !c.joinedByCallers(call, g, ret) &&
				!c.joinedByResult(g) && !c.beforeCleanupEnd(call, g, t, ret, tc) {
				return test, ret, true
			}
		}
	}
	return nil, nil, false
}

// beforeCleanupEnd reports whether call, on a goroutine of g, happens
// before the end of a function that the test registers with t.Cleanup on
// every path to ret, its own t: testing runs the Cleanups of t before it
// marks t done, and only a call after that panics (sipgo's integration
// test waits for its servers' goroutines with wg.Wait() in a Cleanup).
// The ordering analyzer's cleanup rule places the Cleanup's code after
// the test function's; call must come before each of the function's
// returns.
func (c *checker) beforeCleanupEnd(call ssa.Instruction, g *goroutines.Context, t *ssa.Parameter, ret *ssa.Return, tc *goroutines.Context) bool {
	gr := c.env.Goroutines
	for _, b := range ret.Parent().Blocks {
		for _, in := range b.Instrs {
			reg, ok := in.(*ssa.Call)
			if !ok || !model.Cleanup(model.CalleeName(&reg.Call)) || !callsOn(reg, t) || !gr.Flow.Dominates(reg, ret) {
				continue
			}
			for _, f := range gr.RefTargets(reg) {
				rets := ssaflow.Returns(f)
				if slices.Contains(gr.Of(f), tc) && len(rets) > 0 && !slices.ContainsFunc(rets, func(r *ssa.Return) bool {
					_, ordered := c.env.Order.Before(call, g, r, tc)
					return !ordered
				}) {
					return true
				}
			}
		}
	}
	return false
}

// logs reports whether call is a T.Log or T.Logf, which, unlike the
// testing methods that fail or skip the test, does not panic on the T of
// a testing/synctest bubble whose function has returned: that T writes
// its logs to the test that called synctest.Test, which is done only
// after Test returns ("Fail in goroutine after TestX has completed"
// comes of an Errorf there, checked by running both on go1.26).
func logs(call ssa.Instruction) bool {
	name := model.CalleeName(call.(*ssa.Call).Common())
	return model.TestingReports[name] && (strings.HasSuffix(name, ").Log") || strings.HasSuffix(name, ").Logf"))
}

// returnPos is the position of a return statement, or of the closing
// brace for the implicit return at the end of a function.
func returnPos(ret ssa.Instruction) token.Pos {
	if ret.Pos().IsValid() {
		return ret.Pos()
	}
	return source.End(ret.Parent())
}

// testingParam returns fn's *testing.T, *testing.B or testing.TB
// parameter, or nil.
func testingParam(fn *ssa.Function) *ssa.Parameter {
	for _, p := range fn.Params {
		switch types.TypeString(p.Type(), nil) {
		case "*testing.T", "*testing.B", "testing.TB":
			return p
		}
	}
	return nil
}

// callsOn reports whether the method call's receiver is t, directly or
// through variables captured by closures.
func callsOn(call ssa.Instruction, t *ssa.Parameter) bool {
	c, ok := call.(*ssa.Call)
	if t == nil || !ok {
		return false
	}
	recv := c.Call.Value
	if !c.Call.IsInvoke() {
		if len(c.Call.Args) == 0 {
			return false
		}
		recv = c.Call.Args[0]
	}
	for _, src := range ssavalue.Sources(sharedloc.Root(recv)) {
		if src == t {
			return true
		}
		if cell, ok := src.(*ssa.Alloc); ok && slices.Contains(ssavalue.StoresTo(cell), ssa.Value(t)) {
			return true
		}
	}
	return false
}

// chanExpr renders the channel operand of a send or close.
func (c *checker) chanExpr(a *sharedloc.Access) string {
	switch n := source.Node(c.env.Pass, a.Pos()).(type) {
	case *ast.CallExpr:
		if len(n.Args) > 0 {
			return source.Render(n.Args[0])
		}
	}
	if n, ok := source.Innermost[*ast.SendStmt](c.env.Pass, a.Pos()); ok {
		return source.Render(n.Chan)
	}
	return a.Loc.Holder().String()
}

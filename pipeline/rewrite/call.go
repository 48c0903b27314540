package rewrite

import (
	"go/ast"
	"go/scanner"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"
)

// callCtx is where a call appears: it decides which rewrites keep the
// program's meaning (a deferred call's arguments are evaluated at the
// defer, so a wrapper around the call itself would run too early).
type callCtx int

const (
	callExpr  callCtx = iota // a value in an expression
	callStmt                 // an expression statement in a statement list
	callDefer                // the call of a defer or go statement
)

// A syncOp says how a method or function call is rewritten.
type syncOp struct {
	fn      string // the shim or rt function
	rt      bool   // fn is in rt, not the shim
	kind    string // the site kind
	iface   bool   // the receiver is an interface, passed as it is
	value   string // the function for a method value (mu.Lock without a call), if any
	valueRT bool   // value is in rt, not the shim
	group   string // "go", "goerr", "wait", "waiterr": a task group of errgroup or conc
	// local: fn takes the function body's Local first (rt's wrappers of
	// sync/atomic's types; nil where there is none, see syncCall).
	local bool
	// writes: fn takes a second site after the call's, that of the
	// writes a goroutine of the callee makes into the receiver's
	// writers (os/exec's copying goroutines, shim/rt/exec.go).
	writes bool
}

// localSync holds the shim functions of syncMethods that have a variant
// taking the function body's Local (LockL and so on; see accessCall).
var localSync = map[string]bool{
	"Lock": true, "Unlock": true, "RWLock": true, "RWUnlock": true, "RLock": true, "RUnlock": true,
}

// syncMethods maps "pkgpath.Type.Method" to its rewrite.
var syncMethods = map[string]syncOp{
	"sync.Mutex.Lock":       {fn: "Lock", kind: "lock", value: "LockFunc"},
	"sync.Mutex.Unlock":     {fn: "Unlock", kind: "unlock", value: "UnlockFunc"},
	"sync.Mutex.TryLock":    {fn: "TryLock", kind: "trylock"},
	"sync.RWMutex.Lock":     {fn: "RWLock", kind: "lock", value: "RWLockFunc"},
	"sync.RWMutex.Unlock":   {fn: "RWUnlock", kind: "unlock", value: "RWUnlockFunc"},
	"sync.RWMutex.TryLock":  {fn: "RWTryLock", kind: "trylock"},
	"sync.RWMutex.RLock":    {fn: "RLock", kind: "rlock", value: "RLockFunc"},
	"sync.RWMutex.RUnlock":  {fn: "RUnlock", kind: "runlock", value: "RUnlockFunc"},
	"sync.RWMutex.TryRLock": {fn: "TryRLock", kind: "tryrlock"},
	"sync.Locker.Lock":      {fn: "LockerLock", kind: "lock", iface: true, value: "LockerLockFunc", valueRT: true},
	"sync.Locker.Unlock":    {fn: "LockerUnlock", kind: "unlock", iface: true, value: "LockerUnlockFunc", valueRT: true},
	"sync.WaitGroup.Add":    {fn: "WGAdd", kind: "wg-add"},
	"sync.WaitGroup.Done":   {fn: "WGDone", kind: "wg-done", value: "WGDoneFunc", valueRT: true},
	"sync.WaitGroup.Wait":   {fn: "WGWait", kind: "wg-wait", value: "WGWaitFunc", valueRT: true},
	"sync.WaitGroup.Go":     {fn: "WGGo", kind: "go"},
	"sync.Once.Do":          {fn: "OnceDo", kind: "once"},
	"sync.Cond.Wait":        {fn: "CondWait", kind: "cond-wait", value: "CondWaitFunc", valueRT: true},
	"sync.Cond.Signal":      {fn: "CondSignal", kind: "cond-signal", value: "CondSignalFunc", valueRT: true},
	"sync.Cond.Broadcast":   {fn: "CondBroadcast", kind: "cond-broadcast", value: "CondBroadcastFunc", valueRT: true},
	"sync.Pool.Put":         {fn: "PoolPut", kind: "pool-put"},
	"sync.Pool.Get":         {fn: "PoolGet", kind: "pool-get"},

	// A time.AfterFunc timer's Reset forks the run it schedules and a
	// Stop that returns true cancels one (shim/api_time.go).
	"time.Timer.Reset": {fn: "TimerReset", kind: "timer-reset"},
	"time.Timer.Stop":  {fn: "TimerStop", kind: "timer-stop"},

	// sync.Map's operations as atomic loads and stores of a location per
	// key (shim/rt/syncmap.go).
	"sync.Map.Load":             {fn: "SyncMapLoad", rt: true, kind: "atomic-load"},
	"sync.Map.Range":            {fn: "SyncMapRange", rt: true, kind: "atomic-load"},
	"sync.Map.Store":            {fn: "SyncMapStore", rt: true, kind: "atomic-store"},
	"sync.Map.LoadOrStore":      {fn: "SyncMapLoadOrStore", rt: true, kind: "atomic-store"},
	"sync.Map.LoadAndDelete":    {fn: "SyncMapLoadAndDelete", rt: true, kind: "atomic-store"},
	"sync.Map.Delete":           {fn: "SyncMapDelete", rt: true, kind: "atomic-store"},
	"sync.Map.Swap":             {fn: "SyncMapSwap", rt: true, kind: "atomic-store"},
	"sync.Map.CompareAndSwap":   {fn: "SyncMapCompareAndSwap", rt: true, kind: "atomic-store"},
	"sync.Map.CompareAndDelete": {fn: "SyncMapCompareAndDelete", rt: true, kind: "atomic-store"},

	"golang.org/x/sync/errgroup.Group.Go":             {fn: "TaskErr", kind: "go", group: "goerr"},
	"golang.org/x/sync/errgroup.Group.Wait":           {fn: "WaitedErr", kind: "wait", group: "waiterr"},
	"github.com/sourcegraph/conc.WaitGroup.Go":        {fn: "Task", kind: "go", group: "go"},
	"github.com/sourcegraph/conc.WaitGroup.Wait":      {fn: "Waited", kind: "wait", group: "wait"},
	"github.com/sourcegraph/conc/pool.Pool.Go":        {fn: "Task", kind: "go", group: "go"},
	"github.com/sourcegraph/conc/pool.Pool.Wait":      {fn: "Waited", kind: "wait", group: "wait"},
	"github.com/sourcegraph/conc/pool.ErrorPool.Go":   {fn: "TaskErr", kind: "go", group: "goerr"},
	"github.com/sourcegraph/conc/pool.ErrorPool.Wait": {fn: "WaitedErr", kind: "wait", group: "waiterr"},

	// os/exec's copying goroutines as a group of tasks (shim/rt/exec.go).
	"os/exec.Cmd.Start":  {fn: "CmdStart", rt: true, kind: "go", writes: true},
	"os/exec.Cmd.Run":    {fn: "CmdRun", rt: true, kind: "go", writes: true},
	"os/exec.Cmd.Output": {fn: "CmdOutput", rt: true, kind: "go", writes: true},
	"os/exec.Cmd.Wait":   {fn: "CmdWait", rt: true, kind: "wait"},
}

func init() {
	// Methods of sync/atomic's types: rt wrappers named <Type><Method>.
	for _, t := range []string{"Int32", "Int64", "Uint32", "Uint64", "Uintptr"} {
		for _, m := range []string{"Load", "Store", "Swap", "CompareAndSwap", "Add"} {
			syncMethods["sync/atomic."+t+"."+m] = syncOp{fn: t + m, rt: true, kind: atomicKind(m), local: true}
		}
	}
	for _, t := range []string{"Bool", "Pointer", "Value"} {
		for _, m := range []string{"Load", "Store", "Swap", "CompareAndSwap"} {
			syncMethods["sync/atomic."+t+"."+m] = syncOp{fn: t + m, rt: true, kind: atomicKind(m), local: true}
		}
	}
}

func atomicKind(m string) string {
	if m == "Load" {
		return "atomic-load"
	}
	return "atomic-store"
}

// atomicFuncs are the sync/atomic package functions the shim wraps as
// Atomic<Name>(site, args...).
var atomicFuncs = map[string]bool{}

func init() {
	for _, t := range []string{"Int32", "Int64", "Uint32", "Uint64", "Uintptr"} {
		for _, op := range []string{"Add", "Load", "Store", "Swap", "CompareAndSwap"} {
			atomicFuncs[op+t] = true
		}
	}
	for _, op := range []string{"Load", "Store", "Swap", "CompareAndSwap"} {
		atomicFuncs[op+"Pointer"] = true
	}
}

// methodKey returns "pkgpath.Type.Method" of the method sel selects.
func methodKey(sel *types.Selection) string {
	f, ok := sel.Obj().(*types.Func)
	if !ok || f.Pkg() == nil {
		return ""
	}
	sig := f.Type().(*types.Signature)
	if sig.Recv() == nil {
		return ""
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return ""
	}
	return f.Pkg().Path() + "." + n.Obj().Name() + "." + f.Name()
}

// testLogMethods are the methods of testing.T and testing.B that panic
// when called after their test has completed ("Log in goroutine after
// TestX has completed"), by name, for calls through testing.TB or any
// interface a test's T may be passed as.
var testLogMethods = map[string]bool{
	"Log": true, "Logf": true, "Error": true, "Errorf": true, "Fatal": true, "Fatalf": true,
	"Fail": true, "FailNow": true, "Skip": true, "Skipf": true,
}

// call rewrites a call.
func (r *rewriter) call(c *ast.CallExpr, ctx callCtx) {
	fun := ast.Unparen(c.Fun)
	if tv, ok := r.info.Types[c.Fun]; ok && tv.IsType() {
		for _, a := range c.Args {
			r.expr(a)
		}
		return
	}
	r.helperCall(c)
	// Deferred: the wrapping is edited after the operands' own rewrites,
	// so that it lies outside them.
	defer r.respondOperands(c)
	defer r.connOperands(c)
	if handled, after := r.httpClientCall(c, ctx); handled {
		return
	} else if after != nil {
		defer after()
	}
	if id := r.calleeIdent(fun); id != nil {
		switch obj := r.info.Uses[id].(type) {
		case *types.Builtin:
			r.builtin(c, obj.Name(), ctx)
			return
		case *types.Func:
			if obj.Pkg() != nil && obj.Pkg().Path() == "sync/atomic" && andOr(obj.Name()) != "" && len(c.Args) == 2 {
				for _, a := range c.Args {
					r.expr(a)
				}
				r.atomicAndOr(c, andOr(obj.Name()), "", c.Args[0], c.Args[1])
				return
			}
			_, qualified := fun.(*ast.SelectorExpr) // not through a dot import, which could end up unused
			if r.bubbleCall(c, obj, qualified) || r.reflectSelect(c, obj, qualified) {
				return
			}
			if r.condCall(c, obj, nil, nil, ctx) {
				return
			}
			if obj.Pkg() != nil && obj.Pkg().Path() == "sync/atomic" && atomicFuncs[obj.Name()] && qualified {
				for _, a := range c.Args {
					r.expr(a)
				}
				kind := "atomic-store"
				if strings.HasPrefix(obj.Name(), "Load") {
					kind = "atomic-load"
				}
				s := r.site(c.Lparen, kind, c)
				r.loadUses(c, kind)
				r.drop(fun.(*ast.SelectorExpr))
				lo, hi := r.span(c)
				r.ed.replace(r.off(c.Fun.Pos()), r.off(c.Lparen)+1, lo, hi,
					lit(r.shim("Atomic"+obj.Name())+"("+s+", "))
				return
			}
		}
	}
	if se, ok := fun.(*ast.SelectorExpr); ok {
		if sel := r.info.Selections[se]; sel != nil && sel.Kind() == types.MethodVal {
			key := methodKey(sel)
			if op, ok := syncMethods[key]; ok && !(op.group != "" && r.opts.Instrumented(sel.Obj().Pkg().Path())) && r.syncCall(c, se, sel, op, ctx) {
				return
			}
			if f, ok := sel.Obj().(*types.Func); ok && r.condCall(c, f, se, sel, ctx) {
				return
			}
			if strings.HasPrefix(key, "sync/atomic.") && andOr(se.Sel.Name) != "" && len(c.Args) == 1 {
				if amp, suffix, ok := r.recvPath(se.X, sel, false); ok {
					r.receiver(se.X, sel)
					r.expr(c.Args[0])
					r.atomicAndOr(c, andOr(se.Sel.Name), amp+"%s"+suffix, se.X, c.Args[0])
					return
				}
			}
			if r.bufferCall(c, se, sel, key) {
				for _, a := range c.Args {
					r.expr(a)
				}
				return
			}
			if ctx == callStmt && testLogMethods[se.Sel.Name] && r.isPure(se.X) &&
				(strings.HasPrefix(key, "testing.common.") || strings.HasPrefix(key, "testing.TB.") || types.IsInterface(r.typeOf(se.X))) {
				// Before the call: it may panic once the test has completed.
				s := r.site(se.Sel.Pos(), "test-log", c)
				lo, hi := r.span(c)
				r.ed.insert(lo, lo, hi, lit(r.shim("TestLog")+"("+s+", "+r.text(se.X)+"); "))
			}
			if key == "net/http/httptest.Server.Close" && len(c.Args) == 0 && r.isPure(se.X) {
				// httptest.Server.Close as a join of its handlers (see
				// "Served handlers" in the shim).
				r.expr(se.X)
				s := r.site(se.Sel.Pos(), "wait", c)
				lo, hi := r.span(c)
				r.ed.open(lo, hi, lit(r.shim("ServeClose")+"("+s+", "))
				r.ed.replace(r.off(se.X.End()), hi, lo, hi, lit(")"))
				return
			}
			r.receiver(se.X, sel)
			if (key == "testing.T.Run" || key == "testing.B.Run") && len(c.Args) == 2 {
				if ctx != callDefer {
					// shim.Ran(S, t.Run(...)): what the test does after
					// the call comes after the subtest (see shim.Ran).
					// Not in a go or defer statement, which would then
					// run t.Run at once, for Ran's argument.
					s := r.site(c.Rparen, "ran", c)
					lo, hi := r.span(c)
					r.ed.open(lo, hi, lit(r.shim("Ran")+"("+s+", "))
					defer r.ed.close(lo, hi, lit(")"))
				}
				r.expr(c.Args[0])
				if fl, ok := ast.Unparen(c.Args[1]).(*ast.FuncLit); ok {
					typ := key[len("testing."):len("testing.T")]
					r.funcLit(fl, "", r.tbParam(fl.Type, typ))
					return
				}
				// t.Run(name, f) with f a function value: precog_rt.Sub(f)
				// calls TestStart before f.
				r.expr(c.Args[1])
				if _, isFunc := r.typeOf(c.Args[1]).Underlying().(*types.Signature); isFunc && r.isTest {
					alo, ahi := r.span(c.Args[1])
					r.ed.open(alo, ahi, lit(r.rt("Sub")+"("))
					r.ed.close(alo, ahi, lit(")"))
				}
				return
			}
			if key == "testing.F.Fuzz" && len(c.Args) == 1 {
				if fl, ok := ast.Unparen(c.Args[0]).(*ast.FuncLit); ok && r.isTest {
					// f.Fuzz(func(t *testing.T, ...) {...}): each input
					// runs as a subtest of the fuzz target (see fuzzT).
					r.funcLit(fl, "", r.fuzzT(fl.Type))
					r.handLits(c, ctx, sel.Obj())
					r.startMark(c, ctx, sel.Obj())
					return
				}
			}
			for _, a := range c.Args {
				r.expr(a)
			}
			r.handLits(c, ctx, sel.Obj())
			r.startMark(c, ctx, sel.Obj())
			return
		}
	}
	r.expr(c.Fun)
	if t := r.typeOf(c.Fun); isNamed(t, "context", "CancelFunc", false) || isNamed(t, "context", "CancelCauseFunc", false) {
		// A context's Done channel is closed inside the context
		// package, which is not instrumented: record the call of its
		// cancel function instead, for the receives that see Done
		// closed (see shim.Cancelling). After r.expr, so that the
		// read of a cancel function kept in a field nests inside.
		s := r.site(c.Lparen, "cancel", c.Fun)
		lo, hi := r.span(c.Fun)
		r.ed.open(lo, hi, lit(r.shim("Cancelling")+"("+s+", "))
		r.ed.close(lo, hi, lit(")"))
	}
	for _, a := range c.Args {
		r.expr(a)
	}
	if id := r.calleeIdent(fun); id != nil {
		r.handLits(c, ctx, r.info.Uses[id])
		r.startMark(c, ctx, r.info.Uses[id])
	}
}

// handLits wraps each function literal that call c, of obj in a package
// that is not instrumented, takes as an argument (see "Handed literals"
// in the shim): LIT becomes precog_shim.Hand(&precog_hS, S, LIT'), LIT'
// calling precog_shim.Handed(&precog_hS, S) first, with precog_hS a
// handle the enclosing function's body declares: one invocation of a
// function runs on one goroutine, so the handle names the same caller
// whichever of its handings a run comes from, and a run of the literal on
// a goroutine that code started before the handing is ordered after the
// caller's first handing at S (a "hand" site: not a mark that a
// goroutine's creation is matched with, so no GODEBUG setting for it). A
// new function around the literal would
// rename it (F.func1.1) and every later literal of F, as the compiler
// names closures. After the rewrites of the arguments, which nest inside.
// Not a deferred call or a go statement's, nor one outside a function
// body or in the body of a range over a function (an iterator may run it
// on goroutines of its own).
func (r *rewriter) handLits(c *ast.CallExpr, ctx callCtx, obj types.Object) {
	fn, ok := obj.(*types.Func)
	if !ok || ctx == callDefer || fn.Pkg() == nil || fn.Pkg() == r.pkg || r.fn == nil || !r.fn.body || r.fn.inRangeFunc > 0 {
		return
	}
	if r.opts.Instrumented != nil && r.opts.Instrumented(fn.Pkg().Path()) {
		return
	}
	for _, a := range c.Args {
		fl := r.handedLit(a)
		if fl == nil {
			continue
		}
		s := r.site(fl.Pos(), "hand", fl)
		h := "&precog_h" + s
		r.ed.insert(r.fn.lo+1, r.fn.lo, r.fn.hi, lit(" var precog_h"+s+" "+r.shim("Handle")+";"))
		blo, bhi := r.span(fl.Body)
		r.ed.insert(blo+1, blo, bhi, lit(" "+r.shim("Handed")+"("+h+", "+s+");"))
		lo, hi := r.span(fl)
		r.ed.open(lo, hi, lit(r.shim("Hand")+"("+h+", "+s+", "))
		r.ed.close(lo, hi, lit(")"))
	}
}

// handedLit returns the function literal that argument a is, in
// parentheses or converted to a named function type
// (http.HandlerFunc(func(w, r) {...})), or nil.
func (r *rewriter) handedLit(a ast.Expr) *ast.FuncLit {
	a = ast.Unparen(a)
	if c, ok := a.(*ast.CallExpr); ok && len(c.Args) == 1 && c.Ellipsis == 0 {
		if tv, ok := r.info.Types[c.Fun]; ok && tv.IsType() {
			if _, isFunc := tv.Type.Underlying().(*types.Signature); isFunc {
				a = ast.Unparen(c.Args[0])
			}
		}
	}
	fl, _ := a.(*ast.FuncLit)
	return fl
}

// startMark marks call c, a call of obj in a package that is not
// instrumented and that may start goroutines (Options.Starts): a
// goroutine the call creates is then ordered after the mark (see "Marks"
// in the shim), which the running goroutine's first call from there
// records. The mark comes as late as the call allows: its last argument
// that is not a constant is wrapped as precog_shim.MarkV(S, LINE, x),
// evaluated after every call of the arguments before it
// (require.Eventually's message arguments, evaluated before the call,
// then come before its condition's goroutine), with LINE the call's line
// (where a traceback shows the caller's frame during the call: x may be on
// a later one); else the function value is wrapped as
// precog_shim.MarkF(S, f), before the arguments. A function's call whose
// arguments call on its line (httptest.NewServer(s.Handler())) is marked
// so too: MarkV would come after those calls, which a goroutine they
// create could not be told from one of the call's, while MarkF comes
// before them, and whatever the arguments do is then not ordered before
// the call's goroutines (a method's call is not: its method value would
// evaluate the receiver before the arguments). After the rewrites of the
// function value and the arguments, which nest inside.
// Not a deferred call or a go statement's (the mark would come long before
// the call, and its frame is elsewhere), nor one on a line where another
// call could run before the mark (markAlone).
func (r *rewriter) startMark(c *ast.CallExpr, ctx callCtx, obj types.Object) {
	fn, ok := obj.(*types.Func)
	if !ok || r.opts.Starts == nil || ctx == callDefer || fn.Pkg() == nil || fn.Pkg() == r.pkg || !r.opts.Starts(c.Lparen) {
		return
	}
	if r.opts.Instrumented != nil && r.opts.Instrumented(fn.Pkg().Path()) {
		return
	}
	line := r.tf.Line(c.Lparen)
	if r.tf.Line(c.Fun.End()) != line {
		return // which of its lines a traceback shows is not known
	}
	x := r.markArg(c)
	if x != nil && r.markAlone(c, line, true) {
		// The line a traceback shows for the call's frame, after //line
		// directives, as the runtime reads it.
		at := r.fset.PositionFor(c.Lparen, true).Line
		s := r.site(c.Lparen, "mark", c.Fun)
		lo, hi := r.span(x)
		r.ed.open(lo, hi, lit(r.shim("MarkV")+"("+s+", "+strconv.Itoa(at)+", "))
		r.ed.close(lo, hi, lit(")"))
		return
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig != nil && sig.Recv() != nil && x != nil {
		// A method value evaluates (copies) its receiver before the
		// arguments, where the call may evaluate it after their calls.
		return
	}
	if sig != nil && sig.TypeParams().Len() > 0 {
		switch ast.Unparen(c.Fun).(type) {
		case *ast.IndexExpr, *ast.IndexListExpr:
		default:
			return // an instantiation by inference: its value alone does not type-check
		}
	}
	if !r.markAlone(c, line, false) {
		return
	}
	s := r.site(c.Lparen, "mark", c.Fun)
	lo, hi := r.span(c.Fun)
	r.ed.open(lo, hi, lit(r.shim("MarkF")+"("+s+", "))
	r.ed.close(lo, hi, lit(")"))
}

// markArg returns the argument of c that MarkV may wrap: the last one
// that is not a constant (the ones after it have no calls to come before
// the mark), if its type, which MarkV infers from it, is the one it has
// in the call: not nil, not an untyped value of a comparison or a shift
// (converted to the parameter's type, which may not be its default), not
// several results. Nil if there is none.
func (r *rewriter) markArg(c *ast.CallExpr) ast.Expr {
	for i := len(c.Args) - 1; i >= 0; i-- {
		a := c.Args[i]
		tv, ok := r.info.Types[a]
		if !ok {
			return nil
		}
		if tv.Value != nil {
			continue
		}
		if tv.IsNil() || tv.IsType() || !tv.IsValue() {
			return nil
		}
		if _, tuple := tv.Type.(*types.Tuple); tuple {
			return nil
		}
		switch e := ast.Unparen(a).(type) {
		case *ast.BinaryExpr:
			return nil
		case *ast.UnaryExpr:
			if e.Op == token.NOT {
				return nil
			}
		}
		return a
	}
	return nil
}

// markAlone reports whether every call on line, the line of call c and
// of its mark, runs after the mark whenever it runs: it contains c (it is
// called after c returns), or, with a mark before the function value
// (afterArgs false), it is inside c's arguments (evaluated after the
// function value). With a mark after the arguments, a call in them on the
// line runs before it. The shim matches a goroutine's creation to the
// line of the frame that made it: a call on that line evaluated before
// c's mark (g() in `g() + dep.F()`, the receiver's call in
// `x.Get().Serve()`) could create a goroutine before any mark there. A
// range over a function on the line calls it implicitly, and counts too.
// Conversions and builtins call nothing, and the calls of another
// function (a function literal on the line) run in its own frame.
func (r *rewriter) markAlone(c *ast.CallExpr, line int, afterArgs bool) bool {
	if r.callLines == nil {
		r.callLines = make(map[int][]ast.Node)
		r.callFunc = make(map[ast.Node]ast.Node)
		var fns []ast.Node // the enclosing functions, innermost last
		ast.Inspect(r.file, func(n ast.Node) bool {
			if n == nil {
				return true
			}
			switch n := n.(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				fns = append(fns, n)
			case *ast.CallExpr:
				if tv, ok := r.info.Types[n.Fun]; ok && tv.IsType() {
					return true
				}
				if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
					if _, builtin := r.info.Uses[id].(*types.Builtin); builtin {
						return true
					}
				}
			case *ast.RangeStmt:
				if _, ok := r.typeOf(n.X).Underlying().(*types.Signature); !ok {
					return true
				}
			default:
				return true
			}
			switch n.(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				return true
			}
			for len(fns) > 0 && fns[len(fns)-1].End() < n.End() {
				fns = fns[:len(fns)-1]
			}
			if len(fns) > 0 {
				r.callFunc[n] = fns[len(fns)-1]
			}
			lo, hi := r.tf.Line(n.Pos()), r.tf.Line(n.End())
			for l := lo; l <= hi; l++ {
				r.callLines[l] = append(r.callLines[l], n)
			}
			return true
		})
	}
	for _, n := range r.callLines[line] {
		if n == ast.Node(c) || r.callFunc[n] != r.callFunc[c] {
			continue // another function's call runs in its own frame
		}
		if d, ok := n.(*ast.CallExpr); ok && d.Pos() <= c.Pos() && c.End() <= d.End() {
			continue
		}
		if !afterArgs && n.Pos() > c.Lparen && n.End() <= c.Rparen {
			continue
		}
		return false
	}
	return true
}

// bubbleCall rewrites the calls that testing/synctest bubbles order by
// (issue 15): time.Sleep(d) becomes shim.Sleep(site, d), time.AfterFunc(d,
// f) shim.AfterFunc(site, d, f), context.AfterFunc(ctx, f)
// shim.ContextAfterFunc(site, ctx, f) (a fork, in a bubble or not),
// synctest.Wait()
// becomes shim.SyncWait(site, synctest.Wait), and the function (a literal
// or a value) passed to synctest.Test or synctest.Run is wrapped by
// shim.BubbleFunc or shim.BubbleRun: evaluated on the caller's goroutine
// before the call, the wrapper names the caller, and the function it
// returns makes the bubble's goroutine the caller's child and records
// EvBubble before the function runs.
func (r *rewriter) bubbleCall(c *ast.CallExpr, obj *types.Func, qualified bool) bool {
	if obj.Pkg() == nil || !qualified {
		return false
	}
	switch obj.Pkg().Path() + "." + obj.Name() {
	case "time.Sleep":
		if len(c.Args) != 1 {
			return false
		}
		r.expr(c.Args[0])
		s := r.site(c.Lparen, "sleep", c)
		fun := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		r.drop(fun)
		lo, hi := r.span(c)
		r.ed.replace(r.off(c.Fun.Pos()), r.off(c.Lparen)+1, lo, hi, lit(r.shim("Sleep")+"("+s+", "))
		return true
	case "time.AfterFunc", "context.AfterFunc":
		if len(c.Args) != 2 {
			return false
		}
		r.expr(c.Args[0])
		r.expr(c.Args[1])
		s := r.site(c.Lparen, "after-func", c)
		fun := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		r.drop(fun)
		name := "AfterFunc"
		if obj.Pkg().Path() == "context" {
			name = "ContextAfterFunc"
		}
		lo, hi := r.span(c)
		r.ed.replace(r.off(c.Fun.Pos()), r.off(c.Lparen)+1, lo, hi, lit(r.shim(name)+"("+s+", "))
		return true
	case "testing/synctest.Wait":
		if len(c.Args) != 0 {
			return false
		}
		s := r.site(c.Lparen, "sync-wait", c)
		lo, hi := r.span(c)
		r.ed.replace(lo, hi, lo, hi, lit(r.shim("SyncWait")+"("+s+", "+r.text(c.Fun)+")"))
		return true
	case "testing/synctest.Test", "testing/synctest.Run":
		if len(c.Args) == 0 {
			return false
		}
		for _, a := range c.Args[:len(c.Args)-1] {
			r.expr(a)
		}
		f := c.Args[len(c.Args)-1]
		var s string
		if fl, ok := ast.Unparen(f).(*ast.FuncLit); ok {
			s = r.site(fl.Body.Lbrace, "bubble", c.Fun)
			r.funcLit(fl, "", "")
		} else {
			r.expr(f)
			s = r.site(f.Pos(), "bubble", c.Fun)
		}
		wrap := "BubbleFunc"
		if obj.Name() == "Run" {
			wrap = "BubbleRun"
		}
		lo, hi := r.span(f)
		r.ed.open(lo, hi, lit(r.shim(wrap)+"("+s+", "))
		r.ed.close(lo, hi, lit(")"))
		return true
	}
	return false
}

// reflectSelect rewrites reflect.Select(cases) into
// shim.ReflectSelect(R, S, D, cases), which records the case that ran as
// a select of one case of its kind: R's site is a select whose one case
// receives (Cases "r"), S's one whose one case sends, D's one with a
// default only. A reflect.Select's cases are known only when it runs,
// and the trace names a select's cases by its site.
func (r *rewriter) reflectSelect(c *ast.CallExpr, obj *types.Func, qualified bool) bool {
	if !qualified || obj.Pkg() == nil || obj.Pkg().Path() != "reflect" || obj.Name() != "Select" || len(c.Args) != 1 {
		return false
	}
	r.expr(c.Args[0])
	var ids []string
	for _, cases := range []string{"r", "s", ""} {
		ids = append(ids, r.site(c.Lparen, "select", c))
		r.sites[len(r.sites)-1].Cases = cases
	}
	r.drop(ast.Unparen(c.Fun).(*ast.SelectorExpr))
	lo, hi := r.span(c)
	r.ed.replace(r.off(c.Fun.Pos()), r.off(c.Lparen)+1, lo, hi, lit(r.shim("ReflectSelect")+"("+strings.Join(ids, ", ")+", "))
	return true
}

// calleeIdent returns the identifier naming a called function (f or
// pkg.f), or nil.
func (r *rewriter) calleeIdent(fun ast.Expr) *ast.Ident {
	switch f := fun.(type) {
	case *ast.Ident:
		return f
	case *ast.SelectorExpr:
		if r.isPkgName(f.X) {
			return f.Sel
		}
	case *ast.IndexExpr:
		return r.calleeIdent(f.X)
	}
	return nil
}

// andOr returns "And" or "Or" for the names of sync/atomic's And and Or
// functions and methods (Go 1.23), else "".
func andOr(name string) string {
	switch {
	case strings.HasPrefix(name, "And"):
		return "And"
	case strings.HasPrefix(name, "Or"):
		return "Or"
	}
	return ""
}

// atomicAndOr rewrites an And or Or call, which the shim has no wrapper
// for (it builds at go1.22), into precog_rt.<fn>(SITE, addr, call, mask):
// the call runs as written and rt records the new value. addr and mask
// are evaluated a second time, so they must be pure; format, if not
// empty, turns addr's text into the address (for methods: &v.f).
func (r *rewriter) atomicAndOr(c *ast.CallExpr, fn, format string, addr, mask ast.Expr) {
	if !r.isPure(addr) || !r.isPure(mask) {
		r.skip("atomic And/Or with operands that have side effects")
		return
	}
	s := r.site(c.Lparen, "atomic-store", c)

	lo, hi := r.span(c)
	alo, ahi := r.span(addr)
	mlo, mhi := r.span(mask)
	a := []piece{copyOf(alo, ahi)}
	if format != "" {
		pre, post, _ := strings.Cut(format, "%s")
		a = []piece{lit(pre), copyOf(alo, ahi), lit(post)}
	}
	open := append([]piece{lit(r.rt(fn) + "(" + s + ", precog_unsafe.Pointer(")}, a...)
	open = append(open, lit("), "))
	r.ed.open(lo, hi, open...)
	r.ed.close(lo, hi, lit(", "), copyOf(mlo, mhi), lit(")"))
}

// builtin rewrites a call of a builtin function.
func (r *rewriter) builtin(c *ast.CallExpr, name string, ctx callCtx) {
	for _, a := range c.Args {
		r.expr(a)
	}
	lo, hi := r.span(c)
	switch name {
	case "append":
		r.appendElems(c)
	case "close":
		if len(c.Args) != 1 {
			return
		}
		if _, isTP := r.typeOf(c.Args[0]).(*types.TypeParam); isTP {
			r.skip("close of type parameter type")
			return
		}
		s := r.site(c.Lparen, "close", c.Args[0])
		r.ed.replace(r.off(c.Fun.Pos()), r.off(c.Lparen)+1, lo, hi, lit(r.shim("Close")+"("+s+", "))
	case "delete":
		if len(c.Args) == 2 {
			r.mapOp(c.Args[0], c.Lparen, "map-write", "MW", c)
		}
	case "clear", "len":
		if len(c.Args) != 1 {
			return
		}
		if _, isMap := r.typeOf(c.Args[0]).Underlying().(*types.Map); !isMap {
			return
		}
		if name == "clear" {
			r.mapOp(c.Args[0], c.Lparen, "map-write", "MW", c)
		} else {
			r.mapOp(c.Args[0], c.Lparen, "map-read", "MR", c)
		}
	case "new":
		if len(c.Args) == 1 && ctx == callExpr {
			r.newObject(c, c.Lparen, r.typeOf(c))
		}
	case "make":
		if len(c.Args) == 0 || ctx != callExpr {
			return
		}
		t := r.typeOf(c.Args[0])
		if _, isMap := t.Underlying().(*types.Map); isMap {
			r.makeMap(c, c.Lparen, false)
			return
		}
		ch, ok := t.Underlying().(*types.Chan)
		if !ok || ch.Dir() != types.SendRecv {
			return
		}
		if _, isTP := t.(*types.TypeParam); isTP {
			r.skip("make of type parameter type")
			return
		}
		s := r.site(c.Lparen, "make-chan", c)
		pre := r.shim("MakeChan") + "(" + s + ", "
		post := ")"
		if _, unnamed := t.(*types.Chan); !unnamed {
			pre = "(" + r.text(c.Args[0]) + ")(" + pre
			post += ")"
		}
		r.ed.open(lo, hi, lit(pre))
		r.ed.close(lo, hi, lit(post))
	}
}

// appendElems rewrites append(s, vs...) into precog_shim.Append(SITE, s,
// vs...) (AppendTo(SITE, s).Add(vs...) where a value is only assignable
// to the element type: see inferable), which records the writes of the elements it adds, when s is a
// shared location and its elements are pointer-shaped: the push of a
// value onto a shared container, which a take (detect/hb, Hand-offs)
// orders its taker after. The site's expression is the new elements,
// s[len(s)] or s[len(s):]. Appends of numbers and bytes are left alone:
// a buffer grown byte by byte would record a write per byte, and no
// hand-off passes through them. append([]byte, string...) has no
// pointer-shaped elements.
func (r *rewriter) appendElems(c *ast.CallExpr) {
	if len(c.Args) < 2 || !r.shared(ast.Unparen(c.Args[0])) {
		return
	}
	core, ok := coreType(r.typeOf(c.Args[0])).(*types.Slice)
	if !ok || !PointerShaped(core.Elem()) {
		return
	}
	lo, hi := r.span(c)
	s := r.site(c.Lparen, "write", c)
	// The site names what is written: the new elements, s[len(s)] for
	// one value, s[len(s):] for more.
	x := r.text(c.Args[0])
	elems := x + "[len(" + x + ")]"
	if len(c.Args) > 2 || c.Ellipsis.IsValid() {
		elems = x + "[len(" + x + "):]"
	}
	r.sites[len(r.sites)-1].Expr = exprText(elems)
	if r.inferable(c, core.Elem()) {
		r.ed.replace(r.off(c.Fun.Pos()), r.off(c.Lparen)+1, lo, hi, lit(r.shim("Append")+"("+s+", "))
		return
	}
	// append(s, v) -> precog_shim.AppendTo(SITE, s).Add(v): Add's
	// parameter has the element type, known from s alone, to which v
	// need only be assignable.
	comma := commaAt(r.ed.src, r.off(c.Args[0].End()), r.off(c.Args[1].Pos()))
	if comma < 0 {
		return
	}
	r.ed.replace(r.off(c.Fun.Pos()), r.off(c.Lparen)+1, lo, hi, lit(r.shim("AppendTo")+"("+s+", "))
	r.ed.replace(comma, comma+1, lo, hi, lit(").Add("))
}

// commaAt returns the offset of the comma token in src[lo:hi], which holds
// only the comma, spaces and comments, or -1.
func commaAt(src []byte, lo, hi int) int {
	var sc scanner.Scanner
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, hi-lo)
	sc.Init(f, src[lo:hi], nil, 0)
	for {
		pos, tok, _ := sc.Scan()
		switch tok {
		case token.COMMA:
			return lo + f.Offset(pos)
		case token.EOF:
			return -1
		}
	}
}

// inferable reports whether Append's type arguments can be inferred from
// the operands of c, an append to a slice with element type elem: each
// value added has that type itself, or the spread slice that element type.
// Go infers E from the values as well as from the slice, and a value of a
// type that is only assignable to the element type (a concrete type added
// to a slice of an interface, an untyped nil) gives it another.
func (r *rewriter) inferable(c *ast.CallExpr, elem types.Type) bool {
	for i, a := range c.Args[1:] {
		t := r.typeOf(a)
		if c.Ellipsis.IsValid() && i == len(c.Args)-2 {
			s, ok := coreType(t).(*types.Slice)
			if !ok || !types.Identical(s.Elem(), elem) {
				return false
			}
			continue
		}
		if t == nil || !types.Identical(t, elem) {
			return false
		}
	}
	return true
}

// makeMap wraps x, a make(map) or a map literal, in MakeMap, which records
// the new map's address: a map freed since may have had it, and the
// accesses to the two are different locations. A map literal whose address
// is taken (&M{...}, legal since composite literals are addressable) cannot
// become a call, which is not: addressed, it is wrapped as the element of a
// slice literal of its own type, &[]M{MakeMap(SITE, M{...})}[0], a new
// variable holding the map as &M{...} makes one (sentry-go's
// &BreadcrumbHint{}, go-workflows' &Metadata{}: "cannot take address of").
func (r *rewriter) makeMap(x ast.Expr, pos token.Pos, addressed bool) {
	if _, isTP := r.typeOf(x).(*types.TypeParam); isTP {
		r.skip("map of type parameter type")
		return
	}
	lo, hi := r.span(x)
	s := r.site(pos, "make-map", x)
	call := r.shim("MakeMap")
	if r.before120 {
		call = r.rt("MapMake")
	}
	open, close := call+"("+s+", ", ")"
	if addressed {
		open, close = "[]"+r.text(x.(*ast.CompositeLit).Type)+"{"+open, close+"}[0]"
	}
	r.ed.open(lo, hi, lit(open))
	r.ed.close(lo, hi, lit(close))
}

// newObject wraps x, a &T{...} or new(T) whose type is ptr (*T), in New,
// which records the new object's address and size (EvNew): an object
// freed since may have had its addresses, and the accesses to the two are
// different locations. Only structs are wrapped (newRecorded says which),
// and only where x is a value: a literal whose & is implicit, the element
// of a []*T{{...}}, has no expression to wrap. New[T] infers T from x, of
// type *T whatever T is (an alias, an instance of a generic struct), so
// the call has x's type and compiles wherever x did.
func (r *rewriter) newObject(x ast.Expr, pos token.Pos, ptr types.Type) {
	p, ok := ptr.(*types.Pointer)
	if !ok || !r.newRecorded(p.Elem()) {
		return
	}
	lo, hi := r.span(x)
	s := r.site(pos, "new", x)
	r.ed.open(lo, hi, lit(r.shim("New")+"("+s+", "))
	r.ed.close(lo, hi, lit(")"))
}

// newRecorded reports whether an allocation of type t is recorded (New):
// t is a struct with at least one field, declared in the package or in a
// package instrumented in the same build, a struct type literal, a
// sync.WaitGroup or sync.Once, or one of sync/atomic's types (the shim
// records those by address). A struct of no size has no address of its
// own (the runtime hands every one the same); other packages' fields are
// never recorded, nor are mutexes told apart by generation (detect/hb's
// hasFieldGen): their allocations would cost a sync event each for no
// location.
func (r *rewriter) newRecorded(t types.Type) bool {
	t = types.Unalias(t)
	st, ok := t.Underlying().(*types.Struct)
	if !ok || st.NumFields() == 0 {
		return false
	}
	n, named := t.(*types.Named)
	if !named {
		return true
	}
	pkg := n.Obj().Pkg()
	if pkg == nil {
		return false
	}
	switch path := pkg.Path(); {
	case pkg == r.pkg, path == "sync/atomic":
		return true
	case path == "sync":
		return n.Obj().Name() == "WaitGroup" || n.Obj().Name() == "Once"
	default:
		return r.opts.Instrumented != nil && r.opts.Instrumented(path)
	}
}

// recvPath returns the text that turns the receiver expression x into the
// pointer (or interface) a shim function takes: the embedded fields of the
// selection's path and whether to take the address. ok is false when a
// field of the path cannot be named here.
func (r *rewriter) recvPath(x ast.Expr, sel *types.Selection, iface bool) (amp, suffix string, ok bool) {
	t := r.typeOf(x)
	idx := sel.Index()
	for _, i := range idx[:len(idx)-1] {
		if p, isPtr := t.Underlying().(*types.Pointer); isPtr {
			t = p.Elem()
		}
		st, isStruct := t.Underlying().(*types.Struct)
		if !isStruct {
			return "", "", false
		}
		f := st.Field(i)
		if !f.Exported() && f.Pkg() != r.pkg {
			return "", "", false
		}
		suffix += "." + f.Name()
		t = f.Type()
	}
	if iface {
		_, isIface := t.Underlying().(*types.Interface)
		return "", suffix, isIface
	}
	if _, isPtr := t.Underlying().(*types.Pointer); !isPtr {
		amp = "&"
	}
	return amp, suffix, true
}

// syncCall rewrites a call of a sync method (or of errgroup, conc, atomic
// types). It reports false when it left the call alone.
func (r *rewriter) syncCall(c *ast.CallExpr, se *ast.SelectorExpr, sel *types.Selection, op syncOp, ctx callCtx) bool {
	amp, suffix, ok := r.recvPath(se.X, sel, op.iface)
	if !ok {
		r.skip("receiver path not nameable: " + op.kind)
		return false
	}
	if op.group != "" {
		return r.groupCall(c, se, sel, op, ctx, amp+r.text(se.X)+suffix)
	}
	if _, xPtr := r.typeOf(se.X).Underlying().(*types.Pointer); xPtr || op.iface {
		r.expr(se.X)
	} else {
		r.addr(se.X)
	}
	for _, a := range c.Args {
		r.expr(a)
	}
	var fn string
	if op.rt && scalarKeyOps[op.fn] && len(c.Args) > 0 && r.scalarKey(c.Args[0]) {
		fn = r.rt(op.fn + "Scalar")
	} else if op.rt {
		fn = r.rt(op.fn)
	} else {
		fn = r.shim(op.fn)
	}
	head := fn + "("
	if localSync[op.fn] && !op.rt {
		if l, ok := r.localRef(); ok {
			head = r.shim(op.fn+"L") + "(" + l + ", "
		}
	}
	if op.local {
		// A deferred call or a go statement's gets no Local: the
		// latter runs on another goroutine than the body's.
		l, ok := "", false
		if ctx != callDefer {
			l, ok = r.localRef()
		}
		if !ok {
			l = "nil"
		}
		head = fn + "(" + l + ", "
	}
	lo, hi := r.span(c)
	xEnd := r.off(se.X.End())
	if len(c.Args) == 0 {
		text := suffix + ")"
		if !r.ed.canReplace(xEnd, r.off(c.Rparen)+1, text) {
			r.skip("call split over lines: " + op.kind)
			return false
		}
		s := r.syncSites(c, se, op)
		r.ed.open(lo, hi, lit(head+s+", "+amp))
		r.ed.replace(xEnd, r.off(c.Rparen)+1, lo, hi, lit(text))
		return true
	}
	text := suffix + ", "
	if !r.ed.canReplace(xEnd, r.off(c.Lparen)+1, text) {
		r.skip("call split over lines: " + op.kind)
		return false
	}
	s := r.syncSites(c, se, op)
	r.ed.open(lo, hi, lit(head+s+", "+amp))
	r.ed.replace(xEnd, r.off(c.Lparen)+1, lo, hi, lit(text))
	return true
}

// scalarKeyOps are the sync.Map operations that keep no key: their rt
// wrappers have a Scalar variant (shim/rt/syncmap.go) for a key of an
// integer or string type, whose conversion to an interface then stays on
// the program's stack as it does unrecorded.
var scalarKeyOps = map[string]bool{
	"SyncMapLoad": true, "SyncMapLoadAndDelete": true, "SyncMapDelete": true, "SyncMapCompareAndDelete": true,
}

// scalarKey reports whether the static type of key, a sync.Map key, is an
// integer or string type (named or not, an untyped constant's too): then
// so is its dynamic type, as shim.SyncMapScalarGate requires.
func (r *rewriter) scalarKey(key ast.Expr) bool {
	tv, ok := r.info.Types[key]
	if !ok || tv.Type == nil {
		return false
	}
	b, ok := tv.Type.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsInteger|types.IsString) != 0
}

// syncSites allocates the sites of a sync call and returns their ids as
// fn's first arguments: the call's, and for op.writes the site of the
// writes into the receiver's writers. Its expression, "*X.Stdout" (the
// writer of Stdout or Stderr), names no variable, so that the writes
// match any access to the writer's address (see bufferMethods).
func (r *rewriter) syncSites(c *ast.CallExpr, se *ast.SelectorExpr, op syncOp) string {
	if r.fn != nil && r.fn.siteOp == c {
		// A lock helper's operation: its caller's site.
		return "precog_site"
	}
	s := r.site(se.Sel.Pos(), op.kind, se.X)
	r.loadUses(c, op.kind)
	if end, ok := r.exits[c]; ok && (op.kind == "unlock" || op.kind == "runlock") {
		p := r.fset.PositionFor(end, false)
		r.sites[len(r.sites)-1].ExitLine, r.sites[len(r.sites)-1].ExitCol = p.Line, p.Column
	}
	if strings.HasPrefix(op.fn, "SyncMap") && op.fn != "SyncMapRange" && len(c.Args) > 0 {
		// The location is the key's entry (shim.SyncMapGate).
		r.sites[len(r.sites)-1].Expr = exprText(r.text(se.X) + "[" + r.text(c.Args[0]) + "]")
	}
	if op.writes {
		s += ", " + r.site(se.Sel.Pos(), "write", se.X)
		r.sites[len(r.sites)-1].Expr = exprText("*" + r.text(se.X) + ".Stdout")
	}
	return s
}

// loadUses sets the Uses of the site just allocated for the call c, an
// atomic load (or a sync.Map load) of kind, to where its result goes
// (Options.Uses at the call's Lparen, the position of the call in SSA): a
// pointer an atomic.Pointer's Load returns and that is dereferenced
// unchecked carries the deref mark, as a plain load's does. An unlock's
// says whether its section is sealed (trace.UseSealed).
func (r *rewriter) loadUses(c *ast.CallExpr, kind string) {
	if (kind == "atomic-load" || kind == "unlock" || kind == "runlock") && r.opts.Uses != nil {
		r.sites[len(r.sites)-1].Uses = r.opts.Uses(c.Lparen)
	}
}

// condFuncs are testify's assertions that poll a condition on goroutines
// of their own (see shim/api_cond.go), by name, in assert and require,
// as functions and as methods of Assertions: whether the condition takes
// an argument (EventuallyWithT's *assert.CollectT).
var condFuncs = map[string]bool{
	"Eventually": false, "Eventuallyf": false, "Never": false, "Neverf": false,
	"EventuallyWithT": true, "EventuallyWithTf": true,
}

// condCall rewrites a call of testify's Eventually, EventuallyWithT or
// Never (or a variant) while testify is not instrumented: the condition
// becomes precog_shim.CondBool(site, cond) (CondWith for one that takes an
// argument), which forks its runs as tasks of the call, and the call is
// followed by the join of the runs that ended, precog_shim.CondReturned(site)
// after a statement, precog_shim.CondWaited(site, call) around a value.
// The first run is forked as late as the call allows: when an argument
// that is not a constant follows the condition (a message's "got %d",
// got), the condition becomes precog_shim.CondBoolLate (CondWithLate) and
// the last such argument precog_shim.CondFork(site, x), which forks it
// after every call of the arguments before it (markArg's choice and
// reasons, as for MarkV), so what the caller records while evaluating the
// message is before the runs, as it is in every execution.
// se and sel are the method's selector, nil for a function. It reports
// false when it left the call alone.
func (r *rewriter) condCall(c *ast.CallExpr, fn *types.Func, se *ast.SelectorExpr, sel *types.Selection, ctx callCtx) bool {
	if fn.Pkg() == nil {
		return false
	}
	path := fn.Pkg().Path()
	if path != "github.com/stretchr/testify/assert" && path != "github.com/stretchr/testify/require" {
		return false
	}
	withArg, ok := condFuncs[fn.Name()]
	if !ok || r.opts.Instrumented(path) {
		return false
	}
	sig := fn.Type().(*types.Signature)
	i := 1 // the condition's argument: after t
	if sig.Recv() != nil {
		if key := methodKey(sel); key != path+".Assertions."+fn.Name() {
			return false
		}
		i = 0
	}
	if len(c.Args) <= i || c.Ellipsis.IsValid() && len(c.Args) == i+1 {
		return false
	}
	if b, isBasic := r.typeOf(c.Args[i]).(*types.Basic); isBasic && b.Kind() == types.UntypedNil {
		return false
	}
	if ctx == callDefer {
		r.skip("deferred condition call")
		return false
	}
	if ctx == callExpr && sig.Results().Len() != 1 {
		return false
	}
	if se != nil {
		r.receiver(se.X, sel)
	}
	for _, a := range c.Args {
		r.expr(a)
	}
	wrap := "CondBool"
	if withArg {
		wrap = "CondWith"
	}
	late := r.markArg(c)
	if late != nil && late.Pos() <= c.Args[i].Pos() {
		late = nil
	}
	if late != nil {
		wrap += "Late"
	}
	s := r.site(c.Args[i].Pos(), "go", c.Args[i])
	alo, ahi := r.span(c.Args[i])
	r.ed.open(alo, ahi, lit(r.shim(wrap)+"("+s+", "))
	r.ed.close(alo, ahi, lit(")"))
	if late != nil {
		lo, hi := r.span(late)
		r.ed.open(lo, hi, lit(r.shim("CondFork")+"("+s+", "))
		r.ed.close(lo, hi, lit(")"))
	}
	w := r.site(c.Rparen, "wait", c)
	lo, hi := r.span(c)
	if ctx == callStmt {
		r.ed.close(lo, hi, lit("; "+r.shim("CondReturned")+"("+w+")"))
	} else {
		r.ed.open(lo, hi, lit(r.shim("CondWaited")+"("+w+", "))
		r.ed.close(lo, hi, lit(")"))
	}
	return true
}

// groupCall rewrites Go and Wait of errgroup and conc groups: ptr is the
// text of the group's address.
func (r *rewriter) groupCall(c *ast.CallExpr, se *ast.SelectorExpr, sel *types.Selection, op syncOp, ctx callCtx, ptr string) bool {
	if !r.isPure(se.X) {
		r.skip("group receiver with side effects")
		return false
	}
	r.receiver(se.X, sel)
	for _, a := range c.Args {
		r.expr(a)
	}

	group := "precog_unsafe.Pointer(" + ptr + ")"
	lo, hi := r.span(c)
	switch op.group {
	case "go", "goerr":
		if len(c.Args) != 1 {
			return true
		}
		s := r.site(se.Sel.Pos(), op.kind, se.X)
		alo, ahi := r.span(c.Args[0])
		r.ed.open(alo, ahi, lit(r.shim(op.fn)+"("+s+", "+group+", "))
		r.ed.close(alo, ahi, lit(")"))
	case "waiterr":
		if ctx == callDefer {
			r.skip("deferred group wait")
			return true
		}
		s := r.site(se.Sel.Pos(), op.kind, se.X)
		r.ed.open(lo, hi, lit(r.shim(op.fn)+"("+s+", "+group+", "))
		r.ed.close(lo, hi, lit(")"))
	case "wait":
		if ctx != callStmt {
			r.skip("group wait outside a statement list")
			return true
		}
		s := r.site(se.Sel.Pos(), op.kind, se.X)
		r.ed.close(lo, hi, lit("; "+r.shim(op.fn)+"("+s+", "+group+")"))
	}
	return true
}

// methodValue rewrites a lock method value (f := mu.Lock) into
// precog_shim.LockFunc(SITE, &mu); it reports whether it did.
func (r *rewriter) methodValue(x *ast.SelectorExpr, sel *types.Selection) bool {
	if methodKey(sel) == "net/http/httptest.Server.Close" && r.isPure(x.X) {
		// t.Cleanup(ts.Close): see call's ServeClose.
		r.expr(x.X)
		s := r.site(x.Sel.Pos(), "wait", x)
		lo, hi := r.span(x)
		r.ed.open(lo, hi, lit(r.shim("ServeCloser")+"("+s+", "))
		r.ed.replace(r.off(x.X.End()), hi, lo, hi, lit(")"))
		return true
	}
	op, ok := syncMethods[methodKey(sel)]
	if !ok || op.value == "" {
		return false
	}
	amp, suffix, ok := r.recvPath(x.X, sel, op.iface)
	if !ok {
		return false
	}
	if amp == "" {
		r.expr(x.X)
	} else {
		r.addr(x.X)
	}
	fn := r.shim(op.value)
	if op.valueRT {
		fn = r.rt(op.value)
	}
	s := r.site(x.Sel.Pos(), op.kind, x)
	lo, hi := r.span(x)
	r.ed.open(lo, hi, lit(fn+"("+s+", "+amp))
	r.ed.replace(r.off(x.X.End()), hi, lo, hi, lit(suffix+")"))
	return true
}

// fuzzT returns the name of the *testing.T parameter of ft, the type of a
// function literal passed to (*testing.F).Fuzz, naming it precog_t where
// it is blank or unnamed (then the other parameters become _), so that
// the literal starts with TestStart: go test runs the fuzz function once
// per seed input (f.Add's, testdata/fuzz's) as a subtest of the fuzz
// target, FuzzX/seed#0 and so on, each on a goroutine of its own that the
// testing package starts after the previous input's subtest ended
// (fuzz.go's run: go tRunner(...), then <-t.signal). Its TestStart makes
// hb order each input's run after the previous one's end, as for t.Run's
// subtests. "" if ft's first parameter is not a *testing.T.
func (r *rewriter) fuzzT(ft *ast.FuncType) string {
	if ft.Params == nil || len(ft.Params.List) == 0 {
		return ""
	}
	first := ft.Params.List[0]
	if !isNamed(r.typeOf(first.Type), "testing", "T", true) {
		return ""
	}
	if len(first.Names) > 0 {
		id := first.Names[0]
		if id.Name != "_" {
			return id.Name
		}
		lo, hi := r.span(id)
		r.ed.replace(lo, hi, lo, hi, lit("precog_t"))
		return "precog_t"
	}
	for i, f := range ft.Params.List {
		name := "_ "
		if i == 0 {
			name = "precog_t "
		}
		lo, hi := r.span(f.Type)
		r.ed.insert(lo, lo, hi, lit(name))
	}
	return "precog_t"
}

// connIO are the interfaces of package io that a TCP connection or a
// pipe's half handed to a reader or writer of bytes is converted to.
var connIO = []string{"Reader", "Writer", "Closer", "ReadWriter", "ReadCloser", "WriteCloser", "ReadWriteCloser"}

// A stream is a kind of value whose bytes a wrapper of the shim's orders:
// a TCP connection (rtnet), or the reading or the writing half of an
// io.Pipe (rtpipe).
type stream int

const (
	noStream stream = iota
	connStream
	pipeReadStream
	pipeWriteStream
)

// streamOf returns the kind of stream a value of type t is.
func streamOf(t types.Type) stream {
	switch {
	case isConnType(t):
		return connStream
	case isNamed(t, "io", "PipeReader", true):
		return pipeReadStream
	case isNamed(t, "io", "PipeWriter", true):
		return pipeWriteStream
	}
	return noStream
}

// moves reports whether the method of s named method moves its bytes or
// ends its stream, so that a call of it goes through the wrapper: a
// connection's Read, Write and Close; a pipe's Read, and its writer's
// Write, Close and CloseWithError (the reader's Close and CloseWithError
// are the pipe's own in rtpipe's wrapper: it orders nothing by them).
func (s stream) moves(method string) bool {
	switch s {
	case connStream:
		return method == "Read" || method == "Write" || method == "Close"
	case pipeReadStream:
		return method == "Read"
	case pipeWriteStream:
		return method == "Write" || method == "Close" || method == "CloseWithError"
	}
	return false
}

// connDuring are the functions that use a reader or writer handed to them
// only while they run (not io.MultiWriter, io.TeeReader or
// bufio.NewReader, whose results keep it).
var connDuring = map[string]bool{
	"io.ReadFull": true, "io.ReadAtLeast": true, "io.ReadAll": true, "io.Copy": true, "io.CopyN": true, "io.CopyBuffer": true, "io.WriteString": true,
	"fmt.Fprint": true, "fmt.Fprintf": true, "fmt.Fprintln": true, "fmt.Fscan": true, "fmt.Fscanf": true, "fmt.Fscanln": true,
}

// connOperands wraps each operand of the call c through which bytes are
// read from or written to a TCP connection or a pipe, or the stream
// closed: the receiver of a method that moves them (stream.moves), and
// an argument passed where one of package io's readers, writers or
// closers is expected (bufio.NewReader(c), io.ReadFull(c, b),
// io.Copy(pw, r)); see connAs.
func (r *rewriter) connOperands(c *ast.CallExpr) {
	if se, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok {
		if sel := r.info.Selections[se]; sel != nil && sel.Kind() == types.MethodVal {
			if s := streamOf(r.typeOf(se.X)); s.moves(se.Sel.Name) {
				r.wrapConn(se.X, s, "")
			} else if s, path, ok := r.embeddedConn(r.typeOf(se.X), se.Sel.Name); ok && s.moves(se.Sel.Name) {
				r.wrapConn(se.X, s, path)
			}
		}
	}
	sig, ok := r.typeOf(c.Fun).Underlying().(*types.Signature)
	if !ok {
		return
	}
	during := false
	if id := r.calleeIdent(ast.Unparen(c.Fun)); id != nil {
		if f, ok := r.info.Uses[id].(*types.Func); ok && f.Pkg() != nil {
			during = connDuring[f.Pkg().Path()+"."+f.Name()]
		}
	}
	for i, a := range c.Args {
		switch n := sig.Params().Len(); {
		case sig.Variadic() && i >= n-1 && c.Ellipsis == token.NoPos:
			r.connAs(a, sig.Params().At(n-1).Type().(*types.Slice).Elem(), during)
		case i < n:
			r.connAs(a, sig.Params().At(i).Type(), during)
		}
	}
}

// connAs wraps x, a value converted to type to, when x is a TCP
// connection (a net.Conn, *net.TCPConn or *tls.Conn) or a pipe's half (an
// *io.PipeReader or *io.PipeWriter) and to one of package io's readers or
// writers (connIO) with a method that moves its bytes: as
// precog_rtnet.Conn(S, x), precog_rtpipe.Reader(S, x) or
// precog_rtpipe.Writer(S, x), which order a read after the other end's
// write whose bytes it got (see packages rtnet and rtpipe).
//
// With during set, x is handed to a function that uses it only while it
// runs (connDuring: io.ReadFull(c, b), fmt.Fprintf(c, ...)), and
// a value whose methods of to are all promoted from one embedded
// connection or half (type Conn struct{ *net.TCPConn }) is that stream: it is
// wrapped as the stream it embeds. Elsewhere (bufio.NewReader(c), a
// field of a literal) the reader may outlive a change of the embedded
// field, which the wrapped stream would not see.
func (r *rewriter) connAs(x ast.Expr, to types.Type, during bool) {
	if !slices.ContainsFunc(connIO, func(name string) bool { return isNamed(to, "io", name, false) }) {
		return
	}
	iface, ok := to.Underlying().(*types.Interface)
	if !ok {
		return
	}
	if s := streamOf(r.typeOf(x)); s != noStream {
		for m := range iface.Methods() {
			if s.moves(m.Name()) {
				r.wrapConn(x, s, "")
				return
			}
		}
		return
	}
	if !during || iface.NumMethods() == 0 {
		return
	}
	path := ""
	var s stream
	moves := false
	for m := range iface.Methods() {
		ms, p, ok := r.embeddedConn(r.typeOf(x), m.Name())
		if !ok || path != "" && p != path {
			return
		}
		s, path = ms, p
		moves = moves || s.moves(m.Name())
	}
	if moves {
		r.wrapConn(x, s, path)
	}
}

// embeddedConn returns the kind and the path of embedded fields
// (".TCPConn", ".inner.Conn", ".PipeWriter") by which a value of type t,
// itself no stream, has the method named method promoted from an
// embedded net.Conn, *net.TCPConn, *tls.Conn, *io.PipeReader or
// *io.PipeWriter (type Conn struct{ *net.TCPConn; id int }, as gopcua's
// uacp.Conn): calls of that method read or write the stream's bytes as
// the stream's own do, when it is one that moves them (stream.moves). It
// reports false when t
// declares the method itself (wrapping it, the way a Close with a
// sync.Once does), when the method comes from no stream, or when a
// field on the way cannot be named here (unexported, of another package).
func (r *rewriter) embeddedConn(t types.Type, method string) (stream, string, bool) {
	obj, index, _ := types.LookupFieldOrMethod(t, true, r.pkg, method)
	if _, ok := obj.(*types.Func); !ok || len(index) < 2 {
		return noStream, "", false
	}
	path := ""
	cur := t
	for _, i := range index[:len(index)-1] {
		if p, ok := cur.Underlying().(*types.Pointer); ok {
			cur = p.Elem()
		}
		st, ok := cur.Underlying().(*types.Struct)
		if !ok {
			return noStream, "", false
		}
		f := st.Field(i)
		if !f.Embedded() || !f.Exported() && f.Pkg() != r.pkg {
			return noStream, "", false
		}
		path += "." + f.Name()
		cur = f.Type()
		if s := streamOf(cur); s != noStream {
			return s, path, true
		}
	}
	return noStream, "", false
}

// isConnType reports whether t is a net.Conn, a *net.TCPConn or a
// *tls.Conn (whose plaintext bytes rtnet counts over the TCP connection
// under it).
func isConnType(t types.Type) bool {
	return isNamed(t, "net", "Conn", false) || isNamed(t, "net", "TCPConn", true) || isNamed(t, "crypto/tls", "Conn", true)
}

// wrapConn wraps the stream x of kind s as precog_rtnet.Conn(S, x) (or
// precog_rtpipe.Reader, precog_rtpipe.Writer), or, for a stream embedded
// in x at path (".TCPConn"; see embeddedConn), as
// precog_rtnet.Conn(S, (x).TCPConn).
func (r *rewriter) wrapConn(x ast.Expr, s stream, path string) {
	fn, kind := r.rtnet("Conn"), "conn"
	switch s {
	case pipeReadStream:
		fn, kind = rtpipeName+".Reader", "pipe"
	case pipeWriteStream:
		fn, kind = rtpipeName+".Writer", "pipe"
	}
	site := r.site(x.Pos(), kind, x)
	lo, hi := r.span(x)
	if path == "" {
		r.ed.open(lo, hi, lit(fn+"("+site+", "))
		r.ed.close(lo, hi, lit(")"))
		return
	}
	r.ed.open(lo, hi, lit(fn+"("+site+", ("))
	r.ed.close(lo, hi, lit(")"+path+")"))
}

// rtnet returns how rewritten code calls package rtnet's function name.
func (r *rewriter) rtnet(name string) string { return rtnetName + "." + name }

// respondOperands wraps each operand of the call c that is an
// http.ResponseWriter (an argument, the receiver of one of its methods, or
// the operand of a type assertion that is the receiver: w.(http.Flusher))
// as precog_shim.Respond(S, w), which releases what the HTTP/1
// connection's goroutine did so far for the client's Do while the
// response's header is not written (see "HTTP/1 responses" in the shim):
// every call that may write the header is handed w, or calls it.
func (r *rewriter) respondOperands(c *ast.CallExpr) {
	wrap := func(x ast.Expr) {
		if !isNamed(r.typeOf(x), "net/http", "ResponseWriter", false) {
			return
		}
		s := r.site(x.Pos(), "served", x)
		lo, hi := r.span(x)
		r.ed.open(lo, hi, lit(r.shim("Respond")+"("+s+", "))
		r.ed.close(lo, hi, lit(")"))
	}
	for _, a := range c.Args {
		wrap(a)
	}
	se, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	if sel := r.info.Selections[se]; sel == nil || sel.Kind() != types.MethodVal {
		return
	}
	if ta, ok := ast.Unparen(se.X).(*ast.TypeAssertExpr); ok && ta.Type != nil {
		wrap(ta.X)
		return
	}
	wrap(se.X)
}

// httpClients are net/http's client calls that return a response, by
// method key or function, and rthttp's traced versions (see package
// rthttp): Do is wrapped, the others replaced.
var httpClients = map[string]string{
	"net/http.Client.Do":       "",
	"net/http.Client.Get":      "ClientGet",
	"net/http.Client.Head":     "ClientHead",
	"net/http.Client.Post":     "ClientPost",
	"net/http.Client.PostForm": "ClientPostForm",
	"net/http.Get":             "Get",
	"net/http.Head":            "Head",
	"net/http.Post":            "Post",
	"net/http.PostForm":        "PostForm",
}

// httpClientCall rewrites a call of net/http's client (httpClients) so
// that, after it returned a response, the caller acquires the release of
// the HTTP/1 handler that answered it (see "HTTP/1 responses" in the
// shim): c.Do(req) becomes precog_rthttp.Done(c.Do(precog_rthttp.Trace(S, req)))
// and the call rewritten as usual (false, with the function that wraps it,
// to be called after the call's own rewrites, so that the wrapping lies
// outside them: req may be a local that full tracing reads); c.Get(u) (Head, Post,
// PostForm) precog_rthttp.Done(precog_rthttp.ClientGet(S, c, u)), and
// http.Get(u) precog_rthttp.Done(precog_rthttp.Get(S, u)) (true). Not in a
// go or defer statement, whose call's value is not the caller's.
func (r *rewriter) httpClientCall(c *ast.CallExpr, ctx callCtx) (bool, func()) {
	if ctx == callDefer || c.Ellipsis.IsValid() {
		return false, nil
	}
	se, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
	if !ok {
		return false, nil
	}
	key, method := "", false
	if sel := r.info.Selections[se]; sel != nil {
		if sel.Kind() != types.MethodVal {
			return false, nil
		}
		key, method = methodKey(sel), true
	} else if id, ok := se.X.(*ast.Ident); ok {
		if _, isPkg := r.info.Uses[id].(*types.PkgName); !isPkg {
			return false, nil
		}
		if f, ok := r.info.Uses[se.Sel].(*types.Func); ok && f.Pkg() != nil {
			key = f.Pkg().Path() + "." + f.Name()
		}
	}
	fn, ok := httpClients[key]
	if !ok {
		return false, nil
	}
	s := r.site(se.Sel.Pos(), "wait", c)
	lo, hi := r.span(c)
	done := r.rthttp("Done") + "("
	if fn == "" {
		if len(c.Args) != 1 {
			return false, nil
		}
		return false, func() {
			alo, ahi := r.span(c.Args[0])
			r.ed.open(alo, ahi, lit(r.rthttp("Trace")+"("+s+", "))
			r.ed.close(alo, ahi, lit(")"))
			r.ed.open(lo, hi, lit(done))
			r.ed.close(lo, hi, lit(")"))
		}
	}
	if method {
		if _, isPtr := r.typeOf(se.X).Underlying().(*types.Pointer); !isPtr || !r.isPure(se.X) {
			return false, nil
		}
		r.expr(se.X)
		r.ed.open(lo, hi, lit(done+r.rthttp(fn)+"("+s+", "))
		sep := ""
		if len(c.Args) > 0 {
			sep = ", "
		}
		r.ed.replace(r.off(se.X.End()), r.off(c.Lparen)+1, lo, hi, lit(sep))
	} else {
		r.drop(se)
		sep := ""
		if len(c.Args) > 0 {
			sep = ", "
		}
		r.ed.replace(r.off(c.Fun.Pos()), r.off(c.Lparen)+1, lo, hi, lit(done+r.rthttp(fn)+"("+s+sep))
	}
	for _, a := range c.Args {
		r.expr(a)
	}
	r.ed.close(lo, hi, lit(")"))
	return true, nil
}

func (r *rewriter) rthttp(name string) string { return rthttpName + "." + name }

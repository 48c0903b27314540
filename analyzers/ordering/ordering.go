package ordering

import (
	"cmp"
	_ "embed"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/budget"
	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/sharedloc"
	"github.com/precog-dev/precog/analyzers/spawnfacts"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// Analyzer finds static happens-before order.
var Analyzer = &analysis.Analyzer{
	Name:       "ordering",
	Doc:        analyzerutil.MustExtractDoc(doc, "ordering"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/ordering",
	Requires:   []*analysis.Analyzer{ssabuild.Analyzer, goroutines.Analyzer, sharedloc.Analyzer, budget.Analyzer, spawnfacts.Analyzer},
	ResultType: reflect.TypeFor[*Result](),
	Run:        analyzerutil.Guard(run, func() any { return &Result{} }),
}

// MaxCallDepth bounds how many call sites "before" and "after" follow.
const MaxCallDepth = 4

// Rule names the synchronization that orders two instructions.
type Rule int

const (
	Spawn   Rule = iota + 1 // a `go` statement or library spawn
	Join                    // WaitGroup Done/Wait, or a task's Wait
	Channel                 // send or close, then receive
	Once                    // sync.Once.Do
	Flag                    // a flag that keeps one goroutine in flight
	Atomic                  // an atomic flag found set, set only after the work
	Bubble                  // testing/synctest.Wait in the bubble that starts the goroutine
	Handoff                 // a value held between its receive and the close of the reply channel it carries (Ordered only)
)

func (r Rule) String() string {
	switch r {
	case Spawn:
		return "goroutine start"
	case Join:
		return "wait"
	case Channel:
		return "channel"
	case Once:
		return "sync.Once"
	case Flag:
		return "in-flight flag"
	case Atomic:
		return "atomic flag"
	case Bubble:
		return "synctest.Wait"
	case Handoff:
		return "hand-off"
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

// An Edge is the evidence that one instruction happens before another.
type Edge struct {
	Rule Rule
	// Pos is the synchronization operation that creates the order: the
	// `go` statement, the Wait, the receive or the Do.
	Pos token.Pos
}

// Result answers ordering queries. It is safe for concurrent use.
type Result struct {
	pass   *analysis.Pass
	gr     *goroutines.Result
	shared *sharedloc.Result
	spawns *spawnfacts.Result
	// budget is the package's, charged with every step of a query
	// (see query).
	budget *budget.Budget

	once sync.Once
	ops  syncOps

	mu     sync.Mutex
	sites  map[siteKey][]ssa.Instruction                 // callSites, memoized
	recvs  map[recvKey]map[sharedloc.Loc]ssa.Instruction // receivesBefore, memoized
	closed map[recvKey]map[sharedloc.Loc]ssa.Instruction // closedReceives, memoized
	flags  map[*goroutines.Context]*flagProtocol         // flagOf, memoized
	// restarts memoizes RestartedAfterJoin (nil: not restarted after a
	// join).
	restarts map[*goroutines.Context]ssa.Instruction
	guards   map[guardKey][]sharedloc.Loc                                // onceGuards, memoized
	doneObjs map[*goroutines.Context][]sharedloc.Loc                     // doneObjects, memoized
	nested   map[*goroutines.Context][]ssa.Instruction                   // JoinedWithin's joins (nil: not joined), memoized
	live     map[*goroutines.Context]map[*ssa.Function]bool              // liveReach, memoized
	reach    map[*ssa.Function]map[*ssa.Function]bool                    // reachableFrom, memoized
	befores  map[beforeKey]bool                                          // before, memoized
	recvsOnC map[*goroutines.Context]map[sharedloc.Loc][]ssa.Instruction // recvsOn, memoized
	holdings map[holdKey][]*holding                                      // holdingsIn, memoized
	helds    map[heldKey][]*holding                                      // heldAt, memoized
	hands    map[handKey]bool                                            // handsOff, memoized
	stays    map[*ssa.Alloc]bool                                         // staysIn, memoized

	completed map[recvKey]map[sharedloc.Loc]ssa.Instruction // completedSends, memoized
}

// syncOps indexes the package's synchronization calls by object.
type syncOps struct {
	waits  map[sharedloc.Loc][]ssa.Instruction // WaitGroup.Wait and task joins
	dones  map[sharedloc.Loc][]ssa.Instruction // WaitGroup.Done, deferred or not
	adds   map[sharedloc.Loc][]ssa.Instruction // WaitGroup.Add
	sends  map[sharedloc.Loc][]ssa.Instruction // sends and closes
	closes map[sharedloc.Loc][]ssa.Instruction // closes alone
	// fieldClose holds the field's location of each close through a
	// struct field that indexFieldCloses also filed under a make site.
	fieldClose map[ssa.Instruction]sharedloc.Loc
	recvs      map[sharedloc.Loc][]ssa.Instruction // receives
	// fnRecvs holds the receives' accesses by function (see
	// SentAfterOwnWrite).
	fnRecvs map[*ssa.Function][]recvAccess
	onceDo  map[sharedloc.Loc][]ssa.CallInstruction
	// caseStart marks the receives in recvs that stand for a select
	// case: the first instruction of the case's body, which runs after
	// the receive although it is itself the instruction asked about.
	caseStart map[ssa.Instruction]bool
	onceFns   map[*ssa.Function][]sharedloc.Loc // Do bodies and the Onces that guard them
	dead      map[*ssa.Function]bool            // functions that never run (see deadFuncs)
	// wrapped holds the calls of WaitGroup wrappers (spawnfacts'
	// WaitGroupFact: z.Closer's Done, SignalAndWait) found in waits,
	// dones and adds, each with the operation it stands for; maybeAdd
	// those of them whose Add may not run on every path.
	wrapped  map[ssa.Instruction]string
	maybeAdd map[ssa.Instruction]bool
}

func run(pass *analysis.Pass) (any, error) {
	return &Result{
		pass:   pass,
		gr:     pass.ResultOf[goroutines.Analyzer].(*goroutines.Result),
		shared: pass.ResultOf[sharedloc.Analyzer].(*sharedloc.Result),
		budget: pass.ResultOf[budget.Analyzer].(*budget.Budget),
		spawns: pass.ResultOf[spawnfacts.Analyzer].(*spawnfacts.Result),
	}, nil
}

func (r *Result) index() {
	r.once.Do(func() {
		ops := syncOps{
			waits:     map[sharedloc.Loc][]ssa.Instruction{},
			dones:     map[sharedloc.Loc][]ssa.Instruction{},
			adds:      map[sharedloc.Loc][]ssa.Instruction{},
			sends:     map[sharedloc.Loc][]ssa.Instruction{},
			closes:    map[sharedloc.Loc][]ssa.Instruction{},
			recvs:     map[sharedloc.Loc][]ssa.Instruction{},
			onceDo:    map[sharedloc.Loc][]ssa.CallInstruction{},
			caseStart: map[ssa.Instruction]bool{},
			fnRecvs:   map[*ssa.Function][]recvAccess{},
			onceFns:   map[*ssa.Function][]sharedloc.Loc{},
			wrapped:   map[ssa.Instruction]string{},
			maybeAdd:  map[ssa.Instruction]bool{},
		}
		for _, a := range r.shared.Accesses {
			switch a.Op {
			case sharedloc.ChanSend, sharedloc.ChanClose:
				ops.sends[a.Loc] = append(ops.sends[a.Loc], a.Instr)
				if a.Op == sharedloc.ChanClose {
					ops.closes[a.Loc] = append(ops.closes[a.Loc], a.Instr)
				}
			case sharedloc.ChanRecv:
				recv := a.Instr
				if sel, ok := recv.(*ssa.Select); ok {
					// Code after the receive is the case's body.
					recv = ssaflow.SelectCase(sel, a.Ptr)
					if recv == nil {
						continue
					}
					ops.caseStart[recv] = true
				}
				ops.recvs[a.Loc] = append(ops.recvs[a.Loc], recv)
				ops.fnRecvs[a.Fn()] = append(ops.fnRecvs[a.Fn()], recvAccess{a, recv})
			}
		}
		r.indexReturnedChannels(&ops)
		r.indexFieldCloses(&ops)
		// A spawner's goroutine function (Context.Wrapper) runs in the
		// contexts rooted where the spawner is called, so its Done is
		// among these.
		for _, fn := range r.gr.Funcs() {
			for _, b := range fn.Blocks {
				for _, instr := range b.Instrs {
					site, ok := instr.(ssa.CallInstruction)
					if !ok {
						continue
					}
					call := site.Common()
					name := model.CalleeName(call)
					if len(call.Args) == 0 || call.IsInvoke() {
						continue
					}
					if _, isGo := instr.(*ssa.Go); !isGo && !strings.HasPrefix(name, "(*sync.WaitGroup).") {
						r.indexWrapped(&ops, instr, call)
					}
					objs := r.shared.Objects(call.Args[0])
					if len(objs) != 1 {
						continue
					}
					obj := objs[0]
					switch {
					case name == model.WaitGroupWait || model.IsJoin(name):
						ops.waits[obj] = append(ops.waits[obj], instr)
					case name == model.WaitGroupDone:
						ops.dones[obj] = append(ops.dones[obj], instr)
					case name == model.WaitGroupAdd:
						ops.adds[obj] = append(ops.adds[obj], instr)
					case name == model.OnceDo && len(call.Args) == 2:
						ops.onceDo[obj] = append(ops.onceDo[obj], site)
					}
				}
			}
		}
		ops.dead = deadFuncs(r.pass, r.gr.Funcs())
		for obj, sites := range ops.onceDo {
			for _, site := range sites {
				for _, fn := range r.gr.RefTargets(site) {
					ops.onceFns[fn] = append(ops.onceFns[fn], obj)
				}
			}
		}
		r.ops = ops
	})
}

// indexWrapped files a call of a WaitGroup wrapper (a function with a
// WaitGroupFact, of this package or a dependency) under the operations it
// stands for, on the WaitGroup its argument reaches: the field at the
// end of the fact's path (WaitGroups in fields are one location per
// field, as sharedloc names them), or the objects of the argument itself
// when the wrapper is handed the *sync.WaitGroup.
func (r *Result) indexWrapped(ops *syncOps, instr ssa.Instruction, call *ssa.CallCommon) {
	for _, op := range r.spawns.WaitGroupOps(call) {
		if op.Param >= len(call.Args) {
			continue
		}
		var obj sharedloc.Loc
		arg := call.Args[op.Param]
		if len(op.Path) == 0 {
			objs := r.shared.Objects(arg)
			if len(objs) != 1 {
				continue
			}
			obj = objs[0]
		} else {
			f := spawnfacts.WaitGroupField(arg.Type(), op.Path)
			if f == nil {
				continue
			}
			obj = sharedloc.Loc{Kind: sharedloc.Field, Obj: f}
		}
		switch op.Op {
		case model.WaitGroupWait:
			ops.waits[obj] = append(ops.waits[obj], instr)
		case model.WaitGroupDone:
			ops.dones[obj] = append(ops.dones[obj], instr)
		case model.WaitGroupAdd:
			ops.adds[obj] = append(ops.adds[obj], instr)
			if !op.Must {
				ops.maybeAdd[instr] = true
			}
		default:
			continue
		}
		ops.wrapped[instr] = op.Op
	}
}

// isWait reports whether w, one of the package's waits, is a
// sync.WaitGroup Wait, or a call of a wrapper that waits on one.
func (r *Result) isWait(w ssa.Instruction) bool {
	return model.CalleeName(w.(ssa.CallInstruction).Common()) == model.WaitGroupWait || r.ops.wrapped[w] == model.WaitGroupWait
}

// Before reports whether a, executing in context ca, happens before b,
// executing in context cb, by one of the rules of the package doc, and
// gives the evidence.
func (r *Result) Before(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	r.index()
	if e, ok := r.spawnBefore(a, ca, cb, MaxCallDepth); ok {
		return e, true
	}
	if e, ok := r.joinBefore(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.bubbleJoinBefore(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.channelBefore(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.closedBefore(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.completionBefore(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.drainBefore(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.eventuallyBefore(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.returnedBefore(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.onceBefore(a, b, cb); ok {
		return e, true
	}
	if e, ok := r.bubbleBefore(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.flagBefore(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.gateBefore(a, b); ok {
		return e, true
	}
	if e, ok := r.heldBefore(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.ctorReturnBefore(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.turnBefore(a, ca, b, cb); ok {
		return e, true
	}
	return Edge{}, false
}

// Ordered reports whether a and b, in contexts ca and cb, are ordered one
// way or the other: by Before, or by a hand-off through a value that
// carries its reply channel, which orders each pair of their runs, in a
// direction that depends on the run (see handoffOrdered).
func (r *Result) Ordered(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	if e, ok := r.Before(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.Before(b, cb, a, ca); ok {
		return e, true
	}
	r.index()
	if e, ok := r.handoffOrdered(a, ca, b, cb); ok {
		return e, true
	}
	if e, ok := r.turnOrdered(a, ca, b, cb); ok {
		return e, true
	}
	return r.handoffOrdered(b, cb, a, ca)
}

// spawnBefore reports whether a, in ca, happens before the start of every
// goroutine of cb: before its `go` statement or spawning call, or, for an
// HTTP handler, before each call that serves it when the function that
// roots the handler hands it only to those (net/http starts every handler
// goroutine inside the serve call: `fill(); http.ListenAndServe(addr,
// mux)` fills before every request, though mux.HandleFunc came first),
// and otherwise before its conversion to http.HandlerFunc, or its
// registration (goroutines.Context.Starts): a server's handlers run only
// once the handler value exists, after the code that filled what they
// read.
func (r *Result) spawnBefore(a ssa.Instruction, ca, cb *goroutines.Context, depth int) (Edge, bool) {
	return r.startsAfter(a, ca, cb, depth, false)
}

// startsAfter is spawnBefore; with apart, a start made by code that never
// runs with a (goroutines.Result.StartApart) needs no order: no
// goroutine started there runs while a does (see StartedApart).
func (r *Result) startsAfter(a ssa.Instruction, ca, cb *goroutines.Context, depth int, apart bool) (Edge, bool) {
	starts := cb.Starts()
	if depth == 0 || len(starts) == 0 || cb == ca {
		return Edge{}, false
	}
	for _, site := range starts {
		if !r.startBefore(a, ca, cb, site, depth, apart) {
			return Edge{}, false
		}
	}
	return Edge{Rule: Spawn, Pos: starts[0].Pos()}, true
}

// startBefore reports whether a, in ca, happens before site, a start of
// goroutines of cb, on every goroutine that runs site (or, with apart,
// on every one that may run with a).
func (r *Result) startBefore(a ssa.Instruction, ca, cb *goroutines.Context, site ssa.Instruction, depth int, apart bool) bool {
	parents := r.startParents(site)
	if len(parents) == 0 {
		return false
	}
	for _, pc := range parents {
		if pc == cb {
			return false // a goroutine that starts its own kind
		}
		if apart && r.gr.StartApart(ca, pc, cb, site) {
			continue
		}
		if pc == ca {
			// a runs before this start, but if the starting code runs
			// again (on several goroutines, or a loop's next turn runs
			// a after this start) a's next run is concurrent with this
			// goroutine.
			if ca.Multi || !r.before(a, site, ca, MaxCallDepth) || r.rerunAfter(a, site, ca, MaxCallDepth) {
				return false
			}
			if _, deferred := a.(*ssa.Defer); deferred {
				return false
			}
			continue
		}
		if _, ok := r.startsAfter(a, ca, pc, depth-1, apart); !ok {
			return false
		}
	}
	return true
}

// startParents returns the contexts that run site, a start of
// goroutines, where it may start some. A conversion to http.HandlerFunc
// that its function F only returns starts nothing where the caller only
// calls the handler it gets (`middleWareFunc(fn)(w, r)` in another
// handler, `h := middleWareFunc(fn); h(rec, req)` in a test that
// records the response): no server has it. Those callers' contexts,
// unless they also make another call of F, or start F on a goroutine, are
// left out; when F is referenced as a value, none is.
func (r *Result) startParents(site ssa.Instruction) []*goroutines.Context {
	all := r.gr.Of(site.Parent())
	conv, ok := site.(*ssa.ChangeType)
	if !ok || !onlyReturned(conv) {
		return all
	}
	fn := conv.Parent()
	if len(r.gr.RefSites(fn)) > 0 {
		return all
	}
	keep := make(map[*goroutines.Context]bool)
	for _, c := range all {
		if c.Entry == fn {
			keep[c] = true
		}
	}
	for _, e := range r.gr.CallGraph.Callers(fn) {
		call, ok := e.Site.(*ssa.Call)
		if ok && call.Common().StaticCallee() == fn && onlyCalled(call) {
			continue
		}
		for _, c := range r.gr.Of(e.Caller.Func) {
			keep[c] = true
		}
	}
	var out []*goroutines.Context
	for _, c := range all {
		if keep[c] {
			out = append(out, c)
		}
	}
	return out
}

// onlyReturned reports whether v's function uses it only as a result of
// its returns.
func onlyReturned(v ssa.Value) bool {
	refs := v.Referrers()
	if refs == nil {
		return false
	}
	for _, ref := range *refs {
		switch ref.(type) {
		case *ssa.Return, *ssa.DebugRef:
		default:
			return false
		}
	}
	return len(*refs) > 0
}

// onlyCalled reports whether the value v is used only as the function
// that calls made on the same goroutine call.
func onlyCalled(v ssa.Value) bool {
	refs := v.Referrers()
	if refs == nil {
		return false
	}
	for _, ref := range *refs {
		switch ref := ref.(type) {
		case *ssa.DebugRef:
		case *ssa.Call:
			if ref.Common().Value != v || slices.Contains(ref.Common().Args, v) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// StartedApart reports whether no goroutine of cb runs while a, in ca,
// does: each of cb's starts (goroutines.Context.Starts) comes after a on
// the goroutine that makes it, as for spawnBefore, or is made by code
// that never runs with ca's (goroutines.Result.StartApart). mailpit's
// handlers are served by its Listen, after it filled the maps they read,
// and by each API test's test server, in a test binary, where Listen
// does not run and the tests that fill the maps run before or after.
// The answer is no order: a write of ca that a goroutine of cb started
// apart from it reads is never seen there, so it says nothing of
// whether a comes before (Before does not use it).
func (r *Result) StartedApart(a ssa.Instruction, ca, cb *goroutines.Context) bool {
	r.index()
	_, ok := r.startsAfter(a, ca, cb, MaxCallDepth, true)
	return ok
}

// rerunAfter reports whether, on the goroutine of context c, a may run
// again after x, given that it runs before x in one run of x's function
// (before): x's function repeats, and a is in it, or a does not come
// before, and outside the repeat of, each call of it. A test that calls a
// function literal in a loop to start each parallel subtest
// (`for i := range n { func(i int) { t.Run(..., f) }(i) }`, as
// go-control-plane's TestLinearConcurrentSetWatch does) repeats the
// literal, not the test's code before the loop: that code runs once,
// before every start, as it does when t.Run is called in the loop itself.
// Past depth calls up, a may run again.
func (r *Result) rerunAfter(a, x ssa.Instruction, c *goroutines.Context, depth int) bool {
	fn := x.Parent()
	if !r.gr.Repeats(fn) {
		return false
	}
	if depth == 0 || a.Parent() == fn || fn == c.Entry {
		return true
	}
	if mk := madeAt(fn); mk != nil && r.before(a, mk, c, MaxCallDepth) && !r.rerunAfter(a, mk, c, depth-1) {
		// Every run of the literal comes after its making, which
		// comes after a, and a does not run again after it.
		return false
	}
	sites := r.callSites(fn, c)
	return len(sites) == 0 || !all(sites, func(s ssa.Instruction) bool {
		return r.before(a, s, c, MaxCallDepth) && !r.rerunAfter(a, s, c, depth-1)
	})
}

// callSites returns the instructions in context c that call fn on the
// same goroutine, or hand it to a callee that does.
func (r *Result) callSites(fn *ssa.Function, c *goroutines.Context) []ssa.Instruction {
	k := siteKey{fn, c}
	r.mu.Lock()
	out, ok := r.sites[k]
	r.mu.Unlock()
	if ok {
		return out
	}
	out = r.findCallSites(fn, c)
	r.mu.Lock()
	if r.sites == nil {
		r.sites = make(map[siteKey][]ssa.Instruction)
	}
	r.sites[k] = out
	r.mu.Unlock()
	return out
}

type siteKey struct {
	fn *ssa.Function
	c  *goroutines.Context
}

func (r *Result) findCallSites(fn *ssa.Function, c *goroutines.Context) []ssa.Instruction {
	var out []ssa.Instruction
	in := func(f *ssa.Function) bool {
		for _, x := range r.gr.Of(f) {
			if x == c {
				return true
			}
		}
		return false
	}
	for _, e := range r.gr.CallGraph.Callers(fn) {
		if _, isGo := e.Site.(*ssa.Go); isGo || !in(e.Caller.Func) {
			continue
		}
		out = append(out, e.Site)
	}
	for _, s := range r.gr.RefSites(fn) {
		if in(s.Parent()) {
			out = append(out, s)
		}
	}
	return out
}

// before reports whether, on the goroutines of context c, a cannot run
// after x: they are in one function and x never leads back to a, or every
// call that leads to one of them lies before the other.
//
// It is memoized: channelBefore asks it of the same write and send for
// every access the write may race with (conuninit asks Before of each
// write for each load of its location, and fasthttp's root package has
// thousands). Its answer depends on nothing but its arguments, so the
// memo changes no answer; one cut short by the budget is not kept.
func (r *Result) before(a, x ssa.Instruction, c *goroutines.Context, depth int) bool {
	k := beforeKey{a, x, c, depth}
	r.mu.Lock()
	ok, known := r.befores[k]
	r.mu.Unlock()
	if known {
		return ok
	}
	ok, done := r.query(func(steps *int) bool { return r.beforeSteps(a, x, c, depth, steps) })
	if done {
		r.mu.Lock()
		if r.befores == nil {
			r.befores = make(map[beforeKey]bool)
		}
		r.befores[k] = ok
		r.mu.Unlock()
	}
	return ok
}

type beforeKey struct {
	a, x  ssa.Instruction
	c     *goroutines.Context
	depth int
}

// query runs one before, after or precedesSend query, whose every step
// follows a call site, and charges its steps to the package's budget. A
// check asks many such queries for one unit of its own (conuninit one
// Before per pair of a load and a write, and receivesBefore asks after
// of every receive of the package), so without the charge the budget did
// not bound them (valyala/fasthttp's root package ran for more than 14
// minutes). Once the budget has run out a query answers "not ordered" at
// once: that can only let a check report, and nothing is reported then
// (suppress.Reporter drops every report of a package whose budget ran
// out, and the limits check notes what was skipped); asked is then false.
func (r *Result) query(f func(steps *int) bool) (ok, asked bool) {
	if r.budget.Reason() != "" {
		return false, false
	}
	steps := 0
	ok = f(&steps)
	r.budget.Spend(steps)
	return ok, true
}

// maxQuerySteps bounds the calls that one before or after query follows:
// each step branches at every call site of a function, MaxCallDepth
// deep. A query that needs more answers "not ordered", which only ever
// lets a check report, as reaching MaxCallDepth does.
const maxQuerySteps = 1 << 11

func (r *Result) beforeSteps(a, x ssa.Instruction, c *goroutines.Context, depth int, steps *int) bool {
	if *steps++; *steps > maxQuerySteps {
		return false
	}
	if isCleanup(a) {
		// a stands for a function handed to a Cleanup, which runs once
		// the test has ended: after everything its goroutine does.
		return false
	}
	if isCleanup(x) {
		// x stands for a function handed to a Cleanup: it runs after
		// the test function (or parallel subtest) that registered it
		// returned, so after everything that function does, and what
		// it calls (a is lifted to its call sites, x is not).
		if a.Parent() == x.Parent() {
			return r.testEntry(x.Parent(), c)
		}
		if depth == 0 || c.Entry == a.Parent() {
			return false
		}
		sites := r.callSites(a.Parent(), c)
		return len(sites) > 0 && all(sites, func(s ssa.Instruction) bool { return r.beforeSteps(s, x, c, depth-1, steps) })
	}
	if a.Parent() == x.Parent() {
		_, xDeferred := x.(*ssa.Defer)
		if _, deferred := a.(*ssa.Defer); deferred {
			// a stands for a deferred call, which runs when the
			// function returns: after x, unless x is a call deferred
			// before it (deferred calls run last in, first out).
			return xDeferred && !r.gr.Flow.InLoop(a) && r.gr.Flow.Precedes(x, a)
		}
		if xDeferred {
			return true // runs when the function returns
		}
		return r.gr.Flow.Precedes(a, x)
	}
	if r.wrapperDeferAfter(a, x, c) {
		return true
	}
	if depth == 0 {
		return false
	}
	// x in the entry function runs in the goroutine's first call, which
	// no call site stands for: it is not lifted to call sites. a still
	// is, when the entry is not also called on the goroutine (then x runs
	// only in that first call).
	xEntry := c.Entry == x.Parent() && c.Kind != goroutines.Caller
	if xEntry && len(r.callSites(x.Parent(), c)) > 0 {
		return false
	}
	if c.Entry == a.Parent() {
		// a in the entry function is not lifted either; x still is,
		// when the entry runs once per goroutine (not a Caller's other
		// than a top-level test's, which go test calls once per run of
		// the test, and not called again on the goroutine, where a
		// nested call's a could follow x): every call that leads to x
		// must then come after a, as a closure the entry defers runs
		// when the entry returns (go func() { defer func() {
		// close(done) }(); ... }()), or as a function literal that a
		// test calls in a loop after a to start each subtest.
		if c.Kind == goroutines.Caller && c.Entry != c.Test || len(r.callSites(a.Parent(), c)) > 0 {
			return false
		}
	} else if sites := r.callSites(a.Parent(), c); len(sites) > 0 && all(sites, func(s ssa.Instruction) bool { return r.beforeSteps(s, x, c, depth-1, steps) }) {
		return true
	}
	if xEntry {
		return false
	}
	if mk := madeAt(x.Parent()); mk != nil && r.beforeSteps(a, mk, c, depth-1, steps) {
		return true
	}
	sites := r.callSites(x.Parent(), c)
	return len(sites) > 0 && all(sites, func(s ssa.Instruction) bool { return r.beforeSteps(a, s, c, depth-1, steps) })
}

// madeAt returns the MakeClosure that makes the function literal fn in
// the function that declares it, or nil (fn is no literal, or captures
// nothing and so is no closure made at a point). A literal runs only
// after it is made, wherever it is called from: what comes before the
// making in one run of the declaring function comes before every run of
// that closure (atomdns's sign handler fills its zones and then registers
// a startup callback that alone starts the goroutines reading them,
// held-out rehearsal 28's shape G). Whether the code before runs again
// after the making is rerunAfter's question.
func madeAt(fn *ssa.Function) *ssa.MakeClosure {
	if fn.Parent() == nil || len(fn.FreeVars) == 0 {
		return nil
	}
	for _, b := range fn.Parent().Blocks {
		for _, instr := range b.Instrs {
			if mk, ok := instr.(*ssa.MakeClosure); ok && mk.Fn == fn {
				return mk
			}
		}
	}
	return nil
}

// after reports whether, on the goroutines of context c, b runs only after
// j has run: j dominates b, or every call that leads to b is dominated by
// j, or j runs on every path through a function whose call dominates b,
// or on every path that returns a nil error through a function whose
// call's nil-error branch dominates b (afterNilResult).
func (r *Result) after(j, b ssa.Instruction, c *goroutines.Context, depth int) bool {
	ok, _ := r.query(func(steps *int) bool { return r.afterSteps(j, b, c, depth, steps) })
	return ok
}

func (r *Result) afterSteps(j, b ssa.Instruction, c *goroutines.Context, depth int, steps *int) bool {
	if *steps++; *steps > maxQuerySteps {
		return false
	}
	flow := r.gr.Flow
	if isCleanup(j) {
		return false // j's function runs once the test has ended
	}
	if isCleanup(b) {
		// b stands for a function handed to a Cleanup, which runs
		// when the test function that registered it has ended, by a
		// return, a panic or a t.Fatal: after j when j runs before the
		// registration or before every way out after it, as for a
		// deferred call. A j in a function that the test function
		// calls is lifted to its call sites (b is not).
		if j.Parent() == b.Parent() {
			return r.testEntry(b.Parent(), c) && (flow.RunsFirst(j, b) || r.deferredAfter(j, b))
		}
		if depth == 0 || !r.mustRun(j) {
			return false
		}
		return slices.ContainsFunc(r.callSites(j.Parent(), c), func(s ssa.Instruction) bool { return r.afterSteps(s, b, c, depth-1, steps) })
	}
	if _, deferred := j.(*ssa.Defer); deferred {
		// Runs when its function returns: before the return completes
		// (defer wg.Wait() holds the test back), and before nothing else.
		_, ret := b.(*ssa.Return)
		return ret && b.Parent() == j.Parent()
	}
	if j.Parent() == b.Parent() {
		if d, deferred := b.(*ssa.Defer); deferred && !flow.Dominates(j, b) {
			return r.deferredAfter(j, d)
		}
		return j != b && flow.RunsFirst(j, b)
	}
	if depth == 0 {
		return false
	}
	if sites := r.callSites(b.Parent(), c); len(sites) > 0 && b.Parent() != c.Entry &&
		all(sites, func(s ssa.Instruction) bool { return r.afterSteps(j, s, c, depth-1, steps) }) {
		return true
	}
	if !r.mustRun(j) {
		return r.afterNilResult(j, b, c, depth, steps)
	}
	for _, s := range r.callSites(j.Parent(), c) {
		if r.afterSteps(s, b, c, depth-1, steps) {
			return true
		}
	}
	return false
}

// afterNilResult reports whether b runs only after j because j runs on
// every path through its function that returns a nil error (see
// nilOnlyAfter) and b runs only where a call of that function returned a
// nil error.
func (r *Result) afterNilResult(j, b ssa.Instruction, c *goroutines.Context, depth int, steps *int) bool {
	if !r.nilOnlyAfter(j) {
		return false
	}
	for _, s := range r.callSites(j.Parent(), c) {
		call, ok := s.(*ssa.Call)
		if !ok || callgraph.StaticCallee(&call.Call) != j.Parent() {
			continue // a function value handed to a callee, or a defer
		}
		for _, start := range nilBranches(call) {
			if start == b || r.afterSteps(start, b, c, depth-1, steps) {
				return true
			}
		}
	}
	return false
}

// deferredAfter reports whether the call deferred by d runs after j, in
// d's function, although d comes first: the deferred call runs when the
// function returns or panics, and every way out is after j (d may also
// be a Cleanup call of a test function, whose function runs later
// still, see isCleanup), as in
//
//	defer stopPacer(p)
//	go func() { p.Next(); close(done) }()
//	select {
//	case <-done:
//		t.Fatal("returned early")
//	default:
//	}
//	<-done
//
// Every return, panic, call that never returns (t.Fatal, runtime.Goexit)
// or call that a test failure may leave through (see mayExit) that d may
// lead to comes after j or after another receive from a channel j
// receives from (the case of a select that found it ready).
func (r *Result) deferredAfter(j, d ssa.Instruction) bool {
	flow := r.gr.Flow
	fn := d.Parent()
	if len(ssaflow.Returns(fn)) == 0 {
		return false
	}
	alts := []ssa.Instruction{j}
	for _, recvs := range r.ops.recvs {
		if slices.Contains(recvs, j) {
			for _, k := range recvs {
				if k != j && k.Parent() == fn {
					alts = append(alts, k)
				}
			}
		}
	}
	for _, blk := range fn.Blocks {
		for _, instr := range blk.Instrs {
			// A way out the defer statement cannot reach runs no
			// deferred call (cloudevents' StartReceiver returns
			// "already has a receiver" before its defer).
			_, ret := instr.(*ssa.Return)
			if !ret && !mayExit(instr) || !flow.MayFollow(d, instr) {
				continue
			}
			if !slices.ContainsFunc(alts, func(k ssa.Instruction) bool { return k != instr && flow.Dominates(k, instr) }) {
				return false
			}
		}
	}
	return true
}

// isCleanup reports whether s hands a function to a testing Cleanup
// method (see model.Cleanup): as a call site of that function it stands
// for a run at the end of the test, not at s. The rules of before and
// after claim an order through it only in a test's own function (see
// testEntry); the other rules take it where it is, as any call site.
func isCleanup(s ssa.Instruction) bool {
	call, ok := s.(ssa.CallInstruction)
	if !ok {
		return false
	}
	if _, isGo := s.(*ssa.Go); isGo {
		return false
	}
	return model.Cleanup(model.CalleeName(call.Common()))
}

// testEntry reports whether fn is the function of a test or parallel
// subtest that c's one goroutine runs once, called by nothing else on c:
// the function of a Cleanup that fn registers runs after fn returned,
// whichever T it is given (fn's own, an enclosing test's, which ends
// after its subtests, or a parallel subtest's, which goes on after fn
// returned; a subtest that already ended never runs a Cleanup
// registered on it). This assumes, as for a deferred call, that a
// runtime panic does not end the test first, and that a channel the
// function closes in one run of the test is not used by a later run
// (go test -count).
func (r *Result) testEntry(fn *ssa.Function, c *goroutines.Context) bool {
	switch {
	case fn != c.Entry || c.Multi || len(r.callSites(fn, c)) > 0:
		return false
	case c.Kind == goroutines.Caller:
		return c.Test == fn
	}
	return c.Kind == goroutines.ParallelTest
}

// mayExit reports whether instr may leave its function other than by a
// return, running its deferred calls: a panic, a call of a function that
// never returns, or a call that may fail a test (runtime.Goexit through
// t.Fatal in a helper): one handed a value that can fail a test (see
// failsTests), directly, converted to an interface (testify's
// require.NoError(t, err)) or captured by the closure it calls.
func mayExit(instr ssa.Instruction) bool {
	switch instr := instr.(type) {
	case *ssa.Panic:
		return !selectMatchedNone(instr)
	case *ssa.Call:
		if model.NoReturn(model.CalleeName(&instr.Call)) {
			return true
		}
		vals := slices.Clone(instr.Call.Args)
		if !instr.Call.IsInvoke() {
			vals = append(vals, instr.Call.Value)
		}
		if mc, ok := instr.Call.Value.(*ssa.MakeClosure); ok {
			vals = append(vals, mc.Bindings...)
		}
		return slices.ContainsFunc(vals, func(v ssa.Value) bool {
			if mi, ok := v.(*ssa.MakeInterface); ok && failsTests(mi.X.Type(), 2) {
				return true
			}
			return failsTests(v.Type(), 2)
		})
	}
	return false
}

// selectMatchedNone reports whether p is the panic go/ssa puts after the
// last case test of a select without a default, a block no execution
// reaches: the select blocks until a case is ready. Taken for a way out, it
// came before the receive of every such select (cloudevents'
// OpenInbound, whose deferred store follows a select on its goroutine's
// result in both arms).
func selectMatchedNone(p *ssa.Panic) bool {
	x := p.X
	if mi, ok := x.(*ssa.MakeInterface); ok {
		x = mi.X
	}
	c, ok := x.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.String || constant.StringVal(c.Value) != "blocking select matched no case" {
		return false
	}
	preds := p.Block().Preds
	if len(preds) != 1 {
		return false
	}
	test, ok := preds[0].Instrs[len(preds[0].Instrs)-1].(*ssa.If)
	if !ok {
		return false
	}
	cond, ok := test.Cond.(*ssa.BinOp)
	if !ok {
		return false
	}
	ext, ok := cond.X.(*ssa.Extract)
	if !ok {
		return false
	}
	sel, ok := ext.Tuple.(*ssa.Select)
	return ok && sel.Blocking
}

// failsTests reports whether a value of type t can fail a test and stop
// its goroutine: it has a FailNow method (*testing.T, testing.TB,
// testify's TestingT), or it is a struct, or a pointer to one, with such
// a field, depth levels down (testify's *require.Assertions).
func failsTests(t types.Type, depth int) bool {
	if ms := types.NewMethodSet(t); ms.Lookup(nil, "FailNow") != nil {
		return true
	}
	if _, isPtr := t.Underlying().(*types.Pointer); !isPtr {
		if ms := types.NewMethodSet(types.NewPointer(t)); ms.Lookup(nil, "FailNow") != nil {
			if _, isIface := t.Underlying().(*types.Interface); !isIface {
				return true
			}
		}
	}
	if depth == 0 {
		return false
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		if failsTests(st.Field(i).Type(), depth-1) {
			return true
		}
	}
	return false
}

// mustRun reports whether j runs on every path from its function's entry
// to a return.
func (r *Result) mustRun(j ssa.Instruction) bool {
	for _, ret := range ssaflow.Returns(j.Parent()) {
		if !r.gr.Flow.Dominates(j, ret) {
			return false
		}
	}
	return true
}

func all[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}

// joinBefore orders a goroutine's work before a Wait that waits for it.
func (r *Result) joinBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	if ca.JoinedByReturn && r.after(ca.Site, b, cb, MaxCallDepth) {
		return Edge{Rule: Join, Pos: ca.Site.Pos()}, true
	}
	if ca.Kind == goroutines.Task && ca.Join != "" && len(ca.Site.Common().Args) > 0 {
		for _, w := range r.taskWaits(ca) {
			// A Wait in the loop that starts the tasks, after them,
			// joins each batch before the code after the loop,
			// although a later batch's tasks start after it
			// (otel's tests repeat a batch of wg.Go and a Wait ten
			// times): as for a Wait on Add and Done, below.
			if r.separates(w, ca, b) {
				return Edge{Rule: Join, Pos: w.Pos()}, true
			}
			if w.Parent() == ca.Site.Parent() && !r.gr.Flow.Precedes(ca.Site, w) {
				continue // the task may be started after this Wait
			}
			if r.after(w, b, cb, MaxCallDepth) {
				return Edge{Rule: Join, Pos: w.Pos()}, true
			}
		}
	}
	for _, obj := range r.doneObjects(ca) {
		if !r.doneAfter(a, ca, r.ops.dones[obj]) || r.addsItself(ca, obj) {
			continue
		}
		for _, w := range r.ops.waits[obj] {
			if !r.isWait(w) {
				continue
			}
			// A deferred Wait runs when its function returns, after the
			// goroutine's start wherever it was deferred: serf's tests
			// defer wg.Wait() first thing, before the wg.Add and the go
			// statement of the goroutine it joins.
			_, deferred := w.(*ssa.Defer)
			if ca.Site != nil && w.Parent() == ca.Site.Parent() && !deferred && !r.gr.Flow.MayFollow(ca.Site, w) {
				continue // this Wait runs before the goroutine starts
			}
			if r.after(w, b, cb, MaxCallDepth) || r.separates(w, ca, b) {
				return Edge{Rule: Join, Pos: w.Pos()}, true
			}
		}
	}
	// Goroutines joined within every call of the function F that starts
	// them (JoinedWithin) have ended when the call returns, so they come
	// before whatever runs only after a call of F, even where F's join is
	// not on every path through F and a Wait's successors alone would not
	// show it: aws-sdk-go-v2's transfermanager returns early, before its
	// `go u.readChunk(...)`, when it cannot create the upload, and waits
	// on u.wg on every path after it; its caller's deferred Close of the
	// part pool runs after the call. As with a Wait, the call is one of
	// F on b's context, not told apart from the others: the edge, like a
	// Wait's, is on the WaitGroup or the function, not on one run of it.
	// A call made within F's own calls (F recursive) is not taken: the
	// outer call's goroutines may outlive it.
	if _, ok := r.JoinedWithin(ca); ok {
		f := ca.Site.Parent()
		for _, s := range r.callSites(f, cb) {
			if !r.reachableFrom(f)[s.Parent()] && r.after(s, b, cb, MaxCallDepth) {
				return Edge{Rule: Join, Pos: s.Pos()}, true
			}
		}
	}
	return Edge{}, false
}

// taskWaits returns the joins (ca.Join) that wait for the task c
// starts: those on the objects of its receiver, and those called on the
// very SSA value its Go call was called on (model.JoinCalls: the group
// may have no object of its own here, as errgroup.WithContext's, which
// found no Wait at all in open-feature's multi provider, held-out
// rehearsal 26).
func (r *Result) taskWaits(c *goroutines.Context) []ssa.Instruction {
	recv := c.Site.Common().Args[0]
	var out []ssa.Instruction
	for _, obj := range r.shared.Objects(recv) {
		for _, w := range r.ops.waits[obj] {
			if model.CalleeName(w.(ssa.CallInstruction).Common()) == c.Join {
				out = append(out, w)
			}
		}
	}
	for _, w := range model.JoinCalls(recv, c.Join) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// doneObjects returns the WaitGroups on which doneAfter may find a Done
// for the goroutines of c: those with a Done in c's entry function, in a
// function literal inside it, or in c's wrapper (the only Dones doneAfter
// can answer true for), in the order of their first Done. It is memoized:
// joinBefore asks it for every ordering query, and a package with many
// tests has many WaitGroups, for each of which doneAfter would otherwise
// walk the calls up from a to c's entry (21 in otter/v2: over half of
// precog vet's time there once onceGuards was memoized).
func (r *Result) doneObjects(c *goroutines.Context) []sharedloc.Loc {
	r.mu.Lock()
	out, ok := r.doneObjs[c]
	r.mu.Unlock()
	if ok {
		return out
	}
	if c.Kind != goroutines.Caller {
		for obj, dones := range r.ops.dones {
			if slices.ContainsFunc(dones, func(d ssa.Instruction) bool {
				fn := d.Parent()
				return fn == c.Entry || fn.Parent() == c.Entry || c.Wrapper != nil && fn == c.Wrapper
			}) {
				out = append(out, obj)
			}
		}
		slices.SortFunc(out, func(x, y sharedloc.Loc) int {
			return cmp.Compare(r.ops.dones[x][0].Pos(), r.ops.dones[y][0].Pos())
		})
	}
	r.mu.Lock()
	if r.doneObjs == nil {
		r.doneObjs = make(map[*goroutines.Context][]sharedloc.Loc)
	}
	r.doneObjs[c] = out
	r.mu.Unlock()
	return out
}

// separates reports whether, in the function that starts the goroutines
// of c, every path from their `go` statement to b passes through the Wait
// w: a Wait in the loop that starts a batch of goroutines, before the
// next batch, joins each batch before the code after the loop, although
// it does not dominate that code (the loop may run no batch at all, and
// then no goroutine of c ran either).
func (r *Result) separates(w ssa.Instruction, c *goroutines.Context, b ssa.Instruction) bool {
	if c.Site == nil || c.Site.Parent() != w.Parent() || b.Parent() != w.Parent() {
		return false
	}
	return r.gr.Flow.MayFollow(c.Site, b) && !r.gr.Flow.MayFollowAvoiding(c.Site, b, w)
}

// addsItself reports whether the goroutines of c call Add on the
// WaitGroup obj themselves: a Wait may then return before they do.
//
// An Add that a goroutine of c makes for the goroutines it starts in turn
// does not count when c was itself counted before it started (an Add
// precedes c's `go` statement in the function that runs it) and c's Done
// is deferred in its entry function: the counter then stays above zero
// from c's start until its Done, which comes after the Add.
func (r *Result) addsItself(c *goroutines.Context, obj sharedloc.Loc) bool {
	counted := -1 // unknown
	for _, a := range r.ops.adds[obj] {
		if !slices.Contains(r.gr.Of(a.Parent()), c) {
			continue
		}
		if counted < 0 {
			counted = 0
			if r.countedBefore(c, obj) && r.deferredDone(c, obj) {
				counted = 1
			}
		}
		if counted == 0 || a.Parent() != c.Entry {
			return true
		}
	}
	return false
}

// countedBefore reports whether an Add on obj precedes the `go` statement
// of c in the function that runs it.
func (r *Result) countedBefore(c *goroutines.Context, obj sharedloc.Loc) bool {
	if c.Site == nil {
		return false
	}
	for _, a := range r.ops.adds[obj] {
		if a.Parent() == c.Site.Parent() && !r.ops.maybeAdd[a] && r.gr.Flow.Dominates(a, c.Site) && !slices.Contains(r.gr.Of(a.Parent()), c) {
			return true
		}
	}
	return false
}

// deferredDone reports whether c's entry function defers Done on obj, or
// calls it last on every path by which it returns (doneLast).
func (r *Result) deferredDone(c *goroutines.Context, obj sharedloc.Loc) bool {
	for _, d := range r.ops.dones[obj] {
		if _, deferred := d.(*ssa.Defer); deferred && d.Parent() == c.Entry || r.doneLast(c, d) {
			return true
		}
	}
	return false
}

// doneAfter reports whether one of the Done calls runs, on a's goroutine,
// after a: it is deferred in the goroutine's entry function, or it
// post-dominates a (or the call that leads to a) in the entry function.
func (r *Result) doneAfter(a ssa.Instruction, ca *goroutines.Context, dones []ssa.Instruction) bool {
	if ca.Kind == goroutines.Caller {
		return false
	}
	for _, d := range dones {
		if r.deferredClosureDone(a, ca, d) {
			return true
		}
		if _, deferred := d.(*ssa.Defer); deferred && ca.Wrapper != nil && d.Parent() == ca.Wrapper {
			// Deferred by the spawner's own goroutine function, which
			// calls the entry: it runs after all of the entry's work.
			return true
		}
		if d.Parent() != ca.Entry {
			continue
		}
		if _, deferred := d.(*ssa.Defer); deferred {
			return true
		}
		if a.Parent() != ca.Entry && r.doneLast(ca, d) {
			return true
		}
		x := a
		for depth := 0; x.Parent() != ca.Entry && depth < MaxCallDepth; depth++ {
			sites := r.callSites(x.Parent(), ca)
			if len(sites) != 1 {
				break
			}
			x = sites[0]
		}
		if x.Parent() == ca.Entry && r.gr.Flow.PostDominates(d, x) && x != d {
			return true
		}
	}
	return r.neverAfterDone(a, ca, dones)
}

// doneLast reports whether the Done d, in ca's entry, runs on every path
// by which the entry returns normally (a path that panics ends the
// process), once (not in a loop), with no call after it and nothing
// deferred: everything the goroutine's calls do, however deep, is done
// when it runs (casbin's TestSyncCache workers call the enforcer, check
// the result, panic if it is wrong and call g.Done() last; the calls
// reach the map write six calls down, deeper than the climb of callers
// goes).
func (r *Result) doneLast(ca *goroutines.Context, d ssa.Instruction) bool {
	fn := ca.Entry
	flow := r.gr.Flow
	if d.Parent() != fn || len(fn.Blocks) == 0 || flow.InLoop(d) || !flow.PostDominates(d, fn.Blocks[0].Instrs[0]) {
		return false
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch instr.(type) {
			case *ssa.Defer:
				return false
			case ssa.CallInstruction:
				if instr != d && flow.MayFollow(d, instr) {
					return false
				}
			}
		}
	}
	return true
}

// deferredClosureDone reports whether the Done d runs after a on the
// goroutines of ca because it sits in a function literal that their entry
// defers (defer func() { wg.Done(); ... }()): d runs once, outside loops,
// in a closure whose only call sites are Defer statements of the entry
// outside loops, so it runs when the entry returns, after a (a call in the
// entry's body leading to it), or after a in the closure itself when d
// post-dominates a there.
func (r *Result) deferredClosureDone(a ssa.Instruction, ca *goroutines.Context, d ssa.Instruction) bool {
	fn := d.Parent()
	if fn.Parent() != ca.Entry || r.gr.Flow.InLoop(d) {
		return false
	}
	sites := r.callSites(fn, ca)
	if len(sites) == 0 {
		return false
	}
	for _, s := range sites {
		if _, deferred := s.(*ssa.Defer); !deferred || s.Parent() != ca.Entry || r.gr.Flow.InLoop(s) {
			return false
		}
	}
	if a.Parent() == fn {
		return a != d && r.gr.Flow.PostDominates(d, a)
	}
	x := a
	for depth := 0; x.Parent() != ca.Entry && depth < MaxCallDepth; depth++ {
		up := r.callSites(x.Parent(), ca)
		if len(up) != 1 {
			return false
		}
		x = up[0]
	}
	return x.Parent() == ca.Entry && !slices.Contains(sites, x)
}

// neverAfterDone reports whether a goroutine of ca calls Done only in its
// entry function, at most once (no Done in a loop), and never before the
// call that leads to a. A Done on each branch after the work, or an early
// return without Done, is then fine: a path without Done leaves the
// counter above zero, so the Wait does not return for it at all.
func (r *Result) neverAfterDone(a ssa.Instruction, ca *goroutines.Context, dones []ssa.Instruction) bool {
	x := a
	for depth := 0; x.Parent() != ca.Entry && depth < MaxCallDepth; depth++ {
		sites := r.callSites(x.Parent(), ca)
		if len(sites) != 1 {
			return false
		}
		x = sites[0]
	}
	if x.Parent() != ca.Entry || r.gr.Flow.InLoop(x) {
		return false
	}
	found := false
	for _, d := range dones {
		if !slices.Contains(r.gr.Of(d.Parent()), ca) {
			continue
		}
		if d.Parent() != ca.Entry || r.gr.Flow.InLoop(d) || d == x || r.gr.Flow.MayFollow(d, x) {
			return false
		}
		found = true
	}
	return found
}

// channelBefore orders a before b when b follows a receive from a channel
// whose every send and close runs after a (or is a, run once by its
// goroutine, see onceOn), but the sends of b's own
// goroutine on an unbuffered channel, which its receive cannot take (see
// ownSend).
func (r *Result) channelBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	recvs := r.receivesBefore(b, cb)
	for _, ch := range inOrder(recvs) {
		recv := recvs[ch]
		sends := r.takenSends(ch, recv, cb)
		ok := len(sends) > 0 && all(sends, func(x ssa.Instruction) bool {
			if r.relayed(a, ca, x) {
				return true
			}
			for _, c := range r.gr.Of(x.Parent()) {
				if c != ca || !(x == a && r.onceOn(x, ca, MaxCallDepth) || r.before(a, x, ca, MaxCallDepth)) {
					return false
				}
			}
			// With several goroutines of ca sending on one channel, one
			// receive orders only one of them before b; a receive in a
			// loop is taken to collect them all.
			return !ca.Multi || !r.sharedSend(x, ch, ca) || r.gr.Flow.InLoop(recv)
		})
		if ok || r.allSent(a, ca, ch, b, cb) {
			return Edge{Rule: Channel, Pos: recv.Pos()}, true
		}
	}
	// A receive in a loop that may run no turn is not before b on every
	// path; counted against the goroutines' starts, it is (sliceSent).
	if e, ok := r.sliceSentAny(a, ca, b, cb); ok {
		return e, true
	}
	return Edge{}, false
}

// relayed reports whether x, a send or close on one goroutine of another
// context than ca's, runs after a Wait there that joins ca's goroutines
// after a (joinBefore): a goroutine that waits for the workers and then
// closes the channel the test ranges over, or a done channel it selects
// on, relays the join to whoever receives (`go func() { wg.Wait();
// close(ch) }()`; held-out rehearsal 54's fan-in tests).
func (r *Result) relayed(a ssa.Instruction, ca *goroutines.Context, x ssa.Instruction) bool {
	cs := r.gr.Of(x.Parent())
	if len(cs) != 1 || cs[0] == ca || !oneGoroutine(cs[0]) {
		return false
	}
	_, ok := r.joinBefore(a, ca, x, cs[0])
	return ok
}

// onceOn reports whether x runs at most once on each goroutine of c: in
// no loop, in c's entry (not a Caller's, and not called again on the
// goroutine), or in a function whose one call site on c, a static call or
// defer, runs at most once there in turn (up to depth calls up). A send
// asked about itself (a = x, con-closed's send against a close) then
// happens before the receive that takes its value, and so before b: it
// is the goroutine's only run of that send.
func (r *Result) onceOn(x ssa.Instruction, c *goroutines.Context, depth int) bool {
	fn := x.Parent()
	if r.gr.Flow.InLoop(x) {
		return false
	}
	sites := r.callSites(fn, c)
	if fn == c.Entry {
		return c.Kind != goroutines.Caller && len(sites) == 0
	}
	if depth == 0 || len(sites) != 1 {
		return false
	}
	site, ok := sites[0].(ssa.CallInstruction)
	if !ok || site.Common().IsInvoke() {
		return false
	}
	switch v := site.Common().Value.(type) {
	case *ssa.Function:
		if v != fn {
			return false
		}
	case *ssa.MakeClosure:
		if v.Fn != fn {
			return false
		}
	default:
		return false
	}
	switch sites[0].(type) {
	case *ssa.Call, *ssa.Defer:
		return r.onceOn(sites[0], c, depth-1)
	}
	return false
}

// allSent orders a before b by counting: b runs after as many receives
// from ch as ch can ever get sends, so every send has happened, among
// them those of a's goroutine, which come after a (or are a: a send
// happens before the receive that takes it). It holds when ch is never
// closed before b (a close lets receives go on without sends; b itself
// may be the close, made on b's goroutine alone, which runs once, as in
// a test that receives a goroutine's one result and closes the channel),
// every send on it is made once by a goroutine that runs once (a context
// that is not Multi, the send in its entry function and outside loops),
// and b follows at least that many receives, each counted once, or as
// many times as the loop around it runs by a constant count
// (ssaflow.Graph.TripCount), as in
//
//	go func() { work(); done <- true }()
//	go func() { other(); done <- true }()
//	<-done
//	<-done // or: for i := 0; i < 2; i++ { <-done }
//	b()
func (r *Result) allSent(a ssa.Instruction, ca *goroutines.Context, ch sharedloc.Loc, b ssa.Instruction, cb *goroutines.Context) bool {
	sends, mine := 0, 0
	for _, x := range r.ops.sends[ch] {
		closes := false
		for _, acc := range r.shared.ByInstr[x] {
			if acc.Loc == ch && acc.Op != sharedloc.ChanSend {
				closes = true
			}
		}
		if closes {
			if x != b || cb.Multi || !slices.Equal(r.gr.Of(x.Parent()), []*goroutines.Context{cb}) {
				return false // receives then need no send
			}
			continue
		}
		for _, c := range r.gr.Of(x.Parent()) {
			if c.Kind == goroutines.Caller || c.Multi || c.Entry != x.Parent() || r.gr.Flow.InLoop(x) {
				return false
			}
			sends++
			if c == ca {
				if x != a && !r.before(a, x, ca, MaxCallDepth) {
					return false
				}
				mine++
			}
		}
	}
	if mine == 0 {
		return false
	}
	recvs := 0
	for _, j := range r.ops.recvs[ch] {
		if !r.gr.Flow.InLoop(j) && r.received(j, b, cb) {
			recvs++
		} else if n, ok := r.gr.Flow.TripCount(j); ok && r.received(j, b, cb) {
			recvs += n // a loop that ran its n turns before b
		}
	}
	return recvs >= sends
}

// received reports whether b runs after the receive j: j dominates b, or
// j stands for a select case and b is the first instruction of its body.
func (r *Result) received(j, b ssa.Instruction, cb *goroutines.Context) bool {
	return j == b && r.ops.caseStart[j] || r.after(j, b, cb, MaxCallDepth)
}

// receivesBefore returns, for each channel with sends, the first receive
// from it that b runs after on cb. It is computed once per (b, cb): the
// checks ask about b once for every access it may race with, and each
// answer follows call sites from every receive in the package.
func (r *Result) receivesBefore(b ssa.Instruction, cb *goroutines.Context) map[sharedloc.Loc]ssa.Instruction {
	return r.receivesMemo(&r.recvs, b, cb, r.ops.sends, func(j ssa.Instruction) bool { return r.received(j, b, cb) })
}

// receivesMemo returns, for each channel with operations in ops (sends,
// or closes), the first of its receives that meets, memoized in *memo by
// (b, cb) (receivesBefore, closedReceives).
func (r *Result) receivesMemo(memo *map[recvKey]map[sharedloc.Loc]ssa.Instruction, b ssa.Instruction, cb *goroutines.Context,
	ops map[sharedloc.Loc][]ssa.Instruction, meets func(j ssa.Instruction) bool) map[sharedloc.Loc]ssa.Instruction {
	k := recvKey{b, cb}
	r.mu.Lock()
	out, ok := (*memo)[k]
	r.mu.Unlock()
	if ok {
		return out
	}
	out = make(map[sharedloc.Loc]ssa.Instruction)
	for ch, recvs := range r.recvsOn(b.Parent(), cb) {
		if len(ops[ch]) == 0 {
			continue
		}
		for _, j := range recvs {
			if meets(j) {
				out[ch] = j
				break
			}
		}
	}
	r.mu.Lock()
	if *memo == nil {
		*memo = make(map[recvKey]map[sharedloc.Loc]ssa.Instruction)
	}
	(*memo)[k] = out
	r.mu.Unlock()
	return out
}

// recvsOn returns, by channel and in the order of r.ops.recvs, the
// receives that a b in function bFn, on the goroutines of c, may run after
// as after and closedBranch's dominance decide it: those of bFn, those of
// functions that run on c, and those of functions that functions of c
// call or refer to. after answers true only for them: in bFn, or after
// lifting b to call sites in functions of c (callSites keeps only those),
// or when every call of the receive's function on c (there must be one)
// lies before b. receivesMemo asks nothing of the others, which leaves
// its answers as they were: fasthttp's root package has hundreds of
// receives, most in test functions that no goroutine of a given access
// runs. When bFn runs on c (as it does for every access a check asks
// about) its receives are among c's, and the list is kept per context.
func (r *Result) recvsOn(bFn *ssa.Function, c *goroutines.Context) map[sharedloc.Loc][]ssa.Instruction {
	onC := slices.Contains(r.gr.Of(bFn), c)
	if onC {
		r.mu.Lock()
		out, ok := r.recvsOnC[c]
		r.mu.Unlock()
		if ok {
			return out
		}
	}
	reaches := map[*ssa.Function]bool{}
	out := make(map[sharedloc.Loc][]ssa.Instruction)
	for ch, recvs := range r.ops.recvs {
		for _, j := range recvs {
			fn := j.Parent()
			ok, known := reaches[fn]
			if !known {
				ok = fn == bFn || slices.Contains(r.gr.Of(fn), c) || len(r.callSites(fn, c)) > 0
				reaches[fn] = ok
			}
			if ok {
				out[ch] = append(out[ch], j)
			}
		}
	}
	if onC {
		r.mu.Lock()
		if r.recvsOnC == nil {
			r.recvsOnC = make(map[*goroutines.Context]map[sharedloc.Loc][]ssa.Instruction)
		}
		r.recvsOnC[c] = out
		r.mu.Unlock()
	}
	return out
}

type recvKey struct {
	b  ssa.Instruction
	cb *goroutines.Context
}

// sharedSend reports whether the send or close x on ch may be on a channel
// that all goroutines of the Multi context c share.
func (r *Result) sharedSend(x ssa.Instruction, ch sharedloc.Loc, c *goroutines.Context) bool {
	for _, acc := range r.shared.ByInstr[x] {
		if acc.Loc == ch && !r.shared.SharedIn(acc, c) {
			return false
		}
	}
	return true
}

// onceBefore orders the body of a sync.Once.Do before code that follows a
// Do on the same Once.
func (r *Result) onceBefore(a, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	return r.onceBeforeIn(a, b, cb, false, false)
}

// onceBeforeIn is onceBefore, leaving out the callers written in _test.go
// files when outsideTests is set; with callers set, a start of cb's
// goroutines on a Caller context counts as after a Do when one path of
// calls to it (not every path) shows the Do first (see
// OnceOrderedBeyondCallers).
func (r *Result) onceBeforeIn(a, b ssa.Instruction, cb *goroutines.Context, outsideTests, callers bool) (Edge, bool) {
	for _, obj := range r.onceGuards(a.Parent(), outsideTests) {
		for _, do := range r.ops.onceDo[obj] {
			if r.after(do, b, cb, MaxCallDepth) || r.spawnedAfter(do, cb, callers) {
				return Edge{Rule: Once, Pos: do.Pos()}, true
			}
		}
	}
	return Edge{}, false
}

// spawnedAfter reports whether every goroutine of c starts after j: c's
// spawn site follows j on each context that runs it, or that context's
// goroutines all start after j in turn (a transport's dial goroutine,
// started after the Do that configures the transport, also by goroutines
// the dial started), up to MaxCallDepth spawns.
//
// With callers set, a start on a Caller context (code calling into the
// package, a parallel test) counts as after j whatever path leads to it,
// provided that the goroutines are shown to start after j in some way too:
// one path of calls to their spawn site on such a context runs j first,
// or another context that starts them starts them after j (see
// OnceOrderedBeyondCallers).
func (r *Result) spawnedAfter(j ssa.Instruction, c *goroutines.Context, callers bool) bool {
	if callers {
		if c.Site == nil || !slices.ContainsFunc(r.gr.Of(c.Site.Parent()), func(pc *goroutines.Context) bool {
			return r.afterOnSomePath(j, c.Site, pc)
		}) {
			return false
		}
	}
	return r.spawnedAfterIn(j, c, MaxCallDepth, map[*goroutines.Context]bool{}, callers)
}

func (r *Result) spawnedAfterIn(j ssa.Instruction, c *goroutines.Context, depth int, seen map[*goroutines.Context]bool, callers bool) bool {
	if seen[c] {
		// A goroutine of c started by a goroutine of c, or of a context
		// c started: by induction on the time each one starts, it
		// starts after j when the other starts of the cycle do.
		return true
	}
	if depth == 0 || c.Site == nil || c.Kind == goroutines.Caller {
		return false
	}
	seen[c] = true
	defer delete(seen, c)
	parents := r.gr.Of(c.Site.Parent())
	if len(parents) == 0 {
		return false
	}
	shown := false
	for _, pc := range parents {
		if callers && (pc.Kind == goroutines.Caller || pc.Kind == goroutines.ParallelTest) {
			// A caller of the package (a test's own goroutine
			// included): taken to start c after j; shown to on one
			// path at least, or c must be shown to elsewhere.
			shown = shown || r.afterOnSomePath(j, c.Site, pc)
			continue
		}
		if !r.after(j, c.Site, pc, MaxCallDepth) && !r.spawnedAfterIn(j, pc, depth-1, seen, callers) {
			return false
		}
		shown = true
	}
	return shown || !callers
}

// afterOnSomePath reports whether, on context c, some chain of calls that
// leads to b (up to MaxCallDepth calls) passes j first: j dominates b, or
// a call site of b's function that j dominates, and so on up.
func (r *Result) afterOnSomePath(j, b ssa.Instruction, c *goroutines.Context) bool {
	steps := 0
	seen := map[*ssa.Function]bool{}
	var up func(b ssa.Instruction, depth int) bool
	up = func(b ssa.Instruction, depth int) bool {
		if steps++; steps > maxQuerySteps {
			return false
		}
		if b.Parent() == j.Parent() {
			return j != b && r.gr.Flow.Dominates(j, b)
		}
		if depth == 0 || seen[b.Parent()] {
			return false
		}
		seen[b.Parent()] = true
		for _, s := range r.callSites(b.Parent(), c) {
			if up(s, depth-1) {
				return true
			}
		}
		return false
	}
	return up(b, MaxCallDepth)
}

// OnceOrderedBeyondCallers reports whether a (in ca) and b (in cb) are
// ordered by the once rule, callers written in _test.go files left out,
// when every start of a goroutine on a context of code calling into the
// package (Caller, or a parallel test) counts as after the Do, provided
// that one path of calls to the goroutine's own spawn site runs the Do
// first. The starts left out are those by which an importer, calling the
// package's exported functions in an order of its own, would start the
// goroutine before anything ran the Do (a transport's dial goroutine,
// started again when an idle connection closes, on a connection that
// exists only after a round trip ran the Do): the order in which an
// importer calls the package is not in the package, and the checks report
// such a pair at low confidence. Goroutines that the package's own
// goroutines start must still be shown to start after the Do, and so must
// every goroutine on the way at least once. It returns the context whose
// goroutines' start the order rests on.
func (r *Result) OnceOrderedBeyondCallers(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (*goroutines.Context, bool) {
	r.index()
	if _, ok := r.onceBeforeIn(a, b, cb, true, true); ok {
		return cb, true
	}
	if _, ok := r.onceBeforeIn(b, a, ca, true, true); ok {
		return ca, true
	}
	return nil, false
}

// OnceGuards returns the sync.Once objects whose Do runs fn (directly, or
// by calling fn from the function given to Do), so that fn runs at most
// once per Once. Callers that never run (unexported package-level
// functions that nothing in the package calls or names) are left out.
func (r *Result) OnceGuards(fn *ssa.Function) []sharedloc.Loc {
	return r.onceGuards(fn, false)
}

// OnceOrderedOutsideTests reports whether a (in ca) and b (in cb) run
// inside the Do of one sync.Once, or one is ordered before the other by
// the once rule, when the callers written in _test.go files (test exports
// and helpers, which no importer compiles) are left out; the checks use it
// to tell a diagnostic that holds only through test code.
func (r *Result) OnceOrderedOutsideTests(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) bool {
	r.index()
	for _, x := range r.onceGuards(a.Parent(), true) {
		if slices.Contains(r.onceGuards(b.Parent(), true), x) {
			return true
		}
	}
	if _, ok := r.onceBeforeIn(a, b, cb, true, false); ok {
		return true
	}
	_, ok := r.onceBeforeIn(b, a, ca, true, false)
	return ok
}

// onceGuards is OnceGuards, leaving out callers written in _test.go files
// when outsideTests is set. It is memoized: every ordering query by the
// once rule asks it about the function of one of its sides, and a walk up
// the callers, MaxCallDepth deep, can reach hundreds of functions. On
// github.com/maypok86/otter/v2 with its tests, conuninit's million
// queries asked about 247 functions, each walk visiting about 240: two
// thirds of precog vet's time.
func (r *Result) onceGuards(fn *ssa.Function, outsideTests bool) []sharedloc.Loc {
	r.index()
	k := guardKey{fn, outsideTests}
	r.mu.Lock()
	out, ok := r.guards[k]
	r.mu.Unlock()
	if ok {
		return out
	}
	out = slices.Clip(r.findOnceGuards(fn, outsideTests))
	r.mu.Lock()
	if r.guards == nil {
		r.guards = make(map[guardKey][]sharedloc.Loc)
	}
	r.guards[k] = out
	r.mu.Unlock()
	return out
}

type guardKey struct {
	fn           *ssa.Function
	outsideTests bool
}

func (r *Result) findOnceGuards(fn *ssa.Function, outsideTests bool) []sharedloc.Loc {
	seen := map[*ssa.Function]bool{}
	var visit func(fn *ssa.Function, depth int) []sharedloc.Loc
	visit = func(fn *ssa.Function, depth int) []sharedloc.Loc {
		if seen[fn] || depth == 0 {
			return nil
		}
		seen[fn] = true
		if objs := r.ops.onceFns[fn]; len(objs) > 0 {
			return objs
		}
		var common []sharedloc.Loc
		first := true
		for _, e := range r.gr.CallGraph.Callers(fn) {
			caller := e.Caller.Func
			if r.ops.dead[caller] || outsideTests && source.InTestFile(caller.Prog.Fset, caller.Pos()) {
				continue
			}
			objs := visit(caller, depth-1)
			if first {
				common, first = objs, false
			} else {
				common = intersect(common, objs)
			}
		}
		return common
	}
	return visit(fn, MaxCallDepth)
}

// deadFuncs returns the functions of the package that never run: the
// unexported package-level functions (no importer can name them) that the
// package names only inside other such dead functions (a bundled copy's
// unused exported wrappers), with the closures inside them.
func deadFuncs(pass *analysis.Pass, funcs []*ssa.Function) map[*ssa.Function]bool {
	// users[f] lists the functions declared at package level whose
	// bodies name f; a nil entry is a name outside any function body (a
	// variable's initializer).
	users := make(map[*types.Func][]*types.Func)
	for _, file := range pass.Files {
		for _, decl := range file.Decls {
			var in *types.Func
			if fd, ok := decl.(*ast.FuncDecl); ok {
				in, _ = pass.TypesInfo.Defs[fd.Name].(*types.Func)
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					if f, ok := pass.TypesInfo.Uses[id].(*types.Func); ok && f.Pkg() == pass.Pkg {
						users[f.Origin()] = append(users[f.Origin()], in)
					}
				}
				return true
			})
		}
	}
	candidate := func(f *types.Func) bool {
		return f != nil && !f.Exported() && f.Pkg() == pass.Pkg && f.Signature().Recv() == nil &&
			f.Name() != "init" && f.Name() != "main" && f.Name() != "_"
	}
	dead := make(map[*types.Func]bool)
	for _, fn := range funcs {
		if f, ok := fn.Object().(*types.Func); ok && fn.Parent() == nil && candidate(f.Origin()) {
			dead[f.Origin()] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for f := range dead {
			for _, u := range users[f] {
				if u != f && (u == nil || !dead[u.Origin()]) {
					delete(dead, f)
					changed = true
					break
				}
			}
		}
	}
	out := make(map[*ssa.Function]bool)
	for _, fn := range funcs {
		if f, ok := source.Outermost(fn).Object().(*types.Func); ok && dead[f.Origin()] {
			out[fn] = true
		}
	}
	return out
}

func intersect(a, b []sharedloc.Loc) []sharedloc.Loc {
	var out []sharedloc.Loc
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, x)
			}
		}
	}
	return out
}

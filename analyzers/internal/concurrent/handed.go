package concurrent

import (
	"go/token"
	"slices"

	xcallgraph "golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/pointsto"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// maxHandDepth bounds the calls handedBefore follows from an access up to
// the function that makes the object or starts the goroutine.
const maxHandDepth = 4

// maxRootDepth bounds the calls handedRoot follows from an access on a
// goroutine up to the goroutine's entry: a message loop's handlers sit
// deeper below it (croc's route runs transferWithReconnect, transfer,
// processMessage, updateState, then the handler that indexes the files)
// than the calls between a function and what it makes.
const maxRootDepth = 6

// handedBefore reports whether a touches, before the start of the
// goroutines of c, an object that the invocation of the starting function
// made afresh, and b, on a goroutine of c, touches the object that
// invocation handed to it:
//
//	bs := s.makeBarState(...) // a new object each call
//	bs.isQueue()              // a: may store nil to bs.waitFor
//	p.bwg.Go(func() {         // c's start
//		bar.serve(bs)         // b: reads bs.waitFor
//	})
//
// (vbauerster/mpb's Add). Two invocations of F make two objects, both
// alive while a and b run (each is held by its invocation and by its
// goroutine), so a and b touch one object only in one invocation, where
// a comes before the start and so before b. The pair cannot overlap
// whatever the points-to sets say; they give all the objects one
// allocation site.
//
// What it requires, each a fact of the code:
//   - c's start G is in a function F, and its goroutines run a closure
//     made in F (G's function value or argument, a method value's
//     receiver included) or a function G calls with arguments; G may be
//     the registration of an HTTP handler (`mux.HandleFunc("/ws", h.ws)`:
//     no request runs the handler before G hands it to the server, so a
//     handler's map filled before it is one invocation's, croc's relay
//     allow-list);
//   - b reaches its object from what G handed over: a variable the
//     closure captures or an argument of G, through calls made at the
//     only call site of unexported functions (each a static call, or a
//     deferred one) and through local variables stored once;
//   - a reaches its object, in F, through the same captured variable or
//     the same value, directly or through the only call sites of
//     unexported functions, and at an instruction of F that no path from
//     G reaches without making the object anew (a loop that makes the
//     object each turn, then touches it, then starts its goroutine);
//   - on a goroutine the package starts, either side may also go through
//     exported functions, by their only callers on that goroutine, a
//     call of a function by itself on the same argument not counted (see
//     onlyCallIn: lz4's reader sizes each turn's block with the exported
//     Read, which retries on its receiver);
//   - the object is fresh in each invocation of F: a new(T), composite
//     literal or make in F, or the result of a call to a function of the
//     package all of whose results at that position are such allocations
//     (constructors) or a parameter the call passes nil (see
//     nilArgument), held in a variable that is stored once and whose
//     address goes nowhere but into closures that only read it.
//
// The object may also be a channel, map or slice made afresh in F (a done
// channel a cleanup closure closes), whose contents a and b touch.
//
// Or, instead of fresh, the object is what a parameter of F holds (its
// receiver) when every call of F passes there an object that its caller
// made afresh and passes to no other call of F (see freshCalls): two calls
// of F have two objects, so a and b touch one only in one call, where a
// comes before G (no path from G reaches a's instructions in F), as croc's
// Send fills and reads its client's files before it starts the routes
// that replace them, and each test sends on a new client of its own:
//
//	func (c *Client) Send(files []string) {
//		c.Files = files  // a
//		go c.route()     // c's start; b: route replaces c.Files
//	}
//
//	sender := New()      // in each of two tests
//	go func() { sender.Send(files) }()
//
// Or the object is what a parameter of F points to (its receiver) when F
// runs past a once-guard on it at most once per
// object (see onceGuard), the guard's set comes before G and before each
// of a's instructions in F, and no path from G reaches them: a and b
// touch one object only in the one invocation that passed the guard, where
// a is before G or on a path that never starts it (paho's Connect: an
// early return's cleanup closes c.publishPackets, the goroutine that
// closes it too is started on the other path). Without the guard a
// second call of F on the same object could run a's path while the
// first's goroutine runs, and the pair is reported.
//
// a reaches its object in F at one instruction or, through a closure F
// makes and only calls (not defers: a deferred call runs when F returns,
// after G), at each of the closure's calls.
//
// Only field accesses of the object, and the contents of a container it
// holds in a field that only ever holds a container made for it alone
// (ownField), are judged: a container a field shares with other objects
// is not the object's.
func (e *Env) handedBefore(a, b *sharedloc.Access, ca, c *goroutines.Context) bool {
	g := c.Site
	if g == nil || c.Entry == nil || (c.Kind != goroutines.Go && c.Kind != goroutines.Task && c.Kind != goroutines.Detached && c.Kind != goroutines.Handler) {
		return false
	}
	return e.handedInStarter(a, b, ca, c) || e.handedByCaller(a, b, ca, c)
}

// handedInStarter is handedBefore with the object made in F, the function
// of c's start, passed to F under a once-guard, or passed to F by calls
// that each pass an object of their own.
func (e *Env) handedInStarter(a, b *sharedloc.Access, ca, c *goroutines.Context) bool {
	g := c.Site
	f := g.Parent()
	xb, ok := e.accessObject(b)
	if !ok {
		return false
	}
	xa, ok := e.accessObject(a)
	if !ok {
		return false
	}
	ra, ats, ok := e.traceUp(xa, a.Fn(), a.Instr, f, ca)
	if !ok {
		return false
	}
	rb, ok := e.handedRoot(xb, b.Fn(), c, nil)
	if !ok {
		// b's function is called at several sites on c: those that
		// may pass a's object, the one F makes afresh, may be one.
		da, fresh := freshRoot(ra, f)
		if !fresh {
			return false
		}
		objs := e.PointsTo.PointsTo(freshObject(da))
		if len(objs) == 0 {
			return false
		}
		if rb, ok = e.handedRoot(xb, b.Fn(), c, objs); !ok {
			return false
		}
	}
	for _, at := range ats {
		if _, deferred := at.(*ssa.Defer); deferred {
			return false // runs when F returns, after G
		}
	}
	if pa := rootParam(ra, f); pa != nil && pa == rootParam(rb, f) {
		set := e.onceGuard(f, pa)
		if set == nil || !ssaflow.Dominates(set, g) {
			if _, ok := e.freshCalls(pa); !ok {
				return false
			}
			// Each call of F has an object of its own: a touches the
			// one b's goroutine was handed only in the call that
			// started it, before the start.
			for _, at := range ats {
				if at == g || reachesAvoiding(g, at, nil) {
					return false
				}
			}
			return true
		}
		for _, at := range ats {
			if !ssaflow.Dominates(set, at) || reachesAvoiding(g, at, nil) {
				return false
			}
		}
		return true
	}
	da, ok := freshRoot(ra, f)
	if !ok {
		return false
	}
	db, ok := freshRoot(rb, f)
	if !ok || da != db {
		return false
	}
	// Each at is a plain call or a itself (onlyCall and the closure's
	// calls admit no deferred call, which would run when F returns,
	// after G).
	for _, at := range ats {
		if reachesAvoiding(g, at, da.(ssa.Instruction)) {
			return false
		}
	}
	return true
}

// handedByCaller is handedBefore with the object made afresh in a caller
// F' of F and handed to F: what c's start G hands over is a parameter of
// F, F is called at one site alone (a static call in F', not deferred,
// see onlyCallIn), which passes the object F' makes anew in each of its
// invocations, and a touches that object in F' at an instruction that no
// path from the call reaches without making the object anew, as a test's
// helper fills a new agent before the method that starts its server:
//
//	a := &agent{}
//	a.steps = build(a) // a
//	a.start(t)         // F: c.Site is its `go a.serve()`
//
// The call of F is the start, for the argument of handedInStarter: each
// invocation of F' makes its object and hands it to its own call of F,
// whose goroutines get it alone, so a touches the object of b's goroutine
// only in the invocation that started it, before the call. F' may be a
// caller of a caller, up to maxHandDepth calls, each the one call of the
// function below it passing the object on as it came; the first of them
// that a traces up to (see traceUp) decides, and a must not run within
// the call of F. Where the function has several calls, each passing an
// object of its own, handedByFreshCalls decides.
func (e *Env) handedByCaller(a, b *sharedloc.Access, ca, c *goroutines.Context) bool {
	xb, ok := e.accessObject(b)
	if !ok {
		return false
	}
	xa, ok := e.accessObject(a)
	if !ok {
		return false
	}
	rb, ok := e.handedRoot(xb, b.Fn(), c, nil)
	if !ok {
		return false
	}
	f := c.Site.Parent()
	for range maxHandDepth {
		p := rootParam(ssavalue.Unconverted(rb), f)
		if p == nil {
			return false
		}
		site, arg, ok := e.onlyCallIn(p, nil)
		if !ok {
			return e.handedByFreshCalls(xa, a, ca, p)
		}
		rb, f = ssavalue.Unconverted(arg), site.Parent()
		ra, ats, ok := e.traceUp(xa, a.Fn(), a.Instr, f, ca)
		if !ok {
			continue
		}
		da, ok := freshRoot(ra, f)
		if !ok {
			return false
		}
		if db, ok := freshRoot(rb, f); !ok || da != db {
			return false
		}
		for _, at := range ats {
			if _, deferred := at.(*ssa.Defer); deferred || at == site || reachesAvoiding(site, at, da.(ssa.Instruction)) {
				return false // runs when F' returns, within the call, or after it with the same object
			}
		}
		return true
	}
	return false
}

// handedByFreshCalls is handedByCaller where F, the function whose
// parameter p holds the object c's start hands over, is called at several
// sites, each of which passes an object of its own (see freshCalls): a
// touches, in the function of one of those calls, the object that call
// passes, at an instruction that no call passing the object reaches
// without making it anew, as each test fills its own new client before it
// calls the method that starts the client's goroutines:
//
//	c := New()
//	c.Files = files // a
//	c.Send()        // F: c.Site is its `go c.route()`
//
// Every call of F gets another object, so a touches the object of b's
// goroutine only in the invocation whose call of F started it, before the
// call.
func (e *Env) handedByFreshCalls(xa ssa.Value, a *sharedloc.Access, ca *goroutines.Context, p *ssa.Parameter) bool {
	passes, ok := e.freshCalls(p)
	if !ok {
		return false
	}
	for _, pass := range passes {
		f := pass.site.Parent()
		if pass.at != pass.site || f != pass.made.Parent() {
			continue // passed through a closure: a does not trace up to the object's maker there
		}
		ra, ats, ok := e.traceUp(xa, a.Fn(), a.Instr, f, ca)
		if !ok {
			continue
		}
		if da, ok := freshRoot(ra, f); !ok || da.(ssa.Instruction) != pass.made {
			return false
		}
		for _, at := range ats {
			if _, deferred := at.(*ssa.Defer); deferred {
				return false // runs when the function returns, after the call
			}
			for _, q := range passes {
				if q.made == pass.made && (at == q.at || reachesAvoiding(q.at, at, pass.made)) {
					return false // within the call, or after it with the same object
				}
			}
		}
		return true
	}
	return false
}

// A freshPass is a call of a function that passes it an object made
// afresh: the call (site), the instruction at which the object's maker
// makes the call happen (the call itself, or the go statement or call
// that runs the closure that makes it) and the instruction that makes the
// object.
type freshPass struct {
	site, at, made ssa.Instruction
}

// freshCalls returns the calls of p's function when each passes as p an
// object that no other call of the function gets: every caller the call
// graph gives it is a static call or go statement (not deferred) that passes
// a value its own function makes afresh in each of its invocations (a
// composite literal, new, make, or a call to a constructor of the package
// whose every result is such an allocation: see freshValue), or that a
// closure captures from the function that makes it, when that function
// runs the closure at one call or go statement and the closure makes the
// call once; and no two calls pass one making of the object (the same
// call in a loop that does not make the object anew, two calls in a row,
// a closure run in such a loop). The function is not synthetic and its
// value is never taken (no RefSites), so the call graph has all its
// calls.
//
// An exported function qualifies on the calls the package makes: the
// goroutines analysis takes a function the package calls to be called
// only there (it is no root of the Caller context), as the spawn rule
// does when it orders a test's one call before the goroutine that call
// starts; an importer calling it twice on one object is not seen.
//
// Two calls then get two objects, allocated by two makings, and an access
// through p in one call of the function cannot touch the object another
// call has.
func (e *Env) freshCalls(p *ssa.Parameter) ([]freshPass, bool) {
	fn := p.Parent()
	if fn.Synthetic != "" || len(e.Goroutines.RefSites(fn)) > 0 {
		return nil, false
	}
	i := slices.Index(fn.Params, p)
	var passes []freshPass
	for _, edge := range e.Goroutines.CallGraph.Callers(fn) {
		arg, ok := staticArg(edge.Site, fn, i, false)
		if _, spawn := edge.Site.(*ssa.Go); spawn {
			// go F(x): one call, on a goroutine of its own.
			common := edge.Site.Common()
			arg, ok = nil, callgraph.StaticCallee(common) == fn && !common.IsInvoke() && i >= 0 && i < len(common.Args)
			if ok {
				arg = common.Args[i]
			}
		}
		if !ok {
			return nil, false
		}
		at, made, ok := freshPassed(edge.Site, ssavalue.Unconverted(arg))
		if !ok {
			return nil, false
		}
		if reachesAvoiding(at, at, made) {
			return nil, false // again, with the same object
		}
		for _, q := range passes {
			if q.made == made && (q.at == at || reachesAvoiding(q.at, at, made) || reachesAvoiding(at, q.at, made)) {
				return nil, false // one object, two calls
			}
		}
		passes = append(passes, freshPass{edge.Site, at, made})
	}
	return passes, len(passes) > 0
}

// freshPassed returns, for v, the value site passes, the instruction at
// which the function that makes v's object makes the call happen and the
// instruction that makes the object (see freshCalls): the allocation
// itself, or the cell of the variable that holds it when the call reads
// one (a variable a closure captures), stored once in each making of the
// cell with a value used for nothing else.
func freshPassed(site ssa.CallInstruction, v ssa.Value) (at, made ssa.Instruction, ok bool) {
	h := site.Parent()
	at = site
	var cell *ssa.Alloc
	if load, ok := v.(*ssa.UnOp); ok && load.Op == token.MUL {
		switch x := load.X.(type) {
		case *ssa.Alloc:
			cell = x
		case *ssa.FreeVar:
			// A variable the closure h captures from the function
			// that makes it, which runs it once.
			if reachesAvoiding(site, site, nil) {
				return nil, nil, false // the closure calls it in a loop
			}
			mc, run, ok := runOnce(h)
			if !ok {
				return nil, nil, false
			}
			j := slices.Index(h.FreeVars, x)
			if j < 0 || j >= len(mc.Bindings) {
				return nil, nil, false
			}
			if cell, ok = mc.Bindings[j].(*ssa.Alloc); !ok {
				return nil, nil, false
			}
			h, at = mc.Parent(), run
		default:
			return nil, nil, false
		}
		if cell.Parent() != h || !cell.Heap || !capturedCell(cell) {
			return nil, nil, false
		}
		store, ok := onlyStore(cell)
		if !ok || reachesAvoiding(store, store, cell) {
			return nil, nil, false // stored again before the cell is made anew
		}
		v = ssavalue.Unconverted(store.Val)
	}
	instr, ok := v.(ssa.Instruction)
	if !ok || instr.Parent() != h || !freshValue(v, maxHandDepth) {
		return nil, nil, false
	}
	for _, r := range *v.Referrers() {
		switch r := r.(type) {
		case *ssa.DebugRef:
		case *ssa.Store:
			if r.Val != v {
				continue
			}
			if _, local := r.Addr.(*ssa.Alloc); local && (cell == nil || r.Addr != ssa.Value(cell)) {
				return nil, nil, false // a variable another call may read
			}
			if cell == nil {
				continue
			}
		default:
			if cell != nil {
				return nil, nil, false // used besides the variable
			}
		}
	}
	if cell != nil {
		return at, cell, true
	}
	return at, instr, true
}

// onlyStore returns the one store to cell, when only its own function
// writes it, once.
func onlyStore(cell *ssa.Alloc) (*ssa.Store, bool) {
	if !ssavalue.OnlyOwnerWrites(cell) {
		return nil, false
	}
	var store *ssa.Store
	for _, r := range *cell.Referrers() {
		if st, ok := r.(*ssa.Store); ok && st.Addr == ssa.Value(cell) {
			if store != nil {
				return nil, false
			}
			store = st
		}
	}
	return store, store != nil
}

// oneMaking returns the one MakeClosure of fn, a function literal, in the
// function that declares it; nil if it is made at several places or at
// none.
func oneMaking(fn *ssa.Function) *ssa.MakeClosure {
	var mc *ssa.MakeClosure
	for _, b := range fn.Parent().Blocks {
		for _, instr := range b.Instrs {
			if m, ok := instr.(*ssa.MakeClosure); ok && m.Fn == fn {
				if mc != nil {
					return nil
				}
				mc = m
			}
		}
	}
	return mc
}

// runOnce returns the one closure value of fn, a function literal, and
// the one call or go statement that runs it, when its maker does nothing
// else with it: each making of the closure runs once.
func runOnce(fn *ssa.Function) (*ssa.MakeClosure, ssa.Instruction, bool) {
	if fn.Parent() == nil {
		return nil, nil, false
	}
	mc := oneMaking(fn)
	if mc == nil {
		return nil, nil, false
	}
	var run ssa.Instruction
	for _, u := range *mc.Referrers() {
		switch u := u.(type) {
		case *ssa.Call, *ssa.Go:
			common := u.(ssa.CallInstruction).Common()
			if run != nil || common.Value != mc || isArg(common, mc) {
				return nil, nil, false
			}
			run = u
		case *ssa.DebugRef:
		default:
			return nil, nil, false // deferred, stored or handed on
		}
	}
	return mc, run, run != nil
}

// accessObject returns the value of a's function that a's object is: the
// struct whose field a touches, the struct whose own container a touches
// the contents of, or the container itself when a does not read it from
// a field (freshRoot then decides whether it is the invocation's own).
func (e *Env) accessObject(a *sharedloc.Access) (ssa.Value, bool) {
	var x ssa.Value
	if a.Loc.Elem {
		load, ok := a.Ptr.(*ssa.UnOp)
		if !ok || load.Op != token.MUL {
			return a.Ptr, a.Ptr != nil
		}
		fa, ok := load.X.(*ssa.FieldAddr)
		if !ok {
			return a.Ptr, true
		}
		if !e.ownField(ssavalue.Field(fa)) {
			return nil, false
		}
		x = fa.X
	} else {
		fa, ok := a.Ptr.(*ssa.FieldAddr)
		if !ok {
			return nil, false
		}
		x = fa.X
	}
	// A field of a struct held in a field (s.inner.f) is in the same
	// object.
	for {
		fa, ok := x.(*ssa.FieldAddr)
		if !ok {
			return x, true
		}
		x = fa.X
	}
}

// handedRoot follows x, a value of fn on a goroutine of c, up to the
// value of c's starting function that c's start handed over: the cell of
// a variable the entry closure captures, or an argument of the start.
//
// With objs, the objects of interest, a function called at several sites
// on c is followed to the one value that every site that may pass one of
// objs passes (callsPassing): an access to another object is not the
// question.
func (e *Env) handedRoot(x ssa.Value, fn *ssa.Function, c *goroutines.Context, objs []pointsto.Obj) (ssa.Value, bool) {
	g := c.Site
	for range maxRootDepth {
		x = throughOneStore(ssavalue.Unconverted(x), fn)
		if fn == c.Entry {
			break
		}
		p, ok := x.(*ssa.Parameter)
		if !ok {
			return nil, false
		}
		site, arg, ok := e.onlyCallIn(p, c)
		if !ok && objs != nil {
			site, arg, ok = e.callsPassing(p, c, objs)
		}
		if !ok {
			return nil, false
		}
		x, fn = arg, site.Parent()
	}
	if fn != c.Entry {
		return nil, false
	}
	// The last call followed may pass a variable of the entry (its
	// receiver, captured by a closure it makes).
	x = throughOneStore(ssavalue.Unconverted(x), fn)
	common := g.Common()
	switch x := x.(type) {
	case *ssa.UnOp:
		// A captured variable the entry closure reads.
		fv, ok := x.X.(*ssa.FreeVar)
		if !ok || x.Op != token.MUL {
			return nil, false
		}
		return closureBinding(fv, g)
	case *ssa.FreeVar:
		return closureBinding(x, g)
	case *ssa.Parameter:
		if fn.Signature.Recv() != nil && fn.Params[0] == x {
			// A method value handed to G (`mux.HandleFunc("/ws",
			// h.ws)`, whose handler context's entry is ws): its
			// receiver is what the value binds.
			if v, ok := boundReceiver(g, fn); ok {
				return v, true
			}
		}
		// go f(x): the entry's parameter is G's argument.
		if callgraph.StaticCallee(common) != fn || common.IsInvoke() {
			return nil, false
		}
		i := slices.Index(fn.Params, x)
		if i < 0 || i >= len(common.Args) {
			return nil, false
		}
		return common.Args[i], true
	}
	return nil, false
}

// closureBinding returns what the closure that g starts binds to fv, when
// the closure is made in g's function and handed to g directly.
func closureBinding(fv *ssa.FreeVar, g ssa.CallInstruction) (ssa.Value, bool) {
	fn := fv.Parent()
	if fn.Parent() != g.Parent() {
		return nil, false
	}
	i := slices.Index(fn.FreeVars, fv)
	common := g.Common()
	for _, v := range append([]ssa.Value{common.Value}, common.Args...) {
		if mc, ok := v.(*ssa.MakeClosure); ok && mc.Fn == fn && i >= 0 && i < len(mc.Bindings) {
			return mc.Bindings[i], true
		}
	}
	return nil, false
}

// traceUp follows x, a value of fn used at instruction at, up to f
// through the only call sites of fn and its callers, or through the
// variable a closure captures to the calls of the closure in the function
// that makes it, and returns the value of f it comes from (for a
// captured variable, its cell) and the instructions of f at which the
// access happens (the calls that lead to it).
//
// With c not nil, the calls followed are those in functions that the
// goroutines of c run, where x is a value of a frame on such a goroutine
// (see onlyCallIn).
func (e *Env) traceUp(x ssa.Value, fn *ssa.Function, at ssa.Instruction, f *ssa.Function, c *goroutines.Context) (ssa.Value, []ssa.Instruction, bool) {
	ats := []ssa.Instruction{at}
	for range maxHandDepth {
		x = ssavalue.Unconverted(x)
		if fn == f {
			return x, ats, true
		}
		if load, ok := x.(*ssa.UnOp); ok && load.Op == token.MUL {
			if fv, ok := load.X.(*ssa.FreeVar); ok {
				cell, calls, ok := calledClosure(fv)
				if !ok {
					return nil, nil, false
				}
				x, fn, ats = cell, fn.Parent(), calls
				continue
			}
		}
		x = throughOneStore(x, fn)
		p, ok := x.(*ssa.Parameter)
		if !ok {
			return nil, nil, false
		}
		site, arg, ok := e.onlyCallIn(p, c)
		if !ok {
			return nil, nil, false
		}
		x, fn, ats = arg, site.Parent(), []ssa.Instruction{site}
	}
	if fn == f {
		return ssavalue.Unconverted(x), ats, true
	}
	return nil, nil, false
}

// calledClosure returns what the one closure value of fv's function binds
// to fv and the calls that run it, when the function that makes it does
// nothing with it but call it (cleanup := func() {...}; ...; cleanup()):
// the closure then runs only at those calls, on that invocation's
// goroutine, with that invocation's variable.
func calledClosure(fv *ssa.FreeVar) (ssa.Value, []ssa.Instruction, bool) {
	fn := fv.Parent()
	i := slices.Index(fn.FreeVars, fv)
	if fn.Parent() == nil || i < 0 {
		return nil, nil, false
	}
	mc := oneMaking(fn)
	if mc == nil {
		return nil, nil, false
	}
	var calls []ssa.Instruction
	for _, u := range *mc.Referrers() {
		switch u := u.(type) {
		case *ssa.Call:
			if u.Call.Value != mc || isArg(&u.Call, mc) {
				return nil, nil, false
			}
			calls = append(calls, u)
		case *ssa.DebugRef:
		default:
			return nil, nil, false // deferred, stored or handed on
		}
	}
	return mc.Bindings[i], calls, len(calls) > 0
}

// throughOneStore returns, for a read of a local variable of fn that is
// stored once, by fn, and whose address goes only into closures that read
// it (a parameter captured by a deferred closure), the value stored;
// otherwise x.
func throughOneStore(x ssa.Value, fn *ssa.Function) ssa.Value {
	load, ok := x.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return x
	}
	cell, ok := load.X.(*ssa.Alloc)
	if !ok || cell.Parent() != fn {
		return x
	}
	if v, ok := storedOnce(cell); ok {
		return v
	}
	return x
}

// storedOnce returns the one value stored to the local variable cell,
// when only its own function writes it, once.
func storedOnce(cell *ssa.Alloc) (ssa.Value, bool) {
	if !ssavalue.OnlyOwnerWrites(cell) {
		return nil, false
	}
	stored := ssavalue.StoresTo(cell)
	if len(stored) != 1 {
		return nil, false
	}
	return stored[0], true
}

// onlyCallIn returns the one call of p's function, an unexported function
// or a closure, and the argument it passes as p: the call graph gives the
// function one caller, a static call of it, and no code outside the
// package calls it. A call of the function by itself with p as the same
// argument is not a caller (see passesOwn).
//
// With c not nil, the call graph's callers are kept to those in functions
// that goroutines of c run: a frame of the function on such a goroutine
// was called from one of them (the goroutine's own call of incoming,
// where the tests call it on goroutines of their own), and a deferred
// call counts as the call (its arguments are evaluated at the defer
// statement, on that goroutine; handedBefore rejects a deferred call in
// the starting function itself, which runs after the start). When c is a
// goroutine the package starts (a go statement, a task, a detached
// goroutine), an exported function qualifies too: code outside the
// package calls it on the Caller's goroutines, and on c's only as far as
// the goroutines analysis sees (lz4's block reader calls the exported
// Read of the block it made in this turn of its loop; Read's other
// callers run on other goroutines).
func (e *Env) onlyCallIn(p *ssa.Parameter, c *goroutines.Context) (ssa.CallInstruction, ssa.Value, bool) {
	fn := p.Parent()
	if !e.callersSeen(fn, c) {
		return nil, nil, false
	}
	i := slices.Index(fn.Params, p)
	callers := slices.DeleteFunc(slices.Clone(e.Goroutines.CallGraph.Callers(fn)), func(edge *xcallgraph.Edge) bool {
		return c != nil && !slices.Contains(e.Goroutines.Of(edge.Site.Parent()), c) || passesOwn(edge.Site, fn, i, p)
	})
	if len(callers) != 1 {
		return nil, nil, false
	}
	site := callers[0].Site
	arg, ok := staticArg(site, fn, i, c != nil)
	if !ok {
		return nil, nil, false
	}
	return site, arg, true
}

// callsPassing is onlyCallIn for the calls on c that may pass one of objs
// as p: a static call passing a value whose points-to set is disjoint
// from objs gives p another object, and is left out; the others must be
// static calls (or, on a goroutine, deferred ones) that all pass the same
// value (Msg.Pack's two calls of pack with its receiver), which is
// returned with one of them. A value points-to does not track may be any
// object.
func (e *Env) callsPassing(p *ssa.Parameter, c *goroutines.Context, objs []pointsto.Obj) (ssa.CallInstruction, ssa.Value, bool) {
	fn := p.Parent()
	if !e.callersSeen(fn, c) {
		return nil, nil, false
	}
	i := slices.Index(fn.Params, p)
	var site ssa.CallInstruction
	var arg ssa.Value
	for _, edge := range e.Goroutines.CallGraph.Callers(fn) {
		if !slices.Contains(e.Goroutines.Of(edge.Site.Parent()), c) || passesOwn(edge.Site, fn, i, p) {
			continue
		}
		v, ok := staticArg(edge.Site, fn, i, true)
		if !ok {
			return nil, nil, false
		}
		v = ssavalue.Unconverted(v)
		if pts := e.PointsTo.PointsTo(v); len(pts) > 0 && !pointsto.Intersect(pts, objs) {
			continue
		}
		if arg != nil && v != arg {
			return nil, nil, false
		}
		site, arg = edge.Site, v
	}
	return site, arg, arg != nil
}

// callersSeen reports whether the call graph's callers of fn are all its
// callers on goroutines of c (any goroutine, with c nil): fn is a closure
// or an unexported function, not synthetic, whose value is never taken
// (no RefSites). An exported function qualifies when c is a goroutine the
// package starts (see onlyCallIn).
func (e *Env) callersSeen(fn *ssa.Function, c *goroutines.Context) bool {
	spawned := c != nil && (c.Kind == goroutines.Go || c.Kind == goroutines.Task || c.Kind == goroutines.Detached)
	if obj := fn.Object(); fn.Parent() == nil && (obj == nil || obj.Exported() && !spawned) || fn.Synthetic != "" {
		return false
	}
	return len(e.Goroutines.RefSites(fn)) == 0
}

// staticArg returns the argument that site, a static call of fn (or, with
// deferOK, a deferred one), passes as its parameter number i.
func staticArg(site ssa.CallInstruction, fn *ssa.Function, i int, deferOK bool) (ssa.Value, bool) {
	switch site.(type) {
	case *ssa.Call:
	case *ssa.Defer:
		if !deferOK {
			return nil, false
		}
	default:
		return nil, false
	}
	common := site.Common()
	if callgraph.StaticCallee(common) != fn || common.IsInvoke() || i < 0 || i >= len(common.Args) {
		return nil, false
	}
	return common.Args[i], true
}

// freshObject returns the value whose objects are those freshRoot's root
// da makes: the value stored in a captured variable's cell, or da.
func freshObject(da ssa.Value) ssa.Value {
	if cell, ok := da.(*ssa.Alloc); ok && capturedCell(cell) {
		if stored, ok := storedOnce(cell); ok {
			return stored
		}
	}
	return da
}

// passesOwn reports whether site, a call in fn, calls fn itself with its
// own parameter p (number i) as the same argument (Read retrying on its
// receiver): that frame's p is the caller frame's, so the caller that
// made the outermost frame gives p its value.
func passesOwn(site ssa.CallInstruction, fn *ssa.Function, i int, p *ssa.Parameter) bool {
	common := site.Common()
	return site.Parent() == fn && callgraph.StaticCallee(common) == fn && !common.IsInvoke() &&
		i >= 0 && i < len(common.Args) && ssavalue.Unconverted(common.Args[i]) == p
}

// freshRoot returns the instruction of f that makes the object v denotes
// anew in each invocation of f: the cell of a variable v reads (or v
// itself, a cell), stored once with a fresh value, or v itself when it is
// fresh.
func freshRoot(v ssa.Value, f *ssa.Function) (ssa.Value, bool) {
	if load, ok := v.(*ssa.UnOp); ok && load.Op == token.MUL {
		if cell, ok := load.X.(*ssa.Alloc); ok && cell.Heap && cell.Parent() == f {
			v = cell
		}
	}
	if cell, ok := v.(*ssa.Alloc); ok && cell.Heap && cell.Parent() == f && capturedCell(cell) {
		stored, ok := storedOnce(cell)
		if !ok || !freshValue(stored, maxHandDepth) {
			return nil, false
		}
		return cell, true
	}
	if instr, ok := v.(ssa.Instruction); !ok || instr.Parent() != f || !freshValue(v, maxHandDepth) {
		return nil, false
	}
	return v, true
}

// capturedCell reports whether cell is a variable's cell that a function
// literal captures. A method value made of the object an allocation makes
// (`h.ws` of `h := &handler{}`) binds that object, not a cell.
func capturedCell(cell *ssa.Alloc) bool {
	for _, r := range *cell.Referrers() {
		if mc, ok := r.(*ssa.MakeClosure); ok && ssavalue.BoundMethod(mc.Fn.(*ssa.Function)) == nil {
			return true
		}
	}
	return false
}

// freshValue reports whether each evaluation of v gives an object that did
// not exist before it: an allocation, or the result of a call to a
// function of the package whose every result at that position is (or is
// nil, which is no object: a constant nil, as a constructor returns with
// its error, or a parameter to which the call passes nil: see
// nilArgument).
func freshValue(v ssa.Value, depth int) bool {
	if depth == 0 {
		return false
	}
	switch v := v.(type) {
	case *ssa.Alloc, *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeSlice:
		return true
	case *ssa.Call:
		return freshResult(v, -1, depth)
	case *ssa.Extract:
		if call, ok := v.Tuple.(*ssa.Call); ok {
			return freshResult(call, v.Index, depth)
		}
	}
	return false
}

func freshResult(call *ssa.Call, index int, depth int) bool {
	callee := call.Call.StaticCallee()
	if callee == nil || len(callee.Blocks) == 0 || callee.Pkg != call.Parent().Pkg {
		return false
	}
	found := false
	for _, b := range callee.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		if index < 0 && len(ret.Results) != 1 || index >= len(ret.Results) {
			return false
		}
		r := ret.Results[max(index, 0)]
		srcs := ssavalue.Sources(r)
		if len(srcs) == 0 {
			return false
		}
		for _, s := range srcs {
			if nilArgument(call, s) {
				continue // returned only where the call passed nil: no object
			}
			if c, ok := s.(*ssa.Const); ok && c.IsNil() {
				continue // nil: no object (a constructor's error return)
			}
			if !freshValue(s, depth-1) {
				return false
			}
		}
		found = true
	}
	return found
}

// nilArgument reports whether v is a parameter of call's static callee to
// which call passes the constant nil: returned, it is nil, no object
// (lz4's NewFrameDataBlock returns (*FrameDataBlock)(nil).init(f), whose
// init returns its receiver, made anew when nil). A parameter the callee
// reassigns is another SSA value, so this one holds the argument.
func nilArgument(call *ssa.Call, v ssa.Value) bool {
	p, ok := v.(*ssa.Parameter)
	if !ok || call.Call.IsInvoke() || p.Parent() != call.Call.StaticCallee() {
		return false
	}
	i := slices.Index(p.Parent().Params, p)
	if i < 0 || i >= len(call.Call.Args) {
		return false
	}
	c, ok := call.Call.Args[i].(*ssa.Const)
	return ok && c.IsNil()
}

// reachesAvoiding reports whether some path from just after from reaches
// to without running avoid first.
func reachesAvoiding(from, to, avoid ssa.Instruction) bool {
	type at struct {
		b *ssa.BasicBlock
		i int
	}
	seen := map[*ssa.BasicBlock]bool{}
	work := []at{{from.Block(), slices.Index(from.Block().Instrs, from) + 1}}
	for len(work) > 0 {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		stopped := false
		for _, instr := range w.b.Instrs[w.i:] {
			if instr == to {
				return true
			}
			if instr == avoid {
				stopped = true
				break
			}
		}
		if stopped {
			continue
		}
		for _, s := range w.b.Succs {
			if !seen[s] {
				seen[s] = true
				work = append(work, at{s, 0})
			}
		}
	}
	return false
}

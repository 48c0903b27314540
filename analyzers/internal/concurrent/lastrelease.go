package concurrent

import (
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// The last release of a reference count. A pooled object whose count
// starts at 0 for its creator (jaeger's spans) or at 1 is put back, and
// its fields cleared, by the holder whose decrement finds no holder
// left:
//
//	func (s *Span) Release() {
//		if atomic.AddInt32(&s.referenceCounter, -1) == -1 {
//			s.tracer.spanAllocator.Put(s) // Put calls s.reset(): s.tracer = nil
//		}
//	}
//
// while each holder uses the span only between taking its reference
// (the creator's, or a Retain's increment) and dropping it (Release).
//
// lastReleased reports whether w, in context cw, runs only after the last
// release of its object: w touches a field of o directly, and either an
// atomic add of -1 to o's count compared equal to the count's last value
// (see lastValue) guards w in its function, or w's function is entered,
// in cw, only by calls that pass o from such a branch (through at most
// releaseDepth calls, each function called only by the package's own
// calls: never used as a value, an exported one only off the Caller
// context, whose calls come from outside). And u is a use by a holder
// (see holderUse). Why that orders them: a count reaches its last value
// only when every reference taken has been dropped, and only once, so a
// holder that has not dropped its reference yet cannot meet w; u's
// goroutine holds one at u. The analysis checks that u's goroutine does
// not drop a reference to the object before u (a use after its own
// release) and that it did not load the object from shared memory
// without taking a reference (a reader of db.mem must increment it);
// what it cannot check, and assumes as the count's contract, is that an
// object a goroutine was handed (a parameter, a captured variable, a
// value received or returned) comes with a reference that the goroutine
// holds until it releases it, and that no reference is taken from 0
// after the last release (a use after release of its own, which the
// check would then hide). An atomic store to the count of the value it
// starts with re-initializes an object no other goroutine holds (a
// pool's reset) under the same contract.
func (e *Env) lastReleased(u, w *sharedloc.Access, cw *goroutines.Context) bool {
	if len(e.refCounts()) == 0 {
		return false
	}
	o := fieldBase(w)
	if o == nil || fieldBase(u) == nil {
		return false
	}
	for l := range e.refCounts() {
		if _, ok := e.lastValue(l); !ok || !hasField(o, l) || !hasField(fieldBase(u), l) {
			continue
		}
		if !e.releasedOnly(o, w.Instr, l, cw, releaseDepth) {
			continue
		}
		if e.lastBranch(fieldBase(u), u.Instr, l) || e.holderUse(u, l) {
			// u runs on the last release's branch itself (there is one
			// such release), or its goroutine holds a reference
			return true
		}
	}
	return false
}

// releaseDepth bounds the calls followed up from a write to the branch of
// the last release.
const releaseDepth = 4

// lastValue returns the value the atomic decrement of count returns when
// it drops the last reference: -1 when every store to the count (the
// composite literals that build the object, atomic stores) puts 0 there
// or none does (the object starts at its zero value, its creator's
// reference uncounted), 0 when every one puts 1.
func (e *Env) lastValue(count sharedloc.Loc) (int64, bool) {
	e.refCounts()
	if e.countInitBad[count] {
		return 0, false
	}
	switch vs := e.countInits[count]; {
	case len(vs) == 0, !slices.ContainsFunc(vs, func(v int64) bool { return v != 0 }):
		return -1, true
	case !slices.ContainsFunc(vs, func(v int64) bool { return v != 1 }):
		return 0, true
	}
	return 0, false
}

// lastBranch reports whether instr runs, in its function, only on the
// branch where an atomic add of -1 to o's count returned its last value.
func (e *Env) lastBranch(o ssa.Value, instr ssa.Instruction, count sharedloc.Loc) bool {
	last, ok := e.lastValue(count)
	if !ok {
		return false
	}
	for fa, k := range e.decrementBranches(instr) {
		if isIntConst(k, last) && fa.X == o && locOf(fa) == count {
			return true
		}
	}
	return false
}

// isIntConst reports whether v is the integer constant n.
func isIntConst(v ssa.Value, n int64) bool {
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		return false
	}
	x, exact := constant.Int64Val(c.Value)
	return exact && x == n
}

// releasedOnly reports whether instr, touching o, runs in context cw only
// after the last release of o's count (see lastReleased).
func (e *Env) releasedOnly(o ssa.Value, instr ssa.Instruction, count sharedloc.Loc, cw *goroutines.Context, depth int) bool {
	if e.lastBranch(o, instr, count) {
		return true
	}
	p, ok := o.(*ssa.Parameter)
	fn := instr.Parent()
	if !ok || depth == 0 || fn == nil || fn == cw.Entry || fn == cw.Wrapper || !e.calledOnly(fn, cw) {
		return false
	}
	idx := slices.Index(fn.Params, p)
	if idx < 0 {
		return false
	}
	callers := 0
	for _, edge := range e.Goroutines.CallGraph.Callers(fn) {
		if edge.Caller == nil || !slices.Contains(e.Goroutines.Of(edge.Caller.Func), cw) {
			continue
		}
		site := edge.Site
		if _, isGo := site.(*ssa.Go); isGo || site == nil {
			return false
		}
		cc := site.Common()
		var arg ssa.Value
		switch {
		case !cc.IsInvoke() && callgraph.StaticCallee(cc) == fn && idx < len(cc.Args):
			arg = cc.Args[idx]
		case cc.IsInvoke() && idx > 0 && idx-1 < len(cc.Args):
			arg = cc.Args[idx-1]
		default:
			return false
		}
		if !e.releasedOnly(arg, site, count, cw, depth-1) {
			return false
		}
		callers++
	}
	return callers > 0
}

// calledOnly reports whether fn runs in cw only when the package's own
// code calls it: a function (not a closure) of the package that the
// package never uses as a value and that code outside the package cannot
// name (see reachableOutside), or any such function off the Caller
// context (where code outside the package runs the exported API).
func (e *Env) calledOnly(fn *ssa.Function, cw *goroutines.Context) bool {
	if fn.Parent() != nil || fn.Object() == nil || fn.Pkg == nil || fn.Pkg.Pkg != e.Pass.Pkg || len(e.Goroutines.RefSites(fn)) > 0 {
		return false
	}
	if cw.Kind == goroutines.Caller && reachableOutside(fn) {
		return false
	}
	if e.valueFree == nil {
		e.valueFree = make(map[*ssa.Function]bool)
	}
	if v, ok := e.valueFree[fn]; ok {
		return v
	}
	ok := true
	for _, g := range e.packageFuncs() {
		for _, b := range g.Blocks {
			for _, instr := range b.Instrs {
				for i, op := range instr.Operands(nil) {
					if *op != ssa.Value(fn) {
						continue
					}
					if c, isCall := instr.(ssa.CallInstruction); !isCall || i != 0 || c.Common().Value != ssa.Value(fn) {
						ok = false
					}
				}
			}
		}
	}
	e.valueFree[fn] = ok
	return ok
}

// holderUse reports whether the access u, to a field of an object o with
// the count, is not visibly made without a reference to o: no drop of a
// reference to o (an atomic add of -1 to its count, or a call passing o
// that may make one) comes before u in its function, and o was not
// loaded from shared memory (a field, a package variable, an element or
// a map entry) unless a reference taken on it dominates u (see counted).
func (e *Env) holderUse(u *sharedloc.Access, count sharedloc.Loc) bool {
	k := holderKey{u, count}
	if v, ok := e.holders[k]; ok {
		return v
	}
	if e.holders == nil {
		e.holders = make(map[holderKey]bool)
	}
	v := e.computeHolderUse(u, count)
	e.holders[k] = v
	return v
}

type holderKey struct {
	u     *sharedloc.Access
	count sharedloc.Loc
}

// computeHolderUse is holderUse, not memoized.
func (e *Env) computeHolderUse(u *sharedloc.Access, count sharedloc.Loc) bool {
	o := fieldBase(u)
	fn := u.Instr.Parent()
	if o == nil || fn == nil {
		return false
	}
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			c, ok := in.(ssa.CallInstruction)
			if _, deferred := in.(*ssa.Defer); !ok || deferred {
				continue // a deferred call runs when fn returns
			}
			if e.dropsRef(c, o, count, map[*ssa.Parameter]bool{}) && reaches(c, u.Instr) {
				return false // a use after its own release, or after handing it to a goroutine
			}
		}
	}
	return e.lentOrCounted(o, u.Instr, count, countDepth)
}

// dropsRef reports whether the call c may drop a reference to o on the
// count: an atomic add of -1 to o's count, or a call passing o to a
// function of the package that makes such a call on that parameter,
// however many calls down (a dynamic call through each callee the call
// graph gives it; one it gives none is taken to drop it). seen holds the
// parameters already asked about in this search.
func (e *Env) dropsRef(c ssa.CallInstruction, o ssa.Value, count sharedloc.Loc, seen map[*ssa.Parameter]bool) bool {
	cc := c.Common()
	if fa, d := e.countAddCommon(cc); fa != nil {
		return d == -1 && sameObject(fa.X, o) && locOf(fa) == count
	}
	isO := func(a ssa.Value) bool { return sameObject(a, o) }
	if mc, ok := cc.Value.(*ssa.MakeClosure); ok && e.closureDrops(mc, o, count, seen) {
		return true
	}
	if !slices.ContainsFunc(cc.Args, isO) && !isO(cc.Value) {
		return false
	}
	var callees []*ssa.Function
	shift := 0 // Args[i] is the callee's Params[i+shift]
	switch {
	case cc.StaticCallee() != nil:
		callees = []*ssa.Function{cc.StaticCallee()}
	case cc.IsInvoke():
		callees, shift = e.Goroutines.CallGraph.Callees(c), 1
	default:
		callees = e.Goroutines.CallGraph.Callees(c)
	}
	if len(callees) == 0 || isO(cc.Value) && cc.StaticCallee() == nil {
		return true // a call the analysis cannot follow
	}
	for _, callee := range callees {
		if callee.Blocks == nil || callee.Pkg == nil || callee.Pkg.Pkg != e.Pass.Pkg {
			continue // code outside the package, which cannot name the count
		}
		for i, a := range cc.Args {
			if !isO(a) || i+shift >= len(callee.Params) {
				continue
			}
			if p := callee.Params[i+shift]; !seen[p] {
				seen[p] = true
				if e.paramDropsRef(callee, p, count, seen) {
					return true
				}
			}
		}
	}
	return false
}

// closureDrops reports whether the closure mc, called, may drop a
// reference to o, a load of a variable it captures, through its own
// loads of that variable.
func (e *Env) closureDrops(mc *ssa.MakeClosure, o ssa.Value, count sharedloc.Loc, seen map[*ssa.Parameter]bool) bool {
	l, ok := o.(*ssa.UnOp)
	fn, isFn := mc.Fn.(*ssa.Function)
	if !ok || l.Op != token.MUL || !isFn {
		return false
	}
	for i, b := range mc.Bindings {
		if b != l.X || i >= len(fn.FreeVars) {
			continue
		}
		for _, r := range *fn.FreeVars[i].Referrers() {
			load, ok := r.(*ssa.UnOp)
			if !ok || load.Op != token.MUL {
				continue
			}
			for _, blk := range fn.Blocks {
				for _, in := range blk.Instrs {
					if c, ok := in.(ssa.CallInstruction); ok && e.dropsRef(c, load, count, seen) {
						return true
					}
				}
			}
			break // every load of the variable is the same object to dropsRef
		}
	}
	return false
}

// paramDropsRef reports whether fn makes a call that may drop a
// reference to its parameter p on the count (see dropsRef).
func (e *Env) paramDropsRef(fn *ssa.Function, p *ssa.Parameter, count sharedloc.Loc, seen map[*ssa.Parameter]bool) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			c, ok := in.(ssa.CallInstruction)
			if !ok {
				continue
			}
			if _, isGo := c.(*ssa.Go); !isGo && e.dropsRef(c, p, count, seen) {
				return true
			}
		}
	}
	return false
}

// lentOrCounted reports whether o, used at instr, is an object its
// goroutine holds a reference to by the count's contract: one handed to
// it (a parameter, a captured or local variable, a value received from a
// channel, a fresh allocation), or one it loaded from shared memory, or
// got from a call (a getter), and took a reference on (counted).
func (e *Env) lentOrCounted(o ssa.Value, instr ssa.Instruction, count sharedloc.Loc, depth int) bool {
	switch v := o.(type) {
	case *ssa.Parameter, *ssa.FreeVar, *ssa.Alloc:
		return true
	case *ssa.Extract:
		if t, ok := v.Tuple.(*ssa.UnOp); ok && t.Op == token.ARROW {
			return true
		}
	case *ssa.ChangeType:
		if depth > 0 && e.lentOrCounted(v.X, instr, count, depth-1) {
			return true
		}
	case *ssa.TypeAssert:
		if depth > 0 && e.lentOrCounted(v.X, instr, count, depth-1) {
			return true
		}
	case *ssa.UnOp:
		switch v.Op {
		case token.ARROW:
			return true
		case token.MUL:
			switch v.X.(type) {
			case *ssa.Alloc, *ssa.FreeVar:
				return true // a local variable, or one captured from the spawner
			}
		}
	}
	return e.counted(o, instr, count, countDepth)
}

// reachableOutside reports whether code outside the package can call fn
// by its name: an exported function, or an exported method of an
// exported type. (An exported method of an unexported type is reached
// from outside only through an interface value the package hands out;
// the package's own calls through its interfaces are in the call graph.)
func reachableOutside(fn *ssa.Function) bool {
	if !fn.Object().Exported() {
		return false
	}
	recv := fn.Signature.Recv()
	if recv == nil {
		return true
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return !ok || n.Obj().Exported()
}

// sameObject reports whether x and y are one value, or two loads of one
// local variable (a captured variable is a cell each use loads again).
func sameObject(x, y ssa.Value) bool {
	if x == y {
		return true
	}
	lx, ok1 := x.(*ssa.UnOp)
	ly, ok2 := y.(*ssa.UnOp)
	if !ok1 || !ok2 || lx.Op != token.MUL || ly.Op != token.MUL || lx.X != ly.X {
		return false
	}
	switch lx.X.(type) {
	case *ssa.Alloc, *ssa.FreeVar:
		return true
	}
	return false
}

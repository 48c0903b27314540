package concurrent

import (
	"go/constant"
	"go/token"
	"go/types"
	"iter"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/locksets"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// A reference count is an unexported signed integer field (or a
// sync/atomic Int32 or Int64) of a struct type of the package whose
// address goes nowhere but into sync/atomic's Load and Add of the
// constants 1 and -1, both adds present, and into the stores of composite
// literals that build the object. The goroutine whose decrement
// brings it to 0 releases the object, often clearing its fields on that
// branch, as goleveldb's memDB does:
//
//	func (m *memDB) decref() {
//		if ref := atomic.AddInt32(&m.ref, -1); ref == 0 {
//			...
//			m.db = nil
//			m.DB = nil
//		}
//	}
//
// while every reader holds a reference it took (getMems increments the
// count under the lock that guards db.mem and returns it) and drops it
// after its reads.
//
// countedApart reports whether a and b can never touch one object at
// once by that rule: one of them (say b) runs on the branch where the
// decrement of its base object's count returned 0, and the other (a)
// runs on that branch of its own base object too, or holds a counted
// reference to its base object (see counted). The count of an object is
// 0 only after every reference taken has been dropped, so while a's
// goroutine holds one, no decrement of that object returns 0, and two
// decrements of one object's count do not both return 0: b's branch runs
// before a's goroutine took its reference (or on another object). The
// premise, which the analysis cannot check, is that the count is used as
// one: an increment is made only by a goroutine that holds a reference or
// reads the object from a place that holds one (no increment from 0 after
// the release, which would be a use after release of its own), and a
// decrement only drops a reference its goroutine holds.
func (e *Env) countedApart(a, b *sharedloc.Access) bool {
	if len(e.refCounts()) == 0 {
		return false
	}
	return e.apartFrom(a, b) || e.apartFrom(b, a)
}

// apartFrom is countedApart with b on the zero branch.
func (e *Env) apartFrom(a, b *sharedloc.Access) bool {
	ob := fieldBase(b)
	if ob == nil {
		return false
	}
	for _, z := range e.zeroBranches(b.Instr) {
		if z.base != ob {
			continue
		}
		oa := fieldBase(a)
		if oa == nil || !hasField(oa, z.count) {
			continue
		}
		for _, y := range e.zeroBranches(a.Instr) {
			if y.count == z.count && y.base == oa {
				return true
			}
		}
		if e.counted(oa, a.Instr, z.count, countDepth) {
			return true
		}
	}
	return false
}

// countDepth bounds the calls followed to find where a reference was
// taken (a getter returning one).
const countDepth = 3

// fieldBase returns the struct pointer whose field the access touches
// directly (x in x.f), or nil.
func fieldBase(a *sharedloc.Access) ssa.Value {
	if a.Loc.Kind != sharedloc.Field || a.Loc.Elem {
		return nil
	}
	if fa, ok := a.Ptr.(*ssa.FieldAddr); ok {
		return fa.X
	}
	return nil
}

// hasField reports whether x points to a struct with the field count.
func hasField(x ssa.Value, count sharedloc.Loc) bool {
	p, ok := x.Type().Underlying().(*types.Pointer)
	if !ok {
		return false
	}
	st, ok := p.Elem().Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		if st.Field(i).Origin() == count.Obj {
			return true
		}
	}
	return false
}

// zeroBranch is a decrement of count on base that returned 0.
type zeroBranch struct {
	count sharedloc.Loc
	base  ssa.Value
}

// zeroBranches returns the decrements whose result was tested equal to 0
// on the branch that instr runs on.
func (e *Env) zeroBranches(instr ssa.Instruction) []zeroBranch {
	var out []zeroBranch
	for fa, k := range e.decrementBranches(instr) {
		if isZeroConst(k) {
			out = append(out, zeroBranch{locOf(fa), fa.X})
		}
	}
	return out
}

// decrementBranches yields, for each branch that instr runs on (in its
// function: a block dominating instr's, entered from an If on an == or
// != comparison, on the side where the two compared equal), the count
// field address of the atomic add of -1 whose result was compared and
// the integer constant it was compared with, innermost branch first.
func (e *Env) decrementBranches(instr ssa.Instruction) iter.Seq2[*ssa.FieldAddr, *ssa.Const] {
	return func(yield func(*ssa.FieldAddr, *ssa.Const) bool) {
		if instr.Block() == nil {
			return
		}
		for d := instr.Block(); d != nil; d = d.Idom() {
			if len(d.Preds) != 1 {
				continue
			}
			i := d.Preds[0]
			ifi, ok := i.Instrs[len(i.Instrs)-1].(*ssa.If)
			if !ok {
				continue
			}
			cmp, ok := ifi.Cond.(*ssa.BinOp)
			if !ok || (cmp.Op != token.EQL && cmp.Op != token.NEQ) {
				continue
			}
			equal := i.Succs[0] // cmp is ==
			if cmp.Op == token.NEQ {
				equal = i.Succs[1]
			}
			if equal != d {
				continue
			}
			call, k := cmp.X, cmp.Y
			if !isIntConstant(k) {
				call, k = cmp.Y, cmp.X
			}
			kc, ok := k.(*ssa.Const)
			if !ok || !isIntConstant(kc) {
				continue
			}
			c, ok := call.(*ssa.Call)
			if !ok {
				continue
			}
			if fa, delta := e.countAdd(c); delta == -1 && !yield(fa, kc) {
				return
			}
		}
	}
}

// isIntConstant reports whether v is an integer constant.
func isIntConstant(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.Value != nil && c.Value.Kind() == constant.Int
}

// countAdd returns the count field address that call adds to and the
// constant it adds (1 or -1), or 0.
func (e *Env) countAdd(call *ssa.Call) (*ssa.FieldAddr, int) {
	return e.countAddCommon(&call.Call)
}

// countAddCommon is countAdd for the call cc.
func (e *Env) countAddCommon(cc *ssa.CallCommon) (*ssa.FieldAddr, int) {
	if len(cc.Args) == 0 {
		return nil, 0
	}
	fa, ok := cc.Args[0].(*ssa.FieldAddr)
	if !ok {
		return nil, 0
	}
	l, ok := sharedloc.AddrLoc(fa)
	if !ok || !e.refCounts()[l] {
		return nil, 0
	}
	op, delta := atomicOp(cc, fa)
	if op != "Add" {
		return nil, 0
	}
	return fa, delta
}

// refCounts returns the package's reference counts (computed once).
func (e *Env) refCounts() map[sharedloc.Loc]bool {
	if e.counts != nil {
		return e.counts
	}
	inc := make(map[sharedloc.Loc]bool)
	dec := make(map[sharedloc.Loc]bool)
	bad := make(map[sharedloc.Loc]bool)
	stores := make(map[sharedloc.Loc]bool) // counts with an atomic store
	e.countInits = make(map[sharedloc.Loc][]int64)
	e.countInitBad = make(map[sharedloc.Loc]bool)
	for _, fn := range e.Goroutines.Funcs() {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				fa, ok := instr.(*ssa.FieldAddr)
				if !ok {
					continue
				}
				l, ok := sharedloc.AddrLoc(fa)
				if !ok || l.Kind != sharedloc.Field || l.Obj.Exported() || l.Obj.Pkg() != e.Pass.Pkg || !countType(l.Obj.Type()) {
					continue
				}
				for _, r := range *fa.Referrers() {
					if _, ok := r.(*ssa.DebugRef); ok {
						continue
					}
					switch op, delta := atomicCountOp(r, fa); {
					case op == "Load":
					case initStore(r, fa):
						e.noteInit(l, r.(*ssa.Store).Val)
					case op == "Store":
						stores[l] = true
						e.noteInit(l, r.(*ssa.Call).Call.Args[1])
					case op == "Add" && delta == 1:
						inc[l] = true
					case op == "Add" && delta == -1:
						dec[l] = true
					default:
						bad[l] = true
					}
				}
			}
		}
	}
	e.counts = make(map[sharedloc.Loc]bool)
	for l := range inc {
		if stores[l] && (e.countInitBad[l] || slices.ContainsFunc(e.countInits[l], func(v int64) bool { return v != e.countInits[l][0] })) {
			continue // an atomic store of another value than its start: not a count
		}
		if dec[l] && !bad[l] {
			e.counts[l] = true
		}
	}
	return e.counts
}

// initStore reports whether r stores to fa, a field address of a
// composite literal, as it is built (&memDB{db: db, ref: 1}): no other
// goroutine can see the object yet.
func initStore(r ssa.Instruction, fa *ssa.FieldAddr) bool {
	st, ok := r.(*ssa.Store)
	if !ok || st.Addr != fa {
		return false
	}
	a, ok := fa.X.(*ssa.Alloc)
	return ok && a.Comment == "complit"
}

// countType reports whether t may be a reference count: a signed integer,
// or sync/atomic's Int32 or Int64.
func countType(t types.Type) bool {
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "sync/atomic" {
		return n.Obj().Name() == "Int32" || n.Obj().Name() == "Int64"
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0 && b.Info()&types.IsUnsigned == 0
}

// atomicCountOp classifies r, a use of the count's address addr: "Load"
// for a sync/atomic load, "Add" with the constant added for an add of a
// constant, "Store" for a store of a constant; "" for anything else.
func atomicCountOp(r ssa.Instruction, addr ssa.Value) (string, int) {
	call, ok := r.(*ssa.Call)
	if !ok {
		return "", 0
	}
	return atomicOp(&call.Call, addr)
}

// atomicOp is atomicCountOp for the call cc.
func atomicOp(cc *ssa.CallCommon, addr ssa.Value) (string, int) {
	if cc.IsInvoke() || len(cc.Args) == 0 || cc.Args[0] != addr {
		return "", 0
	}
	args := cc.Args
	for _, a := range args[1:] {
		if a == addr {
			return "", 0
		}
	}
	name := model.CalleeName(cc)
	rest, ok := strings.CutPrefix(name, "sync/atomic.")
	if !ok {
		if rest, ok = strings.CutPrefix(name, "(*sync/atomic."); !ok {
			return "", 0
		}
		_, rest, _ = strings.Cut(rest, ").")
	}
	switch {
	case strings.HasPrefix(rest, "Load") && len(args) == 1:
		return "Load", 0
	case strings.HasPrefix(rest, "Store") && len(args) == 2:
		if c, ok := args[1].(*ssa.Const); ok && c.Value != nil && c.Value.Kind() == constant.Int {
			return "Store", 0
		}
	case strings.HasPrefix(rest, "Add") && len(args) == 2:
		c, ok := args[1].(*ssa.Const)
		if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
			return "", 0
		}
		if d, ok := constant.Int64Val(c.Value); ok && (d == 1 || d == -1) {
			return "Add", int(d)
		}
	}
	return "", 0
}

// noteInit records v, stored to the count l as its object is built or
// re-initialized (see lastValue).
func (e *Env) noteInit(l sharedloc.Loc, v ssa.Value) {
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		e.countInitBad[l] = true
		return
	}
	x, exact := constant.Int64Val(c.Value)
	if !exact {
		e.countInitBad[l] = true
		return
	}
	e.countInits[l] = append(e.countInits[l], x)
}

func isZeroConst(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.Value != nil && c.Value.Kind() == constant.Int && constant.Sign(c.Value) == 0
}

// counted reports whether the goroutine running instr holds a reference
// to the object o (a pointer) on the count: it took one on o earlier in
// instr's function and has not given o away since (see keeps), where
// taking one is
//   - an increment of o's count, directly or by a call of an incrementer
//     (see increments), that dominates instr;
//   - o being the result of a call whose callee returns, in that result,
//     nil or a reference it took (see returnsCounted);
//   - o being a load of a local variable whose every store reaching it
//     puts there nil or a reference taken so (see cellStores), none of
//     the variable's loads in between giving the reference away.
func (e *Env) counted(o ssa.Value, instr ssa.Instruction, count sharedloc.Loc, depth int) bool {
	if c := resultCall(o); c != nil && e.returnsCounted(c, o, count, depth) && keeps(o, c, instr, e) {
		return true
	}
	if l, ok := o.(*ssa.UnOp); ok && l.Op == token.MUL && depth > 0 {
		if stores, ok := cellStores(l); ok && len(stores) > 0 {
			return e.countedStores(l, stores, count, depth)
		}
	}
	if o.Referrers() == nil {
		return false
	}
	for _, u := range *o.Referrers() {
		if inc := e.increment(u, o, count); inc != nil && instrDominates(inc, instr) && keeps(o, inc, instr, e) {
			return true
		}
	}
	return false
}

// countedStores reports whether each of stores, the stores to a local
// variable that reach its load l, puts there nil or a value counted at
// the store, and neither that value nor any load of the variable gives
// the reference away between the store and l.
func (e *Env) countedStores(l *ssa.UnOp, stores []*ssa.Store, count sharedloc.Loc, depth int) bool {
	var loads []ssa.Value
	for _, u := range *l.X.Referrers() {
		if x, ok := u.(*ssa.UnOp); ok && x.Op == token.MUL && x != l {
			loads = append(loads, x)
		}
	}
	for _, st := range stores {
		if isNilConst(st.Val) {
			continue
		}
		if !e.counted(st.Val, st, count, depth-1) || !keeps(st.Val, st, l, e) {
			return false
		}
		for _, x := range loads {
			if !keeps(x, st, l, e) {
				return false
			}
		}
	}
	return true
}

// cellStores returns the stores to the local variable that load reads
// (a variable of load's function, or a free variable of the closure
// load is in) that reach load along the function's control flow with no
// other store to it in between, when nothing else can write it on the
// way: every closure capturing the variable is only called or deferred by
// the function that makes it (so it runs on its goroutine, and only when
// called), no call on the way calls one, no deferred calls run on the way,
// and the variable's address goes nowhere else. ok is false otherwise, or when a path from the closure's
// entry reaches load with no store (the value it was called with).
func cellStores(load *ssa.UnOp) (stores []*ssa.Store, ok bool) {
	capturing, ok := capturedOnly(load.X)
	if !ok || load.Block() == nil {
		return nil, false
	}
	type at struct {
		b    *ssa.BasicBlock
		upTo int
	}
	seen := map[*ssa.BasicBlock]bool{}
	work := []at{{load.Block(), indexOf(load)}}
	for len(work) > 0 {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		killed := false
		for i := w.upTo - 1; i >= 0 && !killed; i-- {
			switch in := w.b.Instrs[i].(type) {
			case *ssa.Store:
				if in.Addr == load.X {
					stores = append(stores, in)
					killed = true
				}
			case *ssa.Alloc:
				if in == load.X {
					return nil, false // its zero value: not a reference taken
				}
			case *ssa.Call:
				if capturing[in.Call.StaticCallee()] {
					return nil, false
				}
			case *ssa.RunDefers:
				return nil, false // may run a deferred closure that writes it
			}
		}
		if killed {
			continue
		}
		if len(w.b.Preds) == 0 {
			return nil, false // the value the function was entered with
		}
		for _, p := range w.b.Preds {
			if !seen[p] {
				seen[p] = true
				work = append(work, at{p, len(p.Instrs)})
			}
		}
	}
	return stores, true
}

// capturedOnly returns the functions that capture the variable at addr
// (an Alloc, or a free variable bound to one, up the closures), when the
// variable's address goes only into loads, stores and closures, and each
// such closure only into calls and defers of it by its maker.
func capturedOnly(addr ssa.Value) (map[*ssa.Function]bool, bool) {
	for range 8 {
		fv, ok := addr.(*ssa.FreeVar)
		if !ok {
			break
		}
		if addr = ssavalue.Binding(fv); addr == nil {
			return nil, false
		}
	}
	if _, ok := addr.(*ssa.Alloc); !ok {
		return nil, false
	}
	capturing := make(map[*ssa.Function]bool)
	var walk func(v ssa.Value, depth int) bool
	walk = func(v ssa.Value, depth int) bool {
		if depth == 0 {
			return false
		}
		for _, r := range *v.Referrers() {
			switch r := r.(type) {
			case *ssa.Store:
				if r.Addr != v {
					return false
				}
			case *ssa.UnOp:
				if r.Op != token.MUL {
					return false
				}
			case *ssa.DebugRef:
			case *ssa.MakeClosure:
				fn := r.Fn.(*ssa.Function)
				capturing[fn] = true
				for _, u := range *r.Referrers() {
					c, ok := u.(ssa.CallInstruction)
					if _, isGo := u.(*ssa.Go); !ok || isGo || c.Common().Value != r || slices.Contains(c.Common().Args, ssa.Value(r)) {
						return false
					}
				}
				for i, b := range r.Bindings {
					if b == v && !walk(fn.FreeVars[i], depth-1) {
						return false
					}
				}
			default:
				return false
			}
		}
		return true
	}
	if !walk(addr, ssavalue.MaxDepth) {
		return nil, false
	}
	return capturing, true
}

// resultCall returns the static call whose result (or one of whose
// results) v is, or nil.
func resultCall(v ssa.Value) *ssa.Call {
	if x, ok := v.(*ssa.Extract); ok {
		v = x.Tuple
	}
	c, ok := v.(*ssa.Call)
	if !ok || c.Call.StaticCallee() == nil {
		return nil
	}
	return c
}

// increment returns u when it increments count on o: an atomic add of 1 to
// o's count field, or a call of an incrementer with o as its first
// argument; nil otherwise.
func (e *Env) increment(u ssa.Instruction, o ssa.Value, count sharedloc.Loc) ssa.Instruction {
	switch u := u.(type) {
	case *ssa.FieldAddr:
		if l, ok := sharedloc.AddrLoc(u); !ok || l != count {
			return nil
		}
		for _, r := range *u.Referrers() {
			if c, ok := r.(*ssa.Call); ok {
				if fa, d := e.countAdd(c); fa == u && d == 1 {
					return c
				}
			}
		}
	case *ssa.Call:
		if len(u.Call.Args) > 0 && u.Call.Args[0] == o && e.increments(u.Call.StaticCallee(), count) {
			return u
		}
	}
	return nil
}

// increments reports whether fn is an incrementer of count: it adds 1 to
// the count of its first parameter by an atomic add on every path to a
// return, and does nothing else with that parameter.
func (e *Env) increments(fn *ssa.Function, count sharedloc.Loc) bool {
	if fn == nil || len(fn.Params) == 0 || fn.Blocks == nil {
		return false
	}
	p := fn.Params[0]
	var add ssa.Instruction
	for _, u := range *p.Referrers() {
		if _, ok := u.(*ssa.DebugRef); ok {
			continue
		}
		fa, ok := u.(*ssa.FieldAddr)
		if !ok || add != nil || len(*fa.Referrers()) != 1 {
			return false // more than one use, or the count's address used for more than the add
		}
		if add = e.increment(fa, p, count); add == nil {
			return false
		}
	}
	if add == nil {
		return false
	}
	for _, b := range fn.Blocks {
		if _, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && !add.Block().Dominates(b) {
			return false
		}
	}
	return true
}

// keeps reports whether no use of o on a path from the instruction from
// to the instruction to may give away or drop the reference taken at
// from: every use of o there is an address of one of its fields (of the
// count's, only to increment or load it), a comparison, a call of an
// incrementer, or a deferred call (which runs when the function returns).
func keeps(o ssa.Value, from, to ssa.Instruction, e *Env) bool {
	for _, u := range *o.Referrers() {
		switch u := u.(type) {
		case *ssa.DebugRef, *ssa.Defer:
			continue
		case *ssa.BinOp:
			if u.Op == token.EQL || u.Op == token.NEQ {
				continue
			}
		case *ssa.FieldAddr:
			if !e.refCounts()[locOf(u)] || !e.drops(u) {
				continue
			}
		case *ssa.Call:
			if onlyFirstArg(u, o) && e.anyIncrements(u.Call.StaticCallee()) {
				continue
			}
		}
		if u != to && reaches(from, u) && reaches(u, to) {
			return false
		}
	}
	return true
}

// drops reports whether the count's address fa goes to a decrement.
func (e *Env) drops(fa *ssa.FieldAddr) bool {
	for _, r := range *fa.Referrers() {
		if c, ok := r.(*ssa.Call); ok {
			if _, d := e.countAdd(c); d == -1 {
				return true
			}
		}
	}
	return false
}

// onlyFirstArg reports whether call passes o as its first argument and in
// no other.
func onlyFirstArg(call *ssa.Call, o ssa.Value) bool {
	args := call.Call.Args
	if len(args) == 0 || args[0] != o {
		return false
	}
	for _, a := range args[1:] {
		if a == o {
			return false
		}
	}
	return true
}

// anyIncrements reports whether fn is an incrementer of some count.
func (e *Env) anyIncrements(fn *ssa.Function) bool {
	for l := range e.refCounts() {
		if e.increments(fn, l) {
			return true
		}
	}
	return false
}

// locOf returns the location a field address names.
func locOf(fa *ssa.FieldAddr) sharedloc.Loc {
	l, _ := sharedloc.AddrLoc(fa)
	return l
}

// returnsCounted reports whether the result of call that v is (the call
// or one of its Extracts) is, at every return of the callee, nil or a
// reference to its object on count that the callee took for its caller:
// counted there (see counted), or a load of an unexported field that
// returns the same pointer as an earlier load which was either found nil
// or incremented on every path to the return (see stableCounted).
func (e *Env) returnsCounted(call *ssa.Call, v ssa.Value, count sharedloc.Loc, depth int) bool {
	if depth == 0 {
		return false
	}
	idx := 0
	if x, ok := v.(*ssa.Extract); ok {
		idx = x.Index
	}
	g := call.Call.StaticCallee()
	if g.Blocks == nil {
		return false
	}
	key := countedKey{g, idx, count}
	if e.countedRets == nil {
		e.countedRets = make(map[countedKey]bool)
	}
	if r, ok := e.countedRets[key]; ok {
		return r
	}
	e.countedRets[key] = false // while in progress
	ok := true
	for _, b := range g.Blocks {
		ret, isRet := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !isRet || b == g.Recover && !mayRecover(g) {
			continue
		}
		if idx >= len(ret.Results) {
			ok = false
			break
		}
		r := ret.Results[idx]
		if c, isConst := r.(*ssa.Const); isConst && c.IsNil() {
			continue
		}
		if e.counted(r, ret, count, depth-1) || e.stableCounted(r, ret, count) {
			continue
		}
		ok = false
		break
	}
	e.countedRets[key] = ok
	return ok
}

// mayRecover reports whether a deferred call of fn may call recover, so
// that fn's recover block may return: any deferred call but of a mutex's
// method or of a static callee that calls no recover, nor anything but
// sync/atomic and builtins.
func mayRecover(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			d, ok := in.(*ssa.Defer)
			if !ok {
				continue
			}
			if _, ok := model.LockOpOf(model.CalleeName(d.Common())); ok {
				continue
			}
			if !leaf(d.Common()) {
				return true
			}
			for _, cb := range d.Call.StaticCallee().Blocks {
				for _, ci := range cb.Instrs {
					if c, ok := ci.(*ssa.Call); ok {
						if bi, ok := c.Call.Value.(*ssa.Builtin); ok && bi.Name() == "recover" {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// countedKey is the key of Env.countedRets: a function's result on a
// count.
type countedKey struct {
	fn    *ssa.Function
	idx   int
	count sharedloc.Loc
}

// stableCounted reports whether r, returned at ret, is a load of an
// unexported field x.f (directly, or through the named result it was
// stored to) that, under a lock, repeats an earlier load that was found
// nil or had the count incremented on every path to it, as in
//
//	db.memMu.RLock()
//	defer db.memMu.RUnlock()
//	if db.mem != nil {
//		db.mem.incref()
//	} else if !db.isClosed() {
//		panic("nil effective mem")
//	}
//	return db.mem
//
// All the loads of x.f from the first one that dominates r to r read one
// pointer when a mutex L is held at every instruction between them, they
// make no call but to functions that call nothing outside sync/atomic
// (so no callee releases L and takes it again), nothing between them nor
// in those functions stores to f or through a pointer of f's type (the
// getter itself replacing the value), and every write to f in
// the package either holds L in write mode or never runs at the same time
// as r (Overlap and Ordered: the object's construction before the
// goroutines that use it start).
// Nothing on the way from the first load to the return may decrement a
// count: no such atomic add, no call of a function that makes one, and no
// deferred call but of a leaf without one or of a mutex's method.
func (e *Env) stableCounted(r ssa.Value, ret ssa.Instruction, count sharedloc.Loc) bool {
	load, ok := namedResult(r).(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return false
	}
	fr, ok := load.X.(*ssa.FieldAddr)
	if !ok || !hasField(load, count) {
		return false
	}
	floc, ok := sharedloc.AddrLoc(fr)
	if !ok || floc.Kind != sharedloc.Field || floc.Obj.Exported() || floc.Obj.Pkg() != e.Pass.Pkg {
		return false
	}
	same := func(v ssa.Value) bool {
		l, ok := v.(*ssa.UnOp)
		if !ok || l.Op != token.MUL {
			return false
		}
		fa, ok := l.X.(*ssa.FieldAddr)
		return ok && fa.X == fr.X && fa.Field == fr.Field
	}
	// The first load of x.f that dominates r.
	var first *ssa.UnOp
	for _, u := range *fr.X.Referrers() {
		fa, ok := u.(*ssa.FieldAddr)
		if !ok || fa.Field != fr.Field {
			continue
		}
		for _, lu := range *fa.Referrers() {
			if l, ok := lu.(*ssa.UnOp); ok && same(l) && instrDominates(l, load) && (first == nil || instrDominates(l, first)) {
				first = l
			}
		}
	}
	if first == nil {
		return false
	}
	var mutex *locksets.Held
	for _, h := range e.Locks.At(first) {
		if e.guardsWrites(floc, h, load) {
			mutex = &h
			break
		}
	}
	if mutex == nil {
		return false
	}
	// after reports whether in may run after first (and so before ret).
	loops := reaches(first, first.Block().Instrs[0])
	after := func(in ssa.Instruction) bool {
		return in.Block() != first.Block() || loops || in == first || instrDominates(first, in)
	}
	for b := range between(first, load) {
		for _, in := range b.Instrs {
			if !after(in) {
				continue
			}
			if _, ok := e.Locks.At(in).Lookup(mutex.Mutex); !ok || mayWrite(in, floc) {
				return false
			}
			if c, ok := in.(*ssa.Call); ok && (!leaf(&c.Call) || writesIn(c.Call.StaticCallee(), floc)) {
				return false
			}
		}
	}
	for b := range between(first, ret) {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Go:
				if after(in) {
					return false
				}
			case *ssa.Call:
				if after(in) && e.mayDecrement(&in.Call) {
					return false
				}
			}
		}
	}
	for _, b := range load.Parent().Blocks {
		for _, in := range b.Instrs {
			if d, ok := in.(*ssa.Defer); ok && !e.harmlessDefer(d) {
				return false
			}
		}
	}
	// Every path from first to the load passes a nil test's nil edge or
	// an increment of one of the loads.
	stop := func(in ssa.Instruction) bool {
		c, ok := in.(*ssa.Call)
		if !ok || len(c.Call.Args) == 0 {
			return false
		}
		if fa, d := e.countAdd(c); d == 1 && same(fa.X) {
			return true
		}
		return same(c.Call.Args[0]) && onlyFirstArg(c, c.Call.Args[0]) && e.increments(c.Call.StaticCallee(), count)
	}
	nilEdge := func(b *ssa.BasicBlock) *ssa.BasicBlock {
		ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			return nil
		}
		cmp, ok := ifi.Cond.(*ssa.BinOp)
		if !ok || (cmp.Op != token.EQL && cmp.Op != token.NEQ) {
			return nil
		}
		if !(same(cmp.X) && isNilConst(cmp.Y) || same(cmp.Y) && isNilConst(cmp.X)) {
			return nil
		}
		if cmp.Op == token.EQL {
			return b.Succs[0]
		}
		return b.Succs[1]
	}
	return !pathAvoiding(first, load, stop, nilEdge)
}

// mayWrite reports whether in may store to the field loc: a store to
// that field, or through a pointer of the field's type that is not a
// variable of in's own function.
func mayWrite(in ssa.Instruction, loc sharedloc.Loc) bool {
	st, ok := in.(*ssa.Store)
	if !ok {
		return false
	}
	switch addr := st.Addr.(type) {
	case *ssa.FieldAddr:
		return locOf(addr) == loc
	case *ssa.Alloc:
		if !addr.Heap {
			return false
		}
	}
	return types.Identical(st.Val.Type(), loc.Obj.Type())
}

// writesIn reports whether fn has an instruction that may store to the
// field loc.
func writesIn(fn *ssa.Function, loc sharedloc.Loc) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			if mayWrite(in, loc) {
				return true
			}
		}
	}
	return false
}

// namedResult returns the value last stored, in r's block, to the local
// variable that r loads, when r is such a load (a named result read back
// after the deferred calls ran, which cannot write a variable that no
// closure captures); otherwise r.
func namedResult(r ssa.Value) ssa.Value {
	l, ok := r.(*ssa.UnOp)
	if !ok || l.Op != token.MUL {
		return r
	}
	cell, ok := l.X.(*ssa.Alloc)
	if !ok || cell.Heap {
		return r
	}
	instrs := l.Block().Instrs
	for i := indexOf(l) - 1; i >= 0; i-- {
		if st, ok := instrs[i].(*ssa.Store); ok && st.Addr == cell {
			return st.Val
		}
	}
	return r
}

// mayDecrement reports whether call may decrement a reference count: it
// makes an atomic add of -1 to one, or calls a function that is not a
// leaf (see leaf) or that makes one.
func (e *Env) mayDecrement(cc *ssa.CallCommon) bool {
	if _, d := e.countAddCommon(cc); d == -1 {
		return true
	}
	if _, builtin := cc.Value.(*ssa.Builtin); builtin || strings.Contains(model.CalleeName(cc), "sync/atomic.") {
		return false
	}
	if !leaf(cc) {
		return true
	}
	for _, b := range cc.StaticCallee().Blocks {
		for _, in := range b.Instrs {
			if c, ok := in.(*ssa.Call); ok {
				if _, d := e.countAdd(c); d == -1 {
					return true
				}
			}
		}
	}
	return false
}

// harmlessDefer reports whether the deferred call d cannot decrement a
// count: a method of a sync mutex, or a leaf without a decrement.
func (e *Env) harmlessDefer(d *ssa.Defer) bool {
	if _, ok := model.LockOpOf(model.CalleeName(d.Common())); ok {
		return true
	}
	return !e.mayDecrement(d.Common())
}

func isNilConst(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.IsNil()
}

// guardsWrites reports whether every write to loc in the package holds h
// in write mode, or cannot run at the same time as load (unordered).
func (e *Env) guardsWrites(loc sharedloc.Loc, h locksets.Held, load ssa.Instruction) bool {
	var reads []*sharedloc.Access
	for _, a := range e.Shared.ByInstr[load] {
		if a.Loc == loc {
			reads = append(reads, a)
		}
	}
	for _, w := range e.Shared.ByLoc[loc] {
		if !w.Op.IsWrite() {
			continue
		}
		if g, ok := e.Locks.At(w.Instr).Lookup(h.Mutex); ok && g.Mode == locksets.Write {
			continue
		}
		if len(reads) == 0 {
			return false
		}
		for _, r := range reads {
			if _, ok := e.Overlap(w, r, e.Ordered); ok {
				return false
			}
		}
	}
	return true
}

// leaf reports whether cc calls a function that makes no calls but to
// sync/atomic and builtins.
func leaf(cc *ssa.CallCommon) bool {
	fn := cc.StaticCallee()
	if fn == nil || fn.Blocks == nil {
		return false
	}
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			c, ok := in.(ssa.CallInstruction)
			if !ok {
				continue
			}
			if _, builtin := c.Common().Value.(*ssa.Builtin); builtin {
				continue
			}
			if _, isCall := c.(*ssa.Call); !isCall || !strings.HasPrefix(model.CalleeName(c.Common()), "sync/atomic.") &&
				!strings.HasPrefix(model.CalleeName(c.Common()), "(*sync/atomic.") {
				return false
			}
		}
	}
	return true
}

// between returns the blocks on some path from x to y: reachable from x's
// block and reaching y's.
func between(x, y ssa.Instruction) map[*ssa.BasicBlock]bool {
	fwd := reachable(x.Block(), func(b *ssa.BasicBlock) []*ssa.BasicBlock { return b.Succs })
	back := reachable(y.Block(), func(b *ssa.BasicBlock) []*ssa.BasicBlock { return b.Preds })
	out := make(map[*ssa.BasicBlock]bool)
	for b := range fwd {
		if back[b] {
			out[b] = true
		}
	}
	return out
}

// reachable returns b and the blocks next reaches from it.
func reachable(b *ssa.BasicBlock, next func(*ssa.BasicBlock) []*ssa.BasicBlock) map[*ssa.BasicBlock]bool {
	seen := map[*ssa.BasicBlock]bool{b: true}
	work := []*ssa.BasicBlock{b}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for _, s := range next(b) {
			if !seen[s] {
				seen[s] = true
				work = append(work, s)
			}
		}
	}
	return seen
}

// reaches reports whether a path leads from just after from to to.
func reaches(from, to ssa.Instruction) bool {
	return pathAvoiding(from, to, func(ssa.Instruction) bool { return false }, func(*ssa.BasicBlock) *ssa.BasicBlock { return nil })
}

// pathAvoiding reports whether a path leads from just after from to to
// that passes no instruction stop accepts and takes no edge from a block
// b to cut(b).
func pathAvoiding(from, to ssa.Instruction, stop func(ssa.Instruction) bool, cut func(*ssa.BasicBlock) *ssa.BasicBlock) bool {
	type at struct {
		b     *ssa.BasicBlock
		start int
	}
	seen := make(map[*ssa.BasicBlock]bool)
	work := []at{{from.Block(), indexOf(from) + 1}}
	for len(work) > 0 {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		stopped := false
		for _, in := range w.b.Instrs[w.start:] {
			if in == to {
				return true
			}
			if stop(in) {
				stopped = true
				break
			}
		}
		if stopped {
			continue
		}
		c := cut(w.b)
		for _, s := range w.b.Succs {
			if s != c && !seen[s] {
				seen[s] = true
				work = append(work, at{s, 0})
			}
		}
	}
	return false
}

func indexOf(instr ssa.Instruction) int {
	for i, in := range instr.Block().Instrs {
		if in == instr {
			return i
		}
	}
	return -1
}

// instrDominates reports whether x runs before y on every path to y in
// their function.
func instrDominates(x, y ssa.Instruction) bool {
	if x.Block() == nil || y.Block() == nil || x.Parent() != y.Parent() {
		return false
	}
	if x.Block() != y.Block() {
		return x.Block().Dominates(y.Block())
	}
	return indexOf(x) < indexOf(y)
}

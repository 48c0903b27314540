package concurrent

import (
	"go/token"
	"go/types"
	"math"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/pointsto"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// maxObjectDepth bounds how many values are being refined at once, one
// inside the other; a value met deeper gets its context-insensitive
// points-to set instead. It bounds the stack, not the work: that is
// bounded by refining each (value, context) pair at most once while it
// can be reused (see objects).
const maxObjectDepth = 64

type objKey struct {
	v ssa.Value
	c *goroutines.Context
}

// A frame is a value being refined. low is the lowest stack level of a
// value still being refined whose (incomplete) result this one used.
type frame struct {
	key objKey
	low int
}

// A provisional result depends on the value at stack level low, which was
// still being refined when it was computed; it is reused until that value
// is done, and then dropped.
type provisional struct {
	objs []pointsto.Obj
	low  int
}

// viewObjects returns the objects that access a touches on view v, when it
// runs in context c.
func (e *Env) viewObjects(a *sharedloc.Access, v View, c *goroutines.Context) []pointsto.Obj {
	if v.Arg == nil {
		return e.Objects(a.Ptr, c)
	}
	if v.Field == nil {
		return e.Objects(v.Arg, c)
	}
	// The field's objects are kept as Objects keeps the argument's:
	// Overlap compares each access with many (connull: each nil store
	// with every dereference of its location), and selected the field
	// of every object again for each pair (fasthttp's connull: 36 s of
	// its 42 s building the same selections).
	k := fieldKey{v.Arg, v.Field, c}
	if out, ok := e.fields[k]; ok {
		return out
	}
	objs := e.Objects(v.Arg, c)
	path := pointsto.FieldPath(v.Field)
	out := make([]pointsto.Obj, len(objs))
	for i, o := range objs {
		out[i] = o.Select(path)
	}
	e.fields[k] = out
	return out
}

// A fieldKey names the objects of a field of an argument's objects in a
// context (viewObjects).
type fieldKey struct {
	arg   ssa.Value
	field *types.Var
	c     *goroutines.Context
}

// An objIndex is a set of objects by site and path: objects alias only
// with the same site and path, so that comparing two large sets through
// the index of one (shared) costs their sizes, not their product.
type objIndex map[objAt][]pointsto.Obj

type objAt struct {
	site ssa.Value
	path string
}

type viewKey struct {
	view int // the index of the view in Views(Env.indexed)
	c    *goroutines.Context
}

// viewIndex returns the index of viewObjects(a, v, c), v being a's view
// number i, built once while the accesses compared with a are (the last
// access indexed is kept): the objects of a view in a context are final
// once Objects returns them at the top level (no value is being refined),
// and a spent budget keeps them empty for the package's rest.
func (e *Env) viewIndex(a *sharedloc.Access, i int, v View, c *goroutines.Context) objIndex {
	if e.indexed != a {
		e.indexed = a
		clear(e.indexes)
	}
	k := viewKey{i, c}
	if idx, ok := e.indexes[k]; ok {
		return idx
	}
	objs := e.viewObjects(a, v, c)
	idx := make(objIndex, len(objs))
	for _, o := range objs {
		if o.Site != nil {
			at := objAt{o.Site, o.Path}
			idx[at] = append(idx[at], o)
		}
	}
	e.indexes[k] = idx
	return idx
}

// Objects returns the objects the pointer v may point to when its function
// runs in context c. It refines the points-to set of v by following
// parameters only to the call sites that run in c (and, for a goroutine's
// entry, to its spawn site), so that objects made by two unrelated tests
// or requests are told apart. A read of a captured variable in the
// function that declares it, when no other function writes the variable,
// holds what the assignments reaching the read stored
// (ssavalue.ReachingStores), not every value the variable ever held; in a
// closure made only to start c's goroutines, a read holds what the
// assignments reaching the start stored, or later ones it does not
// happen before (see startedStores). A free variable of a closure called
// on c only through loads from a field that holds closures bound to their
// own holder (`p.Reset = p.reset`) holds the objects loaded from (see
// selfBoundObjects).
//
// Cost: each (value, context) pair is refined once and its result kept,
// except inside a cycle of refinements (recursive calls), where a result
// that used the incomplete result of a value still on the stack is kept
// only until that value is done. Every refinement spends one unit of the
// package's budget, plus one per object it yields. When maxObjectDepth
// values are being refined, the answer is the context-insensitive
// points-to set; when the budget is exhausted, it is nothing, which keeps
// the checks silent rather than let them pair accesses on the coarser
// sets.
func (e *Env) Objects(v ssa.Value, c *goroutines.Context) []pointsto.Obj {
	return e.objects(v, c)
}

func (e *Env) objects(v ssa.Value, c *goroutines.Context) []pointsto.Obj {
	if v == nil {
		return nil
	}
	k := objKey{v, c}
	if objs, ok := e.objs[k]; ok {
		return objs
	}
	// Both of these are met only below a value being refined.
	top := len(e.stack) - 1
	if p, ok := e.prov[k]; ok && top >= 0 {
		e.stack[top].low = min(e.stack[top].low, p.low)
		return p.objs
	}
	// A value met again while it is being refined is a cycle (recursive
	// calls), which contributes nothing more than what flows into it
	// elsewhere.
	if at, ok := e.onStack[k]; ok && top >= 0 {
		e.stack[top].low = min(e.stack[top].low, at)
		return nil
	}
	if len(e.stack) >= maxObjectDepth {
		return e.fallback(v)
	}
	if !e.Budget.Spend(1) {
		return nil // no evidence of sharing: the checks stop (see Overlap)
	}
	level := len(e.stack)
	e.onStack[k] = level
	e.stack = append(e.stack, frame{key: k, low: math.MaxInt})
	objs := e.refine(v, c)
	low := e.stack[level].low
	e.stack = e.stack[:level]
	delete(e.onStack, k)
	// Provisional results that used this value's incomplete result are
	// stale now.
	for _, pk := range e.provAt[level] {
		delete(e.prov, pk)
	}
	delete(e.provAt, level)
	e.Budget.Spend(len(objs))
	if low >= level {
		e.objs[k] = objs
		return objs
	}
	e.prov[k] = provisional{objs, low}
	e.provAt[low] = append(e.provAt[low], k)
	if level > 0 {
		e.stack[level-1].low = min(e.stack[level-1].low, low)
	}
	return objs
}

func (e *Env) refine(v ssa.Value, c *goroutines.Context) []pointsto.Obj {
	global := e.fallback(v)
	selectAll := func(objs []pointsto.Obj, step string) []pointsto.Obj {
		out := make([]pointsto.Obj, len(objs))
		for i, o := range objs {
			out[i] = o.Select(step)
		}
		return out
	}
	switch v := v.(type) {
	case *ssa.FieldAddr:
		return selectAll(e.objects(v.X, c), pointsto.FieldPath(ssavalue.Field(v)))
	case *ssa.IndexAddr:
		return selectAll(e.objects(v.X, c), pointsto.ElemPath)
	case *ssa.ChangeType:
		return e.objects(v.X, c)
	case *ssa.MakeInterface:
		return e.objects(v.X, c)
	case *ssa.TypeAssert:
		var out []pointsto.Obj
		for _, o := range e.objects(v.X, c) {
			if pointsto.Admits(v.AssertedType, o) {
				out = append(out, o)
			}
		}
		return out
	case *ssa.Slice:
		return e.objects(v.X, c)
	case *ssa.FreeVar:
		if objs, ok := e.selfBoundObjects(v, c); ok {
			return objs
		}
		if m := ssavalue.BoundMethod(v.Parent()); m != nil && v.Parent() == c.Entry && c.Site != nil && c.Kind != goroutines.Caller {
			// The receiver of the method value c's goroutines run
			// (`f := s.Stop; go f()`): the one bound where it is made.
			if recv, ok := boundReceiver(c.Site, m); ok {
				var out objSet
				for _, pc := range e.Goroutines.Of(c.Site.Parent()) {
					out.add(e.objects(recv, pc))
				}
				return out.list
			}
		}
		if b := ssavalue.Binding(v); b != nil {
			var out objSet
			for _, pc := range e.contextsFor(b, c) {
				out.add(e.objects(b, pc))
			}
			return out.list
		}
	case *ssa.Parameter:
		return e.paramObjects(v, c)
	case *ssa.Call:
		return e.resultObjects(v, v, -1, c)
	case *ssa.Lookup:
		if objs, ok := e.outsideElems(v.X, c); ok {
			return objs
		}
	case *ssa.Extract:
		if call, ok := v.Tuple.(*ssa.Call); ok {
			return e.resultObjects(v, call, v.Index, c)
		}
		if l, ok := v.Tuple.(*ssa.Lookup); ok && v.Index == 0 {
			if objs, ok := e.outsideElems(l.X, c); ok {
				return objs
			}
		}
		if n, ok := v.Tuple.(*ssa.Next); ok && v.Index > 0 && !n.IsString {
			if r, ok := n.Iter.(*ssa.Range); ok {
				if objs, ok := e.outsideElems(r.X, c); ok {
					return objs
				}
			}
		}
	case *ssa.UnOp:
		if fa, ok := v.X.(*ssa.FieldAddr); ok {
			return e.heldObjects(v, fa, c)
		}
		if cell := ssavalue.CapturedCell(v); cell != nil {
			// The values stored to the variable, on the contexts
			// that run the function declaring it; in that function,
			// only the stores that reach the load.
			stored, ok := ssavalue.ReachingStores(v)
			if !ok {
				stored, ok = e.startedStores(v, cell, c)
			}
			if !ok {
				stored = ssavalue.StoresTo(cell)
			}
			var out objSet
			for _, sv := range stored {
				for _, pc := range e.contextsFor(sv, c) {
					out.add(e.objects(sv, pc))
				}
			}
			if len(out.list) > 0 {
				return out.list
			}
		}
	}
	return global
}

// heldObjects refines a load from a field: the object is named by the
// memory it is held in ("what pool p.tasks holds"), so that the channel
// pool A's init stores in A.tasks is not pool B's, although one make made
// both. This errs toward "different objects" when one object is held in
// several places and reached through different ones.
func (e *Env) heldObjects(load *ssa.UnOp, fa *ssa.FieldAddr, c *goroutines.Context) []pointsto.Obj {
	holders := e.objects(fa, c)
	if len(holders) == 0 {
		return e.PointsTo.PointsTo(load)
	}
	out := make([]pointsto.Obj, len(holders))
	for i, h := range holders {
		out[i] = h.Select(pointsto.DerefPath)
	}
	return out
}

// outsideElems refines what a map holds (a lookup's value, a range's
// key or value) when every object the map may be in context c is
// reached from an object that a caller outside the package passed to a
// parameter, which paramObjects names by that parameter: the elements are
// then named by the map that holds them, as heldObjects names a field's
// contents. The parameter's object is not taken for any object the
// package makes (no evidence says the caller passes one of those), so
// neither is what it holds: the context-insensitive set of the lookup
// would give every object the package stores in any map of the type
// (gotestsum's exported (*Execution).OutputLines reading the *Package
// that its scanning goroutine stored in an execution's map, paired with
// that goroutine's writes to the package's own map, held-out rehearsal
// 46). Like heldObjects, it errs toward "different objects" for an
// object stored in such a map and also reached another way. ok is false
// when m's objects are not all such (the caller then uses the
// context-insensitive set).
func (e *Env) outsideElems(m ssa.Value, c *goroutines.Context) (objs []pointsto.Obj, ok bool) {
	if _, isMap := m.Type().Underlying().(*types.Map); !isMap {
		return nil, false
	}
	holders := e.objects(m, c)
	if len(holders) == 0 {
		return nil, false
	}
	out := make([]pointsto.Obj, len(holders))
	for i, h := range holders {
		if _, isParam := h.Site.(*ssa.Parameter); !isParam {
			return nil, false
		}
		out[i] = h.Select(pointsto.ElemPath).Select(pointsto.DerefPath)
	}
	return out, true
}

// fallback returns the context-insensitive points-to set of v, used when
// the refinement cannot follow v further; or nothing for interface values,
// whose points-to sets merge every implementation that flows anywhere in
// the package (all the io.Readers a Body field may hold), which is too
// weak a reason to pair two accesses.
func (e *Env) fallback(v ssa.Value) []pointsto.Obj {
	if types.IsInterface(v.Type()) {
		return nil
	}
	return e.PointsTo.PointsTo(v)
}

// contextsFor returns c if the function defining v runs in c, and
// otherwise all the contexts it runs in.
func (e *Env) contextsFor(v ssa.Value, c *goroutines.Context) []*goroutines.Context {
	var fn *ssa.Function
	switch v := v.(type) {
	case ssa.Instruction:
		fn = v.Parent()
	case *ssa.Parameter:
		fn = v.Parent()
	case *ssa.FreeVar:
		fn = v.Parent()
	default:
		return []*goroutines.Context{c}
	}
	cs := e.Goroutines.Of(fn)
	if slices.Contains(cs, c) {
		return []*goroutines.Context{c}
	}
	return cs
}

// resultObjects refines the result of a call to functions of the package,
// from what each callee returns in terms of its parameters: a parameter it
// returns (builder methods such as WithTimeout return their receiver) is
// this call's argument; a field of a parameter it returns (a getter such
// as Header) is what that field holds in the argument; an object it makes
// and returns is this call's own; and what another call returns is
// followed through that call. v is the value refined: the call, or the
// extraction of its result number index from the tuple it returns (index
// is -1 for the call itself), so that `req, err := f()` gives req the
// objects f returns as its first result only, not its error's.
func (e *Env) resultObjects(v ssa.Value, call *ssa.Call, index int, c *goroutines.Context) []pointsto.Obj {
	global := e.fallback(v)
	common := &call.Call
	var callees []*ssa.Function
	if callee := common.StaticCallee(); callee != nil {
		callees = []*ssa.Function{callee}
	} else if common.IsInvoke() {
		callees = e.Goroutines.CallGraph.Callees(call)
	}
	if len(callees) == 0 {
		return global
	}
	argOf := func(callee *ssa.Function, p *ssa.Parameter) (ssa.Value, bool) {
		i := slices.Index(callee.Params, p)
		if common.IsInvoke() {
			if i == 0 {
				return common.Value, true
			}
			i--
		}
		if i < 0 || i >= len(common.Args) {
			return nil, false
		}
		return common.Args[i], true
	}
	var out objSet
	exact := true // every source was followed to the call's arguments
	for _, callee := range callees {
		if len(callee.Blocks) == 0 {
			return global
		}
		for _, b := range callee.Blocks {
			ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
			if !ok {
				continue
			}
			for i, r := range ret.Results {
				if index >= 0 && i != index {
					continue
				}
				srcs := ssavalue.Sources(r)
				if len(srcs) == 0 {
					exact = false
				}
				for _, src := range srcs {
					objs, viaArgs := e.returned(call, callee, src, argOf, c)
					exact = exact && viaArgs
					out.add(objs)
				}
			}
		}
	}
	if len(out.list) == 0 && !exact {
		return global
	}
	return out.list
}

// maxGetterDepth bounds how many loads and field selections (two steps
// each) a returned value is followed through back to a parameter of the
// callee (return p.res.header is two).
const maxGetterDepth = 2*4 + 1

// returned gives the objects of one source src of callee's result, as
// seen by call, and whether it found them from the call's arguments (the
// callee returns a parameter, or memory reached from one), so that a call
// whose arguments point to nothing in this context returns nothing.
func (e *Env) returned(call *ssa.Call, callee *ssa.Function, src ssa.Value,
	argOf func(*ssa.Function, *ssa.Parameter) (ssa.Value, bool), c *goroutines.Context) ([]pointsto.Obj, bool) {
	if objs, ok := e.fromArgs(callee, src, argOf, c, maxGetterDepth); ok {
		return objs, true
	}
	// A wrapper returning what another call returns (an instance of a
	// generic constructor, a delegating method), or one result of a call
	// returning several (`return newT(cfg)` where newT returns (*T,
	// error)): the objects that call makes are this call's. The callee's
	// own call is refined in the callee's context c, through objects,
	// which stops at recursion.
	var inner *ssa.Call
	switch src := src.(type) {
	case *ssa.Call:
		inner = src
	case *ssa.Extract:
		inner, _ = src.Tuple.(*ssa.Call)
	}
	if inner != nil {
		var out []pointsto.Obj
		for _, o := range e.objects(src, c) {
			if o.Clone == nil || o.Clone == inner {
				e.reclone(&o, call, src)
			}
			out = append(out, o)
		}
		return out, false
	}
	var out []pointsto.Obj
	for _, o := range e.PointsTo.PointsTo(src) {
		if o.Clone == nil && o.Site == src {
			switch src.(type) {
			case *ssa.Alloc, *ssa.MakeMap, *ssa.MakeSlice, *ssa.MakeChan:
				o.Clone = call // the clone the points-to analysis gives it
			default:
				e.reclone(&o, call, src)
			}
		}
		out = append(out, o)
	}
	return out, false
}

// fromArgs gives the objects of v, a value of callee, when v is a
// parameter of callee or is loaded from memory reached from one through
// fields (a getter such as Header returning p.res.header): the objects of
// the call's argument, with the fields selected and the loads
// dereferenced.
func (e *Env) fromArgs(callee *ssa.Function, v ssa.Value,
	argOf func(*ssa.Function, *ssa.Parameter) (ssa.Value, bool), c *goroutines.Context, depth int) ([]pointsto.Obj, bool) {
	if depth == 0 {
		return nil, false
	}
	var step string
	var inner ssa.Value
	switch v := v.(type) {
	case *ssa.Parameter:
		if v.Parent() != callee {
			return nil, false
		}
		arg, ok := argOf(callee, v)
		if !ok {
			return nil, false
		}
		return e.objects(arg, c), true
	case *ssa.UnOp:
		fa, ok := v.X.(*ssa.FieldAddr)
		if !ok || v.Op != token.MUL {
			return nil, false
		}
		hs, ok := e.fromArgs(callee, fa, argOf, c, depth-1)
		if !ok {
			return nil, false
		}
		out := make([]pointsto.Obj, len(hs))
		for i, h := range hs {
			out[i] = h.Select(pointsto.DerefPath)
		}
		return out, true
	case *ssa.FieldAddr:
		step, inner = pointsto.FieldPath(ssavalue.Field(v)), v.X
	default:
		return nil, false
	}
	hs, ok := e.fromArgs(callee, inner, argOf, c, depth-1)
	if !ok {
		return nil, false
	}
	out := make([]pointsto.Obj, len(hs))
	for i, h := range hs {
		out[i] = h.Select(step)
	}
	return out, true
}

// paramObjects follows parameter p to the arguments of the calls that run
// in context c, or for c's entry to its spawn site.
func (e *Env) paramObjects(p *ssa.Parameter, c *goroutines.Context) []pointsto.Obj {
	fn := p.Parent()
	idx := slices.Index(fn.Params, p)
	global := e.fallback(p)
	if idx < 0 {
		return global
	}
	argOf := func(site ssa.CallInstruction) (ssa.Value, bool) {
		common := site.Common()
		i := idx
		if common.IsInvoke() {
			if i == 0 {
				return common.Value, true
			}
			i--
		}
		if i >= len(common.Args) {
			return nil, false
		}
		return common.Args[i], true
	}
	if fn == c.Entry {
		if c.Site == nil || c.Kind == goroutines.Caller {
			return global
		}
		if recv, ok := boundReceiver(c.Site, fn); ok && idx == 0 {
			// A method value handed to a spawner (time.AfterFunc(d,
			// s.expire), g.Go(s.run)): the receiver is the one bound
			// into it where the spawner is called.
			var out objSet
			for _, pc := range e.Goroutines.Of(c.Site.Parent()) {
				out.add(e.objects(recv, pc))
			}
			return out.list
		}
		arg, ok := argOf(c.Site)
		if !ok || callgraph.StaticCallee(c.Site.Common()) != fn && !c.Site.Common().IsInvoke() {
			return global
		}
		var out objSet
		for _, pc := range e.Goroutines.Of(c.Site.Parent()) {
			out.add(e.objects(arg, pc))
		}
		return out.list
	}
	if len(e.Goroutines.CallGraph.Callers(fn)) == 0 && len(e.Goroutines.RefSites(fn)) == 0 {
		// Called only from outside the package: the object its caller
		// passes, named by the parameter.
		return []pointsto.Obj{{Site: p}}
	}
	var out objSet
	found := false
	for _, edge := range e.Goroutines.CallGraph.Callers(fn) {
		if _, isGo := edge.Site.(*ssa.Go); isGo || !slices.Contains(e.Goroutines.Of(edge.Caller.Func), c) {
			continue
		}
		arg, ok := argOf(edge.Site)
		if !ok {
			return global
		}
		found = true
		out.add(e.objects(arg, c))
	}
	for _, ref := range e.Goroutines.RefSites(fn) {
		if !slices.Contains(e.Goroutines.Of(ref.Parent()), c) {
			continue
		}
		// Called, on c, by code outside the package. Of a method value
		// (require.Panics(t, g.Wait)), the receiver is known.
		recv, ok := boundReceiver(ref, fn)
		if !ok || idx != 0 {
			return global
		}
		found = true
		out.add(e.objects(recv, c))
	}
	if !found {
		return global
	}
	return out.list
}

// boundReceiver returns the receiver bound into a method value of fn that
// site hands to its callee.
func boundReceiver(site ssa.CallInstruction, fn *ssa.Function) (ssa.Value, bool) {
	common := site.Common()
	for _, arg := range append([]ssa.Value{common.Value}, common.Args...) {
		for _, src := range ssavalue.Sources(arg) {
			mc, ok := src.(*ssa.MakeClosure)
			if ok && ssavalue.BoundMethod(mc.Fn.(*ssa.Function)) == fn && len(mc.Bindings) == 1 {
				return mc.Bindings[0], true
			}
		}
	}
	return nil, false
}

// A baseKey names the objects of an allocation site that the refinement
// told apart by a call site (clone) of its own.
type baseKey struct {
	site  ssa.Value
	clone ssa.CallInstruction
}

// A base is the clone the points-to analysis gave the objects of a
// baseKey, or, when unknown or several, any (see confined).
type base struct {
	clone ssa.CallInstruction
	any   bool
}

// reclone tells *o apart by call, a call site that a function returning
// it (or a wrapper of one) returned it to from src, the value it returns
// (what another call returned, or the object itself), and notes the clone
// the points-to analysis gave it: escapes are known by that one.
//
// The clone it replaces stays linked below the new one (see mayAlias): an
// object that the refinement names by call is, on another path that the
// refinement does not follow as far (a load from a package variable, a
// context-insensitive fallback), still named by that deeper clone, and the
// two names must alias. An object that had no clone in src's result is
// made at src (the clone's root) or known below call by no clone at all;
// then every clone of its site may lie below call.
func (e *Env) reclone(o *pointsto.Obj, call ssa.CallInstruction, src ssa.Value) {
	b := base{clone: o.Clone, any: o.Clone == nil}
	if inner, ok := e.bases[baseKey{o.Site, o.Clone}]; ok {
		b = inner
	}
	k := baseKey{o.Site, call}
	if old, ok := e.bases[k]; ok && old != b {
		b = base{any: true}
	}
	e.bases[k] = b
	l := e.links[k]
	if l == nil {
		l = &links{}
		e.links[k] = l
	}
	switch {
	case o.Clone != nil && o.Clone != call && !slices.Contains(l.inner, o.Clone):
		l.inner = append(l.inner, o.Clone)
		e.linksVersion++
	case o.Clone == nil && o.Site != src && !l.anyBelow:
		l.anyBelow = true
		e.linksVersion++
	}
	o.Clone = call
}

// links are the clones that the refinement re-cloned as one clone (one
// level down), and whether it re-cloned there objects of no known clone.
type links struct {
	inner    []ssa.CallInstruction
	anyBelow bool
}

// mayAlias reports whether pointers x and y may point to the same memory:
// pointsto.Obj.MayAlias, with the refinement's clones compared as the
// chains of call sites they name, innermost first: two clones name the same
// objects at their common depth when one lies below the other.
func (e *Env) mayAlias(x, y pointsto.Obj) bool {
	if x.Site != y.Site || x.External != y.External || x.Path != y.Path {
		return false
	}
	return e.sameChain(x.Site, x.Clone, y.Clone)
}

// sameChain reports whether clones a and b of site's objects may name one
// object: either is no clone (every object of site), they are one, or one
// lies below the other through the refinement's re-clones.
func (e *Env) sameChain(site ssa.Value, a, b ssa.CallInstruction) bool {
	if a == nil || b == nil || a == b {
		return true
	}
	return e.below(site, a, b) || e.below(site, b, a)
}

// below reports whether clone deep lies under clone outer on a chain of
// re-clones of site's objects (or outer has objects of no known clone
// below it).
func (e *Env) below(site ssa.Value, deep, outer ssa.CallInstruction) bool {
	if len(e.links) == 0 {
		return false
	}
	if e.belowVersion != e.linksVersion {
		clear(e.belowMemo)
		e.belowVersion = e.linksVersion
	}
	q := belowKey{site, deep, outer}
	if v, ok := e.belowMemo[q]; ok {
		return v
	}
	found := false
	seen := map[ssa.CallInstruction]bool{outer: true}
	work := []ssa.CallInstruction{outer}
	for len(work) > 0 && !found {
		c := work[len(work)-1]
		work = work[:len(work)-1]
		l := e.links[baseKey{site, c}]
		if l == nil {
			continue
		}
		if l.anyBelow || slices.Contains(l.inner, deep) {
			found = true
			break
		}
		for _, in := range l.inner {
			if !seen[in] {
				seen[in] = true
				work = append(work, in)
			}
		}
	}
	e.belowMemo[q] = found
	return found
}

type belowKey struct {
	site        ssa.Value
	deep, outer ssa.CallInstruction
}

// confined reports whether o never leaves the goroutine that made it
// (pointsto.Result.Confined), asked with the clone the points-to analysis
// gave it when the refinement gave it another.
func (e *Env) confined(o pointsto.Obj) bool {
	if !e.PointsTo.Confined(o) {
		return false
	}
	b, ok := e.bases[baseKey{o.Site, o.Clone}]
	if !ok {
		return true
	}
	o.Clone = b.clone
	if b.any {
		o.Clone = nil
	}
	return e.PointsTo.Confined(o)
}

// An objSet collects objects without duplicates, in the order first
// added; adding n objects costs O(n).
type objSet struct {
	list []pointsto.Obj
	seen map[pointsto.Obj]bool
}

func (s *objSet) add(objs []pointsto.Obj) {
	for _, o := range objs {
		if s.seen == nil {
			s.seen = make(map[pointsto.Obj]bool)
		}
		if !s.seen[o] {
			s.seen[o] = true
			s.list = append(s.list, o)
		}
	}
}

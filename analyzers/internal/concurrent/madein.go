package concurrent

import (
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// maxMadeInDepth bounds the calls and method values madeIn follows from
// an access back to the invocation that made its object: go-amqp's
// openAMQP is 8 steps from NewConn's newConn (openAMQP's receiver, the
// method value's, negotiateProto's, its method value's, startImpl's,
// start's, NewConn's call).
const maxMadeInDepth = 10

// madeIn returns, for the object v denotes in its function, the value of
// a function K that made it (an allocation in K, or K's call of a
// function of the package that returns a new allocation at every
// return: a constructor, its error result aside) when every run of v's
// function holds there the object that the invocation of K running on the
// same goroutine made, with that invocation still running: v is K's value
// itself, or a parameter of a function whose every call passes such an
// object, or the receiver a method value of such an object was bound to,
// the method value only called, returned or merged on its way to its
// calls, never returned by K (Azure/go-amqp's NewConn makes a Conn in
// newConn and runs the connection's state machine on it before it returns
// it: `for state := c.negotiateProto; state != nil; { state, err =
// state(ctx) }`, each state a method value of c that returns the next).
// Two goroutines then run two invocations of K and touch two objects,
// however the object is published meanwhile: another goroutine that
// reaches it through what K published does so by another path, and that
// path's access is no such access. The object may come from several
// such K (go-amqp's start is called by NewConn on newConn's object and by
// Dial on dialConn's, which returns newConn's): each run touches the
// object of the invocation of one of them on its goroutine, so two
// goroutines still touch two objects; the value returned is then the
// first of them by position, the same for every access they reach. A
// receiver that a deferred closure captures is followed through the
// cell the function stores it in once. Nil when not shown.
//
// The calls followed are the call graph's, each a direct call (not a go
// statement, not deferred, not through an interface) of a function whose
// every call the package shows: unexported, not a goroutine's entry,
// and, for a method value, of an unexported method of the package whose
// every binding madeIn follows.
func (e *Env) madeIn(v ssa.Value) ssa.Value {
	if r, ok := e.made.of[v]; ok {
		return r
	}
	r := e.computeMadeIn(v)
	if e.made.of == nil {
		e.made.of = make(map[ssa.Value]ssa.Value)
	}
	e.made.of[v] = r
	return r
}

// A madeCache keeps madeIn's answers, per value, and the method values of
// each bound-method wrapper the package makes (found in one pass over the
// package's functions).
type madeCache struct {
	of       map[ssa.Value]ssa.Value
	closures map[*ssa.Function][]*ssa.MakeClosure
}

// boundClosures returns the method values of the bound-method wrapper fn
// that the package's functions make.
func (e *Env) boundClosures(fn *ssa.Function) []*ssa.MakeClosure {
	if e.made.closures == nil {
		e.made.closures = make(map[*ssa.Function][]*ssa.MakeClosure)
		for _, g := range e.packageFuncs() {
			if g == nil {
				continue
			}
			for _, b := range g.Blocks {
				for _, instr := range b.Instrs {
					if mc, ok := instr.(*ssa.MakeClosure); ok && ssavalue.BoundMethod(mc.Fn.(*ssa.Function)) != nil {
						e.made.closures[mc.Fn.(*ssa.Function)] = append(e.made.closures[mc.Fn.(*ssa.Function)], mc)
					}
				}
			}
		}
	}
	return e.made.closures[fn]
}

func (e *Env) computeMadeIn(v ssa.Value) ssa.Value {
	q := &madeQuery{visiting: make(map[ssa.Value]bool), roots: make(map[ssa.Value]bool)}
	r := e.madeInDepth(v, maxMadeInDepth, q)
	if r == nil || r == cycle {
		return nil
	}
	homes := make(map[*ssa.Function]bool)
	var first ssa.Value
	for root := range q.roots {
		homes[root.(ssa.Instruction).Parent()] = true
		if first == nil || madeBefore(root, first) {
			first = root
		}
	}
	for _, mc := range q.closures {
		if !e.onlyCalledWithin(mc, homes, maxMadeInDepth) {
			return nil
		}
	}
	return first
}

// madeBefore orders the roots of one madeIn by position (then name), so
// that every access whose object comes from the same set of constructors'
// invocations is given the same one of them as its key.
func madeBefore(a, b ssa.Value) bool {
	if a.Pos() != b.Pos() {
		return a.Pos() < b.Pos()
	}
	if a.Parent() != b.Parent() {
		return a.Parent().String() < b.Parent().String()
	}
	return a.Name() < b.Name()
}

// A madeQuery is one madeIn's state: the values it is following, the
// roots it found (the values of the functions K that make the object: a
// function called by NewConn's and by Dial's invocation touches the
// object of whichever runs on its goroutine), and the method values
// whose receivers it followed, each to be called only within an
// invocation that made their receiver.
type madeQuery struct {
	visiting map[ssa.Value]bool
	roots    map[ssa.Value]bool
	closures []*ssa.MakeClosure
}

// cycle is what madeInDepth returns for a value it is already following:
// a parameter that a method passes its own callers' object again (a state
// that returns itself), which adds no object of its own.
var cycle ssa.Value = &ssa.Const{}

// meetMade combines the objects two calls pass (root starts as cycle):
// cycle adds nothing, and nil (not shown) fails the whole query. Two
// different roots are both kept in q.roots: each run then touches the
// object of the invocation of one of them that runs on its goroutine,
// and two goroutines' runs touch two objects, whichever made each (every
// root makes a new object per invocation).
func meetMade(root, r ssa.Value) (ssa.Value, bool) {
	switch {
	case r == nil:
		return nil, false
	case r == cycle:
		return root, true
	}
	return r, true
}

func (e *Env) madeInDepth(v ssa.Value, depth int, q *madeQuery) (res ssa.Value) {
	if q.visiting[v] {
		return cycle
	}
	q.visiting[v] = true
	defer delete(q.visiting, v)
	if depth == 0 {
		return nil
	}
	switch v := v.(type) {
	case *ssa.Alloc, *ssa.MakeChan, *ssa.MakeMap, *ssa.MakeSlice:
		q.roots[v] = true
		return v
	case *ssa.Extract:
		if call, ok := v.Tuple.(*ssa.Call); ok && e.makesAfresh(call, v.Index, maxFreshDepth) {
			q.roots[call] = true
			return call
		}
	case *ssa.Call:
		if e.makesAfresh(v, 0, maxFreshDepth) {
			q.roots[v] = true
			return v
		}
	case *ssa.UnOp:
		// A local variable that a closure captures, loaded in the
		// function that declares it and stored once, by that function
		// (a receiver that a deferred closure uses), its address going
		// nowhere but to loads, stores and closures (swap(&c) would
		// store unseen): the stored value. A store made in a closure
		// may run on another goroutine, which then shares the object
		// it stored with this one.
		if cell := ssavalue.CapturedCell(v); cell != nil && cell.Parent() == v.Parent() {
			if stores := ssavalue.Stores(cell); len(stores) == 1 && stores[0].Parent() == cell.Parent() && !cellEscapes(cell) {
				return e.madeInDepth(stores[0].Val, depth, q)
			}
		}
	case *ssa.Parameter:
		return e.madeInParam(v, depth, q)
	case *ssa.FreeVar:
		return e.madeInBound(v, depth, q)
	}
	return nil
}

// cellEscapes reports whether the address of the local variable's cell
// goes anywhere but to loads, stores to it and closures that capture it.
func cellEscapes(cell *ssa.Alloc) bool {
	_, escapes := ssavalue.Loaders(cell)
	return escapes
}

// maxFreshDepth bounds the constructors makesAfresh follows through
// their returns of another's result (go-amqp's dialConn returns newConn's).
const maxFreshDepth = 3

// makesAfresh reports whether call is a call of a function of the
// package that returns, as its result number i, a new allocation or nil
// at every return, or the result of its own call of such a function (a
// dialConn that fills what newConn made): each call returns an object no
// other call returned.
func (e *Env) makesAfresh(call *ssa.Call, i, depth int) bool {
	fn := call.Call.StaticCallee()
	if depth == 0 || fn == nil || fn.Pkg != e.pkg() || len(fn.Blocks) == 0 || i >= fn.Signature.Results().Len() {
		return false
	}
	if _, isTuple := call.Type().(*types.Tuple); isTuple != (fn.Signature.Results().Len() > 1) {
		return false
	}
	returns := 0
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		returns++
		switch r := ret.Results[i].(type) {
		case *ssa.Alloc:
			if !r.Heap {
				return false
			}
		case *ssa.Const:
			if !r.IsNil() {
				return false
			}
		case *ssa.Extract:
			inner, ok := r.Tuple.(*ssa.Call)
			if !ok || callgraph.StaticCallee(&inner.Call) == fn || !e.makesAfresh(inner, r.Index, depth-1) {
				return false
			}
		case *ssa.Call:
			if callgraph.StaticCallee(&r.Call) == fn || !e.makesAfresh(r, 0, depth-1) {
				return false
			}
		default:
			return false
		}
	}
	return returns > 0
}

// madeInParam is madeIn of a parameter: every call of its function passes
// the object of one invocation of K.
func (e *Env) madeInParam(p *ssa.Parameter, depth int, q *madeQuery) ssa.Value {
	fn := p.Parent()
	if fn.Parent() != nil || fn.Synthetic != "" || fn.Pkg != e.pkg() || isGoEntry(e, fn) {
		return nil
	}
	if obj := fn.Object(); obj == nil || obj.Exported() || e.exposedMethod(fn) {
		return nil
	}
	idx := -1
	for i, q := range fn.Params {
		if q == p {
			idx = i
		}
	}
	edges := e.Goroutines.CallGraph.Callers(fn)
	if idx < 0 || len(edges) == 0 {
		return nil
	}
	root := cycle
	for _, edge := range edges {
		call, ok := edge.Site.(*ssa.Call)
		if !ok || call.Call.IsInvoke() || callgraph.StaticCallee(&call.Call) != fn || idx >= len(call.Call.Args) {
			return nil
		}
		r, ok := meetMade(root, e.madeInDepth(call.Call.Args[idx], depth-1, q))
		if !ok {
			return nil
		}
		root = r
	}
	return root
}

// exposedMethod reports whether fn is a method that an interface of
// another package may call: an exported name (an unexported one is
// only in the package's own interfaces).
func (e *Env) exposedMethod(fn *ssa.Function) bool {
	recv := fn.Signature.Recv()
	return recv != nil && fn.Object() != nil && fn.Object().Exported()
}

// madeInBound is madeIn of the receiver a bound-method wrapper holds:
// every method value of its method that the package makes binds the
// object of one invocation of K, and goes only where that invocation
// calls it (see onlyCalledWithin).
func (e *Env) madeInBound(fv *ssa.FreeVar, depth int, q *madeQuery) ssa.Value {
	fn := fv.Parent()
	m := ssavalue.BoundMethod(fn)
	if m == nil || len(fn.FreeVars) != 1 || m.Pkg != e.pkg() || m.Object() == nil || m.Object().Exported() {
		return nil
	}
	root := cycle
	found := false
	for _, mc := range e.boundClosures(fn) {
		found = true
		r, ok := meetMade(root, e.madeInDepth(mc.Bindings[0], depth-1, q))
		if !ok {
			return nil
		}
		root = r
		q.closures = append(q.closures, mc)
	}
	if !found {
		return nil
	}
	return root
}

// onlyCalledWithin reports whether the function value v goes only into
// calls of it (as the function called, not an argument), phis, and
// returns of functions other than the homes (the functions whose
// invocations made the object), each such return followed to every call
// of its function (the call graph's direct calls; for a bound-method
// wrapper, the calls of its method values, which must be followed the
// same way): every call of v runs within the invocation of a home that
// made it, on its goroutine.
func (e *Env) onlyCalledWithin(v ssa.Value, homes map[*ssa.Function]bool, depth int) bool {
	seen := make(map[ssa.Value]bool)
	var flows func(v ssa.Value, depth int) bool
	flows = func(v ssa.Value, depth int) bool {
		if depth == 0 {
			return false
		}
		if seen[v] {
			return true
		}
		seen[v] = true
		for _, u := range *v.Referrers() {
			switch u := u.(type) {
			case *ssa.DebugRef:
			case *ssa.Call:
				if u.Call.Value != v || isArg(&u.Call, v) {
					return false
				}
			case *ssa.Phi, *ssa.ChangeType:
				if !flows(u.(ssa.Value), depth) {
					return false
				}
			case *ssa.BinOp:
				if u.Op != token.EQL && u.Op != token.NEQ {
					return false // a comparison with nil
				}
			case *ssa.Return:
				fn := u.Parent()
				if homes[fn] {
					return false
				}
				idx := -1
				for i, r := range u.Results {
					if r == v {
						if idx >= 0 {
							return false
						}
						idx = i
					}
				}
				if !e.resultsFlow(fn, idx, len(u.Results), func(r ssa.Value) bool { return flows(r, depth-1) }) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return flows(v, depth)
}

// resultsFlow applies ok to the value each call of fn returns as its
// result number i (of n): the call, or its Extract. False when some call
// of fn is not a call site the package shows, or hands the result on
// some other way.
func (e *Env) resultsFlow(fn *ssa.Function, i, n int, ok func(ssa.Value) bool) bool {
	if isGoEntry(e, fn) {
		return false
	}
	if strings.HasPrefix(fn.Synthetic, "bound method wrapper") {
		// Its calls are those of the method values, whose every
		// value the caller follows (madeInBound): the wrapper's own
		// call sites are the dynamic calls of those values. go/ssa
		// gives a wrapper no package: its method's is asked.
		m := ssavalue.BoundMethod(fn)
		if m == nil || m.Pkg != e.pkg() || m.Object() == nil || m.Object().Exported() {
			return false
		}
	} else if fn.Pkg != e.pkg() || fn.Synthetic != "" || fn.Parent() != nil || fn.Object() == nil || fn.Object().Exported() {
		return false
	}
	edges := e.Goroutines.CallGraph.Callers(fn)
	if len(edges) == 0 {
		return false
	}
	for _, edge := range edges {
		call, isCall := edge.Site.(*ssa.Call)
		if !isCall || call.Call.IsInvoke() {
			return false
		}
		if n == 1 {
			if !ok(call) {
				return false
			}
			continue
		}
		for _, u := range *call.Referrers() {
			x, isExtract := u.(*ssa.Extract)
			if !isExtract {
				if _, isDebug := u.(*ssa.DebugRef); !isDebug {
					return false
				}
				continue
			}
			if x.Index == i && !ok(x) {
				return false
			}
		}
	}
	return true
}

// isGoEntry reports whether fn is the entry of a context of goroutines.
func isGoEntry(e *Env, fn *ssa.Function) bool {
	for _, c := range e.Goroutines.Contexts[1:] {
		if c.Entry == fn {
			return true
		}
	}
	return false
}

func (e *Env) pkg() *ssa.Package {
	for _, fn := range e.packageFuncs() {
		if fn != nil && fn.Pkg != nil {
			return fn.Pkg
		}
	}
	return nil
}

// madeInKey returns the ownKey of an access to obj, a parameter or a
// method value's receiver that madeIn follows to the object one
// invocation of a function made: the access runs on that invocation's
// goroutine, while it runs (see ownKey).
func (e *Env) madeInKey(a *sharedloc.Access, obj ssa.Value) (ownKey, bool) {
	switch obj.(type) {
	case *ssa.Parameter, *ssa.FreeVar:
	default:
		return ownKey{}, false
	}
	if _, bound := obj.(*ssa.FreeVar); bound && ssavalue.BoundMethod(obj.Parent()) == nil {
		return ownKey{}, false // a closure's variable: computeOwnObject's
	}
	root := e.madeIn(obj)
	if root == nil {
		return ownKey{}, false
	}
	return ownKey{root: root}, true
}

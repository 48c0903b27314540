package pointsto

import (
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
)

// Confined reports whether o is memory of an object that never leaves
// the goroutine that made it: the objects of its allocation site (those
// returned to the call site o.Clone, or all when o.Clone is nil) are
// stored in no memory but a call frame's own (no field, element,
// channel, map, escaping variable or escaping closure holds one, nor a
// pointer into one), are handed to no `go` statement, to no function
// outside the package (but the methods of sync and sync/atomic, which
// take the address of a mutex or counter and keep nothing) and to no
// call whose callee the call graph may not know (a function value, an
// interface method), and are not a panic's value. Such an object is
// reached only through values passed in registers from call to call,
// which stay on one goroutine: two goroutines that each touch an object
// of the site touch two objects (a key iterator that a function makes
// and closes, run by the caller and by a prefetch goroutine, is two
// iterators).
//
// o.Clone must be a clone the analysis gave (a deeper one that the
// checks' refinement gave is not what escapes are known by), or nil. o
// must point into the object itself (its path selects fields and
// elements only): what a field of a confined object holds (".f*") may be
// anyone's. Confined is false when the analysis did not finish, and for
// package variables and objects made outside the package.
func (r *Result) Confined(o Obj) bool {
	if r.pts == nil || o.Site == nil || strings.Contains(o.Path, DerefPath) {
		return false
	}
	switch o.Site.(type) {
	case *ssa.Alloc, *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeSlice:
	default:
		return false
	}
	if r.escaped[cloneKey{o.Site, nil}] {
		return false
	}
	if o.Clone == nil {
		// Any object of the site may be this one.
		return !r.anyEscaped[o.Site]
	}
	return !r.escaped[cloneKey{o.Site, o.Clone}]
}

// escapes returns the allocation sites whose objects may leave the
// registers of their goroutine (see Confined): those in the points-to set
// of some memory, and those some value points to that a `go` statement, a
// call of a function outside the package or of a callee not known
// statically, a panic, or a store through an address that points to
// nothing known hands on.
func (s *solver) escapes(funcs []*ssa.Function) {
	s.res.escaped = map[cloneKey]bool{}
	s.res.anyEscaped = map[ssa.Value]bool{}
	mark := func(id int) {
		o := s.res.objs[id]
		if o.Site == nil {
			return
		}
		s.res.escaped[cloneKey{o.Site, o.Clone}] = true
		s.res.anyEscaped[o.Site] = true
	}
	value := func(v ssa.Value) {
		if n, ok := s.res.nodes[v]; ok {
			for _, id := range s.res.pts[n] {
				mark(id)
			}
		}
	}
	unknown := func(addr ssa.Value) bool {
		n, ok := s.res.nodes[addr]
		return !ok || len(s.res.pts[n]) == 0
	}
	for k, n := range s.heap {
		if frameLocal(k.site) {
			continue // memory of one call's frame, on its goroutine
		}
		for _, id := range s.res.pts[n] {
			mark(id)
		}
	}
	for _, fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch in := instr.(type) {
				case *ssa.Go:
					value(in.Call.Value)
					for _, a := range in.Call.Args {
						value(a)
					}
				case ssa.CallInstruction:
					s.callEscapes(in, value)
				case *ssa.Panic:
					value(in.X)
				case *ssa.Store:
					if unknown(in.Addr) {
						value(in.Val)
					}
				case *ssa.Send:
					if unknown(in.Chan) {
						value(in.X)
					}
				case *ssa.MapUpdate:
					if unknown(in.Map) {
						value(in.Key)
						value(in.Value)
					}
				case *ssa.Select:
					for _, st := range in.States {
						if st.Send != nil && unknown(st.Chan) {
							value(st.Send)
						}
					}
				}
			}
		}
	}
}

// frameLocal reports whether the memory of site belongs to the frame of
// one call of its function, on that call's goroutine: a local variable
// whose address never leaves the function (an Alloc that SSA keeps off
// the heap, such as the result slot of a function that defers), a
// closure that its function only calls or defers, and a variable that
// only such closures capture, and only read and write.
func frameLocal(site ssa.Value) bool {
	switch site := site.(type) {
	case *ssa.Alloc:
		return !site.Heap || cellStaysHome(site, maxClosureDepth)
	case *ssa.MakeClosure:
		return calledOnly(site)
	}
	return false
}

// maxClosureDepth bounds how many closures, one inside the other,
// cellStaysHome follows a captured variable into.
const maxClosureDepth = 4

// cellStaysHome reports whether the address cell of a captured variable
// (its Alloc, or the free variable of a closure that captures it) is only
// read and written through, and handed only to closures that are only
// called or deferred, where the same holds of their free variable.
func cellStaysHome(cell ssa.Value, depth int) bool {
	if depth == 0 {
		return false
	}
	for _, ref := range *cell.Referrers() {
		switch ref := ref.(type) {
		case *ssa.MakeClosure:
			fn, ok := ref.Fn.(*ssa.Function)
			if !ok || !calledOnly(ref) {
				return false
			}
			for i, b := range ref.Bindings {
				if b == cell && (i >= len(fn.FreeVars) || !cellStaysHome(fn.FreeVars[i], depth-1)) {
					return false
				}
			}
		default:
			if !ssavalue.LoadsOrStores(cell, ref) {
				return false
			}
		}
	}
	return true
}

// calledOnly reports whether every use of the closure mc is a call or
// defer of it, in the function that makes it.
func calledOnly(mc *ssa.MakeClosure) bool {
	for _, ref := range *mc.Referrers() {
		switch ref := ref.(type) {
		case *ssa.Call, *ssa.Defer:
			common := ref.(ssa.CallInstruction).Common()
			if common.Value != ssa.Value(mc) || slices.Contains(common.Args, ssa.Value(mc)) {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// receiverEscapes marks the objects of an interface method call's
// receiver that no callee with a body here receives: the method of their
// type is code the analysis does not follow, or the call graph missed it.
func (s *solver) receiverEscapes(recv ssa.Value, callees []*ssa.Function, bodies bool) {
	n, ok := s.res.nodes[recv]
	if !ok {
		return
	}
	for _, id := range s.res.pts[n] {
		o := s.res.objs[id]
		if o.Site == nil {
			continue
		}
		received := false
		for _, c := range callees {
			received = received || bodies && len(c.Params) > 0 && objType(o) != nil && Admits(c.Params[0].Type(), o)
		}
		if !received {
			s.res.escaped[cloneKey{o.Site, o.Clone}] = true
			s.res.anyEscaped[o.Site] = true
		}
	}
}

// callEscapes marks what a call (or defer) hands to code the analysis
// does not follow: every argument of a call whose callees are not all
// functions of the package known statically; of an interface method
// call, the receiver too unless every callee has a body here; of a method
// of sync or a function of sync/atomic, the arguments after the first.
func (s *solver) callEscapes(site ssa.CallInstruction, value func(ssa.Value)) {
	common := site.Common()
	if _, ok := common.Value.(*ssa.Builtin); ok {
		return // append is followed; the others keep nothing
	}
	callees := s.cg.Callees(site)
	bodies := len(callees) > 0
	for _, c := range callees {
		bodies = bodies && len(c.Blocks) > 0
	}
	static := common.StaticCallee()
	switch {
	case static != nil && len(static.Blocks) > 0:
		return // followed by the constraints
	case static != nil && keepsNothing(static):
		for _, a := range common.Args[min(1, len(common.Args)):] {
			value(a)
		}
		return
	}
	if common.IsInvoke() {
		s.receiverEscapes(common.Value, callees, bodies)
	} else if static == nil {
		value(common.Value)
	}
	for _, a := range common.Args {
		value(a)
	}
}

// keepsNothing reports whether fn, a function without a body here, is a
// method of package sync or a function or method of sync/atomic, which
// take the address of a mutex, wait group or counter and keep nothing of
// it (sync.NewCond, which keeps its Locker, is neither).
func keepsNothing(fn *ssa.Function) bool {
	obj := fn.Object()
	if obj == nil || obj.Pkg() == nil {
		return false
	}
	switch obj.Pkg().Path() {
	case "sync":
		return fn.Signature.Recv() != nil
	case "sync/atomic":
		return true
	}
	return false
}

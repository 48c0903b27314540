package pointsto

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
)

// function generates the constraints of fn's body.
func (s *solver) function(fn *ssa.Function) {
	s.findFactories(fn)
	if len(s.cg.Callers(fn)) == 0 {
		// Called only from outside the package: its parameters point to
		// objects of their types made elsewhere.
		for _, p := range fn.Params {
			if mayPoint(p.Type()) {
				s.addObj(s.node(p), Obj{External: types.TypeString(p.Type(), nil)})
			}
		}
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			s.instr(fn, instr)
		}
	}
}

// findFactories records the allocations of fn that fn returns: their
// objects are told apart by the call site they are returned to.
func (s *solver) findFactories(fn *ssa.Function) {
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		for _, r := range ret.Results {
			for _, src := range ssavalue.Sources(r) {
				switch src.(type) {
				case *ssa.Alloc, *ssa.MakeMap, *ssa.MakeSlice, *ssa.MakeChan:
					if s.factories[fn] == nil {
						s.factories[fn] = map[ssa.Value]bool{}
					}
					s.factories[fn][src] = true
				}
			}
		}
	}
}

// mayPoint reports whether values of type t may hold pointers.
func mayPoint(t types.Type) bool {
	switch t := t.Underlying().(type) {
	case *types.Basic:
		return t.Kind() == types.UnsafePointer
	case *types.Tuple:
		for i := range t.Len() {
			if mayPoint(t.At(i).Type()) {
				return true
			}
		}
		return false
	case *types.Struct:
		for i := range t.NumFields() {
			if mayPoint(t.Field(i).Type()) {
				return true
			}
		}
		return false
	case *types.Array:
		return mayPoint(t.Elem())
	}
	return true
}

func (s *solver) instr(fn *ssa.Function, instr ssa.Instruction) {
	if v, ok := instr.(ssa.Value); ok && !mayPoint(v.Type()) {
		switch instr.(type) {
		case *ssa.Call:
			// Still bind the arguments of calls without results.
		default:
			if _, isStore := instr.(*ssa.Store); !isStore {
				return
			}
		}
	}
	switch in := instr.(type) {
	case *ssa.Alloc:
		s.addObj(s.node(in), Obj{Site: in})
	case *ssa.MakeMap, *ssa.MakeSlice, *ssa.MakeChan:
		v := in.(ssa.Value)
		s.addObj(s.node(v), Obj{Site: v})
	case *ssa.MakeClosure:
		// A closure is an object whose memory holds what it captured
		// (".name" for each free variable), so that what a func value
		// stored in a field captured (a method value's receiver) is
		// reachable from the field's holder.
		callee := in.Fn.(*ssa.Function)
		obj := Obj{Site: in}
		s.addObj(s.node(in), obj)
		for i, b := range in.Bindings {
			if mayPoint(b.Type()) {
				s.copy(s.node(callee.FreeVars[i]), s.node(b))
				cell := s.heapNode(obj.Select("." + callee.FreeVars[i].Name()))
				s.typed(cell, s.node(b))
				s.copy(cell, s.node(b))
			}
		}
	case *ssa.FieldAddr:
		s.addComplex(s.node(in.X), constraint{kind: kField, other: s.node(in), step: FieldPath(ssavalue.Field(in)), on: in.X.Type(), sel: in.Type()})
	case *ssa.IndexAddr:
		if _, isMap := in.X.Type().Underlying().(*types.Map); !isMap {
			s.addComplex(s.node(in.X), constraint{kind: kField, other: s.node(in), step: ElemPath, on: in.X.Type(), sel: in.Type()})
		}
	case *ssa.Field:
		s.copy(s.node(in), s.node(in.X))
	case *ssa.Index:
		s.copy(s.node(in), s.node(in.X))
	case *ssa.UnOp:
		switch in.Op {
		case token.MUL:
			if st, ok := in.Type().Underlying().(*types.Struct); ok {
				s.addComplex(s.node(in.X), constraint{kind: kLoadAll, other: s.node(in), paths: structPaths(st)})
			} else {
				s.addComplex(s.node(in.X), constraint{kind: kLoad, other: s.node(in)})
			}
		case token.ARROW:
			s.addComplex(s.node(in.X), constraint{kind: kElemLoad, other: s.node(in)})
		}
	case *ssa.Store:
		if !mayPoint(in.Val.Type()) {
			return
		}
		if st, ok := in.Val.Type().Underlying().(*types.Struct); ok {
			s.addComplex(s.node(in.Addr), constraint{kind: kStoreAll, other: s.node(in.Val), paths: structPaths(st)})
		} else {
			s.addComplex(s.node(in.Addr), constraint{kind: kStore, other: s.node(in.Val)})
		}
	case *ssa.MapUpdate:
		m := s.node(in.Map)
		if mayPoint(in.Value.Type()) {
			s.addComplex(m, constraint{kind: kElemStore, other: s.node(in.Value)})
		}
		if mayPoint(in.Key.Type()) {
			s.addComplex(m, constraint{kind: kElemStore, other: s.node(in.Key)})
		}
	case *ssa.Lookup:
		if _, isMap := in.X.Type().Underlying().(*types.Map); isMap {
			s.addComplex(s.node(in.X), constraint{kind: kElemLoad, other: s.node(in)})
		}
	case *ssa.Range:
		s.copy(s.node(in), s.node(in.X))
	case *ssa.Next:
		if !in.IsString {
			s.addComplex(s.node(in.Iter), constraint{kind: kElemLoad, other: s.node(in)})
		}
	case *ssa.Send:
		if mayPoint(in.X.Type()) {
			s.addComplex(s.node(in.Chan), constraint{kind: kElemStore, other: s.node(in.X)})
		}
	case *ssa.Select:
		for _, st := range in.States {
			if st.Dir == types.SendOnly {
				if mayPoint(st.Send.Type()) {
					s.addComplex(s.node(st.Chan), constraint{kind: kElemStore, other: s.node(st.Send)})
				}
			} else {
				s.addComplex(s.node(st.Chan), constraint{kind: kElemLoad, other: s.node(in)})
			}
		}
	case *ssa.Phi:
		for _, e := range in.Edges {
			s.copy(s.node(in), s.node(e))
		}
	case *ssa.ChangeType:
		s.copy(s.node(in), s.node(in.X))
	case *ssa.Convert:
		s.copy(s.node(in), s.node(in.X))
	case *ssa.MultiConvert:
		s.copy(s.node(in), s.node(in.X))
	case *ssa.ChangeInterface:
		s.copy(s.node(in), s.node(in.X))
	case *ssa.SliceToArrayPointer:
		s.copy(s.node(in), s.node(in.X))
	case *ssa.MakeInterface:
		s.copy(s.node(in), s.node(in.X))
	case *ssa.TypeAssert:
		s.addEdge(s.node(in.X), edge{dst: s.node(in), filter: in.AssertedType})
	case *ssa.Slice:
		s.copy(s.node(in), s.node(in.X))
	case *ssa.Extract:
		s.copy(s.node(in), s.node(in.Tuple))
	case *ssa.Return:
		for i, r := range in.Results {
			if mayPoint(r.Type()) {
				s.copy(s.ret(fn, i), s.node(r))
			}
		}
	case ssa.CallInstruction:
		s.call(in)
	}
}

// ret returns the node of fn's result number i. Each result has its own,
// so that `req, err := f()` does not give req what f returns as err.
func (s *solver) ret(fn *ssa.Function, i int) int {
	k := retKey{fn, i}
	if n, ok := s.rets[k]; ok {
		return n
	}
	n := s.newNode()
	s.rets[k] = n
	return n
}

type retKey struct {
	fn *ssa.Function
	i  int
}

func (s *solver) call(site ssa.CallInstruction) {
	common := site.Common()
	var result ssa.Value
	if v := site.Value(); v != nil && mayPoint(v.Type()) {
		result = v
	}
	if b, ok := common.Value.(*ssa.Builtin); ok {
		if b.Name() == "append" && result != nil {
			for _, a := range common.Args {
				s.copy(s.node(result), s.node(a))
			}
		}
		return
	}
	callees := s.cg.Callees(site)
	external := len(callees) == 0
	for _, callee := range callees {
		if len(callee.Blocks) == 0 {
			external = true
			continue
		}
		args := common.Args
		params := callee.Params
		if common.IsInvoke() {
			if len(params) > 0 && mayPoint(common.Value.Type()) {
				// A method receives, of the objects the interface value
				// may hold, only those of its receiver's type: every
				// implementation the call graph names for the call gets
				// the same interface value, and without the filter a
				// Reader that wraps a LimitedReader, both behind
				// io.Reader, has Reader.Read select its fields on the
				// LimitedReader, and those selections on each other's
				// objects, until the paths reach their bound (gobwas/ws's
				// wsutil spent the whole budget so).
				s.addEdge(s.node(common.Value), edge{dst: s.node(params[0]), filter: params[0].Type()})
			}
			params = params[1:]
		}
		for i, a := range args {
			if i < len(params) && mayPoint(a.Type()) {
				s.copy(s.node(params[i]), s.node(a))
			}
		}
		if result != nil {
			if _, isCall := site.(*ssa.Call); isCall {
				if _, isTuple := result.Type().(*types.Tuple); !isTuple {
					s.addEdge(s.ret(callee, 0), edge{dst: s.node(result), clone: site, fn: callee})
				} else {
					// Each extraction of a result gets that result only;
					// the tuple's own node keeps what external callees
					// return.
					for _, ref := range *result.Referrers() {
						if ex, ok := ref.(*ssa.Extract); ok && mayPoint(ex.Type()) {
							s.addEdge(s.ret(callee, ex.Index), edge{dst: s.node(ex), clone: site, fn: callee})
						}
					}
				}
			}
		}
	}
	if external && result != nil {
		// A function of another package: its result is a new object.
		s.addObj(s.node(result), Obj{Site: result})
	}
}

// structPaths returns the paths, within a struct of type st, of the memory
// that may hold pointers: "" for the struct itself, and its fields, nested
// structs and arrays included, up to a small depth.
func structPaths(st *types.Struct) []string {
	paths := []string{""}
	var walk func(t types.Type, prefix string, depth int)
	walk = func(t types.Type, prefix string, depth int) {
		if depth == 0 {
			return
		}
		switch t := t.Underlying().(type) {
		case *types.Struct:
			for i := range t.NumFields() {
				f := t.Field(i)
				if !mayPoint(f.Type()) {
					continue
				}
				p := prefix + FieldPath(f.Origin())
				paths = append(paths, p)
				walk(f.Type(), p, depth-1)
			}
		case *types.Array:
			if mayPoint(t.Elem()) {
				p := prefix + ElemPath
				paths = append(paths, p)
				walk(t.Elem(), p, depth-1)
			}
		}
	}
	walk(st, "", 3)
	return paths
}

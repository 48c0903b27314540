package concurrent

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/locksets"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// Removed is a Safe predicate: both accesses touch an object that belongs
// to an element their goroutine removed from one container under one
// mutex, so they touch one object only if one element was removed twice,
// which the container's protocol rules out. As in go-imap's client:
//
//	func (c *Client) deletePendingCmdByTag(tag string) command {
//		c.mutex.Lock()
//		defer c.mutex.Unlock()
//		for i, cmd := range c.pendingCmds {
//			if cmd.base().tag == tag {
//				c.pendingCmds = append(c.pendingCmds[:i], c.pendingCmds[i+1:]...)
//				return cmd  // removed: the caller completes it
//			}
//		}
//		return nil
//	}
//
//	c.mutex.Lock()
//	pendingCmds := c.pendingCmds  // taken whole
//	c.pendingCmds = nil
//	c.mutex.Unlock()
//	for _, cmd := range pendingCmds {
//		c.completeCommand(cmd, err)  // closes cmd.base().done
//	}
//
// The close in completeCommand runs, on either path, only for a command
// its goroutine removed, and no command is removed twice. A command found
// in the list and left there (findPendingCmdByType) is not removed, and a
// send on its channel still meets the remover's close.
//
// A removal is either the take of the whole container (a load of a field
// or unexported package variable replaced by nil or a fresh container in
// the same critical section, as Taken says, the taken slice only indexed
// and measured), whose elements all belong to the taker, or a function
// that deletes the i-th element of the slice it ranges over with
// append(l[:i], l[i+1:]...) and returns that element (or nil), with the
// mutex held from the range's read to the deletion and no other write to
// the location between, the deletion on no cycle. Both accesses reach
// their object from the removed element through fields and embedded
// structs of it, methods that return a part of their receiver (an
// interface's base()), type assertions, and at the end at most one
// container held in a field that every object holds alone (ownField);
// the element reaches the access through parameters whose every caller
// passes a removed element (as Elected's flags do, up to electDepth
// calls).
//
// No element is removed twice when the container's location (an
// unexported field or package variable of the package) is written only
// by removals, takes and insertions, each with one common mutex held in
// write mode, with nothing written into its contents; an insertion
// (l = append(l, x) with l read in the same critical section) is the
// only one of its function, on no cycle, and puts there an object made
// for it: an allocation of the function, or a parameter every caller of
// the function passes an allocation made for that call (the allocation
// passed to no other call of an inserting function, the call on no cycle
// that skips the allocation). Then every element is in the container at
// most once, a removed element is never put back, and of two removals
// under the mutex the second no longer finds what the first removed.
// Maps (delete(m, k) with the value returned) are not modelled.
func (e *Env) Removed(p Pair) bool {
	ra := e.removedAt(p.A)
	if len(ra) == 0 {
		return false
	}
	for _, r := range e.removedAt(p.B) {
		for _, q := range ra {
			if r.loc == q.loc && r.mutex == q.mutex {
				return true
			}
		}
	}
	return false
}

// A removal is the container location an element was removed from and
// a mutex held in write mode at the removal and at every write of the
// location.
type removal struct {
	loc   sharedloc.Loc
	mutex sharedloc.Loc
}

// removedAt returns the removals of the element whose object a touches.
func (e *Env) removedAt(a *sharedloc.Access) []removal {
	elem, ok := e.elementOf(a)
	if !ok {
		return nil
	}
	return e.removed(elem, electDepth)
}

// elementOf returns the value of the element whose own object a touches:
// the object of a field access, or the container held in an own field
// (ownField) for an access to contents, seen through embedded structs,
// methods returning a part of their receiver and type assertions.
func (e *Env) elementOf(a *sharedloc.Access) (ssa.Value, bool) {
	var v ssa.Value
	if a.Loc.Elem {
		load, ok := a.Ptr.(*ssa.UnOp)
		if !ok || load.Op != token.MUL {
			return nil, false
		}
		fa, ok := load.X.(*ssa.FieldAddr)
		if !ok || !e.ownField(ssavalue.Field(fa)) {
			return nil, false
		}
		v = fa.X
	} else {
		fa, ok := a.Ptr.(*ssa.FieldAddr)
		if !ok {
			return nil, false
		}
		v = fa.X
	}
	for range maxRemoveDepth {
		switch x := v.(type) {
		case *ssa.FieldAddr:
			v = x.X // an embedded struct: memory of x.X's object
		case *ssa.Call:
			recv, ok := e.partOfReceiver(x)
			if !ok {
				return v, true
			}
			v = recv
		default:
			if w := unwrapIface(v); w != v {
				v = w
				continue
			}
			return v, true
		}
	}
	return nil, false
}

const maxRemoveDepth = 8

// unwrapIface returns the operand of a conversion, an interface made of v
// or a type assertion of it, or v itself.
func unwrapIface(v ssa.Value) ssa.Value {
	switch x := v.(type) {
	case *ssa.MakeInterface:
		return x.X
	case *ssa.ChangeInterface:
		return x.X
	case *ssa.ChangeType:
		return x.X
	case *ssa.TypeAssert:
		if !x.CommaOk {
			return x.X
		}
	case *ssa.Extract:
		if ta, ok := x.Tuple.(*ssa.TypeAssert); ok && x.Index == 0 {
			return ta.X
		}
	}
	return v
}

// partOfReceiver returns the receiver of the method call when every
// method it may call returns its receiver or a field address within it
// (a promoted method's wrapper included).
func (e *Env) partOfReceiver(call *ssa.Call) (ssa.Value, bool) {
	var recv ssa.Value
	if call.Call.IsInvoke() {
		recv = call.Call.Value
	} else if call.Call.Signature().Recv() != nil && len(call.Call.Args) > 0 {
		recv = call.Call.Args[0]
	} else {
		return nil, false
	}
	callees := e.Goroutines.CallGraph.Callees(call)
	if len(callees) == 0 {
		return nil, false
	}
	for _, f := range callees {
		if !returnsPart(f, 3) {
			return nil, false
		}
	}
	return recv, true
}

// returnsPart reports whether every return of fn gives its receiver (its
// first parameter) or an address within it.
func returnsPart(fn *ssa.Function, depth int) bool {
	if depth == 0 || len(fn.Blocks) == 0 || len(fn.Params) == 0 || fn.Signature.Results().Len() != 1 {
		return false
	}
	part := func(v ssa.Value) bool {
		for range maxRemoveDepth {
			switch x := v.(type) {
			case *ssa.FieldAddr:
				v = x.X
			case *ssa.UnOp:
				// A wrapper's receiver of pointer type read from
				// its value receiver is not part of it.
				return false
			default:
				return v == fn.Params[0]
			}
		}
		return false
	}
	n := 0
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		r := ret.Results[0]
		if call, ok := r.(*ssa.Call); ok {
			g := call.Call.StaticCallee()
			if g == nil || call.Call.Signature().Recv() == nil && g.Signature.Recv() == nil ||
				len(call.Call.Args) == 0 || !part(call.Call.Args[0]) || !returnsPart(g, depth-1) {
				return false
			}
		} else if !part(r) {
			return false
		}
		n++
	}
	return n > 0
}

// removed returns the removals that made v, an element, its goroutine's.
func (e *Env) removed(v ssa.Value, depth int) []removal {
	for range maxRemoveDepth {
		w := unwrapIface(v)
		if w == v {
			break
		}
		v = w
	}
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op != token.MUL {
			return nil
		}
		if ia, ok := x.X.(*ssa.IndexAddr); ok {
			return e.takenElement(ia.X)
		}
		if cell := ssavalue.Cell(x.X); cell != nil {
			// A local variable (captured too) stored once, with a
			// removed element.
			stored := ssavalue.StoresTo(cell)
			if len(stored) == 1 && stored[0] != ssa.Value(cell) {
				return e.removed(stored[0], depth)
			}
		}
	case *ssa.Index:
		return e.takenElement(x.X)
	case *ssa.Call:
		if f := x.Call.StaticCallee(); f != nil && len(x.Call.Args) == len(f.Params) {
			return e.removing(f)
		}
	case *ssa.Parameter:
		if depth == 0 {
			return nil
		}
		fn := x.Parent()
		idx := slices.Index(fn.Params, x)
		callers := e.Goroutines.CallGraph.Callers(fn)
		if idx < 0 || len(callers) == 0 || len(e.Goroutines.RefSites(fn)) > 0 || !e.callsOnly(fn) {
			return nil
		}
		var common []removal
		for n, edge := range callers {
			site := edge.Site
			if _, isGo := site.(*ssa.Go); isGo || site.Common().IsInvoke() || callgraph.StaticCallee(site.Common()) != fn {
				return nil
			}
			got := e.removed(site.Common().Args[idx], depth-1)
			if n == 0 {
				common = got
			} else {
				common = slices.DeleteFunc(common, func(r removal) bool { return !slices.Contains(got, r) })
			}
			if len(common) == 0 {
				return nil
			}
		}
		return common
	}
	return nil
}

// takenElement returns the removals of an element of the slice s when s
// was taken whole from its location (see Taken) and is only indexed and
// measured.
func (e *Env) takenElement(s ssa.Value) []removal {
	load, loc, ok := loadOf(s)
	if !ok || !e.removable(loc) {
		return nil
	}
	if _, isSlice := load.Type().Underlying().(*types.Slice); !isSlice {
		return nil
	}
	for _, u := range *load.Referrers() {
		switch u := u.(type) {
		case *ssa.IndexAddr, *ssa.Index, *ssa.DebugRef:
		case *ssa.Call:
			if b, ok := u.Call.Value.(*ssa.Builtin); !ok || b.Name() != "len" && b.Name() != "cap" {
				return nil
			}
		default:
			return nil
		}
	}
	st := e.takeStore(load, loc)
	if st == nil {
		return nil
	}
	return e.removals(loc, st)
}

// takeStore returns the store that replaces the container load read
// from loc with a fresh one (or nil) in the same block, with no call
// between them, or nil.
func (e *Env) takeStore(load *ssa.UnOp, loc sharedloc.Loc) *ssa.Store {
	instrs := load.Block().Instrs
	for i := slices.Index(instrs, ssa.Instruction(load)) + 1; i < len(instrs); i++ {
		switch in := instrs[i].(type) {
		case *ssa.Store:
			if l, ok := sharedloc.AddrLoc(in.Addr); ok && l == loc {
				if fresh(in.Val) {
					return in
				}
				return nil
			}
		case ssa.CallInstruction:
			if !builtin(in) {
				return nil
			}
		}
	}
	return nil
}

// removals returns a removal from loc for each mutex held in write mode
// at st and at every write of loc (see removable).
func (e *Env) removals(loc sharedloc.Loc, st *ssa.Store) []removal {
	var out []removal
	for _, h := range e.Locks.At(st) {
		if h.Mode == locksets.Write && slices.Contains(e.removeLocks[loc], h.Mutex) {
			out = append(out, removal{loc, h.Mutex})
		}
	}
	return out
}

// removing returns the removals of the element fn returns, when fn
// deletes it from the slice it ranges over (see Removed).
func (e *Env) removing(fn *ssa.Function) []removal {
	if r, ok := e.removeFuncs[fn]; ok {
		return r
	}
	if e.removeFuncs == nil {
		e.removeFuncs = make(map[*ssa.Function][]removal)
	}
	e.removeFuncs[fn] = nil
	r := e.computeRemoving(fn)
	e.removeFuncs[fn] = r
	return r
}

func (e *Env) computeRemoving(fn *ssa.Function) []removal {
	if len(fn.Blocks) == 0 || fn.Signature.Results().Len() != 1 {
		return nil
	}
	var elem *ssa.UnOp // the element read from the ranged slice
	var del *ssa.Store // its deletion
	var loc sharedloc.Loc
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			st, ok := instr.(*ssa.Store)
			if !ok {
				continue
			}
			l, ok := sharedloc.AddrLoc(st.Addr)
			if !ok {
				continue
			}
			x, i, ok := deletion(st.Val, l)
			if !ok {
				continue
			}
			if del != nil {
				return nil // two deletions
			}
			del, loc = st, l
			_ = x
			// The element: *&s[i] with s the ranged read of loc.
			for _, u := range *i.Referrers() {
				ia, ok := u.(*ssa.IndexAddr)
				if !ok || ia.Index != i {
					continue
				}
				if _, l2, ok := loadOf(ia.X); !ok || l2 != loc {
					continue
				}
				for _, w := range *ia.Referrers() {
					if ld, ok := w.(*ssa.UnOp); ok && ld.Op == token.MUL && instrDominates(ld, st) {
						elem = ld
					}
				}
			}
		}
	}
	if del == nil || elem == nil || !e.removable(loc) || e.Goroutines.Flow.InLoop(del) {
		return nil
	}
	ranged, _, _ := loadOf(elem.X.(*ssa.IndexAddr).X)
	if e.Goroutines.Flow.InLoop(ranged) {
		return nil
	}
	// The mutex is held from the ranged read to the deletion, and
	// nothing between them writes loc or may release it.
	for b := range between(ranged, del) {
		for k, in := range b.Instrs {
			if b == ranged.Block() && k <= indexOf(ranged) || b == del.Block() && k >= indexOf(del) {
				continue
			}
			if c, ok := in.(ssa.CallInstruction); ok && !builtin(c) && !e.keepsLocks(c) {
				return nil
			}
			if st, ok := in.(*ssa.Store); ok && st != del {
				if l, ok := sharedloc.AddrLoc(st.Addr); ok && l == loc {
					return nil
				}
			}
		}
	}
	rs := e.removals(loc, del)
	var common []removal
	for _, r := range rs {
		if _, ok := e.Locks.At(ranged).Lookup(r.mutex); ok {
			common = append(common, r)
		}
	}
	// Every return gives nil or the element after its deletion.
	elemAfter := func(v ssa.Value, at ssa.Instruction) bool {
		if isNilConst(v) {
			return true
		}
		return v == ssa.Value(elem) && instrDominates(del, at)
	}
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		r := ret.Results[0]
		if elemAfter(r, ret) {
			continue
		}
		// A named result or a cell a deferred recover may return.
		load, ok := r.(*ssa.UnOp)
		if !ok || load.Op != token.MUL {
			return nil
		}
		cell, ok := load.X.(*ssa.Alloc)
		if !ok || cell.Heap {
			return nil
		}
		for _, u := range *cell.Referrers() {
			switch u := u.(type) {
			case *ssa.Store:
				if u.Addr != cell || !elemAfter(u.Val, u) {
					return nil
				}
			case *ssa.UnOp:
				if u.Op != token.MUL {
					return nil
				}
			case *ssa.DebugRef:
			default:
				return nil
			}
		}
	}
	return common
}

// deletion reports whether v is append(l[:i], l[i+1:]...) of reads of
// loc, returning the first slice and i.
func deletion(v ssa.Value, loc sharedloc.Loc) (ssa.Value, ssa.Value, bool) {
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil, nil, false
	}
	if b, ok := call.Call.Value.(*ssa.Builtin); !ok || b.Name() != "append" || len(call.Call.Args) != 2 {
		return nil, nil, false
	}
	head, ok1 := call.Call.Args[0].(*ssa.Slice)
	tail, ok2 := call.Call.Args[1].(*ssa.Slice)
	if !ok1 || !ok2 || head.Low != nil || head.High == nil || head.Max != nil || tail.Low == nil || tail.High != nil || tail.Max != nil {
		return nil, nil, false
	}
	for _, s := range []*ssa.Slice{head, tail} {
		if _, l, ok := loadOf(s.X); !ok || l != loc {
			return nil, nil, false
		}
	}
	add, ok := tail.Low.(*ssa.BinOp)
	if !ok || add.Op != token.ADD || add.X != head.High {
		return nil, nil, false
	}
	if c, ok := add.Y.(*ssa.Const); !ok || c.Value == nil || c.Value.String() != "1" {
		return nil, nil, false
	}
	return head, head.High, true
}

// removable reports whether loc, a slice in an unexported field or
// package variable of the package, is written only by removals, takes
// and insertions of objects made for it (see Removed), with a common
// mutex held in write mode at each, and its contents never written; the
// mutexes are kept in removeLocks.
func (e *Env) removable(loc sharedloc.Loc) bool {
	if ok, done := e.removeLocs[loc]; done {
		return ok
	}
	if e.removeLocs == nil {
		e.removeLocs = make(map[sharedloc.Loc]bool)
		e.removeLocks = make(map[sharedloc.Loc][]sharedloc.Loc)
	}
	e.removeLocs[loc] = false
	ok := e.computeRemovable(loc)
	e.removeLocs[loc] = ok
	if !ok {
		delete(e.removeLocks, loc)
	}
	return ok
}

func (e *Env) computeRemovable(loc sharedloc.Loc) bool {
	if loc.Elem || loc.Kind != sharedloc.Field || loc.Cell != nil ||
		loc.Obj == nil || loc.Obj.Exported() || loc.Obj.Pkg() != e.Pass.Pkg {
		return false
	}
	if _, ok := loc.Obj.Type().Underlying().(*types.Slice); !ok {
		return false
	}
	for _, a := range e.Shared.ByLoc[loc.Contents()] {
		if a.Op.IsWrite() {
			return false
		}
	}
	owner := e.ownerStruct(loc.Obj.(*types.Var))
	if owner == nil {
		return false
	}
	var locks []sharedloc.Loc
	first := true
	inserting := map[*ssa.Function]int{}
	var inserts []*ssa.Store
	for _, fn := range e.packageFuncs() {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if v, ok := instr.(ssa.Value); ok && types.Identical(v.Type(), owner) && !literalCopy(v) {
					return false // the holder copied whole, its list with it
				}
				if _, ok := instr.(*ssa.Store); !ok {
					// Any other use of the location's address
					// (a pointer to it handed on) is unknown.
					if fa, ok := instr.(*ssa.FieldAddr); ok && ssavalue.Field(fa) == loc.Obj {
						for _, u := range *fa.Referrers() {
							switch u := u.(type) {
							case *ssa.Store:
								if u.Addr != fa {
									return false
								}
							case *ssa.UnOp:
								if u.Op != token.MUL {
									return false
								}
							case *ssa.DebugRef:
							default:
								return false
							}
						}
					}
					continue
				}
				st := instr.(*ssa.Store)
				l, ok := sharedloc.AddrLoc(st.Addr)
				if !ok || l != loc {
					continue
				}
				switch {
				case fresh(st.Val):
				case isDeletion(st.Val, loc):
				default:
					if !insertion(st, loc) {
						return false
					}
					inserting[fn]++
					inserts = append(inserts, st)
				}
				var held []sharedloc.Loc
				for _, h := range e.Locks.At(st) {
					if h.Mode == locksets.Write && (first || slices.Contains(locks, h.Mutex)) {
						held = append(held, h.Mutex)
					}
				}
				locks, first = held, false
				if len(locks) == 0 {
					return false
				}
			}
		}
	}
	if first {
		return false
	}
	for _, st := range inserts {
		if inserting[st.Parent()] != 1 || e.Goroutines.Flow.InLoop(st) || !e.madeForInsert(st, inserting) {
			return false
		}
	}
	e.removeLocks[loc] = locks
	return true
}

func isDeletion(v ssa.Value, loc sharedloc.Loc) bool {
	_, _, ok := deletion(v, loc)
	return ok
}

// insertion reports whether st stores append(l, x...) with l read from
// loc in st's block with no call but builtins between.
func insertion(st *ssa.Store, loc sharedloc.Loc) bool {
	call, ok := st.Val.(*ssa.Call)
	if !ok || call.Block() != st.Block() {
		return false
	}
	if b, ok := call.Call.Value.(*ssa.Builtin); !ok || b.Name() != "append" || len(call.Call.Args) != 2 {
		return false
	}
	load, l, ok := loadOf(call.Call.Args[0])
	if !ok || l != loc || load.Block() != st.Block() {
		return false
	}
	instrs := st.Block().Instrs
	for _, in := range instrs[slices.Index(instrs, ssa.Instruction(load))+1 : slices.Index(instrs, ssa.Instruction(st))] {
		if c, ok := in.(ssa.CallInstruction); ok && !builtin(c) {
			return false
		}
	}
	return true
}

// insertedValues returns the values the insertion st appends, or false.
func insertedValues(st *ssa.Store) ([]ssa.Value, bool) {
	call := st.Val.(*ssa.Call)
	s, ok := call.Call.Args[1].(*ssa.Slice)
	if !ok {
		return nil, false
	}
	arr, ok := s.X.(*ssa.Alloc)
	if !ok {
		return nil, false
	}
	var out []ssa.Value
	for _, u := range *arr.Referrers() {
		switch u := u.(type) {
		case *ssa.IndexAddr:
			for _, w := range *u.Referrers() {
				ws, ok := w.(*ssa.Store)
				if !ok || ws.Addr != u {
					return nil, false
				}
				out = append(out, ws.Val)
			}
		case *ssa.Slice:
			if u != s {
				return nil, false
			}
		case *ssa.DebugRef:
		default:
			return nil, false
		}
	}
	return out, true
}

// madeForInsert reports whether every value the insertion st appends is
// an object made for it: an allocation of st's function, or a parameter
// every caller passes an allocation made for the call (see Removed).
func (e *Env) madeForInsert(st *ssa.Store, inserting map[*ssa.Function]int) bool {
	vals, ok := insertedValues(st)
	if !ok || len(vals) == 0 {
		return false
	}
	fn := st.Parent()
	for _, v := range vals {
		v = stripIface(v)
		if load, ok := v.(*ssa.UnOp); ok && load.Op == token.MUL {
			// A parameter kept in a cell (captured by a closure).
			cell := ssavalue.Cell(load.X)
			if cell == nil || cell.Parent() != fn {
				return false
			}
			stored := ssavalue.StoresTo(cell)
			if len(stored) != 1 {
				return false
			}
			v = stripIface(stored[0])
		}
		switch x := v.(type) {
		case *ssa.Alloc:
			if !x.Heap || !onceFor(x, st) || insertCalls(x, nil, inserting) != 0 {
				return false
			}
		case *ssa.Parameter:
			idx := slices.Index(fn.Params, x)
			callers := e.Goroutines.CallGraph.Callers(fn)
			if idx < 0 || len(callers) == 0 || len(e.Goroutines.RefSites(fn)) > 0 || fn.Parent() != nil || !e.callsOnly(fn) {
				return false
			}
			for _, edge := range callers {
				site := edge.Site
				if _, isGo := site.(*ssa.Go); isGo || site.Common().IsInvoke() || callgraph.StaticCallee(site.Common()) != fn {
					return false
				}
				alloc, cell, ok := madeObject(site.Common().Args[idx])
				if !ok || !onceFor(alloc, site) || insertCalls(alloc, cell, inserting) != 1 {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// stripIface returns v without interface conversions around it.
func stripIface(v ssa.Value) ssa.Value {
	for range maxRemoveDepth {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			v = x.X
		case *ssa.ChangeInterface:
			v = x.X
		case *ssa.ChangeType:
			v = x.X
		default:
			return v
		}
	}
	return v
}

// onceFor reports whether at runs once per execution of the allocation
// alloc: in its block, or dominated by it and on no cycle.
func onceFor(alloc *ssa.Alloc, at ssa.Instruction) bool {
	if at.Parent() != alloc.Parent() {
		return false
	}
	if !instrDominates(alloc, at) {
		return false
	}
	if at.Block() == alloc.Block() {
		return true
	}
	// No path from at back to at that skips the allocation's block.
	next := func(b *ssa.BasicBlock) []*ssa.BasicBlock {
		return slices.DeleteFunc(slices.Clone(b.Succs), func(s *ssa.BasicBlock) bool { return s == alloc.Block() })
	}
	for _, s := range next(at.Block()) {
		if reachable(s, next)[at.Block()] {
			return false
		}
	}
	return true
}

// madeObject returns the allocation v is, directly or read from a local
// variable (captured too) that only it is stored to, and that variable.
func madeObject(v ssa.Value) (*ssa.Alloc, *ssa.Alloc, bool) {
	v = stripIface(v)
	var cell *ssa.Alloc
	if load, ok := v.(*ssa.UnOp); ok && load.Op == token.MUL {
		cell = ssavalue.Cell(load.X)
		if cell == nil {
			return nil, nil, false
		}
		stored := ssavalue.StoresTo(cell)
		if len(stored) != 1 {
			return nil, nil, false
		}
		v = stripIface(stored[0])
	}
	alloc, ok := v.(*ssa.Alloc)
	if !ok || !alloc.Heap || cell != nil && cell.Parent() != alloc.Parent() {
		return nil, nil, false
	}
	return alloc, cell, true
}

// insertCalls counts the calls of inserting functions that alloc (or an
// interface made of it) is passed to, directly or read from cell, the
// variable that holds it in its function or in the closures it is
// captured by; too deep to tell counts as two.
func insertCalls(alloc, cell *ssa.Alloc, inserting map[*ssa.Function]int) int {
	n := 0
	var visit func(v ssa.Value, depth int)
	visit = func(v ssa.Value, depth int) {
		if depth == 0 {
			n += 2
			return
		}
		for _, u := range *v.Referrers() {
			switch u := u.(type) {
			case *ssa.MakeInterface, *ssa.ChangeInterface, *ssa.ChangeType:
				visit(u.(ssa.Value), depth-1)
			case *ssa.UnOp:
				if u.Op == token.MUL && v != ssa.Value(alloc) {
					visit(u, depth-1) // a read of the variable
				}
			case *ssa.MakeClosure:
				for i, b := range u.Bindings {
					if b == v && v != ssa.Value(alloc) {
						visit(u.Fn.(*ssa.Function).FreeVars[i], depth-1)
					}
				}
			case ssa.CallInstruction:
				if !slices.Contains(u.Common().Args, v) {
					continue
				}
				if f := u.Common().StaticCallee(); f != nil && inserting[f] > 0 {
					n++
				}
			}
		}
	}
	visit(alloc, maxRemoveDepth)
	if cell != nil {
		visit(cell, maxRemoveDepth)
	}
	return n
}

// callsOnly reports whether the package's own calls are all of fn's: fn
// is unexported (a method of an unexported name, which no importer
// calls) and the package uses it only as the callee of static calls,
// never as a value that code outside the package could call.
func (e *Env) callsOnly(fn *ssa.Function) bool {
	if e.onlyCalled == nil {
		e.onlyCalled = make(map[*ssa.Function]bool)
	}
	if v, ok := e.onlyCalled[fn]; ok {
		return v
	}
	ok := fn.Parent() == nil && fn.Object() != nil && !fn.Object().Exported() && fn.Pkg != nil && fn.Pkg.Pkg == e.Pass.Pkg
	for _, g := range e.packageFuncs() {
		for _, b := range g.Blocks {
			for _, instr := range b.Instrs {
				if !ok {
					break
				}
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
	e.onlyCalled[fn] = ok
	return ok
}

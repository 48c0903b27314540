package concurrent

import (
	"go/token"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/locksets"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// CheckedInSection returns the locks held from a nil check of r's
// location to the read r, when r runs only where the check found the
// location not nil and nothing between them can change it, as in
// alicebob/miniredis's Close:
//
//	m.Lock()
//	if m.srv == nil { m.Unlock(); return }
//	srv := m.srv
//	m.srv = nil
//	m.Unlock()
//	srv.Close()
//
// and gliderlabs/ssh's request loop:
//
//	sess.Lock()
//	if sess.sigCh != nil { sess.sigCh <- sig }
//	sess.Unlock()
//
// A store holding one of those locks cannot come between the check and
// the read, and one that comes before the check is what the check saw:
// the value read is the one the check found not nil, wherever it is used
// after the Unlock. Only the plainest shape is taken: r is first in its
// block but for instructions that neither call nor store, that block's
// one predecessor ends in the If on the comparison of a load of the same
// address (a field of the same value, or the same variable) with nil, r
// on the branch where it is not nil, and nothing after that load in the
// predecessor calls or stores either (a call could unlock or store nil, a
// store could write the location through an alias).
//
// Or the check's other branch makes the location not nil itself before
// it joins r's block, a lazy initialization (go-oidc's inflight request,
// held-out rehearsal 44's A):
//
//	s.mu.Lock()
//	if s.inflight == nil {
//		s.inflight = &inflight{done: make(chan struct{})}
//		go s.fetch() // which clears s.inflight under s.mu when done
//	}
//	f := s.inflight
//	s.mu.Unlock()
//
// The other branch is one block, entered from the check alone, that
// stores to the location a value that is never nil (a new object, a
// made map, channel or closure, a function) and otherwise only
// initializes objects it made itself (stores into them) or starts
// goroutines (a go statement runs nothing on this goroutine, and a
// goroutine's store holding the lock cannot come before the Unlock);
// nothing in it calls.
func (e *Env) CheckedInSection(r *sharedloc.Access) (locksets.Set, bool) {
	load, ok := r.Instr.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return nil, false
	}
	b := load.Block()
	if !quietBefore(b.Instrs, load) {
		return nil, false
	}
	var pred, lazy *ssa.BasicBlock
	switch len(b.Preds) {
	case 1:
		pred = b.Preds[0]
	case 2:
		for k, p := range b.Preds {
			if other := b.Preds[1-k]; len(other.Preds) == 1 && other.Preds[0] == p {
				pred, lazy = p, other
			}
		}
	}
	if pred == nil || len(pred.Instrs) == 0 {
		return nil, false
	}
	ifi, ok := pred.Instrs[len(pred.Instrs)-1].(*ssa.If)
	if !ok || len(pred.Succs) != 2 || pred.Succs[0] == pred.Succs[1] {
		return nil, false
	}
	cmp, ok := ifi.Cond.(*ssa.BinOp)
	if !ok || cmp.Op != token.EQL && cmp.Op != token.NEQ {
		return nil, false
	}
	x := cmp.X
	if isNilConst(x) {
		x = cmp.Y
	} else if !isNilConst(cmp.Y) {
		return nil, false
	}
	checked, ok := x.(*ssa.UnOp)
	if !ok || checked.Op != token.MUL || checked.Block() != pred || !sameAddr(checked.X, load.X) {
		return nil, false
	}
	notNil, isNil := pred.Succs[0], pred.Succs[1]
	if cmp.Op == token.EQL {
		notNil, isNil = isNil, notNil
	}
	if notNil != b || !quietBefore(pred.Instrs[slices.Index(pred.Instrs, ssa.Instruction(checked))+1:], ifi) {
		return nil, false
	}
	if lazy != nil && (isNil != lazy || !initsNotNil(lazy, load.X)) {
		return nil, false
	}
	return e.Locks.At(checked).Intersect(e.Locks.At(load)), true
}

// initsNotNil reports whether block blk, which jumps to the read's block,
// stores a value that is never nil to addr, and otherwise neither calls
// (but for go statements) nor stores but into objects it allocates
// itself (see CheckedInSection).
func initsNotNil(blk *ssa.BasicBlock, addr ssa.Value) bool {
	made := make(map[ssa.Value]bool)
	stored := false
	for _, in := range blk.Instrs {
		switch in := in.(type) {
		case *ssa.Alloc:
			made[in] = true
		case *ssa.Go:
		case *ssa.Call:
			if !constructor(in.Call.StaticCallee()) {
				return false
			}
		case ssa.CallInstruction, *ssa.MapUpdate, *ssa.Send, *ssa.Select:
			return false
		case *ssa.Store:
			switch {
			case sameAddr(in.Addr, addr):
				if !neverNil(in.Val) {
					return false
				}
				stored = true
			case !made[allocOf(in.Addr)]:
				return false
			}
		}
	}
	return stored
}

// allocOf returns the object whose field or element addr addresses (or
// addr itself): enclosing, through the elements of arrays too.
func allocOf(addr ssa.Value) ssa.Value {
	for {
		addr = enclosing(addr)
		ia, ok := addr.(*ssa.IndexAddr)
		if !ok {
			return addr
		}
		addr = ia.X
	}
}

// neverNil reports whether v is a value that is never nil: a new object,
// a made map, channel or closure, a function, an interface holding a
// value of a non-interface type, or what a constructor returns.
func neverNil(v ssa.Value) bool {
	switch v := v.(type) {
	case *ssa.Alloc, *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeClosure, *ssa.Function, *ssa.MakeInterface:
		return true
	case *ssa.ChangeType:
		return neverNil(v.X)
	case *ssa.Call:
		return constructor(v.Call.StaticCallee())
	}
	return false
}

// constructor reports whether fn, a function of one block, returns a new
// object and does nothing else: it allocates and makes, stores only into
// what it allocated, calls nothing, and returns one value that is never
// nil (go-oidc's newInflight: `return &inflight{doneCh: make(chan
// struct{})}`).
func constructor(fn *ssa.Function) bool {
	if fn == nil || len(fn.Blocks) != 1 || fn.Signature.Results().Len() != 1 {
		return false
	}
	made := make(map[ssa.Value]bool)
	for _, in := range fn.Blocks[0].Instrs {
		switch in := in.(type) {
		case *ssa.Alloc:
			made[in] = true
		case *ssa.Store:
			if !made[allocOf(in.Addr)] {
				return false
			}
		case *ssa.Return:
			if len(in.Results) != 1 {
				return false
			}
			if !neverNil(in.Results[0]) {
				return false
			}
		case ssa.CallInstruction, *ssa.MapUpdate, *ssa.Send, *ssa.Select, *ssa.Panic:
			return false
		}
	}
	return true
}

// CheckedNotNil reports whether p.A, a load, reads what a nil check of
// its location in the same critical section found not nil (see
// CheckedInSection), and p.B holds one of the mutexes held from the check
// to the read (or held by the read's callers, on a lifted view) in a
// mode that excludes them: p.B cannot come between the check and the
// read, so p.A does not see a nil that p.B stores or has yet to replace.
func (e *Env) CheckedNotNil(p Pair) bool {
	checked, ok := e.CheckedInSection(p.A)
	if !ok {
		return false
	}
	callers := p.VA.Locks.Minus(e.Locks.At(p.A.Instr))
	_, ok = p.VA.Locks.Intersect(checked.Union(callers)).Excludes(p.VB.Locks)
	return ok
}

// quietBefore reports whether no instruction of instrs before stop calls
// a function or stores to memory.
func quietBefore(instrs []ssa.Instruction, stop ssa.Instruction) bool {
	for _, in := range instrs {
		if in == stop {
			return true
		}
		switch in.(type) {
		case ssa.CallInstruction, *ssa.Store, *ssa.MapUpdate, *ssa.Send, *ssa.Select:
			return false
		}
	}
	return false
}

// sameAddr reports whether the addresses x and y are the same memory on
// every execution: the same value, or the same field of the same value
// (see SameValue).
func sameAddr(x, y ssa.Value) bool {
	if x == y {
		return true
	}
	fx, ok1 := x.(*ssa.FieldAddr)
	fy, ok2 := y.(*ssa.FieldAddr)
	return ok1 && ok2 && fx.Field == fy.Field && SameValue(fx.X, fy.X)
}

// SameValue reports whether x and y are the same value on every
// execution: the same SSA value, the same field of the same struct value
// or of one struct variable stored once whole (storedWholeOnce), or two
// loads of one local variable that is stored once and otherwise only
// loaded, by its function and by the closures that capture it
// (gliderlabs/ssh's handleRequests, whose receiver sess a go statement's
// literal captures: each sess.f reloads sess from its cell).
func SameValue(x, y ssa.Value) bool {
	if x == y {
		return true
	}
	if fx, ok := x.(*ssa.Field); ok {
		fy, ok := y.(*ssa.Field)
		return ok && fx.Field == fy.Field && SameValue(fx.X, fy.X)
	}
	lx, ok1 := x.(*ssa.UnOp)
	ly, ok2 := y.(*ssa.UnOp)
	if !ok1 || !ok2 || lx.Op != token.MUL || ly.Op != token.MUL {
		return false
	}
	if fx, ok := lx.X.(*ssa.FieldAddr); ok {
		fy, ok := ly.X.(*ssa.FieldAddr)
		return ok && fx.Field == fy.Field && fx.X == fy.X && storedWholeOnce(fx.X)
	}
	if lx.X != ly.X {
		return false
	}
	cell, ok := lx.X.(*ssa.Alloc)
	if !ok || cell.Referrers() == nil {
		return false
	}
	stores := 0
	for _, u := range *cell.Referrers() {
		switch u := u.(type) {
		case *ssa.UnOp:
			if u.Op != token.MUL {
				return false
			}
		case *ssa.Store:
			if u.Addr != cell || u.Val == cell {
				return false
			}
			stores++
		case *ssa.MakeClosure:
			if !onlyLoaded(u, cell) {
				return false
			}
		default:
			return false
		}
	}
	return stores == 1
}

// storedWholeOnce reports whether v is a local struct variable, not
// captured, written once whole and otherwise only read, whole or by
// field (a range loop's struct `for _, e := range list`, e.ch read twice).
func storedWholeOnce(v ssa.Value) bool {
	cell, ok := v.(*ssa.Alloc)
	if !ok || cell.Heap {
		return false
	}
	stores := 0
	for _, u := range *cell.Referrers() {
		switch u := u.(type) {
		case *ssa.Store:
			if u.Addr != cell {
				return false
			}
			stores++
		case *ssa.FieldAddr:
			for _, r := range *u.Referrers() {
				if ld, ok := r.(*ssa.UnOp); !ok || ld.Op != token.MUL {
					if _, ok := r.(*ssa.DebugRef); !ok {
						return false
					}
				}
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
	return stores == 1
}

// onlyLoaded reports whether the closure mc binds cell only to free
// variables that its function only loads.
func onlyLoaded(mc *ssa.MakeClosure, cell ssa.Value) bool {
	fn, ok := mc.Fn.(*ssa.Function)
	if !ok || len(fn.FreeVars) != len(mc.Bindings) {
		return false
	}
	for i, b := range mc.Bindings {
		if b != cell {
			continue
		}
		refs := fn.FreeVars[i].Referrers()
		if refs == nil {
			return false
		}
		for _, u := range *refs {
			if l, ok := u.(*ssa.UnOp); !ok || l.Op != token.MUL {
				return false
			}
		}
	}
	return true
}

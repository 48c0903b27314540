package locksets

import (
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// readerBiased finds the RLock methods of the package's reader-biased
// read-write mutexes and maps each to the inner sync.RWMutex field whose
// read lock it stands for (theine's RBMutex, a copy of puzpuzpuz/xsync's,
// itself BRAVO: Biased Locking for Reader-Writer Locks). Such an RLock,
// while the bias flag is on, takes no lock at all: it bumps an atomic
// reader slot and checks the flag again (rolling back if it went off);
// its slow path takes rw.RLock. Lock takes rw.Lock, turns the flag off
// and waits until every slot is zero. A writer and a fast reader then
// exclude each other: a reader that saw the flag on after its increment
// is counted before the writer's wait, which outlasts it; one that came
// later saw the flag off and went to rw. Without the rule the fast path's
// return holds nothing, the meet with the slow path holds nothing, and a
// Get under RLock and a Set under Lock look unguarded.
//
// The shape is checked from the code, not the names of the type or its
// package: for a type T of the package with a field rw of type
// sync.RWMutex and methods Lock, Unlock, RLock and RUnlock on *T,
//   - Lock locks rw itself, once, and after that atomically stores zero (or
//     false) to a field B of T and then loops on a condition that
//     atomically loads a field S of T (an array or slice of counters, or
//     of structs holding one), in a block the store dominates;
//   - RLock, in its body or the package's functions it calls, read-locks
//     rw and atomically increments S (a CompareAndSwap or an Add), then
//     atomically loads B in a block the increment dominates;
//   - RUnlock read-unlocks rw and atomically adds to S;
//   - Unlock unlocks rw.
//
// RLock's net effect is then a read lock of rw (the location of T's
// field: every instance's, as any mutex field). Assumed, not checked: that
// the wait loop covers every slot, that the re-check rolls the slot back
// where it found the flag off, that RLock returns without rw only from
// its fast path, and that the flag is turned on again only under rw (the
// protocol of the copies met). A Lock that does not wait
// for the slots, or an RLock that does not check the flag after its
// increment, keeps the fast path holding nothing.
func (a *solver) readerBiased() map[*ssa.Function]sharedloc.Loc {
	methods := make(map[*types.Named]map[string]*ssa.Function)
	for _, fn := range a.funcs {
		t := ptrRecv(fn)
		if t == nil || t.Obj().Pkg() != a.pkg {
			continue
		}
		switch fn.Name() {
		case "Lock", "Unlock", "RLock", "RUnlock":
			if methods[t] == nil {
				methods[t] = make(map[string]*ssa.Function)
			}
			methods[t][fn.Name()] = fn
		}
	}
	var out map[*ssa.Function]sharedloc.Loc
	for t, ms := range methods {
		lock, unlock, rlock, runlock := ms["Lock"], ms["Unlock"], ms["RLock"], ms["RUnlock"]
		if lock == nil || unlock == nil || rlock == nil || runlock == nil {
			continue
		}
		rw, locked, ok := a.innerRW(t, lock, model.Lock)
		if !ok || !a.locksOwn(unlock, rw, model.Unlock) || !a.locksOwn(rlock, rw, model.RLock) || !a.locksOwn(runlock, rw, model.RUnlock) {
			continue
		}
		flag := biasedProtocol(t, locked, a.reached(rlock), a.reached(runlock), rw.Obj.(*types.Var))
		if flag == nil || !a.flagOnUnderRW(t, flag, rw) {
			continue
		}
		if out == nil {
			out = make(map[*ssa.Function]sharedloc.Loc)
		}
		out[rlock] = rw
	}
	return out
}

// ptrRecv returns the named type T of a method on *T, or nil.
func ptrRecv(fn *ssa.Function) *types.Named {
	recv := fn.Signature.Recv()
	if recv == nil {
		return nil
	}
	p, ok := recv.Type().(*types.Pointer)
	if !ok {
		return nil
	}
	t, _ := p.Elem().(*types.Named)
	return t
}

// innerRW returns the field of t, of type sync.RWMutex, that fn takes by
// op in its own body, when there is exactly one such field and one such
// call, and that call.
func (a *solver) innerRW(t *types.Named, fn *ssa.Function, op model.LockOp) (sharedloc.Loc, ssa.Instruction, bool) {
	var rw sharedloc.Loc
	var at ssa.Instruction
	n := 0
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			lc, ok := a.calls[instr]
			if !ok || lc.op != op || lc.mutex.Kind != sharedloc.Field || lc.mutex.Elem || !fieldOfType(t, lc.mutex.Obj) {
				continue
			}
			rw, at, n = lc.mutex, instr, n+1
		}
	}
	return rw, at, n == 1 && types.TypeString(rw.Obj.Type(), nil) == "sync.RWMutex"
}

// locksOwn reports whether fn applies op to rw in its own body.
func (a *solver) locksOwn(fn *ssa.Function, rw sharedloc.Loc, op model.LockOp) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if lc, ok := a.calls[instr]; ok && lc.op == op && lc.mutex == rw {
				return true
			}
		}
	}
	return false
}

// reached returns fn and the functions of the package it calls
// statically, transitively (RLock's fast path in a helper: theine's
// fastRlock).
func (a *solver) reached(fn *ssa.Function) []*ssa.Function {
	seen := map[*ssa.Function]bool{fn: true}
	out := []*ssa.Function{fn}
	for i := 0; i < len(out); i++ {
		for _, b := range out[i].Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				callee := call.Common().StaticCallee()
				if callee == nil || seen[callee] || callee.Pkg == nil || callee.Pkg.Pkg != a.pkg || len(callee.Blocks) == 0 {
					continue
				}
				seen[callee] = true
				out = append(out, callee)
			}
		}
	}
	return out
}

// fieldOfType reports whether obj is a field of t's struct.
func fieldOfType(t *types.Named, obj types.Object) bool {
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for f := range st.Fields() {
		if f == obj {
			return true
		}
	}
	return false
}

// atomicOp is a sync/atomic operation on a field of the mutex type.
type atomicOp struct {
	kind  string // Load, Store, Add, CompareAndSwap, Swap
	field *types.Var
	call  ssa.CallInstruction
	arg   ssa.Value // the value stored or added, nil for a Load
}

// atomicOps returns fn's sync/atomic operations on fields of t: the
// functions (atomic.LoadInt32(&mu.rbias)) and the methods of its types
// (mu.rbias.Load()), each on an address reached from a field of t
// through indexing and the fields of elements (&mu.rslots[i].mu).
func atomicOps(t *types.Named, fn *ssa.Function) []atomicOp {
	var out []atomicOp
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(ssa.CallInstruction)
			if !ok || call.Common().IsInvoke() {
				continue
			}
			callee := call.Common().StaticCallee()
			if callee == nil || callee.Pkg == nil || callee.Pkg.Pkg.Path() != "sync/atomic" || len(call.Common().Args) == 0 {
				continue
			}
			var kind string
			for _, k := range []string{"CompareAndSwap", "Load", "Store", "Add", "Swap"} {
				if strings.HasPrefix(callee.Name(), k) {
					kind = k
					break
				}
			}
			args := call.Common().Args
			f := fieldOf(t, args[0])
			if kind == "" || f == nil {
				continue
			}
			op := atomicOp{kind: kind, field: f, call: call}
			if len(args) > 1 {
				op.arg = args[len(args)-1]
			}
			out = append(out, op)
		}
	}
	return out
}

// fieldOf returns the field of t that addr is the address of, or an
// element of, or nil.
func fieldOf(t *types.Named, addr ssa.Value) *types.Var {
	for {
		switch v := addr.(type) {
		case *ssa.FieldAddr:
			if p, ok := v.X.Type().Underlying().(*types.Pointer); ok && types.Identical(p.Elem(), t) {
				return t.Underlying().(*types.Struct).Field(v.Field)
			}
			addr = v.X
		case *ssa.IndexAddr:
			addr = v.X
		case *ssa.UnOp:
			if v.Op != token.MUL {
				return nil
			}
			addr = v.X
		default:
			return nil
		}
	}
}

// biasedProtocol checks the atomic half of the shape readerBiased says:
// a flag B that Lock clears after its locked call (rw.Lock) and then
// waits on the slots S, that RLock loads after incrementing S, and that
// RUnlock's Add on S undoes. It returns B, or nil.
func biasedProtocol(t *types.Named, locked ssa.Instruction, rlock, runlock []*ssa.Function, rw *types.Var) *types.Var {
	lockOps := atomicOps(t, locked.Parent())
	for _, clear := range lockOps {
		if clear.kind != "Store" || !isZero(clear.arg) || clear.field == rw || !precedes(locked, clear.call) {
			continue
		}
		for _, wait := range lockOps {
			if wait.kind != "Load" || wait.field == clear.field || wait.field == rw || !waitsOn(wait, clear) {
				continue
			}
			if increments(t, rlock, wait.field, clear.field) && adds(t, runlock, wait.field) {
				return clear.field
			}
		}
	}
	return nil
}

// flagOnUnderRW reports whether every atomic write of the package that
// may turn the flag on (a Store, Swap or CompareAndSwap of anything but
// zero, an Add) is made with rw held, or to a T the function allocates
// (its constructor): a writer holds rw while its slots drain and while
// it writes, so a flag turned on without rw (an Unlock that sets it
// after rw.Unlock, when the next writer may hold rw with the flag off)
// lets a fast reader in beside that writer (review33's r14).
func (a *solver) flagOnUnderRW(t *types.Named, flag *types.Var, rw sharedloc.Loc) bool {
	for _, fn := range a.funcs {
		for _, op := range atomicOps(t, fn) {
			if op.field != flag || op.kind == "Load" || op.kind != "Add" && isZero(op.arg) {
				continue
			}
			if fresh(t, op.call.Common().Args[0]) {
				continue
			}
			held := false
			for _, b := range fn.Blocks {
				for _, instr := range b.Instrs {
					lc, ok := a.calls[instr]
					if !ok || lc.mutex != rw || !precedes(instr, op.call) {
						continue
					}
					switch lc.op {
					case model.Lock, model.RLock:
						held = true
					default:
						return false
					}
				}
			}
			if !held {
				return false
			}
		}
	}
	return true
}

// fresh reports whether addr is the address of a field of a T allocated
// in addr's function.
func fresh(t *types.Named, addr ssa.Value) bool {
	for {
		switch v := addr.(type) {
		case *ssa.FieldAddr:
			addr = v.X
		case *ssa.Alloc:
			p, ok := v.Type().Underlying().(*types.Pointer)
			return ok && types.Identical(p.Elem(), t)
		default:
			return false
		}
	}
}

// waitsOn reports whether load's result decides a spin's condition (its
// block ends in an If on a comparison of it, and one branch can only come
// back to that block: see spins) in a block that clear's block
// dominates: Lock spins on the slot after turning the bias off.
func waitsOn(load, clear atomicOp) bool {
	v, ok := load.call.(*ssa.Call)
	if !ok {
		return false
	}
	for _, r := range *v.Referrers() {
		cmp, ok := r.(*ssa.BinOp)
		if !ok {
			continue
		}
		for _, rr := range *cmp.Referrers() {
			ifi, ok := rr.(*ssa.If)
			if !ok || !spins(ifi.Block()) {
				continue
			}
			cb, lb := clear.call.Block(), ifi.Block()
			if cb != lb && cb.Dominates(lb) {
				return true
			}
		}
	}
	return false
}

// spins reports whether one successor of b, which ends in an If, leads
// only back to b: every block reached from it without passing b goes on
// to b or to another such block, and none returns or panics. Then the
// If's other branch is the only way on, taken once the condition, which
// b computes again each time round, says so (`for atomic.LoadInt32(&s)
// > 0 { runtime.Gosched() }`). A check of each slot once inside a loop
// over the slots is no spin: its branch goes on to the next slot.
func spins(b *ssa.BasicBlock) bool {
	for _, s := range b.Succs {
		if backOnly(b, s) {
			return true
		}
	}
	return false
}

// backOnly reports whether every path from s leads back to b.
func backOnly(b, s *ssa.BasicBlock) bool {
	seen := map[*ssa.BasicBlock]bool{}
	work := []*ssa.BasicBlock{s}
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if x == b || seen[x] {
			continue
		}
		seen[x] = true
		if len(x.Succs) == 0 || len(seen) > len(b.Parent().Blocks) {
			return false
		}
		work = append(work, x.Succs...)
	}
	return true
}

// increments reports whether one of fns atomically increments slots (a
// CompareAndSwap to one more, or an Add of a positive constant) and then
// loads flag in a block the increment dominates, in the same function,
// with no other write of slots on the way (a roll-back before the check
// leaves the reader uncounted: review33's r1), and branches on what it
// loaded (a load whose value decides nothing checks nothing: r12).
func increments(t *types.Named, fns []*ssa.Function, slots, flag *types.Var) bool {
	for _, fn := range fns {
		ops := atomicOps(t, fn)
		for _, inc := range ops {
			if inc.field != slots || !positive(inc) {
				continue
			}
			for _, load := range ops {
				if load.field != flag || load.kind != "Load" || !precedes(inc.call, load.call) || !decides(load.call) {
					continue
				}
				between := false
				for _, o := range ops {
					if o.field == slots && o.kind != "Load" && o.call != inc.call && mayReach(inc.call, o.call) && mayReach(o.call, load.call) {
						between = true
					}
				}
				if !between {
					return true
				}
			}
		}
	}
	return false
}

// positive reports whether op, an Add or CompareAndSwap, adds a positive
// constant, or swaps in one more than something (n+1) or a positive
// constant.
func positive(op atomicOp) bool {
	pos := func(v ssa.Value) bool {
		c, ok := v.(*ssa.Const)
		return ok && c.Value != nil && c.Value.Kind() == constant.Int && constant.Sign(c.Value) > 0
	}
	switch op.kind {
	case "Add":
		return pos(op.arg)
	case "CompareAndSwap":
		if bin, ok := op.arg.(*ssa.BinOp); ok && bin.Op == token.ADD {
			return pos(bin.X) || pos(bin.Y)
		}
		return pos(op.arg)
	}
	return false
}

// decides reports whether the value load returns decides an If, itself
// or through a comparison.
func decides(load ssa.CallInstruction) bool {
	v, ok := load.(*ssa.Call)
	if !ok {
		return false
	}
	for _, r := range *v.Referrers() {
		switch r := r.(type) {
		case *ssa.If:
			return true
		case *ssa.BinOp:
			for _, rr := range *r.Referrers() {
				if _, ok := rr.(*ssa.If); ok {
					return true
				}
			}
		}
	}
	return false
}

// mayReach reports whether y may run after x in one run of their
// function.
func mayReach(x, y ssa.Instruction) bool {
	if x.Block() == y.Block() {
		for _, instr := range x.Block().Instrs {
			if instr == y {
				break
			}
			if instr == x {
				return true
			}
		}
	}
	seen := map[*ssa.BasicBlock]bool{}
	work := append([]*ssa.BasicBlock(nil), x.Block().Succs...)
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if b == y.Block() {
			return true
		}
		if !seen[b] {
			seen[b] = true
			work = append(work, b.Succs...)
		}
	}
	return false
}

// precedes reports whether x runs before y on every path to y: x's block
// dominates y's, and in one block x comes first.
func precedes(x, y ssa.Instruction) bool {
	if x.Block() != y.Block() {
		return x.Block().Dominates(y.Block())
	}
	for _, instr := range x.Block().Instrs {
		switch instr {
		case x:
			return true
		case y:
			return false
		}
	}
	return false
}

// adds reports whether one of fns atomically adds to slots.
func adds(t *types.Named, fns []*ssa.Function, slots *types.Var) bool {
	for _, fn := range fns {
		for _, op := range atomicOps(t, fn) {
			if op.field == slots && op.kind == "Add" {
				return true
			}
		}
	}
	return false
}

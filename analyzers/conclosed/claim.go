package conclosed

import (
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/concurrent"
	"github.com/precog-dev/precog/analyzers/internal/srcfuncs"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"

	"github.com/precog-dev/precog/analyzers/locksets"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// A claim is what a close of a channel held in a field of a map's values
// was claimed under: the map's location and the mutex held from the
// lookup that found the entry to the delete that removed it.
type claim struct{ m, mu sharedloc.Loc }

// claimed reports whether the closes a and b of one channel field are
// each the close of a channel taken out of a map's entry by a claim
// under one mutex, as in
//
//	c.mu.Lock()
//	v, ok := c.chans[k]
//	var ch chan struct{}
//	if ok {
//		ch = v.ch
//		delete(c.chans, k)
//	}
//	c.mu.Unlock()
//	if ch != nil {
//		close(ch)
//	}
//
// (centrifuge's subscribingCh), where the values stored in the map, structs
// or pointers to structs, are each made for their entry with a channel
// made for it. Each channel is then in one entry of the map, ever; a close
// runs only after its goroutine found the entry and deleted it with the
// mutex held in between, which one goroutine only does. The close may
// also come before the delete, in the section, on a path that always
// reaches it; and a goroutine that took the whole map out of its field
// under the mutex (takenClaim) has each of its entries alone.
func (c *checker) claimed(a, b *sharedloc.Access) bool {
	ca, ok := c.claimOf(a)
	if !ok {
		return false
	}
	cb, ok := c.claimOf(b)
	return ok && cb == ca
}

// sendClaimed reports whether the send s is on a channel it found in the
// map of the claim the close cl was claimed under, with the claim's mutex
// held from that lookup through the send, as a hub's Publish does:
//
//	h.mu.Lock()
//	if ch, ok := h.subs[k]; ok {
//		ch <- msg
//	}
//	h.mu.Unlock()
//
// The closer deletes the entry under that mutex before it closes: a send
// that found the channel ends before the delete, and one that looks after
// it finds nothing. (A select sends through each of its send cases.)
func (c *checker) sendClaimed(s, cl *sharedloc.Access) bool {
	cm, ok := c.claimOf(cl)
	if !ok {
		return false
	}
	var chans []ssa.Value
	switch in := s.Instr.(type) {
	case *ssa.Send:
		chans = append(chans, in.Chan)
	case *ssa.Select:
		for _, st := range in.States {
			if st.Dir == types.SendOnly {
				chans = append(chans, st.Chan)
			}
		}
	}
	if len(chans) == 0 {
		return false
	}
	locks := c.env.Locks.All()
	for _, ch := range chans {
		lk, ok := ch.(*ssa.Lookup)
		if !ok {
			lk = lookupOf(ch)
		}
		if lk == nil {
			return false
		}
		if ml, _, ok := c.mapOf(lk); !ok || ml != cm.m {
			return false
		}
		if _, ok := locks.At(lk).Lookup(cm.mu); !ok || !locks.HeldThrough(cm.mu, lk, s.Instr) {
			return false
		}
	}
	return true
}

func (c *checker) claimOf(cl *sharedloc.Access) (claim, bool) {
	if r, ok := c.claims[cl]; ok {
		return r.c, r.ok
	}
	cm, ok := c.findClaim(cl)
	c.claims[cl] = claimResult{cm, ok}
	return cm, ok
}

type claimResult struct {
	c  claim
	ok bool
}

func (c *checker) findClaim(cl *sharedloc.Access) (claim, bool) {
	f := cl.Loc.Holder()
	if cl.Op != sharedloc.ChanClose || !cl.Loc.Elem || f.Kind != sharedloc.Field || f.Cell != nil || !c.ownField(f.Obj) {
		return claim{}, false
	}
	// The channel is a field of the map's values, or (f a map of
	// channels) the map's value itself.
	_, direct := f.Obj.Type().Underlying().(*types.Map)
	call, ok := cl.Instr.(*ssa.Call)
	if !ok || len(call.Call.Args) != 1 {
		return claim{}, false
	}
	// The closed value: field loads, through phis whose other edges are
	// nil; each with the block the delete must have run in.
	type leaf struct {
		v  ssa.Value
		at ssa.Instruction // runs after the delete on the leaf's paths
		in *ssa.BasicBlock // or: the delete's block dominates it
	}
	var leaves []leaf
	var walk func(v ssa.Value, at ssa.Instruction, in *ssa.BasicBlock, depth int) bool
	walk = func(v ssa.Value, at ssa.Instruction, in *ssa.BasicBlock, depth int) bool {
		if depth == 0 {
			return false
		}
		if k, ok := v.(*ssa.Const); ok && k.IsNil() {
			return true
		}
		if phi, ok := v.(*ssa.Phi); ok {
			for i, e := range phi.Edges {
				if !walk(e, nil, phi.Block().Preds[i], depth-1) {
					return false
				}
			}
			return true
		}
		leaves = append(leaves, leaf{v, at, in})
		return true
	}
	if !walk(call.Call.Args[0], call, nil, 4) || len(leaves) == 0 {
		return claim{}, false
	}
	locks := c.env.Locks.All()
	var out claim
	for i, l := range leaves {
		entry := l.v
		if !direct {
			entry = entryOfField(l.v, f.Obj)
		}
		if entry == nil {
			return claim{}, false
		}
		var cm claim
		if lk := lookupOf(entry); lk != nil {
			okv := extractOf(lk, 1)
			cm, ok = c.claimAt(locks, lk, func(del ssa.Instruction) bool {
				if l.at != nil {
					// The close after the delete, or before it in the
					// section, on a path that always reaches it.
					return ssaflow.Dominates(del, l.at) || okv != nil && onGuard(del, okv) && guardedBy(l.at, okv) ||
						ssaflow.Dominates(lk, l.at) && alwaysReaches(l.at, del)
				}
				return del.Block().Dominates(l.in)
			})
		} else {
			cm, ok = c.takenClaim(locks, entry)
		}
		if !ok || (i > 0 && cm != out) {
			return claim{}, false
		}
		out = cm
	}
	if direct && (out.m != cl.Loc || !c.freshChans(out.m)) || !direct && !c.freshEntries(f, out.m) {
		return claim{}, false
	}
	return out, true
}

// ownField reports whether obj is an unexported field of a struct of
// this package, which only this package writes.
func (c *checker) ownField(obj types.Object) bool {
	return obj != nil && !obj.Exported() && obj.Pkg() == c.env.Pass.Pkg
}

// entryOfField returns the map's value that v loads field f of: v.f of
// the value found, of the pointer found, or of a local variable the value
// found was stored in and that nothing else writes.
func entryOfField(v ssa.Value, f types.Object) ssa.Value {
	var base ssa.Value
	switch x := v.(type) {
	case *ssa.Field:
		if fieldVar(x.X.Type(), x.Field) != f {
			return nil
		}
		base = x.X
	case *ssa.UnOp:
		fa, ok := x.X.(*ssa.FieldAddr)
		if x.Op != token.MUL || !ok || fieldVar(fa.X.Type(), fa.Field) != f {
			return nil
		}
		base = fa.X
		if al, ok := fa.X.(*ssa.Alloc); ok {
			// The value found, copied to a local: the one store to
			// it, before the load, and no writes of the field.
			base = onlyStored(al, f, x)
		}
	default:
		return nil
	}
	return base
}

// alwaysReaches reports whether every path from `from` reaches `to`, in
// one function: none leaves it, through a return or a panic, without.
func alwaysReaches(from, to ssa.Instruction) bool {
	fb, tb := from.Block(), to.Block()
	if fb == tb && slices.Index(fb.Instrs, from) < slices.Index(fb.Instrs, to) {
		return true
	}
	seen := map[*ssa.BasicBlock]bool{}
	work := slices.Clone(fb.Succs)
	if len(work) == 0 {
		return false
	}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if b == tb || seen[b] {
			continue
		}
		seen[b] = true
		if len(b.Succs) == 0 {
			return false
		}
		work = append(work, b.Succs...)
	}
	return true
}

// takenClaim returns the claim of v, an entry found by ranging over a map
// that its goroutine took whole from its field: read it and put nil or a
// fresh map there, with no call between, holding a mutex in write mode
// throughout (`states := c.pending; c.pending = nil`). The taker has that
// map alone: each map the field holds (ownMaps) is taken once, and a
// lookup under the mutex after the take finds the new one.
func (c *checker) takenClaim(locks *locksets.Solution, v ssa.Value) (claim, bool) {
	ex, ok := v.(*ssa.Extract)
	if !ok || ex.Index != 2 {
		return claim{}, false
	}
	next, ok := ex.Tuple.(*ssa.Next)
	if !ok || next.IsString {
		return claim{}, false
	}
	rng, ok := next.Iter.(*ssa.Range)
	if !ok {
		return claim{}, false
	}
	load, ok := rng.X.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return claim{}, false
	}
	fa, ok := load.X.(*ssa.FieldAddr)
	if !ok {
		return claim{}, false
	}
	var m sharedloc.Loc
	n := 0
	for _, a := range c.env.Shared.ByInstr[rng] {
		if a.Op == sharedloc.MapRange {
			m = a.Loc
			n++
		}
	}
	if n != 1 || m.Kind != sharedloc.Field || m.Cell != nil || !c.ownField(m.Obj) {
		return claim{}, false
	}
	if l, ok := sharedloc.AddrLoc(fa); !ok || l != m.Holder() {
		return claim{}, false
	}
	var take *ssa.Store
	instrs := load.Block().Instrs
	for _, in := range instrs[slices.Index(instrs, ssa.Instruction(load))+1:] {
		if st, ok := in.(*ssa.Store); ok {
			if sa, ok := st.Addr.(*ssa.FieldAddr); ok && sa.X == fa.X && sa.Field == fa.Field {
				if _, made := st.Val.(*ssa.MakeMap); made || ssavalue.IsNil(st.Val) {
					take = st
				}
				break
			}
		}
		if call, ok := in.(ssa.CallInstruction); ok {
			if _, ok := call.Common().Value.(*ssa.Builtin); !ok {
				break
			}
		}
	}
	if take == nil {
		return claim{}, false
	}
	for _, h := range locks.At(load) {
		if h.Mode == locksets.Write && locks.HeldThrough(h.Mutex, load, take) {
			return claim{m: m, mu: h.Mutex}, true
		}
	}
	return claim{}, false
}

// lookupOf returns the comma-ok lookup of a map whose value found v is.
func lookupOf(v ssa.Value) *ssa.Lookup {
	ex, ok := v.(*ssa.Extract)
	if !ok || ex.Index != 0 {
		return nil
	}
	lk, ok := ex.Tuple.(*ssa.Lookup)
	if !ok || !lk.CommaOk {
		return nil
	}
	if _, ok := lk.X.Type().Underlying().(*types.Map); !ok {
		return nil
	}
	return lk
}

// onlyStored returns the value stored in the local al, when it is stored
// once, whole, before the load, and its field f is never written nor its
// address taken other than to load it.
func onlyStored(al *ssa.Alloc, f types.Object, load ssa.Instruction) ssa.Value {
	if al.Heap {
		return nil
	}
	var val ssa.Value
	for _, r := range *al.Referrers() {
		switch r := r.(type) {
		case *ssa.Store:
			if r.Addr != al || val != nil || !ssaflow.Dominates(r, load) {
				return nil
			}
			val = r.Val
		case *ssa.FieldAddr:
			if fieldVar(al.Type(), r.Field) == f {
				for _, u := range *r.Referrers() {
					if op, ok := u.(*ssa.UnOp); !ok || op.Op != token.MUL {
						return nil
					}
				}
			}
		case *ssa.UnOp:
			if r.Op != token.MUL {
				return nil
			}
		default:
			if _, ok := r.(*ssa.DebugRef); !ok {
				return nil
			}
		}
	}
	return val
}

// fieldVar returns field i of the struct t, or of the struct t points to.
func fieldVar(t types.Type, i int) types.Object {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok || i >= st.NumFields() {
		return nil
	}
	return st.Field(i).Origin()
}

// claimAt finds, for the lookup lk, a delete of the same key from the
// same map that runs only where the lookup found the entry, with a mutex
// held in write mode from the lookup to the delete, and for which after
// holds.
func (c *checker) claimAt(locks *locksets.Solution, lk *ssa.Lookup, after func(ssa.Instruction) bool) (claim, bool) {
	ml, mb, ok := c.mapOf(lk)
	if !ok {
		return claim{}, false
	}
	okv := extractOf(lk, 1)
	if okv == nil {
		return claim{}, false
	}
	for _, b := range lk.Parent().Blocks {
		for _, in := range b.Instrs {
			call, ok := in.(*ssa.Call)
			if !ok {
				continue
			}
			bi, ok := call.Call.Value.(*ssa.Builtin)
			if !ok || bi.Name() != "delete" || !concurrent.SameValue(call.Call.Args[1], lk.Index) || !after(call) || !guardedBy(call, okv) {
				continue
			}
			dl, db, ok := c.mapOf(call)
			if !ok || dl != ml || db != mb {
				continue
			}
			for _, h := range locks.At(lk) {
				if h.Mode == locksets.Write && locks.HeldThrough(h.Mutex, lk, call) {
					return claim{m: ml, mu: h.Mutex}, true
				}
			}
		}
	}
	return claim{}, false
}

// mapOf returns the one location (a field of this package) and the root
// of the map that the lookup or delete instr reads or writes.
func (c *checker) mapOf(instr ssa.Instruction) (sharedloc.Loc, ssa.Value, bool) {
	var loc sharedloc.Loc
	var base ssa.Value
	n := 0
	for _, a := range c.env.Shared.ByInstr[instr] {
		if a.Op != sharedloc.MapLookup && a.Op != sharedloc.MapDelete {
			continue
		}
		loc, base = a.Loc, a.Base
		n++
	}
	if n != 1 || base == nil || loc.Kind != sharedloc.Field || loc.Cell != nil || !c.ownField(loc.Obj) {
		return sharedloc.Loc{}, nil, false
	}
	return loc, base, true
}

func extractOf(t ssa.Value, i int) *ssa.Extract {
	for _, r := range *t.Referrers() {
		if ex, ok := r.(*ssa.Extract); ok && ex.Index == i {
			return ex
		}
	}
	return nil
}

// onGuard reports whether instr is in the block that the true branch of
// an if on cond enters, which it reaches from that if alone: instr runs
// whenever cond holds there (`if ok { delete(m, k) }`, and later, on
// another `if ok`, the close).
func onGuard(instr ssa.Instruction, cond ssa.Value) bool {
	for _, r := range *cond.Referrers() {
		if ifi, ok := r.(*ssa.If); ok {
			if t := ifi.Block().Succs[0]; t == instr.Block() && len(t.Preds) == 1 {
				return true
			}
		}
	}
	return false
}

// guardedBy reports whether instr runs only on the true branch of an if
// on cond, or on a value true only where cond is (`owns := ok && gen ==
// want; if owns { ... }`).
func guardedBy(instr ssa.Instruction, cond ssa.Value) bool {
	return guardedDepth(instr, cond, 3)
}

func guardedDepth(instr ssa.Instruction, cond ssa.Value, depth int) bool {
	for _, b := range instr.Parent().Blocks {
		ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		t := b.Succs[0]
		if len(t.Preds) == 1 && t.Dominates(instr.Block()) && implies(ifi.Cond, cond, depth) {
			return true
		}
	}
	return false
}

// implies reports whether v is true only where cond is: v is cond, or a
// phi (of && and ||) each of whose edges is false, or implies cond, or
// comes from a block that runs only where cond holds.
func implies(v, cond ssa.Value, depth int) bool {
	if v == cond {
		return true
	}
	phi, ok := v.(*ssa.Phi)
	if !ok || depth == 0 {
		return false
	}
	for i, e := range phi.Edges {
		if k, ok := e.(*ssa.Const); ok && k.Value != nil && k.Value.Kind() == constant.Bool && !constant.BoolVal(k.Value) {
			continue
		}
		pred := phi.Block().Preds[i]
		if !implies(e, cond, depth-1) && !guardedDepth(pred.Instrs[len(pred.Instrs)-1], cond, depth-1) {
			return false
		}
	}
	return true
}

// freshEntries reports whether every value the package stores in the map
// at location m is made for its entry, with a channel made for it in its
// field f: the map's field only ever holds a map made for it, read only
// to look up, update, delete from, range over, measure or compare with
// nil; each update stores a struct built in place and stored once, or a
// pointer to a struct made in its function (madeFor) that no other update
// stores; and every write of the field f stores a channel made for it, or
// nil, in such a struct.
func (c *checker) freshEntries(f, m sharedloc.Loc) bool {
	key := [2]sharedloc.Loc{f, m}
	if r, ok := c.fresh2[key]; ok {
		return r
	}
	r := c.freshEntries1(f, m)
	c.fresh2[key] = r
	return r
}

func (c *checker) freshEntries1(f, m sharedloc.Loc) bool {
	mt, ok := m.Obj.Type().Underlying().(*types.Map)
	if !ok {
		return false
	}
	elem := mt.Elem()
	if p, ok := elem.Underlying().(*types.Pointer); ok {
		elem = p.Elem()
	}
	st, ok := elem.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	direct := false
	for i := range st.NumFields() {
		direct = direct || st.Field(i).Origin() == f.Obj
	}
	if !direct || c.storedWhole(elem) {
		return false
	}
	for _, a := range c.env.Shared.ByLoc[f] {
		switch a.Op {
		case sharedloc.Load:
		case sharedloc.Store:
			fa, ok := a.Ptr.(*ssa.FieldAddr)
			if !ok || !madeChanOrNil(a.Val) {
				return false
			}
			if _, ok := fa.X.(*ssa.Alloc); !ok {
				return false
			}
		default:
			return false
		}
	}
	if !c.ownMaps(m) {
		return false
	}
	made := make(map[*ssa.Alloc]bool) // pointers stored, by allocation
	for _, a := range c.env.Shared.ByLoc[m] {
		if a.Op != sharedloc.MapUpdate {
			continue
		}
		up, ok := a.Instr.(*ssa.MapUpdate)
		if !ok {
			return false
		}
		if builtInPlace(up.Value, up) {
			continue
		}
		al, ok := madeFor(up.Value, up)
		if !ok || made[al] {
			return false
		}
		made[al] = true
	}
	return true
}

// freshChans reports whether every channel the package stores in the map
// of channels at location m is made for its entry: the map's field holds
// only maps made for it (ownMaps), and each update stores a channel made
// in its function that no other update stores (a registry's
// `ch := make(chan struct{}); r.done[k] = ch; return ch`).
func (c *checker) freshChans(m sharedloc.Loc) bool {
	if r, ok := c.fresh2[[2]sharedloc.Loc{m, m}]; ok {
		return r
	}
	r := c.ownMaps(m)
	for _, a := range c.env.Shared.ByLoc[m] {
		if !r {
			break
		}
		if a.Op != sharedloc.MapUpdate {
			continue
		}
		up, ok := a.Instr.(*ssa.MapUpdate)
		mk, made := up.Value.(*ssa.MakeChan)
		if !ok || !made {
			r = false
			break
		}
		for _, u := range *mk.Referrers() {
			if other, ok := u.(*ssa.MapUpdate); ok && other != up || !chanUse(u, mk) {
				r = false
			}
		}
	}
	c.fresh2[[2]sharedloc.Loc{m, m}] = r
	return r
}

// chanUse reports whether r, a referrer of the channel mk, uses it
// without storing it anywhere a second entry could get it from: a map
// update, a channel operation, a return or a close.
func chanUse(r ssa.Instruction, mk ssa.Value) bool {
	switch r := r.(type) {
	case *ssa.MapUpdate:
		return r.Value == mk && r.Key != mk
	case *ssa.Send:
		return r.X != mk
	case *ssa.UnOp:
		return r.Op == token.ARROW
	case *ssa.Select, *ssa.Return, *ssa.DebugRef:
		return true
	case *ssa.ChangeType:
		return true // to a receive-only channel, to return
	case *ssa.Call:
		b, ok := r.Call.Value.(*ssa.Builtin)
		return ok && (b.Name() == "close" || b.Name() == "len" || b.Name() == "cap")
	}
	return false
}

// ownMaps reports whether the field holding the map at m (a map's
// contents) only ever holds maps made for it, and is read only to look
// up, update, delete from, range over, measure or compare with nil.
func (c *checker) ownMaps(m sharedloc.Loc) bool {
	for _, a := range c.env.Shared.ByLoc[m.Holder()] {
		switch a.Op {
		case sharedloc.Load:
			for _, r := range *a.Instr.(ssa.Value).Referrers() {
				if !mapUse(r, a.Instr.(ssa.Value)) {
					return false
				}
			}
		case sharedloc.Store:
			if _, ok := a.Val.(*ssa.MakeMap); !ok && !ssavalue.IsNil(a.Val) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// storedWhole reports whether the package stores a whole value of the
// struct type t anywhere but in a local or a struct made in place (as *p =
// *q, which would copy one entry's channel into another's struct).
func (c *checker) storedWhole(t types.Type) bool {
	in := c.env.Pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
	for _, fn := range append(slices.Clip(srcfuncs.Of(in)), in.Pkg.Func("init")) {
		if fn == nil {
			continue
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				st, ok := instr.(*ssa.Store)
				if !ok || !types.Identical(st.Val.Type(), t) {
					continue
				}
				if _, ok := st.Addr.(*ssa.Alloc); !ok {
					return true
				}
			}
		}
	}
	return false
}

// mapUse reports whether r, a referrer of the map value v, only looks
// up, updates, deletes from, ranges over, measures or compares it with
// nil.
func mapUse(r ssa.Instruction, v ssa.Value) bool {
	switch r := r.(type) {
	case *ssa.Lookup:
		return r.X == v
	case *ssa.MapUpdate:
		return r.Map == v && r.Value != v && r.Key != v
	case *ssa.Range:
		return true
	case *ssa.BinOp:
		return (r.Op == token.EQL || r.Op == token.NEQ) && (ssavalue.IsNil(r.X) || ssavalue.IsNil(r.Y))
	case *ssa.Call:
		if b, ok := r.Call.Value.(*ssa.Builtin); ok {
			switch b.Name() {
			case "delete", "len":
				return true
			}
		}
	case *ssa.DebugRef:
		return true
	}
	return false
}

// builtInPlace reports whether v, stored by the update up, is a struct
// built in place (the load of a local whose fields alone were written),
// used for nothing but its fields and this one update.
func builtInPlace(v ssa.Value, up ssa.Instruction) bool {
	x, ok := v.(*ssa.UnOp)
	if !ok {
		return false
	}
	al, ok := x.X.(*ssa.Alloc)
	if x.Op != token.MUL || !ok || al.Heap {
		return false
	}
	if refs := *x.Referrers(); len(refs) != 1 || refs[0] != up {
		return false
	}
	others := 0
	for _, r := range *al.Referrers() {
		switch r := r.(type) {
		case *ssa.FieldAddr:
			for _, u := range *r.Referrers() {
				switch u := u.(type) {
				case *ssa.Store:
					if u.Addr != r {
						return false
					}
				case *ssa.UnOp:
					if u.Op != token.MUL {
						return false
					}
				default:
					return false
				}
			}
		case *ssa.DebugRef:
		default:
			if r != x {
				return false
			}
			others++
		}
	}
	return others == 1
}

// madeFor returns the allocation whose pointer v, stored by the update up,
// is: a pointer to a struct made in up's function, directly or through a
// local variable that only its function writes (one the function's
// deferred literal reads), with up running at most once for each time the
// allocation does: no path leads from up back to it without running the
// allocation. The pointer may go anywhere else too (back to its maker, to
// match the entry by identity later).
func madeFor(v ssa.Value, up ssa.Instruction) (*ssa.Alloc, bool) {
	if ld, ok := v.(*ssa.UnOp); ok && ld.Op == token.MUL {
		vals, ok := ssavalue.ReachingStores(ld)
		if !ok || len(vals) != 1 {
			return nil, false
		}
		v = vals[0]
	}
	al, ok := v.(*ssa.Alloc)
	if !ok || !al.Heap || al.Parent() != up.Parent() {
		return nil, false
	}
	seen := map[*ssa.BasicBlock]bool{}
	work := slices.Clone(up.Block().Succs)
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if b == al.Block() || seen[b] {
			continue // entering al's block runs al first
		}
		if b == up.Block() {
			return nil, false
		}
		seen[b] = true
		work = append(work, b.Succs...)
	}
	return al, true
}

func madeChanOrNil(v ssa.Value) bool {
	_, ok := v.(*ssa.MakeChan)
	return ok || ssavalue.IsNil(v)
}

package ordering

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// A hand-off through a value that carries its reply channel (pion/dtls's
// reader and handshake goroutines):
//
//	// goroutine A                     // goroutine B
//	x()                                v := <-ch
//	s := state{done: make(chan T)}     y()
//	ch <- s                            close(v.done)
//	<-s.done
//	z()
//
// B runs y only while it holds a value that A sent, between the receive
// and the close (or send) on the channel the value carries; A, the only
// goroutine that sends on ch, is then blocked on that channel, which was
// made for this send alone and which only the holder of the value closes.
// So every run of y follows A's x (the send happens before the receive)
// and precedes A's z (the close happens before the receive it lets
// through): each pair of runs is ordered, one way or the other, and the
// two never overlap. Ordered answers so (Rule Handoff); Before does not,
// as the direction depends on the run.

// handoffDepth bounds how many call sites a hand-off's holder is followed
// up through, from the access to the function that receives the value.
const handoffDepth = 8

// A holding is a receive of a value that carries a reply channel in a
// struct field, with the closes or sends on that field that end the hold.
type holding struct {
	loc   sharedloc.Loc // the channel the value came from
	recv  ssa.Instruction
	start ssa.Instruction // the first instruction that runs holding it
	case_ bool            // start is a select case's first instruction
	st    types.Type      // the carrier's struct type
	field int
	ends  []ssa.Instruction
}

type heldKey struct {
	b  ssa.Instruction
	cb *goroutines.Context
}

type handKey struct {
	h  *holding
	ca *goroutines.Context
}

// handoffOrdered reports whether b, on cb, runs only while cb holds a value
// sent by a's goroutine alone, which waits for the value's reply channel
// right after each send (see the comment above).
func (r *Result) handoffOrdered(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	if ca == cb || !slices.Contains(r.gr.Of(a.Parent()), ca) {
		return Edge{}, false
	}
	hs, ok := r.heldAt(b, cb)
	if !ok {
		return Edge{}, false
	}
	for _, h := range hs {
		if !r.handsOff(h, ca) {
			return Edge{}, false
		}
	}
	return Edge{Rule: Handoff, Pos: hs[0].recv.Pos()}, true
}

// heldBefore reports whether a, on cb, runs only while cb holds a value
// handed off by b's goroutine (as handoffOrdered asks), and no send of
// such a value may follow b there: b's goroutine has sent each value a
// may run under, and waited for its reply, before b (pion/dtls's reader
// closes c.decrypted in a deferred function of its loop, after its last
// hand-off, and the handshake goroutine sends on it only while it holds
// one).
func (r *Result) heldBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	if ca == cb || !slices.Contains(r.gr.Of(b.Parent()), cb) {
		return Edge{}, false
	}
	hs, ok := r.heldAt(a, ca)
	if !ok {
		return Edge{}, false
	}
	for _, h := range hs {
		if !r.handsOff(h, cb) {
			return Edge{}, false
		}
		for _, x := range r.ops.sends[h.loc] {
			if !r.before(x, b, cb, MaxCallDepth) {
				return Edge{}, false
			}
		}
	}
	return Edge{Rule: Handoff, Pos: hs[0].recv.Pos()}, true
}

// heldAt returns the holdings under which b runs on every path of cb, up
// to handoffDepth calls up, memoized by (b, cb).
func (r *Result) heldAt(b ssa.Instruction, cb *goroutines.Context) ([]*holding, bool) {
	k := heldKey{b, cb}
	r.mu.Lock()
	hs, known := r.helds[k]
	r.mu.Unlock()
	if known {
		return hs, hs != nil
	}
	var ok bool
	_, asked := r.query(func(steps *int) bool {
		hs, ok = r.heldSteps(b, cb, handoffDepth, steps)
		return ok
	})
	if !ok {
		hs = nil
	}
	if asked {
		r.mu.Lock()
		if r.helds == nil {
			r.helds = make(map[heldKey][]*holding)
		}
		r.helds[k] = hs
		r.mu.Unlock()
	}
	return hs, hs != nil
}

func (r *Result) heldSteps(b ssa.Instruction, cb *goroutines.Context, depth int, steps *int) ([]*holding, bool) {
	if *steps++; *steps > maxQuerySteps {
		return nil, false
	}
	if _, deferred := b.(*ssa.Defer); !deferred {
		var out []*holding
		for _, h := range r.holdingsIn(b.Parent(), cb) {
			if r.inHold(h, b) {
				out = append(out, h)
			}
		}
		if len(out) > 0 {
			return out, true
		}
	}
	if depth == 0 || b.Parent() == cb.Entry {
		return nil, false
	}
	sites := r.callSites(b.Parent(), cb)
	if len(sites) == 0 {
		return nil, false
	}
	var out []*holding
	for _, s := range sites {
		hs, ok := r.heldSteps(s, cb, depth-1, steps)
		if !ok {
			return nil, false
		}
		for _, h := range hs {
			if !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	return out, true
}

// inHold reports whether s runs after h's receive and before any of its
// ends, within the function: the receive dominates s and no end may run
// between them.
func (r *Result) inHold(h *holding, s ssa.Instruction) bool {
	flow := r.gr.Flow
	if !(s == h.start && h.case_ || s != h.start && flow.Dominates(h.start, s)) {
		return false
	}
	for _, e := range h.ends {
		if e == s || flow.MayFollowAvoiding(e, s, h.recv) {
			return false
		}
	}
	return true
}

// holdingsIn returns fn's receives, on the goroutines of c, of a value
// carrying a reply channel that the function closes or sends on,
// memoized.
func (r *Result) holdingsIn(fn *ssa.Function, c *goroutines.Context) []*holding {
	k := holdKey{fn, c}
	r.mu.Lock()
	hs, ok := r.holdings[k]
	r.mu.Unlock()
	if ok {
		return hs
	}
	hs = r.findHoldings(fn, c)
	r.mu.Lock()
	if r.holdings == nil {
		r.holdings = make(map[holdKey][]*holding)
	}
	r.holdings[k] = hs
	r.mu.Unlock()
	return hs
}

type holdKey struct {
	fn *ssa.Function
	c  *goroutines.Context
}

func (r *Result) findHoldings(fn *ssa.Function, c *goroutines.Context) []*holding {
	var out []*holding
	for _, blk := range fn.Blocks {
		for _, instr := range blk.Instrs {
			for _, acc := range r.shared.ByInstr[instr] {
				if acc.Op != sharedloc.ChanRecv {
					continue
				}
				var v ssa.Value
				start, isCase := instr, false
				switch x := instr.(type) {
				case *ssa.UnOp:
					v = x
					if x.CommaOk {
						v = extract(x, 0)
					}
				case *ssa.Select:
					idx, n := -1, 0
					for i, st := range x.States {
						if st.Dir != types.RecvOnly {
							continue
						}
						if st.Chan == acc.Ptr {
							idx = i
							v = extract(x, 2+n)
						}
						n++
					}
					if idx < 0 {
						continue
					}
					start, isCase = ssaflow.SelectCase(x, acc.Ptr), true
				}
				if v == nil || start == nil {
					continue
				}
				st, ptr := carrierStruct(v.Type())
				if st == nil {
					continue
				}
				// A value stored in a local variable once, read there.
				carrier := v
				if !ptr {
					if lv := storedOnce(v); lv != nil {
						carrier, ptr = lv, true
					}
				}
				ends := map[int][]ssa.Instruction{}
				for _, u := range *carrier.Referrers() {
					k, ch := fieldRead(u, carrier, ptr)
					if ch == nil {
						continue
					}
					for _, e := range *ch.Referrers() {
						if isChanEnd(e, ch) {
							ends[k] = append(ends[k], e)
						}
					}
				}
				loc := r.handedLoc(acc, c)
				for k := 0; k < st.Underlying().(*types.Struct).NumFields(); k++ {
					if len(ends[k]) > 0 {
						out = append(out, &holding{loc: loc, recv: instr, start: start, case_: isCase, st: st, field: k, ends: ends[k]})
					}
				}
			}
		}
	}
	return out
}

// handedLoc returns the location of the channel a receive takes from: the
// access's own, or, when nothing sends on that and the channel is what a
// call returns (pion/dtls's conn.recvHandshake(), through an interface),
// the one location every callee's every return loads it from. A method
// called through an interface whose value comes, on c, from values of
// known types (through parameters, up to MaxCallDepth calls) has only
// those types' methods as callees: a test's fake of the interface
// returns a channel of its own, sent on by the test.
func (r *Result) handedLoc(acc *sharedloc.Access, c *goroutines.Context) sharedloc.Loc {
	if len(r.ops.sends[acc.Loc]) > 0 {
		return acc.Loc
	}
	call, ok := acc.Ptr.(*ssa.Call)
	if !ok {
		return acc.Loc
	}
	var loc *sharedloc.Loc
	callees := r.gr.CallGraph.Callees(call)
	if call.Call.IsInvoke() {
		if ts, ok := r.dynamicTypes(call.Call.Value, c, MaxCallDepth); ok {
			callees = slices.DeleteFunc(slices.Clone(callees), func(fn *ssa.Function) bool {
				recv := fn.Signature.Recv()
				return recv == nil || !slices.ContainsFunc(ts, func(t types.Type) bool { return types.Identical(t, recv.Type()) })
			})
		}
	}
	for _, fn := range callees {
		if len(fn.Blocks) == 0 {
			return acc.Loc
		}
		for _, ret := range ssaflow.Returns(fn) {
			if len(ret.Results) != 1 {
				return acc.Loc
			}
			locs := r.shared.Objects(ret.Results[0])
			if len(locs) != 1 || loc != nil && *loc != locs[0].Contents() {
				return acc.Loc
			}
			l := locs[0].Contents()
			loc = &l
		}
	}
	if loc == nil {
		return acc.Loc
	}
	return *loc
}

// dynamicTypes returns the types of the values the interface value v may
// hold on the goroutines of c: made from a concrete value, or a parameter
// whose every call site on c passes such values (up to depth calls up).
func (r *Result) dynamicTypes(v ssa.Value, c *goroutines.Context, depth int) ([]types.Type, bool) {
	switch v := v.(type) {
	case *ssa.MakeInterface:
		return []types.Type{v.X.Type()}, true
	case *ssa.ChangeInterface:
		return r.dynamicTypes(v.X, c, depth)
	case *ssa.Parameter:
		fn := v.Parent()
		idx := slices.Index(fn.Params, v)
		if depth == 0 || idx < 0 || fn == c.Entry {
			return nil, false
		}
		sites := r.callSites(fn, c)
		if len(sites) == 0 {
			return nil, false
		}
		var out []types.Type
		for _, s := range sites {
			call, ok := s.(*ssa.Call)
			if !ok {
				return nil, false
			}
			args := call.Call.Args
			if call.Call.IsInvoke() {
				args = append([]ssa.Value{call.Call.Value}, args...)
			} else if callgraph.StaticCallee(&call.Call) != fn {
				return nil, false
			}
			if idx >= len(args) {
				return nil, false
			}
			ts, ok := r.dynamicTypes(args[idx], c, depth-1)
			if !ok {
				return nil, false
			}
			out = append(out, ts...)
		}
		return out, true
	}
	return nil, false
}

// storedOnce returns the local variable (a non-heap Alloc of the
// function) that v is stored in, when that store is the variable's only
// one, or nil.
func storedOnce(v ssa.Value) *ssa.Alloc {
	var lv *ssa.Alloc
	for _, u := range *v.Referrers() {
		if st, ok := u.(*ssa.Store); ok && st.Val == v {
			if al, ok := st.Addr.(*ssa.Alloc); ok && !al.Heap && lv == nil {
				lv = al
			}
		}
	}
	if lv == nil {
		return nil
	}
	for _, u := range *lv.Referrers() {
		if st, ok := u.(*ssa.Store); ok && st.Val != v {
			return nil
		}
	}
	return lv
}

// extract returns the Extract #i of the tuple v, or nil.
func extract(v ssa.Value, i int) ssa.Value {
	for _, u := range *v.(ssa.Value).Referrers() {
		if ex, ok := u.(*ssa.Extract); ok && ex.Index == i {
			return ex
		}
	}
	return nil
}

// carrierStruct returns the type of the struct a carrier value is, or
// points to (named or not: two named types with one struct are told
// apart), or nil.
func carrierStruct(t types.Type) (types.Type, bool) {
	ptr := false
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t, ptr = p.Elem(), true
	}
	if _, ok := t.Underlying().(*types.Struct); !ok {
		return nil, ptr
	}
	return t, ptr
}

// fieldRead returns the field index and the channel value when u reads a
// channel field of v: Field of a struct value, or a load through FieldAddr
// of a pointer.
func fieldRead(u ssa.Instruction, v ssa.Value, ptr bool) (int, ssa.Value) {
	switch u := u.(type) {
	case *ssa.Field:
		if !ptr && u.X == v {
			if _, ok := u.Type().Underlying().(*types.Chan); ok {
				return u.Field, u
			}
		}
	case *ssa.FieldAddr:
		if ptr && u.X == v {
			for _, l := range *u.Referrers() {
				if ld, ok := l.(*ssa.UnOp); ok && ld.Op == token.MUL {
					if _, ok := ld.Type().Underlying().(*types.Chan); ok {
						return u.Field, ld
					}
				}
			}
		}
	}
	return -1, nil
}

// isChanEnd reports whether e closes or sends on ch.
func isChanEnd(e ssa.Instruction, ch ssa.Value) bool {
	switch e := e.(type) {
	case *ssa.Send:
		return e.Chan == ch
	case *ssa.Call:
		bi, ok := e.Call.Value.(*ssa.Builtin)
		return ok && bi.Name() == "close" && len(e.Call.Args) == 1 && e.Call.Args[0] == ch
	case *ssa.Select:
		for _, st := range e.States {
			if st.Dir == types.SendOnly && st.Chan == ch {
				return true
			}
		}
	}
	return false
}

// handsOff reports whether every send on h's channel is made on the
// goroutines of ca alone (each its own channel when ca is Multi), of a
// value whose reply field holds a channel made for that send, followed at
// once by a plain receive from it; and whether every close or send on
// that field anywhere is an end of a holding of a value received from
// h's channel. Memoized by (h, ca).
func (r *Result) handsOff(h *holding, ca *goroutines.Context) bool {
	k := handKey{h, ca}
	r.mu.Lock()
	ok, known := r.hands[k]
	r.mu.Unlock()
	if known {
		return ok
	}
	ok = r.findHandsOff(h, ca)
	r.mu.Lock()
	if r.hands == nil {
		r.hands = make(map[handKey]bool)
	}
	r.hands[k] = ok
	r.mu.Unlock()
	return ok
}

func (r *Result) findHandsOff(h *holding, ca *goroutines.Context) bool {
	if ca.Kind == goroutines.Caller {
		// The package's callers may be many goroutines at once, each
		// sending its own value: one waiting does not stop the others.
		return false
	}
	sends := r.ops.sends[h.loc]
	if len(sends) == 0 || len(r.ops.closes[h.loc]) > 0 {
		return false
	}
	for _, x := range sends {
		if !slices.Equal(r.gr.Of(x.Parent()), []*goroutines.Context{ca}) {
			return false
		}
		if ca.Multi && r.sharedSend(x, h.loc, ca) {
			return false
		}
		if !r.sendWaits(x, h) {
			return false
		}
	}
	return r.fieldEndsHeld(h)
}

// sendWaits reports whether the send x on h's channel sends a fresh
// carrier (an allocation of x's function whose reply field is stored once,
// with a channel made there, on every path to x and before each repeat of
// it) and then receives from that field before doing anything else.
func (r *Result) sendWaits(x ssa.Instruction, h *holding) bool {
	var val ssa.Value
	var next ssa.Instruction
	switch x := x.(type) {
	case *ssa.Send:
		val = x.X
		instrs := x.Block().Instrs
		i := slices.Index(instrs, ssa.Instruction(x))
		if i+1 < len(instrs) {
			next = instrs[i+1]
		}
	case *ssa.Select:
		for i, st := range x.States {
			if st.Dir != types.SendOnly {
				continue
			}
			for _, acc := range r.shared.ByInstr[x] {
				if acc.Loc == h.loc && acc.Op == sharedloc.ChanSend && acc.Ptr == st.Chan {
					if val != nil {
						return false // two cases send on it
					}
					val, next = st.Send, ssaflow.SelectBody(x, i)
				}
			}
		}
	}
	if val == nil || next == nil {
		return false
	}
	var base *ssa.Alloc
	if ld, ok := val.(*ssa.UnOp); ok && ld.Op == token.MUL {
		base, _ = ld.X.(*ssa.Alloc)
	} else {
		base, _ = val.(*ssa.Alloc)
	}
	if base == nil || base.Parent() != x.Parent() {
		return false
	}
	st, _ := carrierStruct(base.Type())
	if st == nil || !types.Identical(st, h.st) {
		return false
	}
	stores, reads, ok := freshField(base, h.field, 2)
	if !ok {
		return false
	}
	flow := r.gr.Flow
	for _, store := range stores {
		if !flow.Dominates(store, x) || flow.MayFollowAvoiding(x, x, store) {
			return false
		}
	}
	// What runs between the send and the receive must be pure.
	instr := next
	for i := 0; i < 32 && instr != nil; i++ {
		switch in := instr.(type) {
		case *ssa.UnOp:
			if in.Op == token.ARROW {
				return !in.CommaOk && slices.Contains(reads, in.X)
			}
			if in.Op != token.MUL {
				return false
			}
		case *ssa.FieldAddr, *ssa.Field, *ssa.DebugRef:
		case *ssa.Jump:
			succ := in.Block().Succs[0]
			if len(succ.Instrs) == 0 {
				return false
			}
			instr = succ.Instrs[0]
			continue
		default:
			return false
		}
		instrs := instr.Block().Instrs
		j := slices.Index(instrs, instr)
		if j+1 >= len(instrs) {
			return false
		}
		instr = instrs[j+1]
	}
	return false
}

// freshField returns the stores that give the variable base's field k a
// channel made for it, and the loads of the field through base: one store
// of a MakeChan into the field, or one store of the whole struct loaded
// from another such variable of the function (a composite literal's
// temporary), with the stores that filled that one. Zero values stored
// whole are let through (the field is then nil, and its receive never
// returns). ok is false for any other store or use of the field.
func freshField(base *ssa.Alloc, k, depth int) (stores []*ssa.Store, reads []ssa.Value, ok bool) {
	for _, u := range *base.Referrers() {
		switch u := u.(type) {
		case *ssa.FieldAddr:
			if u.Field != k {
				continue
			}
			for _, w := range *u.Referrers() {
				switch w := w.(type) {
				case *ssa.Store:
					if _, made := w.Val.(*ssa.MakeChan); !made || w.Addr != u {
						return nil, nil, false
					}
					stores = append(stores, w)
				case *ssa.UnOp:
					if w.Op != token.MUL {
						return nil, nil, false
					}
					reads = append(reads, w)
				default:
					return nil, nil, false
				}
			}
		case *ssa.Store:
			if u.Addr != base {
				continue
			}
			if _, zero := u.Val.(*ssa.Const); zero {
				continue
			}
			ld, isLoad := u.Val.(*ssa.UnOp)
			if !isLoad || ld.Op != token.MUL || depth == 0 {
				return nil, nil, false
			}
			src, isAlloc := ld.X.(*ssa.Alloc)
			if !isAlloc || src.Heap || src.Parent() != base.Parent() {
				return nil, nil, false
			}
			inner, _, ok := freshField(src, k, depth-1)
			if !ok || len(inner) != 1 {
				return nil, nil, false
			}
			stores = append(stores, u, inner[0])
		}
	}
	// One way the field is set: by its own store, or by one copy.
	return stores, reads, len(stores) == 1 || len(stores) == 2 && stores[1].Addr != stores[0].Addr && isWhole(stores[0], base)
}

// isWhole reports whether st stores a whole value into base.
func isWhole(st *ssa.Store, base *ssa.Alloc) bool { return st.Addr == base }

// fieldEndsHeld reports whether every read of h's reply field in the
// package is a plain use of the channel (a receive, or a close or send
// that ends a holding of a value received from h's channel): the channel
// goes nowhere else, so only the goroutine that received the value can
// let its sender go on.
func (r *Result) fieldEndsHeld(h *holding) bool {
	for _, fn := range r.gr.Funcs() {
		ends := map[ssa.Instruction]bool{}
		for _, c := range r.gr.Of(fn) {
			for _, g := range r.holdingsIn(fn, c) {
				if g.loc == h.loc && g.field == h.field && types.Identical(g.st, h.st) {
					for _, e := range g.ends {
						ends[e] = true
					}
				}
			}
		}
		for _, blk := range fn.Blocks {
			for _, instr := range blk.Instrs {
				var ch ssa.Value
				switch in := instr.(type) {
				case *ssa.Store:
					al, local := in.Addr.(*ssa.Alloc)
					if _, zero := in.Val.(*ssa.Const); !zero && !(local && !al.Heap) && types.Identical(in.Val.Type(), h.st) {
						return false // a whole carrier stored over another
					}
				case *ssa.Field:
					if st, ptr := carrierStruct(in.X.Type()); !ptr && st != nil && in.Field == h.field && types.Identical(st, h.st) {
						ch = in
					}
				case *ssa.FieldAddr:
					if st, _ := carrierStruct(in.X.Type()); st != nil && in.Field == h.field && types.Identical(st, h.st) {
						for _, u := range *in.Referrers() {
							switch u := u.(type) {
							case *ssa.Store:
								// Only a fresh object's field is set, to a
								// channel made there: no holder sets it.
								_, made := u.Val.(*ssa.MakeChan)
								_, fresh := in.X.(*ssa.Alloc)
								if u.Addr != in || !made || !fresh {
									return false
								}
							case *ssa.UnOp:
								if u.Op != token.MUL || !r.plainChanUse(u, ends) {
									return false
								}
							default:
								return false
							}
						}
					}
				}
				if ch != nil && !r.plainChanUse(ch, ends) {
					return false
				}
			}
		}
	}
	return true
}

// plainChanUse reports whether every use of the channel ch is a receive,
// or a close or send among ends.
func (r *Result) plainChanUse(ch ssa.Value, ends map[ssa.Instruction]bool) bool {
	for _, u := range *ch.Referrers() {
		switch u := u.(type) {
		case *ssa.UnOp:
			if u.Op != token.ARROW {
				return false
			}
		case *ssa.Select:
			for _, st := range u.States {
				if st.Send == ch || st.Chan == ch && st.Dir == types.SendOnly && !ends[u] {
					return false
				}
			}
		case *ssa.DebugRef:
		default:
			if !ends[u] {
				return false
			}
		}
	}
	return true
}

package conclosed

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/concurrent"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// nilled is a Safe predicate for a send (p.A) and a close (p.B) of a
// channel held in a struct field: the closer sets the field to nil right
// after the close, and that nil store happens before the send's read of
// the field, as in
//
//	go func(ws *stream) { // one per stream, joined by wg
//		defer wg.Done()
//		close(ws.outc)
//		ws.outc = nil
//	}(ws)
//	...
//	wg.Wait()
//	if ws.outc != nil {
//		ws.outc <- resp // send
//	}
//
// (etcd's waitCancelSubstreams and the resume after it). It holds when
//   - the close's channel is a load of the field f through an address
//     X.f, and the next instruction after the close that is not the
//     computation of an address is a store of nil through X.f, the same
//     SSA value X, in the close's block: a close that returns is followed
//     by the nil store on the same object, with nothing between them
//     that could block, panic into a recover or let another goroutine
//     see the field first from the closer's side;
//   - the send's channel is a load of f;
//   - every store to f in the package stores nil or a channel that a make
//     in the store's own block made and that no other store writes (see
//     freshOnly), f is unexported, and no value of f's struct (or of a
//     type holding it by value) is ever copied in the package: so a
//     channel is held, for all its life, in f of the one object its make
//     was stored into;
//   - the nil store happens before the send's load (ordering.Before).
//
// Proof. Let ch be the channel the close closed: the closer loaded it
// from X.f, so ch was stored (once: its make's one store) into X's f and
// lives in no other object's f. If the send loads f of another object it
// never reads ch. If it loads X.f, the nil store to X.f happened before
// the load, so the load reads that nil or a later store to X.f: nil (a
// send on nil blocks, it does not panic) or a channel made after ch, not
// ch. Either way the send is not on the channel this close closed; a
// close of the channel the send does read is another close, paired with
// the send on its own.
func (c *checker) nilled(p concurrent.Pair) bool {
	send, cl := p.A, p.B
	load, f := fieldLoad(send.Ptr)
	if load == nil {
		return false
	}
	nilStore := nilAfterClose(cl, f)
	if nilStore == nil || !c.freshOnly(f) {
		return false
	}
	_, ok := c.env.Order.Before(nilStore, p.CB, load, p.CA)
	return ok
}

// fieldLoad returns v as a load of a struct field through a FieldAddr,
// and the field, or nil.
func fieldLoad(v ssa.Value) (*ssa.UnOp, *types.Var) {
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return nil, nil
	}
	fa, ok := load.X.(*ssa.FieldAddr)
	if !ok {
		return nil, nil
	}
	f := ssavalue.Field(fa)
	if f == nil {
		return nil, nil
	}
	return load, f
}

// nilAfterClose returns the store of nil to the field f that follows the
// close cl of f's channel, through the same address, as nilled requires,
// or nil.
func nilAfterClose(cl *sharedloc.Access, f *types.Var) *ssa.Store {
	load, lf := fieldLoad(cl.Ptr)
	if load == nil || lf != f {
		return nil
	}
	fa := load.X.(*ssa.FieldAddr)
	instrs := cl.Instr.Block().Instrs
	i := 0
	for i < len(instrs) && instrs[i] != cl.Instr {
		i++
	}
	for _, in := range instrs[min(i+1, len(instrs)):] {
		switch in := in.(type) {
		case *ssa.FieldAddr, *ssa.DebugRef:
			continue
		case *ssa.Store:
			to, ok := in.Addr.(*ssa.FieldAddr)
			if ok && to.X == fa.X && to.Field == fa.Field && ssavalue.IsNil(in.Val) {
				return in
			}
		}
		return nil
	}
	return nil
}

// freshOnly reports whether the unexported field f holds each channel the
// package stores in it in one object only: every store to f writes nil or
// the result of a make in the store's block that no other store writes
// (each run of the make is stored once, in one object), and no value of
// f's struct, or of a type holding it by value, is made in the package
// (a copy would carry the channel into another object's f), and f's
// address is only loaded from and stored to (see addressTaken).
func (c *checker) freshOnly(f *types.Var) bool {
	if r, ok := c.fresh[f]; ok {
		return r
	}
	r := !f.Exported() && c.storesFresh(f) && !c.copies(f) && !c.addressTaken(f)
	c.fresh[f] = r
	return r
}

func (c *checker) storesFresh(f *types.Var) bool {
	for _, a := range c.env.Shared.ByLoc[sharedloc.Loc{Kind: sharedloc.Field, Obj: f}] {
		if !a.Op.IsWrite() {
			continue
		}
		st, ok := a.Instr.(*ssa.Store)
		if !ok {
			return false
		}
		if ssavalue.IsNil(st.Val) {
			continue
		}
		mk, ok := st.Val.(*ssa.MakeChan)
		if !ok || mk.Block() != st.Block() {
			return false
		}
		for _, r := range *mk.Referrers() {
			if other, ok := r.(*ssa.Store); ok && other != st {
				return false
			}
		}
	}
	return true
}

// copies reports whether a value of a type that holds f by value is a
// parameter or the result of an instruction of a function of the package.
func (c *checker) copies(f *types.Var) bool {
	memo := map[types.Type]bool{}
	held := func(t types.Type) bool {
		r, ok := memo[t]
		if !ok {
			r = holds(t, f, maxHold)
			memo[t] = r
		}
		return r
	}
	for _, fn := range c.env.Goroutines.Funcs() {
		for _, p := range fn.Params {
			if held(p.Type()) {
				return true
			}
		}
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				if v, ok := in.(ssa.Value); ok && held(v.Type()) {
					return true
				}
			}
		}
	}
	return false
}

// addressTaken reports whether an address of f is used for more than a
// load from it or a store to it: a pointer to the field handed to a
// callee (`setc(&s1.outc, s0.outc)`) stores through it where storesFresh,
// which sees the stores to f's own address, does not look.
func (c *checker) addressTaken(f *types.Var) bool {
	for _, fn := range c.env.Goroutines.Funcs() {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				fa, ok := in.(*ssa.FieldAddr)
				if !ok || ssavalue.Field(fa) != f {
					continue
				}
				for _, r := range *fa.Referrers() {
					switch r := r.(type) {
					case *ssa.UnOp:
						if r.Op == token.MUL {
							continue
						}
					case *ssa.Store:
						if r.Addr == fa && r.Val != fa {
							continue
						}
					case *ssa.DebugRef:
						continue
					}
					return true
				}
			}
		}
	}
	return false
}

// maxHold bounds the nesting holds looks through.
const maxHold = 8

// holds reports whether a value of type t contains the field f: t is f's
// struct, or a struct or array with such an element (a pointer does not
// hold what it points to).
func holds(t types.Type, f *types.Var, depth int) bool {
	if depth == 0 {
		return true // too deep to tell: take it as a copy
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		for i := range u.NumFields() {
			if u.Field(i).Origin() == f || holds(u.Field(i).Type(), f, depth-1) {
				return true
			}
		}
	case *types.Array:
		return holds(u.Elem(), f, depth-1)
	case *types.Tuple:
		for i := range u.Len() {
			if holds(u.At(i).Type(), f, depth-1) {
				return true
			}
		}
	}
	return false
}

package ordering

import (
	"go/constant"
	"go/token"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// SomeBefore reports whether some execution of a, in ca, happens before
// b, in cb: Before (every execution of a does), or a write that comes
// before every send on a channel that b follows a receive from, in the
// sending goroutine's own run of its function, as in netpoll's accept
// loop:
//
//	go func() {
//		for {
//			svrConn, err = ln.Accept()
//			accepted <- struct{}{}
//		}
//	}()
//	<-accepted
//	svrConn.Read(buf)
//
// The write of the next turn follows the first send, so the write does
// not precede every send and Before does not hold; but the value that b's
// receive took came from some send, and that send ran after an execution
// of the write on its goroutine (see sentAfterWrite). A check that asks
// whether a location may be read before any write to it (conuninit) asks
// this, not Before.
func (r *Result) SomeBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	if e, ok := r.Before(a, ca, b, cb); ok {
		return e, true
	}
	return r.sentAfterWrite(a, ca, b, cb)
}

// sentAfterWrite orders some execution of the write a before b when b
// follows a receive from a channel whose every send and close (but the
// handshake's, see ownSend) runs on ca's one goroutine, in the function
// a is in, only after a has run there (a dominates it: every path from
// the function's entry to the send passes a, in this turn of a loop or
// an earlier one). The receive took a value some send made (or saw a
// close), and the sender had run a before it. That execution of a wrote
// the location b reads only if a writes the same location whenever it
// runs: a's address is computed once per run of the function (a
// variable the goroutine's closure captures, a global, a parameter, or a
// field of one of those; an index that is itself such a value), and the
// function runs once per goroutine (the entry of a context of one
// goroutine at a time, see oneGoroutine, not called again on it), so
// the write is to one place. A send of one goroutine of a Multi context
// says nothing of what another of its goroutines wrote, and is refused.
func (r *Result) sentAfterWrite(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	fn := a.Parent()
	if ca == cb || !oneGoroutine(ca) || fn != ca.Entry || len(r.callSites(fn, ca)) > 0 {
		return Edge{}, false
	}
	addr := writeAddr(a)
	if addr == nil || !r.invariant(addr, fn, ca.Site, ssavalue.MaxDepth) {
		return Edge{}, false
	}
	recvs := r.receivesBefore(b, cb)
	for _, ch := range inOrder(recvs) {
		recv := recvs[ch]
		sends := r.takenSends(ch, recv, cb)
		ok := len(sends) > 0 && all(sends, func(x ssa.Instruction) bool {
			return slices.Equal(r.gr.Of(x.Parent()), []*goroutines.Context{ca}) && x != a && r.after(a, x, ca, MaxCallDepth)
		})
		if ok {
			return Edge{Rule: Channel, Pos: recv.Pos()}, true
		}
	}
	return Edge{}, false
}

// writeAddr returns the address that the write a stores to: a Store's,
// or the first argument of a call (an atomic store, sync/atomic's
// functions and the methods of its types alike); nil for anything else.
func writeAddr(a ssa.Instruction) ssa.Value {
	switch a := a.(type) {
	case *ssa.Store:
		return a.Addr
	case *ssa.Call:
		if len(a.Call.Args) > 0 && !a.Call.IsInvoke() {
			return a.Call.Args[0]
		}
	}
	return nil
}

// invariant reports whether v, a value of fn, is the same whenever fn's
// code computes it in one run of fn: a constant, a global, a parameter or
// free variable, an instruction in no loop (it runs at most once per
// run), a load of a variable the goroutine captures that is set only
// before the go statement site starts it (see setBeforeStart), or the
// address of a field or element of such a value at such an
// index. A load is not: memory may change between two turns of a loop.
func (r *Result) invariant(v ssa.Value, fn *ssa.Function, site ssa.CallInstruction, depth int) bool {
	if depth == 0 {
		return false
	}
	switch v := v.(type) {
	case *ssa.Const, *ssa.Global, *ssa.Parameter, *ssa.FreeVar, *ssa.Function:
		return true
	case *ssa.FieldAddr:
		return r.invariant(v.X, fn, site, depth-1)
	case *ssa.IndexAddr:
		return r.invariant(v.X, fn, site, depth-1) && r.invariant(v.Index, fn, site, depth-1)
	case *ssa.UnOp:
		if v.Op == token.MUL && r.setBeforeStart(ssavalue.CapturedCell(v), site) {
			return true
		}
		return v.Parent() == fn && !r.gr.Flow.InLoop(v)
	case ssa.Instruction:
		return v.Parent() == fn && !r.gr.Flow.InLoop(v)
	}
	return false
}

// setBeforeStart reports whether cell, a variable that a goroutine's
// closure captures, is written only by its declaring function, and only
// before the go statement site that starts the goroutine, which that
// function runs (a parameter the closure uses, go/ssa's cell for it):
// every load of it on the goroutine gives the one value.
func (r *Result) setBeforeStart(cell *ssa.Alloc, site ssa.CallInstruction) bool {
	if cell == nil || site == nil || site.Parent() != cell.Parent() || !ssavalue.OnlyOwnerWrites(cell) {
		return false
	}
	for _, ref := range *cell.Referrers() {
		if st, ok := ref.(*ssa.Store); ok && !r.gr.Flow.Precedes(st, site) {
			return false
		}
	}
	return true
}

// takenSends returns the sends and closes on ch that the receive recv,
// made on cb, may have taken: all of the package's, but those ownSend
// leaves out, or the closes that closeAfterReceive leaves out, and never
// those of closedAtEnd. With none
// left, the value came from a send the package does not make, and the
// caller orders nothing.
func (r *Result) takenSends(ch sharedloc.Loc, recv ssa.Instruction, cb *goroutines.Context) []ssa.Instruction {
	sends := r.ops.sends[ch]
	if slices.ContainsFunc(sends, func(x ssa.Instruction) bool { return r.closedAtEnd(x, ch, recv, cb) }) {
		sends = slices.DeleteFunc(slices.Clone(sends), func(x ssa.Instruction) bool { return r.closedAtEnd(x, ch, recv, cb) })
	}
	if slices.ContainsFunc(sends, func(x ssa.Instruction) bool { return r.closeAfterReceive(x, ch) }) {
		// The own sends stay: the receive before such a close may be
		// another goroutine's, which may take them.
		return slices.DeleteFunc(slices.Clone(sends), func(x ssa.Instruction) bool { return r.closeAfterReceive(x, ch) })
	}
	if !slices.ContainsFunc(sends, func(x ssa.Instruction) bool { return r.ownSend(x, ch, recv, cb) }) {
		return sends
	}
	return slices.DeleteFunc(slices.Clone(sends), func(x ssa.Instruction) bool { return r.ownSend(x, ch, recv, cb) })
}

// closedAtEnd reports whether x is a close of ch in a function that runs
// only as a Cleanup registered by recv's function, a test's (see
// testEntry): it runs after that function returned, so recv, made
// before, never finds ch closed by it (gue's TestShutdown closes chDone
// in a Cleanup, and its body receives the goroutine's one send on
// chDone).
func (r *Result) closedAtEnd(x ssa.Instruction, ch sharedloc.Loc, recv ssa.Instruction, cb *goroutines.Context) bool {
	fn := recv.Parent()
	if !r.testEntry(fn, cb) {
		return false
	}
	for _, acc := range r.shared.ByInstr[x] {
		if acc.Loc == ch && acc.Op != sharedloc.ChanClose {
			return false
		}
	}
	refs := r.gr.RefSites(x.Parent())
	return len(refs) > 0 && len(r.gr.CallGraph.Callers(x.Parent())) == 0 &&
		all(refs, func(s ssa.CallInstruction) bool { return s.Parent() == fn && isCleanup(s) })
}

// closeAfterReceive reports whether x is a close of ch that runs, on
// every goroutine that runs it, only after a receive from ch has returned
// there (fx's signal relayer: the receiver of the relayer's one value
// closes the channel, `case <-r.finished: close(r.finished)`). Such
// closes need not follow the work a caller asks about: by induction on
// the time receives from ch return, every receive returns after the
// package's other sends and closes on ch that could have let it through.
// Take the first receive that returns otherwise: if it took a value, a
// send that is not such a close gave it; if it found the channel closed,
// the close came first, and when that close is one of these, a receive
// from ch returned before it on its goroutine, earlier still, so it
// returned after the others. So the package's other sends and closes on
// ch are those a receive may have been let through by (a close in a
// later call, after a receive of one value, of another channel object
// of ch's location counts the same way: the induction runs over every
// object of the location).
func (r *Result) closeAfterReceive(x ssa.Instruction, ch sharedloc.Loc) bool {
	closes := false
	for _, acc := range r.shared.ByInstr[x] {
		if acc.Loc == ch {
			if acc.Op != sharedloc.ChanClose {
				return false
			}
			closes = true
		}
	}
	ctxs := r.gr.Of(x.Parent())
	if !closes || len(ctxs) == 0 {
		return false
	}
	return all(ctxs, func(c *goroutines.Context) bool {
		return slices.ContainsFunc(r.ops.recvs[ch], func(j ssa.Instruction) bool { return r.received(j, x, c) })
	})
}

// ownSend reports whether x, a send on ch, is one that the receive recv,
// made on cb, can never have taken: x runs only on cb, whose goroutines
// never run two at a time (see oneGoroutine), and recv's channel is unbuffered. A send on
// an unbuffered channel completes only together with a receive on
// another goroutine, as the goroutine that sends is blocked in the send
// until then; so a goroutine never receives its own send, and a
// goroutine of cb that sends could hand its value only to a goroutine
// running at the same time, which would be another of cb's. This is the
// handshake `c <- nil; <-c` (lz4's collector): the receive answers
// another goroutine's send, whatever the receiver itself sent before.
// A close is not a send: a goroutine may receive from a channel it
// closed.
func (r *Result) ownSend(x ssa.Instruction, ch sharedloc.Loc, recv ssa.Instruction, cb *goroutines.Context) bool {
	if !oneGoroutine(cb) || !slices.Equal(r.gr.Of(x.Parent()), []*goroutines.Context{cb}) {
		return false
	}
	for _, acc := range r.shared.ByInstr[x] {
		if acc.Loc == ch && acc.Op != sharedloc.ChanSend {
			return false
		}
	}
	u, ok := recv.(*ssa.UnOp)
	return ok && u.Op == token.ARROW && unbuffered(u.X, ssavalue.MaxDepth)
}

// unbuffered reports whether every channel that the value ch may hold is
// made with capacity 0 (`make(chan T)`, or a constant 0), as capacity
// finds them. A variable never stored to holds nil, and a receive from
// nil never returns. Anything else (a field, a parameter, a call's
// result) is taken as possibly buffered.
func unbuffered(ch ssa.Value, depth int) bool {
	n, ok := capacity(ch, depth)
	return ok && n <= 0
}

// capacity returns the one constant capacity that every channel the
// value ch may hold is made with, and whether there is one: ch is a
// make with a constant size, a Phi of such values, a free variable bound
// to one, or a load of a local variable (or a captured one) whose address
// goes nowhere but into loads, stores of such values and closures that do
// the same. It returns -1 (and true) for a value that holds no channel a
// make made: a variable never stored to holds nil.
func capacity(ch ssa.Value, depth int) (int64, bool) {
	if depth == 0 {
		return 0, false
	}
	same := func(vs []ssa.Value) (int64, bool) {
		n := int64(-1)
		for _, v := range vs {
			m, ok := capacity(v, depth-1)
			switch {
			case !ok || n >= 0 && m >= 0 && m != n:
				return 0, false
			case m >= 0:
				n = m
			}
		}
		return n, true
	}
	switch v := ssavalue.Unconverted(ch).(type) {
	case *ssa.MakeChan:
		c, ok := v.Size.(*ssa.Const)
		if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
			return 0, false
		}
		n, exact := constant.Int64Val(c.Value)
		return n, exact && n >= 0
	case *ssa.Phi:
		return same(v.Edges)
	case *ssa.FreeVar:
		if b := ssavalue.Binding(v); b != nil {
			return capacity(b, depth-1)
		}
	case *ssa.UnOp:
		if v.Op != token.MUL {
			return 0, false
		}
		cell := ssavalue.Cell(v.X)
		if cell == nil {
			return 0, false
		}
		if stored, ok := cellStores(cell, depth-1); ok {
			return same(stored)
		}
	}
	return 0, false
}

// cellStores returns the values stored to the variable at addr (a cell,
// or a closure's free variable bound to it) when its address goes
// nowhere but into loads of it, stores to it and closures that do the
// same; ok is false otherwise.
func cellStores(addr ssa.Value, depth int) (stored []ssa.Value, ok bool) {
	if depth == 0 {
		return nil, false
	}
	for _, ref := range *addr.Referrers() {
		switch ref := ref.(type) {
		case *ssa.Store:
			if ref.Addr != addr || ref.Val == addr {
				return nil, false
			}
			stored = append(stored, ref.Val)
		case *ssa.UnOp:
			if ref.Op != token.MUL {
				return nil, false
			}
		case *ssa.DebugRef:
		case *ssa.MakeClosure:
			fn, isFn := ref.Fn.(*ssa.Function)
			if !isFn {
				return nil, false
			}
			for i, b := range ref.Bindings {
				if b != addr {
					continue
				}
				more, ok := cellStores(fn.FreeVars[i], depth-1)
				if !ok {
					return nil, false
				}
				stored = append(stored, more...)
			}
		default:
			return nil, false
		}
	}
	return stored, true
}

// oneGoroutine reports whether the goroutines of c never run two at a
// time: c is not Multi, and it is not the Caller's context, which stands
// for whatever goroutines call into the package, but for a test's (each
// test runs on a goroutine of its own, one after another).
func oneGoroutine(c *goroutines.Context) bool {
	return !c.Multi && (c.Kind != goroutines.Caller || c.Test != nil)
}

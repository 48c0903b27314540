package ordering

import (
	"go/token"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// completionBefore orders a, on ca, before b, on cb, by the Go memory
// model's rule for unbuffered channels: "a receive from an unbuffered
// channel is synchronized before the completion of the corresponding
// send on that channel". A sampler that the stop function stops by a
// send, and that returns on receiving it, has done its work when the
// send returns:
//
//	go func() {
//		for {
//			select {
//			case <-tick:
//				count++ // a
//			case <-stop:
//				return
//			}
//		}
//	}()
//	...
//	stop <- struct{}{}
//	return count // b
//
// It holds when b runs only after a plain send x on ch has returned on
// cb (after, as for a receive); x's channel is made with capacity 0 and
// goes nowhere but into sends, receives, closes and the closures that
// capture it (unbuffered, localChan: no receive outside the package's
// code that the analysis sees); and every receive from ch (of any of its
// objects) runs on ca, after a and with no run of a after it on the
// goroutine (before, rerunAfter). The receive that took x's value is one
// of them, so a had run when it did, and so when x completed. ca must be
// one goroutine at a time (oneGoroutine), or a Multi context whose
// goroutines each receive from a channel of their own (not SharedIn) and
// each touch objects of their own at a (an a that touches no shared
// location, a call, is asked about per goroutine): the goroutine that
// took x is then the one whose objects b's are, when b's are a's. A close is no send: it does not
// wait for a receive. A send in a select is left out, as a select's
// send case and b's position after it are not tracked.
func (r *Result) completionBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	if ca == cb || ca.Kind == goroutines.Caller && ca.Test == nil {
		return Edge{}, false
	}
	if !oneGoroutine(ca) && !all(r.shared.ByInstr[a], func(acc *sharedloc.Access) bool { return !r.shared.SharedIn(acc, ca) }) {
		return Edge{}, false
	}
	sends := r.completedSends(b, cb)
	for _, ch := range inOrder(sends) {
		if r.soleReceiver(ch, ca) && all(r.ops.recvs[ch], func(j ssa.Instruction) bool {
			return r.before(a, j, ca, MaxCallDepth) && !r.rerunAfter(a, j, ca, MaxCallDepth)
		}) {
			return Edge{Rule: Channel, Pos: sends[ch].Pos()}, true
		}
	}
	return Edge{}, false
}

// completedSends returns, for each channel, the first plain send on it
// (in the order of r.ops.sends) on an unbuffered channel of the
// package's own (unbuffered, localChan) that b runs after on cb,
// memoized by (b, cb) as receivesBefore is: the checks ask about b once
// for every access it may race with.
func (r *Result) completedSends(b ssa.Instruction, cb *goroutines.Context) map[sharedloc.Loc]ssa.Instruction {
	k := recvKey{b, cb}
	r.mu.Lock()
	out, ok := r.completed[k]
	r.mu.Unlock()
	if ok {
		return out
	}
	out = make(map[sharedloc.Loc]ssa.Instruction)
	reaches := map[*ssa.Function]bool{}
	for ch, xs := range r.ops.sends {
		for _, x := range xs {
			send, isSend := x.(*ssa.Send)
			if !isSend {
				continue
			}
			fn := x.Parent()
			ok, known := reaches[fn]
			if !known {
				ok = fn == b.Parent() || slices.Contains(r.gr.Of(fn), cb) || len(r.callSites(fn, cb)) > 0
				reaches[fn] = ok
			}
			if ok && r.sendsOnly(x, ch) && unbuffered(send.Chan, ssavalue.MaxDepth) && localChan(send.Chan, ssavalue.MaxDepth) &&
				r.after(x, b, cb, MaxCallDepth) {
				out[ch] = x
				break
			}
		}
	}
	r.mu.Lock()
	if r.completed == nil {
		r.completed = make(map[recvKey]map[sharedloc.Loc]ssa.Instruction)
	}
	r.completed[k] = out
	r.mu.Unlock()
	return out
}

// sendsOnly reports whether x's accesses of ch are sends.
func (r *Result) sendsOnly(x ssa.Instruction, ch sharedloc.Loc) bool {
	seen := false
	for _, acc := range r.shared.ByInstr[x] {
		if acc.Loc == ch {
			if acc.Op != sharedloc.ChanSend {
				return false
			}
			seen = true
		}
	}
	return seen
}

// soleReceiver reports whether every receive from ch runs on context c
// alone, and, when c is Multi, on a channel of each goroutine's own.
func (r *Result) soleReceiver(ch sharedloc.Loc, c *goroutines.Context) bool {
	recvs := r.ops.recvs[ch]
	if len(recvs) == 0 {
		return false
	}
	for _, j := range recvs {
		ctxs := r.gr.Of(j.Parent())
		if len(ctxs) != 1 || ctxs[0] != c {
			return false
		}
		if oneGoroutine(c) {
			continue
		}
		for _, ra := range r.ops.fnRecvs[j.Parent()] {
			if ra.at == j && ra.acc.Loc == ch && r.shared.SharedIn(ra.acc, c) {
				return false
			}
		}
	}
	return true
}

// localChan reports whether every channel that the value ch may hold is
// made in the package (a make, a Phi of such values, a free variable bound
// to one, a load of a local variable, or a captured one, that holds only
// such values) and goes nowhere but into sends, receives, selects, close,
// len and cap, conversions, and the variables and closures that do the
// same: every receive from it is one the analysis sees. A channel stored
// elsewhere, passed to a call or returned may be received from anywhere.
func localChan(ch ssa.Value, depth int) bool {
	return chanLocal(ch, depth, map[ssa.Value]bool{})
}

func chanLocal(ch ssa.Value, depth int, seen map[ssa.Value]bool) bool {
	if depth == 0 {
		return false
	}
	switch v := ssavalue.Unconverted(ch).(type) {
	case *ssa.MakeChan:
		return usesStayLocal(v, depth-1, seen)
	case *ssa.Phi:
		return all(v.Edges, func(e ssa.Value) bool { return chanLocal(e, depth-1, seen) })
	case *ssa.FreeVar:
		b := ssavalue.Binding(v)
		return b != nil && chanLocal(b, depth-1, seen)
	case *ssa.UnOp:
		cell := ssavalue.Cell(v.X)
		return v.Op == token.MUL && cell != nil && cellStaysLocal(cell, depth-1, seen)
	}
	return false
}

// usesStayLocal is localChan's walk over the uses of the channel value v.
func usesStayLocal(v ssa.Value, depth int, seen map[ssa.Value]bool) bool {
	if seen[v] {
		return true
	}
	seen[v] = true
	if depth == 0 {
		return false
	}
	refs := v.Referrers()
	if refs == nil {
		return false
	}
	for _, ref := range *refs {
		switch ref := ref.(type) {
		case *ssa.Send:
			if ref.X == v {
				return false // the channel itself sent
			}
		case *ssa.UnOp:
			if ref.Op != token.ARROW {
				return false
			}
		case *ssa.Select:
			for _, st := range ref.States {
				if st.Send == v {
					return false
				}
			}
		case *ssa.DebugRef:
		case *ssa.Call:
			bi, ok := ref.Call.Value.(*ssa.Builtin)
			if !ok {
				return false
			}
			switch bi.Name() {
			case "close", "len", "cap":
			default:
				return false
			}
		case *ssa.ChangeType:
			if !usesStayLocal(ref, depth-1, seen) {
				return false
			}
		case *ssa.Phi:
			if !usesStayLocal(ref, depth-1, seen) {
				return false
			}
		case *ssa.Store:
			// Into a local variable whose every value is such a
			// channel.
			cell := ssavalue.Cell(ref.Addr)
			if ref.Val != v || cell == nil || !cellStaysLocal(cell, depth-1, seen) {
				return false
			}
		case *ssa.MakeClosure:
			fn, ok := ref.Fn.(*ssa.Function)
			if !ok {
				return false
			}
			for i, bound := range ref.Bindings {
				if bound == v && !usesStayLocal(fn.FreeVars[i], depth-1, seen) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// cellStaysLocal reports whether the local variable at addr (a cell, or a
// closure's free variable bound to it) holds only channels that localChan
// accepts and its loads go where localChan allows: its address goes
// nowhere but into loads, stores and the closures that capture it.
func cellStaysLocal(addr ssa.Value, depth int, seen map[ssa.Value]bool) bool {
	if seen[addr] {
		return true
	}
	seen[addr] = true
	if depth == 0 {
		return false
	}
	refs := addr.Referrers()
	if refs == nil {
		return false
	}
	for _, ref := range *refs {
		switch ref := ref.(type) {
		case *ssa.Store:
			if ref.Addr != addr || ref.Val == addr || !chanLocal(ref.Val, depth-1, seen) {
				return false
			}
		case *ssa.UnOp:
			if ref.Op != token.MUL || !usesStayLocal(ref, depth-1, seen) {
				return false
			}
		case *ssa.DebugRef:
		case *ssa.MakeClosure:
			fn, ok := ref.Fn.(*ssa.Function)
			if !ok {
				return false
			}
			for i, bound := range ref.Bindings {
				if bound == addr && !cellStaysLocal(fn.FreeVars[i], depth-1, seen) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

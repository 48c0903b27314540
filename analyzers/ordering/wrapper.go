package ordering

import (
	"go/token"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// wrapperDeferAfter reports whether x, a call that c's wrapper defers
// (Context.Wrapper: the closure a spawner's own `go` statement starts,
// which calls the function handed to the spawner), runs after a, which
// runs on the same goroutine in a function other than the wrapper:
// the wrapper is the goroutine's first function, so a runs inside a call
// the wrapper makes, before the wrapper returns and runs x, or inside a
// call the wrapper defers. The latter runs after x only when deferred
// before it, so no other call the wrapper defers may come before x, and
// x is deferred once (outside loops), as in
//
//	go func() { defer close(done); <-start; f() }()
func (r *Result) wrapperDeferAfter(a, x ssa.Instruction, c *goroutines.Context) bool {
	w := c.Wrapper
	d, ok := x.(*ssa.Defer)
	if w == nil || !ok || d.Parent() != w || a.Parent() == w || r.gr.Flow.InLoop(d) {
		return false
	}
	for _, b := range w.Blocks {
		for _, instr := range b.Instrs {
			if e, ok := instr.(*ssa.Defer); ok && e != d && r.gr.Flow.MayFollow(e, d) {
				return false
			}
		}
	}
	return true
}

// returnedBefore orders a, on a goroutine of ca (rooted at a call of a
// spawner whose goroutine closes or sends on the channel the call
// returns), before b when b follows a receive from the channel that very
// call returned, and every send and close on the channel's location runs
// after a: on ca's goroutine when it is the wrapper's, touching the
// call's own channel (see callsOwnChannel), or, for the others, on ca
// alone, as channelBefore asks. channelBefore cannot see it: it looks at
// the first receive of each location before b, and a test that starts
// two goroutines through the helper receives from both calls' channels,
// whose location is one (the helper's variable), as in
//
//	_, aDone := spawn(start, fa)
//	_, bDone := spawn(start, fb)
//	<-aDone
//	<-bDone // what fb did is done
func (r *Result) returnedBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	if ca.Wrapper == nil || ca.Site == nil {
		return Edge{}, false
	}
	for ch, recvs := range r.ops.recvs {
		for _, j := range recvs {
			u, ok := j.(*ssa.UnOp)
			if !ok || u.Op != token.ARROW {
				continue
			}
			if call, _ := returnedChannel(u); call == nil || ssa.CallInstruction(call) != ca.Site {
				continue
			}
			ok = all(r.ops.sends[ch], func(x ssa.Instruction) bool {
				if !r.callsOwnChannel(x, j, ca) {
					for _, c := range r.gr.Of(x.Parent()) {
						if c != ca {
							return false
						}
					}
				}
				if !r.before(a, x, ca, MaxCallDepth) {
					return false
				}
				return !ca.Multi || !r.sharedSend(x, ch, ca) || r.gr.Flow.InLoop(j)
			})
			if ok && len(r.ops.sends[ch]) > 0 && r.received(j, b, cb) {
				return Edge{Rule: Channel, Pos: j.Pos()}, true
			}
		}
	}
	return Edge{}, false
}

// callsOwnChannel reports whether the send or close x, made by ca's
// wrapper, touches only the channel that the spawner's invocation at
// ca.Site made and returned, and the receive recv takes from that call's
// result: then, of the goroutines that run x, only those of ca (the
// goroutines of the invocations at ca.Site) send on or close the channel
// recv receives from, and those of the wrapper's other contexts (rooted
// at the spawner's other calls, or at its `go` statement) touch other
// calls' channels. The spawner must return, at that result, a variable
// of its own that only its own allocations (make) are stored to, or
// such an allocation, and the wrapper must touch it through the variable
// it captured, as in
//
//	func spawn(f func()) <-chan struct{} {
//		done := make(chan struct{})
//		go func() { defer close(done); f() }()
//		return done
//	}
//	_, d := spawn(work); <-d
func (r *Result) callsOwnChannel(x, recv ssa.Instruction, ca *goroutines.Context) bool {
	w := ca.Wrapper
	if w == nil || x.Parent() != w || ca.Site == nil {
		return false
	}
	spawner := ca.Site.Common().StaticCallee()
	if spawner == nil || w.Parent() != spawner {
		return false
	}
	u, ok := recv.(*ssa.UnOp)
	if !ok || u.Op != token.ARROW {
		return false
	}
	call, made := returnedChannel(u)
	if call == nil || ssa.CallInstruction(call) != ca.Site {
		return false
	}
	var ch ssa.Value
	switch x := x.(type) {
	case *ssa.Send:
		ch = x.Chan
	case ssa.CallInstruction:
		if args := x.Common().Args; len(args) == 1 {
			ch = args[0]
		}
	}
	return ch != nil && ownChannel(ssavalue.Unconverted(ch), spawner) == made
}

// ownChannel returns, for v, a value of spawner or of a closure in it,
// the allocation of spawner it denotes (a make, through captured
// variables never reassigned) or the variable of spawner it reads, when
// every value stored to that variable is a make of spawner; or nil.
func ownChannel(v ssa.Value, spawner *ssa.Function) ssa.Value {
	if fv, ok := v.(*ssa.FreeVar); ok {
		for range ssavalue.MaxDepth {
			b := ssavalue.Binding(fv)
			if b == nil {
				return nil
			}
			if fv, ok = b.(*ssa.FreeVar); !ok {
				v = b
				break
			}
		}
	}
	switch v := v.(type) {
	case *ssa.MakeChan:
		if v.Parent() == spawner {
			return v
		}
	case *ssa.UnOp:
		cell := ssavalue.CapturedCell(v)
		if cell == nil {
			if c, ok := v.X.(*ssa.Alloc); ok && v.Op == token.MUL {
				cell = c
			}
		}
		if cell == nil || cell.Parent() != spawner {
			return nil
		}
		stored := ssavalue.StoresTo(cell)
		if len(stored) == 0 {
			return nil
		}
		for _, s := range stored {
			m, ok := s.(*ssa.MakeChan)
			if !ok || m.Parent() != spawner {
				return nil
			}
		}
		return cell
	}
	return nil
}

// returnedChannel returns, for the receive u, the call whose result u
// receives from (`_, d := spawn(f); <-d`) when the call's static callee
// returns there, on every return, its own channel (see ownChannel), with
// that channel's variable or allocation; or nil.
func returnedChannel(u *ssa.UnOp) (*ssa.Call, ssa.Value) {
	var call *ssa.Call
	idx := -1
	switch v := ssavalue.Unconverted(u.X).(type) {
	case *ssa.Extract:
		if c, ok := v.Tuple.(*ssa.Call); ok {
			call, idx = c, v.Index
		}
	case *ssa.Call:
		if v.Call.Signature().Results().Len() == 1 {
			call, idx = v, 0
		}
	}
	if call == nil {
		return nil, nil
	}
	callee := call.Call.StaticCallee()
	if callee == nil || len(callee.Blocks) == 0 {
		return nil, nil
	}
	var made ssa.Value // the callee's variable (an Alloc) or allocation
	for _, b := range callee.Blocks {
		for _, instr := range b.Instrs {
			ret, ok := instr.(*ssa.Return)
			if !ok {
				continue
			}
			if idx >= len(ret.Results) {
				return nil, nil
			}
			v := ownChannel(ssavalue.Unconverted(ret.Results[idx]), callee)
			if v == nil || made != nil && v != made {
				return nil, nil
			}
			made = v
		}
	}
	if made == nil {
		return nil, nil
	}
	return call, made
}

// indexReturnedChannels adds to ops.recvs the receives from a channel
// that a call returns (see returnedChannel), under the location of the
// callee's channel: sharedloc names the received value by the call (or
// by nothing, for one of several results), and the callee's sends and
// closes by its own variable, so without them a receive from a helper's
// done channel orders nothing after the helper's goroutine. The channel
// received is one that location names (made by the callee's invocation
// that returned it), as every other receive of the location is.
func (r *Result) indexReturnedChannels(ops *syncOps) {
	for _, fn := range r.gr.Funcs() {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				u, ok := instr.(*ssa.UnOp)
				if !ok || u.Op != token.ARROW {
					continue
				}
				_, made := returnedChannel(u)
				var loc sharedloc.Loc
				switch m := made.(type) {
				case *ssa.Alloc:
					l, ok := sharedloc.AddrLoc(m)
					if !ok {
						continue
					}
					loc = l.Contents()
				case *ssa.MakeChan:
					loc = sharedloc.Loc{Kind: sharedloc.Made, Cell: m}.Contents()
				default:
					continue
				}
				if !slices.Contains(ops.recvs[loc], ssa.Instruction(u)) {
					ops.recvs[loc] = append(ops.recvs[loc], u)
				}
			}
		}
	}
}

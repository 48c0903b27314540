package ordering

import (
	"go/token"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// SentAfterOwnWrite reports whether some write of writes happens before
// the read, on cb, because the read goes through an object whose own
// channel it has received from, and every close or send that receive may
// take (takenSends) is made after a write of the read's location through
// the object whose channel it closes, as mcp-go's task table does:
//
//	func (s *MCPServer) completeTask(entry *taskEntry, result any) {
//		entry.result = result
//		close(entry.done)
//	}
//	go server.executeTaskTool(ctx, entry, ...) // calls completeTask
//	<-entry.done
//	use(entry.result)
//
// The read and the receive start from one root (sharedloc's Access.Base:
// a value of the read's function, a captured variable's cell, the value
// bound to a closure's free variable in the function that makes the
// closure, or a package variable) by the
// same steps as the closer's channel from its own root, so the channel
// the receive took a value from, or found closed, is the closer's object
// channel, and that object is the read's; the closer wrote the read's
// location through it (by the read's steps, from the close's root) on
// every path to the close (see writtenOnEveryPath). It holds however many
// goroutines run the closing function and however many functions close
// (a completion and a cancellation), where channelBefore and
// sentAfterWrite want every close made on one goroutine: the object, not
// the goroutine, ties each close to its write. A closer that writes
// nothing first (a cancellation that sets no result) defeats it, as it
// should: the receive may have taken its close. So does a channel
// closed through another name than the field (see madeForField).
func (r *Result) SentAfterOwnWrite(read *sharedloc.Access, cb *goroutines.Context, writes []*sharedloc.Access) bool {
	r.index()
	if read.Base == nil {
		return false
	}
	base, steps, ok := objectPath(read.Ptr, getterDepth)
	if !ok {
		return false
	}
	for _, recv := range r.ops.fnRecvs[read.Fn()] {
		if recv.acc.Base == nil || !r.received(recv.at, read.Instr, cb) {
			continue
		}
		chBase, chSteps, ok := objectPath(recv.acc.Ptr, getterDepth)
		if !ok || chBase != base || !r.madeForField(recv.acc.Loc) {
			continue
		}
		sends := r.takenSends(recv.acc.Loc, recv.at, cb)
		if len(sends) > 0 && all(sends, func(x ssa.Instruction) bool {
			return r.closedAfterOwnWrite(x, recv.acc.Loc, chSteps, read.Loc, steps, writes)
		}) {
			return true
		}
	}
	return false
}

// madeForField reports whether every channel stored into the field
// holding ch (ch is a field's contents) is made by a make whose channel
// goes nowhere but into struct fields: then every close and send of it
// goes through a field, and takenSends, which names them by the field,
// lists them all. A channel made into a variable and closed through it
// (`ch := make(chan T); j.done = ch; ...; close(ch)`) is filed under its
// make site instead, and that close, which may write nothing first,
// would be missed. An exported field may be stored into by another
// package, unseen here.
func (r *Result) madeForField(ch sharedloc.Loc) bool {
	holder := ch.Holder()
	if holder.Kind != sharedloc.Field || holder.Obj == nil || holder.Obj.Exported() {
		return false
	}
	stored := false
	for _, a := range r.shared.ByLoc[holder] {
		if a.Op != sharedloc.Store {
			continue
		}
		m, ok := a.Val.(*ssa.MakeChan)
		if !ok {
			return false
		}
		for _, ref := range *m.Referrers() {
			switch ref := ref.(type) {
			case *ssa.Store:
				if _, ok := ref.Addr.(*ssa.FieldAddr); !ok || ref.Val != m {
					return false
				}
			case *ssa.DebugRef:
			default:
				return false
			}
		}
		stored = true
	}
	return stored
}

// A recvAccess is a receive's access, with the instruction code after it
// follows (a select case's first instruction, as in syncOps.recvs).
type recvAccess struct {
	acc *sharedloc.Access
	at  ssa.Instruction
}

// closedAfterOwnWrite reports whether x, a close of or send on ch, goes
// through a channel reached from its root by chSteps, and every path to
// it in its function passes a write (one of writes) of loc reached from
// that same root by steps.
func (r *Result) closedAfterOwnWrite(x ssa.Instruction, ch sharedloc.Loc, chSteps []accessStep, loc sharedloc.Loc, steps []accessStep, writes []*sharedloc.Access) bool {
	found := false
	for _, xa := range r.shared.ByInstr[x] {
		if xa.Loc != ch {
			continue
		}
		if xa.Base == nil {
			return false
		}
		base, s, ok := objectPath(xa.Ptr, getterDepth)
		if !ok || !slices.Equal(s, chSteps) {
			return false
		}
		var own []ssa.Instruction
		for _, w := range writes {
			if w.Fn() != x.Parent() || w.Base == nil || w.Loc != loc {
				continue
			}
			if wb, s, ok := objectPath(w.Ptr, getterDepth); ok && wb == base && slices.Equal(s, steps) {
				own = append(own, w.Instr)
			}
		}
		if !r.writtenOnEveryPath(own, x) {
			return false
		}
		found = true
	}
	return found
}

// writtenOnEveryPath reports whether every path from its function's
// entry to x passes one of ws (x's function's): one that dominates x, or
// one on each branch. A block with no predecessor but the entry (a
// recover block) counts as an entry.
func (r *Result) writtenOnEveryPath(ws []ssa.Instruction, x ssa.Instruction) bool {
	if len(ws) == 0 {
		return false
	}
	writes := map[*ssa.BasicBlock]bool{}
	for _, w := range ws {
		if r.gr.Flow.Dominates(w, x) && w != x {
			return true
		}
		writes[w.Block()] = true
	}
	seen := map[*ssa.BasicBlock]bool{}
	stack := slices.Clone(x.Block().Preds)
	if len(stack) == 0 {
		return false
	}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b] || writes[b] {
			continue // the path wrote in b, before it left b
		}
		seen[b] = true
		if len(b.Preds) == 0 {
			return false
		}
		stack = append(stack, b.Preds...)
	}
	return true
}

// An accessStep is one step of an access path from its root (see
// accessSteps).
type accessStep struct {
	load  bool // a load of a pointer, not a field
	field int
	addr  bool // a FieldAddr, not a Field
}

// accessSteps returns the steps from v back to its root as
// sharedloc.Root finds it: fields selected and pointers loaded,
// conversions left out. ok is false when a step selects an element (two
// evaluations may pick two).
func accessSteps(v ssa.Value) (steps []accessStep, ok bool) {
	ok = true
	sharedloc.RootVia(v, func(x ssa.Value) {
		switch x := x.(type) {
		case *ssa.FieldAddr:
			steps = append(steps, accessStep{field: x.Field, addr: true})
		case *ssa.Field:
			steps = append(steps, accessStep{field: x.Field})
		case *ssa.UnOp:
			steps = append(steps, accessStep{load: true})
		case *ssa.IndexAddr, *ssa.Index, *ssa.Slice:
			ok = false
		}
	})
	return steps, ok
}

// getterDepth bounds the getters objectPath looks through, one inside
// another.
const getterDepth = 4

// objectPath returns the root of v, as sharedloc.Root finds it, and the
// steps from v back to it (accessSteps), looking through getters: when
// the root is the result of a static call whose callee returns, at every
// return, what one path of steps reaches from one same parameter (`func
// (l *L) Ready() <-chan T { l.mu.Lock(); defer l.mu.Unlock(); return
// l.ready }`), the path goes on from the call's argument for that
// parameter, and the root is that argument's. `<-l.Ready()` receives
// from the channel `<-l.ready` would, read from l's field when the getter
// ran, so the receive and a read through l start from one object as the
// direct receive and the read do. Up to depth getters, one inside
// another; a call that is no getter is the root, as for Root.
func objectPath(v ssa.Value, depth int) (ssa.Value, []accessStep, bool) {
	steps, ok := accessSteps(v)
	if !ok {
		return nil, nil, false
	}
	root := sharedloc.Root(v)
	call, isCall := root.(*ssa.Call)
	if !isCall || depth == 0 {
		return root, steps, true
	}
	idx, inner, ok := getterPath(call, depth-1)
	if !ok {
		return root, steps, true
	}
	argRoot, argSteps, ok := objectPath(call.Call.Args[idx], depth-1)
	if !ok {
		return nil, nil, false
	}
	return argRoot, slices.Concat(steps, inner, argSteps), true
}

// getterPath returns, for a static call whose callee returns, at every
// return, what one path of steps reaches from one parameter (see
// objectPath), the index of that parameter among the call's arguments,
// and the steps. A result that go/ssa keeps in a variable (the callee
// defers a call) gives each value stored to it; its zero value, which
// the recover block returns after a panic before the store, is a nil
// pointer or channel, which reaches no object.
func getterPath(call *ssa.Call, depth int) (int, []accessStep, bool) {
	fn := call.Call.StaticCallee()
	if fn == nil || len(fn.Blocks) == 0 || fn.Signature.Results().Len() != 1 || len(fn.Params) != len(call.Call.Args) {
		return 0, nil, false
	}
	idx, n := -1, 0
	var steps []accessStep
	var result func(v ssa.Value) bool
	result = func(v ssa.Value) bool {
		if load, ok := ssavalue.Unconverted(v).(*ssa.UnOp); ok && load.Op == token.MUL {
			if cell, ok := load.X.(*ssa.Alloc); ok && !cell.Heap && cell.Parent() == fn {
				if !all(*cell.Referrers(), func(ref ssa.Instruction) bool { return ssavalue.LoadsOrStores(cell, ref) }) {
					return false
				}
				vals := ssavalue.StoresTo(cell)
				return len(vals) > 0 && all(vals, result)
			}
		}
		root, s, ok := objectPath(v, depth)
		p, isParam := root.(*ssa.Parameter)
		if !ok || !isParam || len(s) == 0 {
			return false
		}
		i := slices.Index(fn.Params, p)
		if n > 0 && (i != idx || !slices.Equal(s, steps)) {
			return false
		}
		idx, steps, n = i, s, n+1
		return i >= 0
	}
	for _, b := range fn.Blocks {
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && !result(ret.Results[0]) {
			return 0, nil, false
		}
	}
	return idx, steps, n > 0
}

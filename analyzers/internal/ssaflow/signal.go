package ssaflow

import (
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// ChannelVar is the value a channel operand comes from: the variable it
// is loaded from (captured variables live in memory), or itself.
func ChannelVar(v ssa.Value) ssa.Value {
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		return u.X
	}
	return v
}

// SignalsLast reports whether closure closes the channel in fv with a
// deferred close, or sends on or closes it as the last thing in a block
// that returns.
func SignalsLast(closure *ssa.Function, fv *ssa.FreeVar) bool {
	isClose := func(c *ssa.CallCommon) bool {
		b, ok := c.Value.(*ssa.Builtin)
		return ok && b.Name() == "close" && len(c.Args) == 1 && ChannelVar(c.Args[0]) == fv
	}
	last := false
	for _, b := range closure.Blocks {
		for i, instr := range b.Instrs {
			var signal bool
			switch instr := instr.(type) {
			case *ssa.Defer:
				if isClose(&instr.Call) {
					last = true
				}
			case *ssa.Send:
				signal = ChannelVar(instr.Chan) == fv
			case *ssa.Call:
				signal = isClose(&instr.Call)
			}
			if signal {
				if !ReturnsAfter(b.Instrs[i+1:]) {
					return false // a signal before the work ends (review33's j3c)
				}
				last = true
			}
		}
	}
	return last
}

// ReturnsAfter reports whether instrs do nothing another goroutine could
// see or disturb before the block returns: no calls, sends, stores or go
// statements, and no reads of memory either (a load, or the address of a
// field or element, which dereferences its operand): the goroutine that
// the signal lets go may write what such a read reads, or clear the
// pointer it dereferences.
func ReturnsAfter(instrs []ssa.Instruction) bool {
	for _, instr := range instrs {
		switch instr := instr.(type) {
		case *ssa.Call, *ssa.Go, *ssa.Send, *ssa.Store, *ssa.MapUpdate, *ssa.Panic, *ssa.Jump, *ssa.If,
			*ssa.FieldAddr, *ssa.IndexAddr, *ssa.Lookup, *ssa.Range, *ssa.Next:
			return false
		case *ssa.UnOp:
			if instr.Op == token.MUL || instr.Op == token.ARROW {
				return false
			}
		case *ssa.Return:
			return true
		}
	}
	return false
}

package ssaflow

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"
)

// SelectCase returns the first instruction of the body of sel's case that
// receives from ch, or nil if it cannot be found: go/ssa compares the
// chosen index (component 0 of the result) with each case's index.
func SelectCase(sel *ssa.Select, ch ssa.Value) ssa.Instruction {
	idx := -1
	for i, st := range sel.States {
		if st.Chan == ch && st.Dir == types.RecvOnly {
			idx = i
		}
	}
	if idx < 0 {
		return nil
	}
	return SelectBody(sel, idx)
}

// SelectBody returns the first instruction of the body of sel's state
// idx, or nil: go/ssa compares the chosen index (component 0 of the
// result) with each case's index, and the compare's true branch is the
// body.
func SelectBody(sel *ssa.Select, idx int) ssa.Instruction {
	for _, ref := range *sel.Referrers() {
		ex, ok := ref.(*ssa.Extract)
		if !ok || ex.Index != 0 {
			continue
		}
		for _, u := range *ex.Referrers() {
			cmp, ok := u.(*ssa.BinOp)
			if !ok || cmp.Op != token.EQL {
				continue
			}
			c, ok := cmp.Y.(*ssa.Const)
			if !ok || c.Int64() != int64(idx) {
				continue
			}
			for _, cu := range *cmp.Referrers() {
				if ifi, ok := cu.(*ssa.If); ok {
					body := ifi.Block().Succs[0]
					if len(body.Preds) == 1 && len(body.Instrs) > 0 {
						return body.Instrs[0]
					}
				}
			}
		}
	}
	return nil
}

// ErrAfterDone reports whether v is a call ctx.Err() of a context.Context
// that runs, as at does, only in the case of a select in at's function
// that received from the same ctx's Done(): ctx.Err() is not nil once
// Done is closed, so an error returned there is a failure (ordering's
// results that are nil where a call failed, locksets' locks a function
// takes only where it returns nil).
func (g *Graph) ErrAfterDone(v ssa.Value, at ssa.Instruction) bool {
	call, ok := v.(*ssa.Call)
	if !ok || !call.Call.IsInvoke() || call.Call.Method.Name() != "Err" || !isContext(call.Call.Value.Type()) {
		return false
	}
	ctx := call.Call.Value
	for _, blk := range at.Parent().Blocks {
		for _, instr := range blk.Instrs {
			sel, ok := instr.(*ssa.Select)
			if !ok {
				continue
			}
			for _, st := range sel.States {
				done, ok := st.Chan.(*ssa.Call)
				if !ok || st.Dir != types.RecvOnly || !done.Call.IsInvoke() || done.Call.Method.Name() != "Done" ||
					!sameContext(done.Call.Value, ctx) {
					continue
				}
				if start := SelectCase(sel, done); start != nil && g.Dominates(start, call) && g.Dominates(start, at) {
					return true
				}
			}
		}
	}
	return false
}

// sameContext reports whether x and y are one context: the same value, or
// two calls of one function with the same arguments (a getter called
// twice: go-coap's cc.Context().Done() and cc.Context().Err()).
func sameContext(x, y ssa.Value) bool {
	if x == y {
		return true
	}
	cx, ok1 := x.(*ssa.Call)
	cy, ok2 := y.(*ssa.Call)
	if !ok1 || !ok2 || cx.Call.IsInvoke() || cy.Call.IsInvoke() {
		return false
	}
	fx := cx.Call.StaticCallee()
	return fx != nil && fx == cy.Call.StaticCallee() && slices.Equal(cx.Call.Args, cy.Call.Args)
}

func isContext(t types.Type) bool {
	named, ok := types.Unalias(t).(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "context" && named.Obj().Name() == "Context"
}

package model

import "golang.org/x/tools/go/ssa"

// SynctestTest and SynctestWait are testing/synctest's Test, which runs
// its function in a new bubble and returns once every goroutine of the
// bubble has ended, and Wait, which returns once every other goroutine of
// the caller's bubble is durably blocked or has ended.
const (
	SynctestTest = "testing/synctest.Test"
	SynctestWait = "testing/synctest.Wait"
)

// BubbleTests returns the testing/synctest.Test calls that fn is the
// function of, when fn is a function literal used only so: its
// *testing.T is the bubble's, and it runs in the bubbles of those calls
// alone. It returns nil for any other function (a named one may be
// handed elsewhere too; a literal also handed to t.Run runs as a
// subtest).
func BubbleTests(fn *ssa.Function) []*ssa.Call {
	if fn.Parent() == nil {
		return nil
	}
	var v ssa.Value = fn
	if len(fn.FreeVars) > 0 {
		v = nil
		for _, blk := range fn.Parent().Blocks {
			for _, instr := range blk.Instrs {
				if mc, ok := instr.(*ssa.MakeClosure); ok && mc.Fn == fn {
					if v != nil {
						return nil
					}
					v = mc
				}
			}
		}
		if v == nil {
			return nil
		}
	}
	refs := v.Referrers()
	if refs == nil || len(*refs) == 0 {
		return nil
	}
	var calls []*ssa.Call
	for _, ref := range *refs {
		call, ok := ref.(*ssa.Call)
		if !ok || CalleeName(&call.Call) != SynctestTest || len(call.Call.Args) != 2 || call.Call.Args[1] != v || call.Call.Args[0] == v {
			return nil
		}
		calls = append(calls, call)
	}
	return calls
}

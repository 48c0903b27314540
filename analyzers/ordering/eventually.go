package ordering

import (
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/model"
)

// eventuallyBefore orders a, on a goroutine that a call of testify's
// Eventually started to run its condition (ca's Site), before b that runs
// only once that call has returned true:
//
//	var cc *client.Conn
//	require.Eventually(t, func() bool {
//		c, err := server.NewConn(target)
//		if err != nil {
//			return false
//		}
//		cc = c
//		return true
//	}, time.Second, 10*time.Millisecond)
//	cc.Put(...)
//
// Eventually returns true only after it received the last run's true
// result, and starts a run only once the previous one's result came
// back, so every run of the condition, and all it did, has ended by then
// (see model.Eventually). On a timeout, require's Eventually ends the
// test with FailNow: code after the call (b dominated by it, or in a
// function deferred after it) runs only after a true result. assert's
// returns false and the test goes on, while a run of the condition may
// still be going: b must lie on the call's true branch (`if
// assert.Eventually(...) {`, or past `if !assert.Eventually(...) {
// return }`), and a run of an earlier call may still be going too, so
// the call must be made once per run of its goroutine (outside loops, in
// the entry of the context, called nowhere else on it). The call's
// goroutine must be b's, one goroutine at a time (see oneGoroutine):
// another goroutine's Eventually, timed out, may leave a run behind.
func (r *Result) eventuallyBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	site, ok := ca.Site.(*ssa.Call)
	if !ok || ca == cb {
		return Edge{}, false
	}
	failNow, ok := model.Eventually(model.CalleeName(site.Common()))
	if !ok || !oneGoroutine(cb) || !slices.Equal(r.gr.Of(site.Parent()), []*goroutines.Context{cb}) {
		return Edge{}, false
	}
	if failNow {
		if b != site && r.after(site, b, cb, MaxCallDepth) {
			return Edge{Rule: Join, Pos: site.Pos()}, true
		}
		return Edge{}, false
	}
	fn := site.Parent()
	if fn != cb.Entry || r.gr.Flow.InLoop(site) || len(r.callSites(fn, cb)) > 0 {
		return Edge{}, false
	}
	for _, start := range trueBranches(site) {
		if start == b || r.after(start, b, cb, MaxCallDepth) {
			return Edge{Rule: Join, Pos: site.Pos()}, true
		}
	}
	return Edge{}, false
}

// trueBranches returns the first instructions of the blocks that the
// caller takes only when the bool result of call is true: the then of
// `if call(...) {`, or the else of `if !call(...) {`, when the test alone
// leads there.
func trueBranches(call *ssa.Call) []ssa.Instruction {
	res := call.Call.Signature().Results()
	if res.Len() != 1 || !types.Identical(res.At(0).Type(), types.Typ[types.Bool]) {
		return nil
	}
	var out []ssa.Instruction
	var visit func(v ssa.Value, want int)
	visit = func(v ssa.Value, want int) {
		for _, ref := range *v.Referrers() {
			switch u := ref.(type) {
			case *ssa.UnOp:
				if u.Op.String() == "!" {
					visit(u, 1-want)
				}
			case *ssa.If:
				succ := u.Block().Succs[want]
				if len(succ.Preds) == 1 && len(succ.Instrs) > 0 {
					out = append(out, succ.Instrs[0])
				}
			}
		}
	}
	visit(call, 0)
	return out
}

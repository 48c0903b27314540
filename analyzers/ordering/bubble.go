package ordering

import (
	"go/token"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/model"
)

// bubbleBefore orders a before b by a testing/synctest.Wait:
//
//	go func() { done = true }() // a
//	synctest.Wait()
//	t.Log(done) // b: always true
//
// Wait, called in a bubble (it panics elsewhere), returns once every other
// goroutine of the bubble is durably blocked (a channel operation or
// select on the bubble's channels, sync.Cond.Wait, sync.WaitGroup.Wait,
// time.Sleep) or has ended; goroutines started in the bubble belong to it.
// A goroutine that can block that way only after a has either made a by
// then or will never make it (it ended, or blocked where a cannot
// follow), so every a it makes happens before b. It holds when:
//
//   - the goroutines of ca are started by a `go` statement in a function f
//     whose only context is cb (not Multi: one goroutine runs f, and it is
//     the one that calls Wait), and the statement precedes a call of Wait
//     in f (Wait never leads back to it) that b runs after on cb;
//   - a runs in ca's entry function (not called again on the goroutine),
//     or in a function called from it through one call site per level,
//     and nothing that may durably block precedes a, or the calls that
//     lead to it, in any of those functions (see mayBlock: a call of
//     another package's function may block, but for the few known not
//     to; a mutex is not durably blocking, so a goroutine waiting for one
//     holds Wait back).
//
// A read after Wait of what such a goroutine writes after it may block
// again (its result after a call that waits on a channel) is not ordered:
// the goroutine may be durably blocked before the write when Wait
// returns, and then the read comes first.
func (r *Result) bubbleBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	if ca.Kind != goroutines.Go || ca.Site == nil || ca == cb || cb.Multi {
		return Edge{}, false
	}
	f := ca.Site.Parent()
	if of := r.gr.Of(f); len(of) != 1 || of[0] != cb {
		return Edge{}, false
	}
	for _, blk := range f.Blocks {
		for _, instr := range blk.Instrs {
			call, ok := instr.(*ssa.Call)
			if !ok || model.CalleeName(&call.Call) != model.SynctestWait {
				continue
			}
			if r.gr.Flow.Precedes(ca.Site, call) && r.after(call, b, cb, MaxCallDepth) && r.unblockedBefore(a, ca) {
				return Edge{Rule: Bubble, Pos: call.Pos()}, true
			}
		}
	}
	return Edge{}, false
}

// unblockedBefore reports whether nothing that may durably block runs
// before a on a goroutine of c: a is in c's entry function (which the
// goroutine does not call again), or in a function called from it
// through one call site per level (up to MaxCallDepth), and no
// instruction that may block can precede a, or the call leading to it,
// in its function.
func (r *Result) unblockedBefore(a ssa.Instruction, c *goroutines.Context) bool {
	if _, deferred := a.(*ssa.Defer); deferred {
		return false
	}
	if len(r.callSites(c.Entry, c)) > 0 {
		return false // a nested call of the entry runs after a block
	}
	x := a
	for depth := 0; ; depth++ {
		for _, blk := range x.Parent().Blocks {
			for _, instr := range blk.Instrs {
				if instr != x && mayBlock(instr, MaxCallDepth) && r.gr.Flow.MayFollow(instr, x) {
					return false
				}
			}
		}
		if x.Parent() == c.Entry {
			return true
		}
		sites := r.callSites(x.Parent(), c)
		if depth == MaxCallDepth || len(sites) != 1 {
			return false
		}
		if _, deferred := sites[0].(*ssa.Defer); deferred {
			return false
		}
		x = sites[0]
	}
}

// mayBlock reports whether instr may durably block its goroutine in a
// testing/synctest bubble, or run a function that may: a channel send or
// receive, a select without a default, a call through an interface or a
// function value, a call of a function of this package that may (depth
// levels down), and a call of any other function but builtins, sync/atomic,
// sync.Mutex and sync.RWMutex (a goroutine waiting for a mutex is not
// durably blocked) and the testing methods that report (their locks are
// mutexes; Fatal and Skip end the goroutine). A call of a function whose
// body is out of reach may wait on a channel (time.Sleep, WaitGroup.Wait,
// Cond.Wait and io.Pipe's Write do).
func mayBlock(instr ssa.Instruction, depth int) bool {
	switch instr := instr.(type) {
	case *ssa.Send:
		return true
	case *ssa.UnOp:
		return instr.Op == token.ARROW
	case *ssa.Select:
		return instr.Blocking
	case *ssa.RunDefers:
		return true // runs deferred calls, which are not followed
	case ssa.CallInstruction:
		if _, isGo := instr.(*ssa.Go); isGo {
			return false
		}
		if _, deferred := instr.(*ssa.Defer); deferred {
			return false // runs at RunDefers or on the way out
		}
		call := instr.Common()
		if _, builtin := call.Value.(*ssa.Builtin); builtin {
			return false
		}
		name := model.CalleeName(call)
		if model.TestingReports[name] || strings.HasPrefix(name, "sync/atomic.") || strings.HasPrefix(name, "(*sync/atomic.") ||
			strings.HasPrefix(name, "(*sync.Mutex).") || strings.HasPrefix(name, "(*sync.RWMutex).") {
			return false
		}
		fn := call.StaticCallee()
		if fn == nil || len(fn.Blocks) == 0 || depth == 0 || fn.Pkg != instr.Parent().Pkg {
			return true
		}
		for _, blk := range fn.Blocks {
			for _, in := range blk.Instrs {
				if mayBlock(in, depth-1) {
					return true
				}
			}
		}
	}
	return false
}

// bubbleJoinBefore orders a, on a goroutine started in a testing/synctest
// bubble, before b, which runs after the synctest.Test call that made the
// bubble: Test returns only once every goroutine of the bubble has ended.
// The goroutines of ca are in the bubble when their `go` statement is in
// the bubble's function (a literal used only as the function of one Test
// call, outside loops), or in a function that runs only on goroutines
// themselves in that bubble (see inBubble).
func (r *Result) bubbleJoinBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	test := r.inBubble(ca, MaxCallDepth)
	if test == nil || r.gr.Flow.InLoop(test) || !r.after(test, b, cb, MaxCallDepth) {
		return Edge{}, false
	}
	return Edge{Rule: Join, Pos: test.Pos()}, true
}

// inBubble returns the one synctest.Test call in whose bubble every
// goroutine of c runs, or nil: c is started by a `go` statement in the
// function of that call, or in a function that runs only on contexts
// started (depth levels up) in the same bubble.
func (r *Result) inBubble(c *goroutines.Context, depth int) *ssa.Call {
	if depth == 0 || c.Kind != goroutines.Go || c.Site == nil {
		return nil
	}
	fn := c.Site.Parent()
	if tests := model.BubbleTests(fn); tests != nil {
		if len(tests) != 1 {
			return nil
		}
		return tests[0]
	}
	var test *ssa.Call
	for _, pc := range r.gr.Of(fn) {
		if pc == c {
			return nil
		}
		t := r.inBubble(pc, depth-1)
		if t == nil || test != nil && t != test {
			return nil
		}
		test = t
	}
	return test
}

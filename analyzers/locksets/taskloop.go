package locksets

import (
	"go/token"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// A function handed to a task loop (a call R(x, f) of a function with a
// TaskLoopFact, see spawnfacts: pion/ice's a.loop.Run(ctx, func(ctx)
// {...})) runs on the loop's one goroutine, one task at a time, while
// the caller of R waits for it. The lock sets take such a call as a call
// site of f that holds what the caller holds and one more lock, named by
// the location x is loaded from (a field of all instances of its type,
// or a package variable, as a mutex is): two tasks of one loop hold it,
// so they exclude each other; code outside the loop's tasks does not.
// The locks the caller holds stay held while f runs, since the caller
// waits in R for f to end. A loop object that is not loaded from such a
// location (a local variable, a call's result) names no lock, and the
// call is a site of unknown effect as before.
//
// The goroutine contexts still take f as run on R's caller's goroutine:
// only the exclusion between tasks is added, not the order of a task
// after what the loop's goroutine did before (its onClose runs there
// too, after the last task, and holds nothing).

// taskLoopLock returns the lock held in fn when site hands it to a task
// loop, as the loop function argument only.
func (a *solver) taskLoopLock(site ssa.CallInstruction, fn *ssa.Function) (Held, bool) {
	if _, isCall := site.(*ssa.Call); !isCall || a.spawns == nil {
		return Held{}, false
	}
	common := site.Common()
	fi, li, ok := a.spawns.TaskLoop(common)
	if !ok {
		return Held{}, false
	}
	for i, arg := range common.Args {
		if i != fi && slices.Contains(ssavalue.Funcs(arg), fn) {
			return Held{}, false
		}
	}
	if !slices.Contains(ssavalue.Funcs(common.Args[fi]), fn) {
		return Held{}, false
	}
	load, ok := common.Args[li].(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return Held{}, false
	}
	l, ok := sharedloc.AddrLoc(load.X)
	if !ok || l.Kind != sharedloc.Field && l.Kind != sharedloc.Global || l.Elem || l.Cell != nil {
		return Held{}, false
	}
	return Held{Mutex: l, Mode: Write, Pos: site.Pos(), id: a.id(l)}, true
}

// loopStartLock returns the lock held in fn when site hands it to the
// constructor of a task loop as a function the loop's goroutine calls
// (TaskLoopStartFact: the onClose of pion/ice's taskloop.New(onClose),
// which its loop defers), and only so, and the constructor's result, the
// loop's object, goes only into a field or package variable: fn runs on
// the loop's goroutine, later, one at a time with its tasks, so it holds
// the lock its tasks hold (see taskLoopLock) and not what site holds.
func (a *solver) loopStartLock(site ssa.CallInstruction, fn *ssa.Function) (Held, bool) {
	call, ok := site.(*ssa.Call)
	if !ok || a.spawns == nil {
		return Held{}, false
	}
	on := a.spawns.TaskLoopStart(call.Common())
	if len(on) == 0 {
		return Held{}, false
	}
	handed := false
	for i, arg := range call.Call.Args {
		if slices.Contains(ssavalue.Funcs(arg), fn) {
			if !slices.Contains(on, i) {
				return Held{}, false
			}
			handed = true
		}
	}
	if !handed {
		return Held{}, false
	}
	var store *ssa.Store
	for _, r := range *call.Referrers() {
		switch r := r.(type) {
		case *ssa.Store:
			if store != nil || r.Val != call {
				return Held{}, false
			}
			store = r
		case *ssa.DebugRef:
		default:
			return Held{}, false
		}
	}
	if store == nil {
		return Held{}, false
	}
	l, ok := sharedloc.AddrLoc(store.Addr)
	if !ok || l.Kind != sharedloc.Field && l.Kind != sharedloc.Global || l.Elem || l.Cell != nil {
		return Held{}, false
	}
	return Held{Mutex: l, Mode: Write, Pos: call.Pos(), id: a.id(l)}, true
}

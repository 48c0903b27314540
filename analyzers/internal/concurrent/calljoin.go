package concurrent

import (
	"go/constant"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// joinedInCall reports whether a happens before b whenever the two touch
// one object: b runs in a function F on an object that F's invocation
// made, in F itself (see ownRoot), and a runs in the closure that a `go`
// statement of F starts (in a loop too), on the object the starting
// invocation made at the same allocation, reached through the closure's
// captured variables (see startedRoot). The two
// touch one object only when b's invocation started a's goroutine; and
// within one invocation, F joins every goroutine it starts before b
// (see joinsBefore). lefthook's concurrently makes a results channel,
// starts a goroutine per job that sends on it, waits for all of them
// and closes it; a job that is a group calls concurrently again from its
// goroutine, with a channel of its own, so the nested call's close and
// the outer call's sends, two goroutines of one `go` statement, touch
// two channels (held-out rehearsal 46). The ordering analysis, which
// names a WaitGroup by its allocation site, cannot see that: the nested
// call's wg.Add is, to it, the goroutine adding to the count it is
// waited on by. A channel the invocation did not make (a parameter, a
// field) is no such object, and its pairs are left to the ordering
// analysis.
func (e *Env) joinedInCall(a, b *sharedloc.Access) bool {
	if _, deferred := b.Instr.(*ssa.Defer); deferred {
		return false
	}
	rb := ownRoot(e.ownObjectOf(b))
	if rb == nil || rb.(ssa.Instruction).Parent() != b.Fn() {
		return false
	}
	ra, g := e.startedRoot(a)
	if g == nil || ra != rb {
		return false
	}
	return e.joinsBefore(g, b.Instr)
}

// startedRoot returns, for an access a in the closure that one `go`
// statement g alone starts (its only making is that statement's callee),
// the allocation of g's function whose object a touches (see ownRoot),
// with g; or nil. The closure is made anew for each start, bound to the
// starting invocation's variables, so a touches the object that the
// invocation which started its goroutine made. A deferred access, or
// one a `go` statement makes, is left out: it may run after the
// goroutine's deferred Done (see joinsBefore).
func (e *Env) startedRoot(a *sharedloc.Access) (ssa.Value, *ssa.Go) {
	switch a.Instr.(type) {
	case *ssa.Defer, *ssa.Go:
		return nil, nil
	}
	g := startedBy(a.Fn())
	if g == nil {
		return nil, nil
	}
	root := ownRoot(e.ownObjectOf(a))
	if root == nil || root.(ssa.Instruction).Parent() != g.Parent() {
		return nil, nil
	}
	return root, g
}

// startedBy returns the `go` statement that starts the closure fn, when
// fn's parent makes fn's closure once, only to start it there; in a loop
// too. Otherwise nil.
func startedBy(fn *ssa.Function) *ssa.Go {
	mc := ssavalue.OnlyClosure(fn)
	if mc == nil {
		return nil
	}
	var found *ssa.Go
	for _, u := range *mc.Referrers() {
		switch u := u.(type) {
		case *ssa.Go:
			if found != nil || u.Call.Value != mc || isArg(&u.Call, mc) {
				return nil
			}
			found = u
		case *ssa.DebugRef:
		default:
			return nil
		}
	}
	return found
}

// joinsBefore reports whether, within one invocation of g's function F,
// every goroutine that g starts has run its closure's body to the end
// before x (in F) runs: F counts them on a sync.WaitGroup variable of its
// own, W, with one wg.Add(1) just before g in g's block and no other
// Add; the closure, which captures W, defers W.Done once, outside any
// loop, and does nothing else with W; nothing else uses W but Waits in
// F; no path from g to x avoids a Wait on W, and none leads from x to g
// (x comes after the last start). Each invocation has its own W, only
// its goroutines Done it, one each, after their Add, so a Wait returns
// only once the goroutines started before it are done; a nested
// invocation's Add is on its own W.
func (e *Env) joinsBefore(g *ssa.Go, x ssa.Instruction) bool {
	flow := e.Goroutines.Flow
	if x.Parent() != g.Parent() || flow.MayFollow(x, g) {
		return false
	}
	mc, ok := g.Call.Value.(*ssa.MakeClosure)
	if !ok {
		return false
	}
	for i, bound := range mc.Bindings {
		w, ok := bound.(*ssa.Alloc)
		if !ok || w.Parent() != g.Parent() || !isWaitGroup(w) {
			continue
		}
		if waits, ok := e.countedStarts(w, g, mc.Fn.(*ssa.Function).FreeVars[i]); ok {
			for _, wait := range waits {
				if !flow.MayFollowAvoiding(g, x, wait) {
					return true
				}
			}
		}
	}
	return false
}

// countedStarts reports whether the WaitGroup cell w of g's function
// counts g's goroutines as joinsBefore requires, fv being w in g's
// closure, and returns its Waits.
func (e *Env) countedStarts(w *ssa.Alloc, g *ssa.Go, fv *ssa.FreeVar) ([]ssa.Instruction, bool) {
	var waits []ssa.Instruction
	adds := 0
	for _, u := range *w.Referrers() {
		switch u := u.(type) {
		case *ssa.DebugRef:
		case *ssa.MakeClosure:
			if u != g.Call.Value {
				return nil, false
			}
		case *ssa.Call:
			if len(u.Call.Args) == 0 || u.Call.Args[0] != w || slices.Contains(u.Call.Args[1:], ssa.Value(w)) {
				return nil, false
			}
			switch model.CalleeName(&u.Call) {
			case model.WaitGroupWait:
				waits = append(waits, u)
			case model.WaitGroupAdd:
				if adds++; adds > 1 || !addsOneBefore(u, g) {
					return nil, false
				}
			default:
				return nil, false
			}
		default:
			return nil, false
		}
	}
	if adds != 1 || len(waits) == 0 {
		return nil, false
	}
	dones := 0
	for _, u := range *fv.Referrers() {
		switch u := u.(type) {
		case *ssa.DebugRef:
		case *ssa.Defer:
			if len(u.Call.Args) != 1 || u.Call.Args[0] != fv || model.CalleeName(&u.Call) != model.WaitGroupDone || e.Goroutines.Flow.InLoop(u) {
				return nil, false
			}
			dones++
		default:
			return nil, false
		}
	}
	return waits, dones == 1
}

// addsOneBefore reports whether add is wg.Add(1) in g's block, before g:
// each start of g is counted just before it.
func addsOneBefore(add *ssa.Call, g *ssa.Go) bool {
	if len(add.Call.Args) != 2 || add.Block() != g.Block() {
		return false
	}
	n, ok := add.Call.Args[1].(*ssa.Const)
	if !ok || n.Value == nil || n.Value.Kind() != constant.Int {
		return false
	}
	if v, exact := constant.Int64Val(n.Value); !exact || v != 1 {
		return false
	}
	for _, instr := range g.Block().Instrs {
		switch instr {
		case ssa.Instruction(add):
			return true
		case ssa.Instruction(g):
			return false
		}
	}
	return false
}

// isWaitGroup reports whether the cell w holds a sync.WaitGroup.
func isWaitGroup(w *ssa.Alloc) bool {
	return types.TypeString(w.Type(), nil) == "*sync.WaitGroup"
}

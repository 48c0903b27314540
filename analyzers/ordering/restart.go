package ordering

import (
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// RestartedAfterJoin reports whether the goroutines of c, which the
// goroutines analysis lets run several at once (c.Multi), look started one
// at a time, each after the one before it has ended: the entry function
// defers Done on a WaitGroup (so the goroutine counts until it returns, and
// does not Add to it itself), the `go` statement lies outside loops, and
// every context other than the Caller that runs the statement reaches it
// on some path of calls after a Wait on that WaitGroup (nats.go's
// doReconnect waits for the old readLoop and flusher before
// processConnectInit starts new ones). It returns that Wait, or the call
// on the path to the `go` statement that leads to it.
//
// The rule is not sound: the code that starts the goroutines may run on
// two goroutines at once (two reconnects), and the path that reaches the
// `go` statement again may skip the Wait (nats.go waits behind a flag that
// the loop sets when it started goroutines on the iteration before, which
// the analysis cannot follow). So the checks report a pair that only this
// rule orders at low confidence (concurrent.Env.Assumption), never drop it.
func (r *Result) RestartedAfterJoin(c *goroutines.Context) (ssa.Instruction, bool) {
	r.index()
	r.mu.Lock()
	ans, ok := r.restarts[c]
	r.mu.Unlock()
	if ok {
		return ans, ans != nil
	}
	ans = r.restartedAfterJoin(c)
	r.mu.Lock()
	if r.restarts == nil {
		r.restarts = make(map[*goroutines.Context]ssa.Instruction)
	}
	r.restarts[c] = ans
	r.mu.Unlock()
	return ans, ans != nil
}

func (r *Result) restartedAfterJoin(c *goroutines.Context) ssa.Instruction {
	site, isGo := c.Site.(*ssa.Go)
	if !isGo || c.Kind != goroutines.Go || !c.Multi || r.gr.Flow.InLoop(site) {
		return nil
	}
	var shown ssa.Instruction
	for _, pc := range r.gr.Of(site.Parent()) {
		if pc.Kind == goroutines.Caller {
			continue // code calling into the package: starts the first one
		}
		j := r.waitOnSomePath(c, site, pc)
		if j == nil {
			return nil
		}
		if shown == nil {
			shown = j
		}
	}
	return shown
}

// waitOnSomePath returns a Wait, on a WaitGroup that c's entry defers Done
// on, that some path of calls on pc passes before it reaches site, or the
// call that leads to the Wait on that path (a call to a function that runs
// the Wait on every path through it); or nil.
func (r *Result) waitOnSomePath(c *goroutines.Context, site ssa.Instruction, pc *goroutines.Context) ssa.Instruction {
	for _, obj := range r.deferredDoneObjects(c) {
		if r.addsItself(c, obj) {
			continue
		}
		for _, w := range r.ops.waits[obj] {
			if !r.isWait(w) {
				continue
			}
			// w, and the calls that lead to it where it runs on every
			// path through the function that holds it.
			level := []ssa.Instruction{w}
			for depth := 0; len(level) > 0 && depth <= MaxCallDepth; depth++ {
				var next []ssa.Instruction
				for _, j := range level {
					if r.afterOnSomePath(j, site, pc) {
						return j
					}
					if r.mustRun(j) {
						next = append(next, r.callSites(j.Parent(), pc)...)
					}
				}
				level = next
			}
		}
	}
	return nil
}

// deferredDoneObjects returns the WaitGroups that c's entry function
// defers Done on, in the order of the defer statements.
func (r *Result) deferredDoneObjects(c *goroutines.Context) []sharedloc.Loc {
	var out []sharedloc.Loc
	for _, b := range c.Entry.Blocks {
		for _, instr := range b.Instrs {
			d, ok := instr.(*ssa.Defer)
			if !ok || d.Call.IsInvoke() || len(d.Call.Args) == 0 || model.CalleeName(&d.Call) != model.WaitGroupDone {
				continue
			}
			if objs := r.shared.Objects(d.Call.Args[0]); len(objs) == 1 && !slices.Contains(out, objs[0]) {
				out = append(out, objs[0])
			}
		}
	}
	return out
}

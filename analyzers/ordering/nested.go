package ordering

import (
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// JoinedInCaller reports whether the goroutines of ca live only within
// one call of the function F that starts them, a call made on the Caller
// goroutine, while b, on the Caller context, runs outside every call of
// F: then a goroutine of ca and b never run at once. The goroutines
// analysis takes the Caller context for one goroutine (the checks never
// pair two of its accesses), so while F runs on it, the Caller runs F and
// what F calls, and nothing else (Workiva/go-datastructures' immutable
// Tr.add starts a goroutine per node and waits for them all before it
// returns; Commit, which resets the tree's context, runs on the Caller
// before or after, never during).
//
// It holds when ca's `go` statement S is in F; every context F runs in is
// a Caller context, b's or one that never overlaps b's (each test runs in
// a Caller context of its own, one test after another); ca's entry defers Done on a WaitGroup that is a
// local variable of F (one per call), Added to before S and not by the
// goroutines themselves; every path from S to a return of F passes a
// Wait on it; and b's function is neither F nor reachable from F through
// calls (go statements aside). A panic between S and the Wait, recovered
// by the Caller, is not modelled.
func (r *Result) JoinedInCaller(ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) bool {
	if cb.Kind != goroutines.Caller || ca.Kind != goroutines.Go || ca.Site == nil {
		return false
	}
	r.index()
	f := ca.Site.Parent()
	for _, c := range r.gr.Of(f) {
		// F runs on a Caller goroutine that is b's, or one that never
		// runs at once with b's (two tests, one after the other).
		if c.Kind != goroutines.Caller || c != cb && goroutines.MayOverlap(c, cb) {
			return false
		}
	}
	return r.joinedInCaller(ca) && !r.reachableFrom(f)[b.Parent()]
}

func (r *Result) joinedInCaller(ca *goroutines.Context) bool {
	_, ok := r.JoinedWithin(ca)
	return ok
}

// JoinedWithin reports whether the goroutines of ca live only within one
// call of the function F whose `go` statement starts them, as
// JoinedInCaller requires (a WaitGroup local to F, Added to before the
// statement and not by the goroutines, Done deferred by their entry, a
// Wait on it on every path from the statement to F's returns), and returns
// that Wait. Unlike JoinedInCaller it asks nothing of the goroutines F
// runs on: whoever calls F is inside that call until the goroutines ended.
func (r *Result) JoinedWithin(ca *goroutines.Context) (ssa.Instruction, bool) {
	if ca.Kind != goroutines.Go || ca.Site == nil {
		return nil, false
	}
	r.index()
	r.mu.Lock()
	w, ok := r.nested[ca]
	r.mu.Unlock()
	if ok {
		return w, w != nil
	}
	w = r.computeJoinedWithin(ca)
	r.mu.Lock()
	if r.nested == nil {
		r.nested = make(map[*goroutines.Context]ssa.Instruction)
	}
	r.nested[ca] = w
	r.mu.Unlock()
	return w, w != nil
}

func (r *Result) computeJoinedWithin(ca *goroutines.Context) ssa.Instruction {
	site := ca.Site
	f := site.Parent()
	for _, obj := range r.doneObjects(ca) {
		if obj.Kind != sharedloc.Captured {
			continue
		}
		if alloc, ok := obj.Cell.(*ssa.Alloc); !ok || alloc.Parent() != f {
			continue
		}
		if !r.deferredDone(ca, obj) || !r.countedBefore(ca, obj) || r.addsItself(ca, obj) {
			continue
		}
		for _, w := range r.ops.waits[obj] {
			if w.Parent() != f || !r.isWait(w) {
				continue
			}
			if !slices.ContainsFunc(ssaflow.Returns(f), func(ret *ssa.Return) bool {
				return r.gr.Flow.MayFollowAvoiding(site, ret, w)
			}) {
				return w
			}
		}
	}
	return nil
}

// ReachableFrom returns f and the functions f may call, directly or
// through other calls, on its own goroutine (go statements aside): the
// code that may run on the goroutine that calls f while the call lasts.
func (r *Result) ReachableFrom(f *ssa.Function) map[*ssa.Function]bool { return r.reachableFrom(f) }

// reachableFrom returns f and the functions f may call, directly or
// through other calls, on its own goroutine (go statements aside).
func (r *Result) reachableFrom(f *ssa.Function) map[*ssa.Function]bool {
	r.mu.Lock()
	out, ok := r.reach[f]
	r.mu.Unlock()
	if ok {
		return out
	}
	out = map[*ssa.Function]bool{f: true}
	work := []*ssa.Function{f}
	for len(work) > 0 {
		fn := work[len(work)-1]
		work = work[:len(work)-1]
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				site, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				if _, isGo := instr.(*ssa.Go); isGo {
					continue
				}
				for _, callee := range r.gr.CallGraph.Callees(site) {
					if !out[callee] {
						out[callee] = true
						work = append(work, callee)
					}
				}
			}
		}
		// Closures made here and run by code outside the package
		// (sort.Slice, a callback) run on this goroutine too.
		for _, anon := range fn.AnonFuncs {
			if !out[anon] {
				out[anon] = true
				work = append(work, anon)
			}
		}
	}
	r.mu.Lock()
	if r.reach == nil {
		r.reach = make(map[*ssa.Function]map[*ssa.Function]bool)
	}
	r.reach[f] = out
	r.mu.Unlock()
	return out
}

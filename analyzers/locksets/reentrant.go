package locksets

import (
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// A re-entrant dispatch takes a lock around a call on one path and makes
// the call without it on a path that skips the lock, because a flag says
// its caller holds it already (alicebob/miniredis's withTx: `if
// ctx.nested { cb(c, ctx); return }; m.Lock(); cb(c, ctx); m.Unlock()`,
// where ctx.nested is set only on the context a Lua script's redis.call
// makes, inside a command that holds m; its blocking takes m only `if
// !ctx.nested`, then calls cb). The must-analysis meets the skipping path
// with nothing held, so every callback handed to such a helper, and
// everything those callbacks call, holds nothing on entry. Whether the
// flag is set only under the lock depends on values the analysis does not
// follow (through interfaces, other packages and a script interpreter),
// so the lock cannot be proved held there; it cannot be proved not held
// either. Such a call is a reentrantCall: the solution Reentrant takes
// the lock as held at it, and a check that reports a pair only without
// that assumption reports it at low confidence, naming the assumption.
//
// A call of fn is re-entrant for a mutex L when fn locks L itself (Lock or
// RLock, not TryLock: a failed TryLock's branch runs unlocked by design),
// L is not held on every path to the call, no path to it passes an
// Unlock of L or a call releasing it (a call after `mu.Unlock()` runs
// unlocked, not re-entered), and either some path to the call holds L (the
// conditional `if !nested { mu.Lock(); defer mu.Unlock() }`) or fn makes
// the same call, to the same function or through the same value, with L
// held elsewhere (withTx's two branches). L is then taken as held at the
// call in the mode of fn's own lock.

// reentrantCalls returns the package's re-entrant calls with the locks
// assumed held at each, from the solved lock sets.
func (a *solver) reentrantCalls() map[ssa.Instruction]Set {
	type lockOf struct {
		fn *ssa.Function
		m  sharedloc.Loc
	}
	modes := make(map[lockOf]Mode) // the weakest mode fn locks m in
	tried := make(map[lockOf]bool)
	for instr, lc := range a.calls {
		k := lockOf{instr.Parent(), lc.mutex}
		switch lc.op {
		case model.Lock, model.RLock:
			if lc.mutex.Kind == sharedloc.Param {
				continue
			}
			mode := Write
			if lc.op == model.RLock {
				mode = Read
			}
			if old, ok := modes[k]; !ok || mode < old {
				modes[k] = mode
			}
		case model.TryLock, model.TryRLock:
			tried[k] = true
		}
	}
	out := make(map[ssa.Instruction]Set)
	for _, fn := range a.funcs {
		var locked []sharedloc.Loc
		for k := range modes {
			if k.fn == fn && !tried[k] {
				if _, held := a.entry[fn].Lookup(k.m); !held {
					locked = append(locked, k.m)
				}
			}
		}
		if len(locked) == 0 {
			continue
		}
		slices.SortFunc(locked, func(x, y sharedloc.Loc) int { return a.id(x) - a.id(y) })
		may := a.mayLocked(fn, locked)
		var calls []ssa.CallInstruction
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if _, isLock := a.calls[instr]; !isLock {
					if c, ok := instr.(*ssa.Call); ok {
						calls = append(calls, c)
					}
				}
			}
		}
		for _, c := range calls {
			for i, m := range locked {
				if may[c] == nil {
					continue // unreachable
				}
				st := may[c][i]
				if _, held := a.at[c].Lookup(m); held || st&mayReleased != 0 {
					continue
				}
				mode, ok := modes[lockOf{fn, m}], st&mayHeld != 0
				if !ok {
					for _, d := range calls {
						if h, held := a.at[d].Lookup(m); held && d != c && sameCallee(c, d) {
							mode, ok = h.Mode, true
							break
						}
					}
				}
				if ok {
					out[c] = a.add(out[c], m, mode, c.Pos())
				}
			}
		}
	}
	return out
}

// The states mayLocked tracks for each mutex: some path to the point
// passes a Lock of it in the function (mayHeld), or an Unlock or a call
// that releases it (mayReleased).
const (
	mayHeld uint8 = 1 << iota
	mayReleased
)

// mayLocked returns, for each call of fn that is not a lock operation, the
// union over the paths from fn's entry to it of what they pass, for each
// of the mutexes ms (by index). Deferred unlocks run at the returns, after
// every call of the body.
func (a *solver) mayLocked(fn *ssa.Function, ms []sharedloc.Loc) map[ssa.Instruction][]uint8 {
	step := func(instr ssa.Instruction, s []uint8) {
		if lc, ok := a.calls[instr]; ok {
			if i := slices.Index(ms, lc.mutex); i >= 0 {
				switch lc.op {
				case model.Lock, model.RLock, model.TryLock, model.TryRLock:
					s[i] |= mayHeld
				case model.Unlock, model.RUnlock:
					s[i] |= mayReleased
				}
			}
			return
		}
		if _, ok := instr.(*ssa.Defer); ok {
			return
		}
		if c, ok := instr.(ssa.CallInstruction); ok {
			for _, callee := range a.gr.CallGraph.Callees(c) {
				for _, m := range a.effects[callee].release {
					if i := slices.Index(ms, m); i >= 0 {
						s[i] |= mayReleased
					}
				}
			}
		}
	}
	in := make([][]uint8, len(fn.Blocks))
	in[0] = make([]uint8, len(ms))
	work := []*ssa.BasicBlock{fn.Blocks[0]}
	for len(work) > 0 {
		b := work[0]
		work = work[1:]
		s := slices.Clone(in[b.Index])
		for _, instr := range b.Instrs {
			step(instr, s)
		}
		for _, succ := range b.Succs {
			if in[succ.Index] == nil {
				in[succ.Index] = slices.Clone(s)
				work = append(work, succ)
				continue
			}
			changed := false
			for i := range s {
				if in[succ.Index][i]|s[i] != in[succ.Index][i] {
					in[succ.Index][i] |= s[i]
					changed = true
				}
			}
			if changed {
				work = append(work, succ)
			}
		}
	}
	out := make(map[ssa.Instruction][]uint8)
	for _, b := range fn.Blocks {
		if in[b.Index] == nil {
			continue
		}
		s := slices.Clone(in[b.Index])
		for _, instr := range b.Instrs {
			if _, ok := instr.(*ssa.Call); ok {
				out[instr] = slices.Clone(s)
			}
			step(instr, s)
		}
	}
	return out
}

// sameCallee reports whether two calls run the same code: the same
// function, the same function value, or the same method of the same
// receiver value.
func sameCallee(c, d ssa.CallInstruction) bool {
	x, y := c.Common(), d.Common()
	if f := x.StaticCallee(); f != nil {
		return f == y.StaticCallee()
	}
	if x.IsInvoke() {
		return y.IsInvoke() && x.Method == y.Method && x.Value == y.Value
	}
	return !y.IsInvoke() && y.StaticCallee() == nil && x.Value == y.Value
}

// reentrantSolution solves the lock sets again with the locks of calls
// taken as held at each of them (see reentrantCalls), leaving out the
// call sites skip says.
func (a *solver) reentrantSolution(calls map[ssa.Instruction]Set, skip func(ssa.Instruction) bool) *Solution {
	sol := a.again(skip)
	sol.assume = calls
	return sol.solve()
}

// ReentrantFuncs returns the functions whose re-entrant calls take m as
// held in the Reentrant solutions, in source order.
func (r *Result) ReentrantFuncs(m sharedloc.Loc) []*ssa.Function {
	var out []*ssa.Function
	for c, s := range r.reentrant {
		if _, ok := s.Lookup(m); ok && !slices.Contains(out, c.Parent()) {
			out = append(out, c.Parent())
		}
	}
	slices.SortFunc(out, func(x, y *ssa.Function) int { return int(x.Pos() - y.Pos()) })
	return out
}

// Reentrant returns the solution that takes, at each call a function
// makes on a path that skips a lock it takes around the same call
// elsewhere, the lock as held (see reentrantCalls): on goroutines that run
// no test code when outsideTests is set (OutsideTests' call sites), else
// over every call site (All's). It is nil when the package makes no such
// call. The solution is computed the first time it is asked for, which
// costs one pass of the lock-set solver; callers ask only for pairs they
// would otherwise report.
func (r *Result) Reentrant(outsideTests bool) *Solution {
	if r.solver == nil || len(r.reentrant) == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	i := 0
	if outsideTests {
		i = 1
	}
	if r.reentrantSol[i] == nil {
		var skip func(ssa.Instruction) bool
		if outsideTests && len(r.testOnly) > 0 {
			skip = func(site ssa.Instruction) bool { return r.testOnly[site.Parent()] }
		}
		r.reentrantSol[i] = r.solver.reentrantSolution(r.reentrant, skip)
	}
	return r.reentrantSol[i]
}

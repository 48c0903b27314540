package concurrent

import (
	"go/constant"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// Elected is a Safe predicate: both accesses run only on the goroutine
// that won one election on the object they touch, so they are on one
// goroutine. An election is a one-shot flag of the object, an atomic
// field that only ever goes from false to true (or 0 to 1) by
// CompareAndSwap, as in
//
//	func (tx *Tx) Commit() error {
//		if !tx.done.CompareAndSwap(false, true) {
//			return ErrTxDone
//		}
//		... tx.txi.Commit() ...  // read
//		tx.close()               // stores nil to tx.txi
//	}
//
// where Rollback wins the same flag before it calls close too: whichever
// wins, the other returns, so the read and the nil store never meet.
// An access is elected when its block lies on the winning branch of the
// CompareAndSwap on the flag of its own base object (made there or by a
// helper that returns it), or when every call
// site of its function in the package is elected for the argument that
// becomes the base (up to electDepth calls), or, in a closure that runs
// in its maker's goroutines, when the closure is made on a winning branch.
func (e *Env) Elected(p Pair) bool {
	wa := e.wins(p.A.Instr, p.A.Base, electDepth)
	if len(wa) == 0 {
		return false
	}
	for _, f := range e.wins(p.B.Instr, p.B.Base, electDepth) {
		if slices.Contains(wa, f) {
			return true
		}
	}
	return false
}

const electDepth = 3

// wins returns the one-shot flags of base's object that the goroutine
// running instr must have won.
func (e *Env) wins(instr ssa.Instruction, base ssa.Value, depth int) []sharedloc.Loc {
	if base == nil || instr.Block() == nil {
		return nil
	}
	var out []sharedloc.Loc
	for d := instr.Block(); d != nil; d = d.Idom() {
		if len(d.Preds) != 1 {
			continue
		}
		i := d.Preds[0]
		ifi, ok := i.Instrs[len(i.Instrs)-1].(*ssa.If)
		if !ok || i.Succs[0] != d {
			continue
		}
		call, ok := ifi.Cond.(*ssa.Call)
		if !ok {
			continue
		}
		for _, a := range e.Shared.ByInstr[call] {
			if a.Base == base && e.oneShot(a.Loc) {
				out = append(out, a.Loc)
			}
		}
		out = append(out, e.helperWins(call, base)...)
	}
	if len(out) > 0 || depth == 0 {
		return out
	}
	fn := instr.Parent()
	if fn.Parent() != nil && outer(fn, base) {
		// A closure's access to a variable of its maker, which
		// sharedloc names by the maker's value.
		return e.closureWins(fn, func(*ssa.MakeClosure) ssa.Value { return base }, depth)
	}
	switch b := base.(type) {
	case *ssa.Parameter:
		idx := slices.Index(fn.Params, b)
		callers := e.Goroutines.CallGraph.Callers(fn)
		if idx < 0 || len(callers) == 0 || len(e.Goroutines.RefSites(fn)) > 0 {
			return nil
		}
		var common []sharedloc.Loc
		for n, edge := range callers {
			site := edge.Site
			if _, isGo := site.(*ssa.Go); isGo || site.Common().IsInvoke() || callgraph.StaticCallee(site.Common()) != fn {
				return nil
			}
			got := e.wins(site, sharedloc.Root(site.Common().Args[idx]), depth-1)
			if n == 0 {
				common = got
			} else {
				common = intersectLocs(common, got)
			}
			if len(common) == 0 {
				return nil
			}
		}
		return common
	case *ssa.FreeVar:
		idx := slices.Index(fn.FreeVars, b)
		if fn.Parent() == nil || idx < 0 {
			return nil
		}
		return e.closureWins(fn, func(mc *ssa.MakeClosure) ssa.Value { return sharedloc.Root(mc.Bindings[idx]) }, depth)
	}
	return nil
}

// helperWins returns the one-shot flags of base's object that call wins
// when it returns true, call being to a helper whose every return is the
// result of its own CompareAndSwap on a flag of one of its parameters, as
// goleveldb's
//
//	func (db *DB) setClosed() bool {
//		return atomic.CompareAndSwapUint32(&db.closed, 0, 1)
//	}
//
// guards Close with `if !db.setClosed() { return ErrClosed }`: a helper
// that may return true by another path elects nobody.
func (e *Env) helperWins(call *ssa.Call, base ssa.Value) []sharedloc.Loc {
	fn := call.Call.StaticCallee()
	if fn == nil || fn.Blocks == nil || len(call.Call.Args) != len(fn.Params) {
		return nil
	}
	var common []sharedloc.Loc
	n := 0
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		if len(ret.Results) != 1 {
			return nil
		}
		cas, ok := ret.Results[0].(*ssa.Call)
		if !ok {
			return nil
		}
		var got []sharedloc.Loc
		for _, a := range e.Shared.ByInstr[cas] {
			p, ok := a.Base.(*ssa.Parameter)
			if !ok || a.Op != sharedloc.AtomicStore || !e.oneShot(a.Loc) {
				continue
			}
			if i := slices.Index(fn.Params, p); i >= 0 && sharedloc.Root(call.Call.Args[i]) == base {
				got = append(got, a.Loc)
			}
		}
		if n == 0 {
			common = got
		} else {
			common = intersectLocs(common, got)
		}
		if len(common) == 0 {
			return nil
		}
		n++
	}
	return common
}

// outer reports whether v belongs to a function that encloses fn.
func outer(fn *ssa.Function, v ssa.Value) bool {
	var owner *ssa.Function
	switch v := v.(type) {
	case *ssa.Parameter:
		owner = v.Parent()
	case ssa.Instruction:
		owner = v.Parent()
	default:
		return false
	}
	for p := fn.Parent(); p != nil; p = p.Parent() {
		if p == owner {
			return true
		}
	}
	return false
}

// closureWins returns the flags won at every place that makes the closure
// fn, for the object base gives there, provided that fn runs on its
// maker's goroutine: no goroutine starts in it, and each closure made is
// only passed to calls (a callback such as withLock's), never stored.
func (e *Env) closureWins(fn *ssa.Function, base func(*ssa.MakeClosure) ssa.Value, depth int) []sharedloc.Loc {
	parent := fn.Parent()
	for _, c := range e.Goroutines.Of(fn) {
		if c.Entry == fn {
			return nil // runs on a goroutine of its own
		}
	}
	var common []sharedloc.Loc
	n := 0
	for _, blk := range parent.Blocks {
		for _, in := range blk.Instrs {
			mc, ok := in.(*ssa.MakeClosure)
			if !ok || mc.Fn != fn {
				continue
			}
			for _, u := range *mc.Referrers() {
				if _, call := u.(*ssa.Call); !call {
					return nil
				}
			}
			got := e.wins(mc, base(mc), depth-1)
			if n == 0 {
				common = got
			} else {
				common = intersectLocs(common, got)
			}
			n++
		}
	}
	return common
}

// oneShot reports whether every write to the flag loc in the package is
// a CompareAndSwap from false to true (or 0 to 1), so that one goroutine
// at most ever wins it.
func (e *Env) oneShot(loc sharedloc.Loc) bool {
	cas := false
	for _, a := range e.Shared.ByLoc[loc] {
		if a.Op == sharedloc.AtomicLoad {
			continue
		}
		call, ok := a.Instr.(*ssa.Call)
		if !ok || a.Op != sharedloc.AtomicStore || !strings.Contains(model.CalleeName(&call.Call), "CompareAndSwap") {
			return false
		}
		args := call.Call.Args
		if len(args) != 3 || !zeroToOne(args[1], args[2]) {
			return false
		}
		cas = true
	}
	return cas
}

func zeroToOne(old, new ssa.Value) bool {
	o, ok1 := old.(*ssa.Const)
	n, ok2 := new.(*ssa.Const)
	if !ok1 || !ok2 || o.Value == nil || n.Value == nil {
		return false
	}
	switch o.Value.Kind() {
	case constant.Bool:
		return !constant.BoolVal(o.Value) && constant.BoolVal(n.Value)
	case constant.Int:
		return constant.Sign(o.Value) == 0 && constant.Sign(n.Value) > 0
	}
	return false
}

func intersectLocs(a, b []sharedloc.Loc) []sharedloc.Loc {
	var out []sharedloc.Loc
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

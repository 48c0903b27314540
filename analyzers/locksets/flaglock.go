package locksets

import (
	"go/constant"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// An integer or boolean flag can be a try-lock: a CompareAndSwap from 0
// to a value that is not 0 (or from false to true) succeeds for one
// goroutine, and no other succeeds until the flag is 0 again; so when
// only the goroutine that won the swap stores 0 back, the code between
// the winning swap and that store excludes every other such section, as
// TryLock and Unlock do (Workiva/go-datastructures' palm and hilbert
// trees: checkAndRun runs a batch only after CompareAndSwapUint64(
// &tree.running, 0, 1), and reset, the batch's last call, stores 0).
//
// flagLockCandidates returns the flags that the package's code uses only
// so, as far as it can tell without the lock sets: an unexported field of
// a struct type of pkg, of an integer or boolean type or one of
// sync/atomic's Bool, Int32, Int64, Uint32, Uint64 and Uintptr, whose
// address goes nowhere but into sync/atomic's Load, CompareAndSwap from 0
// (false) to a constant that is not, and Store of the constant 0 (false),
// with at least one such swap and one such store; no plain load or store,
// no Add, Swap or other constant, no copy of the address, and no store or
// copy() of a whole struct value that holds the field (which would set it
// back to 0 unseen). Whether only the winner stores 0 is checked once the lock sets
// are known (see flagLockBroken). Code outside the package cannot name
// the field; as for a mutex, it is assumed not to overwrite a value in
// use as a whole.
func flagLockCandidates(pkg *types.Package, funcs []*ssa.Function) map[sharedloc.Loc]bool {
	tries := make(map[sharedloc.Loc]bool)
	stores := make(map[sharedloc.Loc]bool)
	bad := make(map[sharedloc.Loc]bool)
	var structStores []types.Type
	for _, fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch instr := instr.(type) {
				case *ssa.FieldAddr:
					l, ok := flagAddrLoc(pkg, instr)
					if !ok {
						continue
					}
					for _, r := range *instr.Referrers() {
						if _, ok := r.(*ssa.DebugRef); ok {
							continue
						}
						switch flagOpOf(r, instr) {
						case model.TryLock:
							tries[l] = true
						case model.Unlock:
							stores[l] = true
						case model.RLock: // a load
						default:
							bad[l] = true
						}
					}
				case *ssa.Store:
					structStores = append(structStores, instr.Val.Type())
				case *ssa.Call:
					// copy(dst, src) overwrites dst's elements whole.
					if b, ok := instr.Call.Value.(*ssa.Builtin); ok && b.Name() == "copy" {
						if sl, ok := instr.Call.Args[0].Type().Underlying().(*types.Slice); ok {
							structStores = append(structStores, sl.Elem())
						}
					}
				}
			}
		}
	}
	out := make(map[sharedloc.Loc]bool)
	for l := range tries {
		if !stores[l] || bad[l] {
			continue
		}
		overwritten := false
		for _, t := range structStores {
			if holdsField(t, l.Obj.(*types.Var), 0) {
				overwritten = true
				break
			}
		}
		if !overwritten {
			out[l] = true
		}
	}
	return out
}

// flagAddrLoc returns the field that fa addresses when it may be a flag
// lock: an unexported field of a struct type of pkg whose type is an
// integer, a boolean, or one of sync/atomic's integer and Bool types.
func flagAddrLoc(pkg *types.Package, fa *ssa.FieldAddr) (sharedloc.Loc, bool) {
	l, ok := sharedloc.AddrLoc(fa)
	if !ok || l.Kind != sharedloc.Field || l.Obj.Exported() || l.Obj.Pkg() != pkg {
		return sharedloc.Loc{}, false
	}
	t := l.Obj.Type()
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "sync/atomic" {
		switch n.Obj().Name() {
		case "Bool", "Int32", "Int64", "Uint32", "Uint64", "Uintptr":
			return l, true
		}
		return sharedloc.Loc{}, false
	}
	b, ok := t.Underlying().(*types.Basic)
	return l, ok && b.Info()&(types.IsInteger|types.IsBoolean) != 0
}

// flagOpOf classifies the use r of a flag's address addr: TryLock for a
// CompareAndSwap from the zero constant to another constant, Unlock for
// a Store of the zero constant, RLock for a Load; 0 for anything else.
func flagOpOf(r ssa.Instruction, addr ssa.Value) model.LockOp {
	call, ok := r.(*ssa.Call)
	if !ok || call.Call.IsInvoke() || len(call.Call.Args) == 0 || call.Call.Args[0] != addr {
		return 0
	}
	for _, a := range call.Call.Args[1:] {
		if a == addr {
			return 0
		}
	}
	name := model.CalleeName(&call.Call)
	rest, ok := strings.CutPrefix(name, "sync/atomic.")
	if !ok {
		if rest, ok = strings.CutPrefix(name, "(*sync/atomic."); !ok {
			return 0
		}
		_, rest, _ = strings.Cut(rest, ").")
	}
	args := call.Call.Args
	switch {
	case strings.HasPrefix(rest, "Load") && len(args) == 1:
		return model.RLock
	case strings.HasPrefix(rest, "CompareAndSwap") && len(args) == 3 && isZero(args[1]) && isConst(args[2]) && !isZero(args[2]):
		return model.TryLock
	case strings.HasPrefix(rest, "Store") && len(args) == 2 && isZero(args[1]):
		return model.Unlock
	}
	return 0
}

func isConst(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.Value != nil && (c.Value.Kind() == constant.Int || c.Value.Kind() == constant.Bool)
}

func isZero(v ssa.Value) bool {
	if !isConst(v) {
		return false
	}
	c := v.(*ssa.Const).Value
	if c.Kind() == constant.Bool {
		return !constant.BoolVal(c)
	}
	return constant.Sign(c) == 0
}

// holdsField reports whether a value of type t holds the field f itself
// (not behind a pointer): f is one of its fields, or of a struct or
// array it holds.
func holdsField(t types.Type, f *types.Var, depth int) bool {
	if depth > 8 {
		return true // deep enough to say yes, the safe answer
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		for i := range u.NumFields() {
			if u.Field(i).Origin() == f || holdsField(u.Field(i).Type(), f, depth+1) {
				return true
			}
		}
	case *types.Array:
		return holdsField(u.Elem(), f, depth+1)
	}
	return false
}

// findFlagLockOps records the operations on the flag locks: a
// CompareAndSwap from 0 is a TryLock, a Store of 0 an Unlock.
func (a *solver) findFlagLockOps() {
	if len(a.flagLocks) == 0 {
		return
	}
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				fa, ok := instr.(*ssa.FieldAddr)
				if !ok {
					continue
				}
				l, ok := flagAddrLoc(a.pkg, fa)
				if !ok || !a.flagLocks[l] {
					continue
				}
				for _, r := range *fa.Referrers() {
					if op := flagOpOf(r, fa); op == model.TryLock || op == model.Unlock {
						a.calls[r] = lockCall{op, l}
						a.id(l)
					}
				}
			}
		}
	}
}

// flagLockBroken returns the flag locks that the solved lock sets show
// stored 0 where the storing goroutine may not hold them (on some path,
// it did not win the swap, nor was it handed the flag by a go statement
// or a caller that did): a flag so cleared is a signal between
// goroutines, not a lock.
func (a *solver) flagLockBroken() map[sharedloc.Loc]bool {
	out := make(map[sharedloc.Loc]bool)
	for instr, lc := range a.calls {
		if lc.op != model.Unlock || !a.flagLocks[lc.mutex] {
			continue
		}
		if _, ok := a.at[instr].Lookup(lc.mutex); !ok {
			out[lc.mutex] = true
		}
	}
	return out
}

package locksets

import (
	"cmp"
	"go/constant"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
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
// so, as far as it can tell without the lock sets, and the operations on
// them (a TryLock or an Unlock, by instruction): an unexported field of
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
//
// An element of an unexported array field of such flags is a flag of its
// own, one per constant index, when every index the package's code
// addresses it by is a constant, or a parameter of a helper whose every
// call passes a constant there (netpoll's connection locker:
// lock(k key) is `return atomic.CompareAndSwapInt32(&l.keychain[k], 0,
// 1)`, unlock(k) stores 0, and callers say lock(processing) or
// unlock(flushing)). A helper's operation is its call's: a one-block
// helper that returns its swap's result is a TryLock at each call, one
// that stores 0 an Unlock at each call, deferred or not (a deferred one
// must hold the flag where it is deferred and at every return of its
// function, which unlocks it no other way: flagLockBroken); a swap in any
// other helper is an acquisition left unseen (it only leaves pairs
// reported); a store of 0 in one, a helper started by a go statement or
// called by other means than a static call (a method value, an
// interface) leaves the flags it may touch out; so does an index that is
// neither.
func flagLockCandidates(pkg *types.Package, funcs []*ssa.Function) (map[sharedloc.Loc]bool, map[ssa.Instruction]lockCall) {
	f := &flagFinder{
		pkg:      pkg,
		funcs:    funcs,
		ops:      make(map[ssa.Instruction]lockCall),
		tries:    make(map[sharedloc.Loc]bool),
		stores:   make(map[sharedloc.Loc]bool),
		bad:      make(map[sharedloc.Loc]bool),
		badField: make(map[types.Object]bool),
		keys:     make(map[flagKey]*ssa.Const),
	}
	var structStores []types.Type
	for _, fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch instr := instr.(type) {
				case *ssa.FieldAddr:
					if l, ok := flagAddrLoc(pkg, instr); ok {
						for _, r := range *instr.Referrers() {
							if _, ok := r.(*ssa.DebugRef); !ok {
								f.direct(r, instr, l)
							}
						}
					} else if l, ok := flagArrayLoc(pkg, instr); ok {
						f.array(fn, instr, l)
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
	for l := range f.tries {
		if !f.stores[l] || f.bad[l] || f.badField[l.Obj] {
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
	for instr, lc := range f.ops {
		if !out[lc.mutex] {
			delete(f.ops, instr)
		}
	}
	return out, f.ops
}

// flagFinder gathers the uses of the flags for flagLockCandidates.
type flagFinder struct {
	pkg   *types.Package
	funcs []*ssa.Function
	// ops are the TryLocks and Unlocks found; tries and stores, the
	// flags that have some; bad, those used otherwise; badField, the
	// array fields some of whose elements are used otherwise or by an
	// index that is not known.
	ops                map[ssa.Instruction]lockCall
	tries, stores, bad map[sharedloc.Loc]bool
	badField           map[types.Object]bool
	keys               map[flagKey]*ssa.Const
	// sites, unknown, wrapped and invoked say who calls a helper (see
	// callSites).
	sites   map[*ssa.Function][]ssa.CallInstruction
	unknown map[*ssa.Function]bool
	wrapped map[types.Object]bool
	invoked map[string]bool
}

type flagKey struct {
	field types.Object
	index int64
}

// direct classifies the use r of the address addr of the flag l.
func (f *flagFinder) direct(r ssa.Instruction, addr ssa.Value, l sharedloc.Loc) {
	switch op := flagOpOf(r, addr); op {
	case model.TryLock:
		f.tries[l] = true
		f.add(r, lockCall{op, l})
	case model.Unlock:
		f.stores[l] = true
		f.add(r, lockCall{op, l})
	case model.RLock: // a load
	default:
		f.bad[l] = true
	}
}

// add records op at instr, unless instr has another already (a helper
// that does two things is no one operation): then both flags are bad.
func (f *flagFinder) add(instr ssa.Instruction, op lockCall) {
	if old, ok := f.ops[instr]; ok && old != op {
		f.bad[old.mutex] = true
		f.bad[op.mutex] = true
		return
	}
	f.ops[instr] = op
}

// elem returns the location of the flag at the constant index k of the
// array field field: the field, with a constant of its own per index as
// the cell, so that distinct indexes are distinct locks.
func (f *flagFinder) elem(field types.Object, k int64) sharedloc.Loc {
	key := flagKey{field, k}
	c, ok := f.keys[key]
	if !ok {
		c = ssa.NewConst(constant.MakeInt64(k), types.Typ[types.Int])
		f.keys[key] = c
	}
	return sharedloc.Loc{Kind: sharedloc.Field, Obj: field, Cell: c}
}

// array classifies the uses of fa, the address of an array field of
// flags.
func (f *flagFinder) array(fn *ssa.Function, fa *ssa.FieldAddr, field sharedloc.Loc) {
	for _, r := range *fa.Referrers() {
		if _, ok := r.(*ssa.DebugRef); ok {
			continue
		}
		ia, ok := r.(*ssa.IndexAddr)
		if !ok || ia.X != fa {
			f.badField[field.Obj] = true
			continue
		}
		if k, ok := constIndex(ia.Index); ok {
			l := f.elem(field.Obj, k)
			for _, u := range *ia.Referrers() {
				if _, ok := u.(*ssa.DebugRef); !ok {
					f.direct(u, ia, l)
				}
			}
			continue
		}
		p, ok := ia.Index.(*ssa.Parameter)
		idx := slices.Index(fn.Params, p)
		if !ok || idx < 0 {
			f.badField[field.Obj] = true
			continue
		}
		sites, known := f.callSites(fn)
		if !known {
			f.badField[field.Obj] = true
			continue
		}
		var locs []sharedloc.Loc
		for _, site := range sites {
			k, ok := constIndex(site.Common().Args[idx])
			if !ok {
				f.badField[field.Obj] = true
				return
			}
			locs = append(locs, f.elem(field.Obj, k))
		}
		for _, u := range *ia.Referrers() {
			if _, ok := u.(*ssa.DebugRef); ok {
				continue
			}
			op := flagOpOf(u, ia)
			switch {
			case op == model.RLock: // a load
				continue
			case op == model.TryLock && !oneBlockReturning(fn, u):
				// An acquisition left unseen: it holds less.
				for _, l := range locs {
					f.tries[l] = true
				}
				continue
			case op == model.TryLock || op == model.Unlock && len(fn.Blocks) == 1:
				for i, site := range sites {
					_, deferred := site.(*ssa.Defer)
					switch {
					case op == model.TryLock && deferred:
						f.bad[locs[i]] = true
						continue
					case op == model.TryLock:
						f.tries[locs[i]] = true
					default:
						f.stores[locs[i]] = true
					}
					f.add(site, lockCall{op, locs[i]})
				}
				continue
			}
			for _, l := range locs {
				f.bad[l] = true
			}
		}
	}
}

// oneBlockReturning reports whether fn is one block that returns the
// value of instr as its one result.
func oneBlockReturning(fn *ssa.Function, instr ssa.Instruction) bool {
	if len(fn.Blocks) != 1 {
		return false
	}
	ret, ok := fn.Blocks[0].Instrs[len(fn.Blocks[0].Instrs)-1].(*ssa.Return)
	v, isValue := instr.(ssa.Value)
	return ok && isValue && len(ret.Results) == 1 && ret.Results[0] == v
}

// callSites returns the calls of fn in the package's code, when those are
// all: fn is not exported, nor a method of an interface that the package
// calls by name, and neither its value nor a wrapper of it (a method
// value, a method expression) is taken anywhere; the calls returned are
// static calls and deferred calls, none started by a go statement.
func (f *flagFinder) callSites(fn *ssa.Function) ([]ssa.CallInstruction, bool) {
	if f.sites == nil {
		f.sites = make(map[*ssa.Function][]ssa.CallInstruction)
		f.unknown = make(map[*ssa.Function]bool)
		f.wrapped = make(map[types.Object]bool)
		f.invoked = make(map[string]bool)
		var ops [16]*ssa.Value
		for _, g := range f.funcs {
			for _, b := range g.Blocks {
				for _, instr := range b.Instrs {
					site, isCall := instr.(ssa.CallInstruction)
					if isCall && site.Common().IsInvoke() {
						f.invoked[site.Common().Method.Name()] = true
					}
					for i, op := range instr.Operands(ops[:0]) {
						h, ok := (*op).(*ssa.Function)
						if !ok {
							continue
						}
						if h.Synthetic != "" && h.Object() != nil {
							f.wrapped[h.Object()] = true
						}
						if _, isGo := instr.(*ssa.Go); isCall && !isGo && i == 0 {
							f.sites[h] = append(f.sites[h], site)
							continue
						}
						f.unknown[h] = true
					}
				}
			}
		}
	}
	obj := fn.Object()
	if obj == nil || obj.Exported() || f.unknown[fn] || f.wrapped[obj] ||
		fn.Signature.Recv() != nil && f.invoked[fn.Name()] {
		return nil, false
	}
	return f.sites[fn], true
}

// flagAddrLoc returns the field that fa addresses when it may be a flag
// lock: an unexported field of a struct type of pkg whose type is an
// integer, a boolean, or one of sync/atomic's integer and Bool types.
func flagAddrLoc(pkg *types.Package, fa *ssa.FieldAddr) (sharedloc.Loc, bool) {
	l, ok := sharedloc.AddrLoc(fa)
	if !ok || l.Kind != sharedloc.Field || l.Obj.Exported() || l.Obj.Pkg() != pkg {
		return sharedloc.Loc{}, false
	}
	return l, flagType(l.Obj.Type())
}

// flagType reports whether t is an integer or boolean type, or one of
// sync/atomic's integer and Bool types.
func flagType(t types.Type) bool {
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "sync/atomic" {
		switch n.Obj().Name() {
		case "Bool", "Int32", "Int64", "Uint32", "Uint64", "Uintptr":
			return true
		}
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsInteger|types.IsBoolean) != 0
}

// flagArrayLoc returns the field that fa addresses when its elements may
// be flag locks (see flagLockCandidates): an unexported field of a struct
// type of pkg whose type is an array of what flagAddrLoc accepts.
func flagArrayLoc(pkg *types.Package, fa *ssa.FieldAddr) (sharedloc.Loc, bool) {
	l, ok := sharedloc.AddrLoc(fa)
	if !ok || l.Kind != sharedloc.Field || l.Obj.Exported() || l.Obj.Pkg() != pkg {
		return sharedloc.Loc{}, false
	}
	arr, ok := l.Obj.Type().Underlying().(*types.Array)
	return l, ok && flagType(arr.Elem())
}

// constIndex returns the value of v when it is an integer constant.
func constIndex(v ssa.Value) (int64, bool) {
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(c.Value)
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
// CompareAndSwap from 0 is a TryLock, a Store of 0 an Unlock (at the
// call of a helper whose index is a parameter: flagLockCandidates).
func (a *solver) findFlagLockOps() {
	// In source order: a.id numbers the flags, and lock sets list their
	// mutexes by number (the related lines of a report), so map order
	// here made two runs list two flags held at one access differently.
	instrs := make([]ssa.Instruction, 0, len(a.flagOps))
	for instr := range a.flagOps {
		instrs = append(instrs, instr)
	}
	slices.SortFunc(instrs, func(x, y ssa.Instruction) int { return cmp.Compare(x.Pos(), y.Pos()) })
	for _, instr := range instrs {
		lc := a.flagOps[instr]
		if !a.flagLocks[lc.mutex] {
			continue
		}
		a.id(lc.mutex)
		if d, ok := instr.(*ssa.Defer); ok {
			fn := d.Parent()
			a.deferred[fn] = append(a.deferred[fn], lc.mutex)
			a.deferredUnlocks[d] = lc.mutex
			continue
		}
		a.calls[instr] = lc
	}
}

// flagLockBroken returns the flag locks that the solved lock sets show
// stored 0 where the storing goroutine may not hold them (on some path,
// it did not win the swap, nor was it handed the flag by a go statement
// or a caller that did): a flag so cleared is a signal between
// goroutines, not a lock. A deferred store of 0 (a deferred unlock
// helper) must hold it where deferred and at every return.
func (a *solver) flagLockBroken() map[sharedloc.Loc]bool {
	out := make(map[sharedloc.Loc]bool)
	unlocks := make(map[*ssa.Function][]sharedloc.Loc)
	for instr, lc := range a.calls {
		if lc.op != model.Unlock || !a.flagLocks[lc.mutex] {
			continue
		}
		unlocks[instr.Parent()] = append(unlocks[instr.Parent()], lc.mutex)
		if _, ok := a.at[instr].Lookup(lc.mutex); !ok {
			out[lc.mutex] = true
		}
	}
	// A deferred unlock runs at every return after it, and where the
	// function panics: its function must hold the flag where it defers
	// it, in no loop, and at every return it can reach, and unlock it no
	// other way.
	for d, m := range a.deferredUnlocks {
		if !a.flagLocks[m] {
			continue
		}
		fn := d.Parent()
		if _, ok := a.at[d].Lookup(m); !ok || slices.Contains(unlocks[fn], m) || ssaflow.OnCycle(d.Block()) {
			out[m] = true
			continue
		}
		after := reachable(d.Block())
		for _, ret := range ssaflow.Returns(fn) {
			if _, ok := a.at[ret].Lookup(m); !ok && after[ret.Block()] {
				out[m] = true
			}
		}
	}
	return out
}

// reachable returns the blocks b reaches, itself included.
func reachable(b *ssa.BasicBlock) map[*ssa.BasicBlock]bool {
	seen := map[*ssa.BasicBlock]bool{b: true}
	work := []*ssa.BasicBlock{b}
	for len(work) > 0 {
		c := work[len(work)-1]
		work = work[:len(work)-1]
		for _, s := range c.Succs {
			if !seen[s] {
				seen[s] = true
				work = append(work, s)
			}
		}
	}
	return seen
}

package concurrent

import (
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// maxModStep bounds the constant c of a ring's `(x + c) % len(s)` that
// ModIndexed takes: x is below len(s), or a constant of the object's
// construction, so x + c cannot wrap around but for a slice within
// maxModStep of the largest int, which no allocation reaches.
const maxModStep = 1 << 16

// maxModStart bounds the constants construction may store to an index
// that a ring's `(x + c) % len(s)` reads as x: with c at most maxModStep
// their sum stays within a 32-bit int.
const maxModStart = 1 << 30

// ModIndexed reports whether the index expression seq[idx], where idx is a
// load of a field f of an object and seq a load of its field s (through
// the same object value), is in range whatever stores to f it sees: a ring
// buffer's `r.ids[r.index]` after `r.index = (r.index + 1) % len(r.ids)`
// (groupbytrace's ringBuffer). It holds when
//
//   - f and s are unexported fields of the package's named structs, their
//     addresses only loaded from and stored to, and no code of the package
//     handles those structs whole (a copy writes every field at once);
//   - s is stored only while its object is built (a composite literal's
//     field, or a store to an object no other goroutine can reach yet, see
//     sharedloc's Local): once the object is shared its slice, and so its
//     length, never changes (an append or reslice stored back is a store);
//   - every store to f stores `e % len(o.s)`, o the object the store
//     writes f of (through conversions to a type as wide as int; or
//     `e % o.z`, z a field that holds the length of s, see sizeOf), with e
//     not negative: of an unsigned type, a constant at least 0, or `x + c`
//     with x a load of f and c a constant from 0 to maxModStep; or, while
//     the object is built, a constant k. Go's % keeps the dividend's
//     sign, so `e % n` with e >= 0 lies in [0, n). Every value f holds is
//     then some k, 0 (the zero value) or such a remainder, so x + c is not
//     negative when every k is at least -c, and the rule requires that;
//   - the value the reader sees is not the one construction left:
//     either a remainder store to the same address dominates the load in
//     its function (the reader reads after its own store, so it sees that
//     store or a later one, every one of them in range: a ring's put), or
//     construction stores only 0, which is out of range only for an empty
//     slice, which every index is.
//
// Assumed: the object reached the reading goroutine through
// synchronization (a go statement, a channel, a lock), so that its
// construction happens before the reader's own store.
func (e *Env) ModIndexed(idx, seq ssa.Value) bool {
	load, fi, ok := fieldLoad(wideValue(idx))
	if !ok {
		return false
	}
	_, fs, ok := fieldLoad(seq)
	if !ok || !SameValue(fi.X, fs.X) {
		return false
	}
	if _, isSlice := seq.Type().Underlying().(*types.Slice); !isSlice {
		return false
	}
	f, s := ssavalue.Field(fi), ssavalue.Field(fs)
	facts := e.modFacts(f, s)
	if !facts.ok {
		return false
	}
	return facts.zeroStart || e.modStoreBefore(load, fi, f, s)
}

// LenFieldRem reports whether idx is `x % o.z` (through conversions to
// types as wide as int), x never negative (NonNegative) and z a field of
// o that holds the length of the slice seq loads from o's field s (see
// sizeOf): whatever value x has, which a concurrent write may change, the
// index is in [0, len), and s never changes once o is built (diago's
// jitter buffer, `j.sequence[int(j.expectedSeq) % j.maxPackets]`, while
// another goroutine advances expectedSeq).
func (e *Env) LenFieldRem(idx, seq ssa.Value) bool {
	rem, ok := wideValue(idx).(*ssa.BinOp)
	if !ok || rem.Op != token.REM || !e.NonNegative(rem.X) {
		return false
	}
	if _, isSlice := seq.Type().Underlying().(*types.Slice); !isSlice {
		return false
	}
	_, fs, ok := fieldLoad(seq)
	if !ok {
		return false
	}
	_, fz, ok := fieldLoad(wideValue(rem.Y))
	return ok && SameValue(fz.X, fs.X) && e.sizeOf(ssavalue.Field(fz), ssavalue.Field(fs))
}

// NonNegative reports whether the integer v is never negative: of an
// unsigned type, a constant at least 0, or a conversion of an unsigned
// value to a type wider than its own (int(u16); int(u64) may be negative).
func (e *Env) NonNegative(v ssa.Value) bool {
	if k, ok := intConst(v); ok {
		return k >= 0
	}
	t, ok := v.Type().Underlying().(*types.Basic)
	if !ok || t.Info()&types.IsInteger == 0 {
		return false
	}
	if t.Info()&types.IsUnsigned != 0 {
		return true
	}
	cv, ok := v.(*ssa.Convert)
	if !ok {
		return false
	}
	from, ok := cv.X.Type().Underlying().(*types.Basic)
	sizes := e.Pass.TypesSizes
	return ok && from.Info()&types.IsUnsigned != 0 && sizes != nil && sizes.Sizeof(from) < sizes.Sizeof(t)
}

// modKey names a pair of an index field and the slice field it indexes.
type modKey struct{ f, s *types.Var }

// modFact is what ModIndexed finds of a pair of fields, the same for every
// read: ok when every store keeps the index in its slice's range, and
// zeroStart when construction stores only 0 to the index.
type modFact struct{ ok, zeroStart bool }

func (e *Env) modFacts(f, s *types.Var) modFact {
	k := modKey{f, s}
	if v, ok := e.mods[k]; ok {
		return v
	}
	v := e.computeModFacts(f, s)
	if e.mods == nil {
		e.mods = make(map[modKey]modFact)
	}
	e.mods[k] = v
	return v
}

func (e *Env) computeModFacts(f, s *types.Var) modFact {
	for _, g := range []*types.Var{f, s} {
		if g == nil || g.Exported() || g.Pkg() != e.Pass.Pkg {
			return modFact{}
		}
		owner := e.ownerStruct(g)
		if owner == nil || e.copiedWhole(owner) {
			return modFact{}
		}
	}
	// The stores the package's goroutines make, first: most index fields
	// have one that is no remainder, and these are at hand.
	for _, a := range e.Shared.ByLoc[sharedloc.Loc{Kind: sharedloc.Field, Obj: f}] {
		st, ok := a.Instr.(*ssa.Store)
		if a.Op.IsWrite() && (!ok || !e.built(st) && !e.modStore(st, f, s)) {
			return modFact{}
		}
	}
	fact := modFact{ok: true, zeroStart: true}
	// The least c of the `x + c` remainders (-1 if none), and whether
	// construction stores to f a constant below -c or one so large that
	// x + c could wrap around.
	step := int64(-1)
	least, large := int64(0), false
	for _, fn := range e.packageFuncs() {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				fa, ok := instr.(*ssa.FieldAddr)
				if !ok || ssavalue.Field(fa) != f && ssavalue.Field(fa) != s {
					continue
				}
				for _, u := range *fa.Referrers() {
					switch u := u.(type) {
					case *ssa.UnOp:
						if u.Op != token.MUL {
							return modFact{}
						}
					case *ssa.Store:
						if u.Addr != fa || u.Val == fa {
							return modFact{}
						}
						if ssavalue.Field(fa) == s {
							if !e.built(u) {
								return modFact{}
							}
							continue
						}
						if c, ok := e.modStep(u, f, s); ok {
							if c >= 0 && (step < 0 || c < step) {
								step = c
							}
							if e.built(u) {
								fact.zeroStart = false
							}
							continue
						}
						k, isConst := u.Val.(*ssa.Const)
						if !isConst || k.Value == nil || k.Value.Kind() != constant.Int || !e.built(u) {
							return modFact{}
						}
						n, exact := constant.Int64Val(k.Value)
						large = large || !exact || n > maxModStart
						least = min(least, n)
						fact.zeroStart = fact.zeroStart && exact && n == 0
					case *ssa.DebugRef:
					default:
						return modFact{} // its address goes elsewhere
					}
				}
			}
		}
	}
	if step >= 0 && (large || least < -step) {
		return modFact{}
	}
	return fact
}

// built reports whether st stores to an object no other goroutine can
// reach yet: a composite literal's field, or a store sharedloc finds
// Local. A store in a function no goroutine runs is not.
func (e *Env) built(st *ssa.Store) bool {
	if fa, ok := st.Addr.(*ssa.FieldAddr); ok && literalInit(st, fa) {
		return true
	}
	for _, a := range e.Shared.ByInstr[st] {
		if a.Op == sharedloc.Store && e.Shared.Local(a) {
			return true
		}
	}
	return false
}

// modStore reports whether st stores to f a remainder that ModIndexed
// takes (see modStep).
func (e *Env) modStore(st *ssa.Store, f, s *types.Var) bool {
	_, ok := e.modStep(st, f, s)
	return ok
}

// modStep reports whether st stores `e % len(o.s)` to the field f of
// the object o, e not negative as ModIndexed requires; c is e's constant
// step when e is `x + c`, -1 otherwise.
func (e *Env) modStep(st *ssa.Store, f, s *types.Var) (c int64, ok bool) {
	fa, isField := st.Addr.(*ssa.FieldAddr)
	if !isField || ssavalue.Field(fa) != f {
		return 0, false
	}
	rem, isBin := wideValue(st.Val).(*ssa.BinOp)
	if !isBin || rem.Op != token.REM || !e.lenOfField(rem.Y, fa.X, s) {
		return 0, false
	}
	if t, isBasic := rem.X.Type().Underlying().(*types.Basic); isBasic && t.Info()&types.IsUnsigned != 0 {
		return -1, true
	}
	if k, isConst := intConst(rem.X); isConst {
		return -1, k >= 0
	}
	add, isBin := rem.X.(*ssa.BinOp)
	if !isBin || add.Op != token.ADD {
		return 0, false
	}
	for _, pair := range [][2]ssa.Value{{add.X, add.Y}, {add.Y, add.X}} {
		_, xf, isLoad := fieldLoad(pair[0])
		k, isConst := intConst(pair[1])
		if isLoad && ssavalue.Field(xf) == f && isConst && k >= 0 && k <= maxModStep {
			return k, true
		}
	}
	return 0, false
}

// lenOfField reports whether v is the length of the slice in the field s
// of obj, through conversions to types as wide as int: len of a load of
// it, or a load of a field of obj that holds its length (see sizeOf).
func (e *Env) lenOfField(v, obj ssa.Value, s *types.Var) bool {
	v = wideValue(v)
	if _, fz, ok := fieldLoad(v); ok {
		return SameValue(fz.X, obj) && e.sizeOf(ssavalue.Field(fz), s)
	}
	call, ok := v.(*ssa.Call)
	if !ok || len(call.Call.Args) != 1 {
		return false
	}
	if b, ok := call.Call.Value.(*ssa.Builtin); !ok || b.Name() != "len" {
		return false
	}
	_, fs, ok := fieldLoad(call.Call.Args[0])
	return ok && ssavalue.Field(fs) == s && SameValue(fs.X, obj)
}

// sizeOf reports whether every object's field z holds the length of its
// slice field s, as groupbytrace's `&ringBuffer{size: size, ids:
// make([]pcommon.TraceID, size)}` keeps it: z and s are unexported fields
// of a named struct of the package that no code handles whole, their
// addresses only loaded from and stored to, and each is stored only by
// composite literals that store, to the same new object, z the value v and
// s a make of length v.
func (e *Env) sizeOf(z, s *types.Var) bool {
	k := modKey{z, s}
	if v, ok := e.sizes[k]; ok {
		return v
	}
	v := e.computeSizeOf(z, s)
	if e.sizes == nil {
		e.sizes = make(map[modKey]bool)
	}
	e.sizes[k] = v
	return v
}

func (e *Env) computeSizeOf(z, s *types.Var) bool {
	if z == s {
		return false
	}
	for _, g := range []*types.Var{z, s} {
		if g == nil || g.Exported() || g.Pkg() != e.Pass.Pkg {
			return false
		}
		owner := e.ownerStruct(g)
		if owner == nil || e.copiedWhole(owner) {
			return false
		}
	}
	sizes := make(map[ssa.Value]ssa.Value) // object -> the value stored to z
	lens := make(map[ssa.Value]ssa.Value)  // object -> the length of the make stored to s
	for _, fn := range e.packageFuncs() {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				fa, ok := instr.(*ssa.FieldAddr)
				if !ok || ssavalue.Field(fa) != z && ssavalue.Field(fa) != s {
					continue
				}
				for _, u := range *fa.Referrers() {
					switch u := u.(type) {
					case *ssa.UnOp:
						if u.Op != token.MUL {
							return false
						}
					case *ssa.Store:
						if u.Addr != fa || !literalInit(u, fa) {
							return false
						}
						if ssavalue.Field(fa) == z {
							sizes[fa.X] = u.Val
							continue
						}
						mk, ok := u.Val.(*ssa.MakeSlice)
						if !ok {
							return false
						}
						lens[fa.X] = mk.Len
					case *ssa.DebugRef:
					default:
						return false
					}
				}
			}
		}
	}
	if len(sizes) != len(lens) {
		return false
	}
	for obj, v := range sizes {
		n, ok := lens[obj]
		if !ok || !e.sameInt(v, n) {
			return false
		}
	}
	return true
}

// sameInt reports whether the integers x and y are equal on every
// execution: one value (through conversions as wide as int, which keep
// a length), equal constants, or two loads of one field of a local
// struct that no store to the field can come between (sameLocalLoad).
func (e *Env) sameInt(x, y ssa.Value) bool {
	x, y = wideValue(x), wideValue(y)
	if x == y {
		return true
	}
	kx, ok1 := x.(*ssa.Const)
	ky, ok2 := y.(*ssa.Const)
	if ok1 && ok2 {
		return kx.Value != nil && ky.Value != nil && constant.Compare(kx.Value, token.EQL, ky.Value)
	}
	return e.sameLocalLoad(x, y)
}

// sameLocalLoad reports whether x and y load one field of one local
// variable that does not escape (an options struct parameter the
// constructor adjusts: `make([]int, opts.Max)`, then `max: opts.Max`),
// and no store to the variable or the field runs between them, in either
// order, within one invocation.
func (e *Env) sameLocalLoad(x, y ssa.Value) bool {
	lx, ok1 := x.(*ssa.UnOp)
	ly, ok2 := y.(*ssa.UnOp)
	if !ok1 || !ok2 || lx.Op != token.MUL || ly.Op != token.MUL {
		return false
	}
	fx, ok1 := lx.X.(*ssa.FieldAddr)
	fy, ok2 := ly.X.(*ssa.FieldAddr)
	if !ok1 || !ok2 || fx.Field != fy.Field || fx.X != fy.X {
		return false
	}
	local, ok := fx.X.(*ssa.Alloc)
	if !ok || local.Heap {
		return false
	}
	flow := e.Goroutines.Flow
	for _, r := range *local.Referrers() {
		var stores []ssa.Instruction
		switch r := r.(type) {
		case *ssa.Store:
			stores = append(stores, r)
		case *ssa.FieldAddr:
			if r.Field != fx.Field {
				continue
			}
			for _, u := range *r.Referrers() {
				switch u.(type) {
				case *ssa.UnOp, *ssa.DebugRef:
				default:
					stores = append(stores, u)
				}
			}
		case *ssa.UnOp, *ssa.DebugRef:
		default:
			return false // its address goes elsewhere
		}
		for _, st := range stores {
			if flow.MayFollow(lx, st) && flow.MayFollow(st, ly) || flow.MayFollow(ly, st) && flow.MayFollow(st, lx) {
				return false
			}
		}
	}
	return true
}

// modStoreBefore reports whether a remainder store to load's address fa
// (see modStep) runs before load on every path through load's function.
func (e *Env) modStoreBefore(load *ssa.UnOp, fa *ssa.FieldAddr, f, s *types.Var) bool {
	for _, b := range load.Parent().Blocks {
		for _, instr := range b.Instrs {
			st, ok := instr.(*ssa.Store)
			if !ok || !sameAddr(st.Addr, fa) || !e.modStore(st, f, s) {
				continue
			}
			if b == load.Block() {
				if slices.Index(b.Instrs, instr) < slices.Index(b.Instrs, ssa.Instruction(load)) {
					return true
				}
			} else if b.Dominates(load.Block()) {
				return true
			}
		}
	}
	return false
}

// wideValue strips v's conversions to integer types as wide as int, which
// keep every value from 0 to the largest int (an index of a slice, a
// length).
func wideValue(v ssa.Value) ssa.Value {
	for {
		cv, ok := v.(*ssa.Convert)
		if !ok {
			return v
		}
		b, ok := cv.Type().Underlying().(*types.Basic)
		if !ok {
			return v
		}
		switch b.Kind() {
		case types.Int, types.Int64, types.Uint, types.Uint64, types.Uintptr:
			v = cv.X
		default:
			return v
		}
	}
}

// intConst returns v as an integer constant that fits in an int64.
func intConst(v ssa.Value) (int64, bool) {
	k, ok := v.(*ssa.Const)
	if !ok || k.Value == nil || k.Value.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(k.Value)
}

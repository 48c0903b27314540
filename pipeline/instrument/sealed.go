package instrument

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/pipeline/rewrite"
)

// Sealed sections (trace.UseSealed): a critical section whose values stay
// inside it. detect/oscs asks of a goroutine's section whether what it
// read goes on past its Unlock (a premise that another goroutine's
// section, run before the goroutine's next one, may break: KB1's count,
// MySQL-2's check). The trace cannot say: it records where a loaded value
// goes only site by site (trace.Site.Uses), and a value passed to a call
// may be kept. The function can: an expiration loop that, under the lock,
// reads the queue's earliest deadline, computes how long to sleep and
// unlocks, then sleeps and locks again to look at the queue afresh,
// carries nothing from its first section into its second but the sleep's
// length (ttlcache's startExpirationProcessing).
//
// An Unlock is sealed when, in its function:
//   - every path to it from the function's entry passes one Lock of the
//     same lock expression (objectOf), with no other Unlock or Lock of it
//     between, and every path from that Lock reaches it (or panics)
//     without another Unlock or Lock of it and without returning: the
//     section is one region, entered and left at one place, so no branch
//     taken in it decides what runs after the Unlock;
//   - no value computed in the region is used after the Unlock, except as
//     the duration given to a timer or a sleep (timerDurations): when the
//     next section runs is not what it finds;
//   - the region makes no go statement, defer, send, select or append, calls
//     only functions that store nothing outside their own fresh memory
//     (pure), and stores what it computed only into fields of the object
//     whose lock it holds, or into (or deletes from) maps those fields
//     hold, that the function does not load outside the region (a field
//     the next section of the same function reads would carry the value;
//     a callee's read of it is in the trace, and detect/oscs looks
//     there).
//
// A deferred Unlock is never sealed: the region runs to the return.

// timerDurations are the functions that take a duration and start a timer
// or sleep, by types.Func.FullName: a value used only there decides when
// the goroutine goes on, not what it does next. The index is the
// duration's argument (a method's receiver is argument 0).
var timerDurations = map[string]int{
	"time.Sleep": 0, "time.NewTimer": 0, "time.After": 0, "time.Tick": 0, "time.NewTicker": 0, "time.AfterFunc": 0,
	"(*time.Timer).Reset": 1, "(*time.Ticker).Reset": 1,
}

// pureStd are the standard packages whose functions store nothing of the
// caller's (strings' functions only, not its Builder's or Reader's
// methods).
var pureStd = map[string]bool{
	"time": true, "math": true, "math/bits": true, "strconv": true, "strings": true, "unicode": true, "unicode/utf8": true,
}

// maxPureDepth bounds the calls followed to decide that a callee is pure.
const maxPureDepth = 4

// sealedUnlocks returns the positions (Lparen) of fn's sealed Unlock
// calls, and of its sealed calls of unlocking lock helpers of its package
// (helpers: the rewriter records a helper's operation at its call, and a
// section that a lock helper's call begins and an unlock helper's call
// ends, on one object, is judged as one of Lock and Unlock calls).
func sealedUnlocks(fn *ssa.Function, pure *purity, helpers lockHelperSet) []token.Pos {
	var out []token.Pos
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(*ssa.Call)
			if !ok || !call.Pos().IsValid() || helpers.kind(call) != unlockCall {
				continue
			}
			if r := helpers.sectionOf(call); r != nil && r.sealed(fn, pure) {
				out = append(out, call.Pos())
			}
		}
	}
	return out
}

type lockKind int

const (
	otherCall lockKind = iota
	lockCall
	unlockCall
)

// lockOp says whether fn is a lock acquisition of package sync (Lock,
// RLock, TryLock, TryRLock: lockCall), a release (Unlock, RUnlock:
// unlockCall), or neither.
func lockOp(fn *ssa.Function) lockKind {
	if fn == nil || fn.Pkg == nil || fn.Pkg.Pkg.Path() != "sync" || fn.Signature.Recv() == nil {
		return otherCall
	}
	switch fn.Name() {
	case "Lock", "RLock", "TryLock", "TryRLock":
		return lockCall
	case "Unlock", "RUnlock":
		return unlockCall
	}
	return otherCall
}

// A lockHelperSet holds a package's lock helpers (lockHelpers), whose
// calls are lock calls for the sealed sections.
type lockHelperSet map[*types.Func]*rewrite.LockHelper

// helper returns the lock helper that call calls, nil if none.
func (hs lockHelperSet) helper(call *ssa.Call) *rewrite.LockHelper {
	if len(hs) == 0 {
		return nil
	}
	fn := call.Call.StaticCallee()
	if fn == nil {
		return nil
	}
	f, ok := fn.Object().(*types.Func)
	if !ok {
		return nil
	}
	return hs[f.Origin()]
}

// kind is lockOp of call's callee, or of the helper's operation for a
// call of a lock helper.
func (hs lockHelperSet) kind(call *ssa.Call) lockKind {
	if k := lockOp(call.Call.StaticCallee()); k != otherCall {
		return k
	}
	switch h := hs.helper(call); {
	case h == nil:
		return otherCall
	case h.Kind == "unlock" || h.Kind == "runlock":
		return unlockCall
	}
	return lockCall
}

// sameLock reports whether instr is a Lock or Unlock call (of kind) on
// the lock expression of key.
func (hs lockHelperSet) sameLock(instr ssa.Instruction, kind lockKind, key lockKey) bool {
	call, ok := instr.(*ssa.Call)
	return ok && hs.kind(call) == kind && hs.keyOf(call) == key
}

// keyOf is lockKeyOf, and for a call of a lock helper the object its
// lock is reached from with the helper's path after it (a helper's lock
// matches another helper's, not a Lock call's of the same lock: a
// section that mixes the two is not judged). The zero key for a
// helper's package-level lock.
func (hs lockHelperSet) keyOf(call *ssa.Call) lockKey {
	h := hs.helper(call)
	if h == nil {
		return lockKeyOf(call)
	}
	i := h.Root
	if i == rewrite.Global {
		return lockKey{}
	}
	if call.Call.Signature().Recv() != nil {
		i++ // the receiver is the first argument
	}
	if i < 0 || i >= len(call.Call.Args) {
		return lockKey{}
	}
	base, path, _ := objectOf(call.Call.Args[i])
	return lockKey{base, path + "|" + h.Path}
}

// A lockKey names a lock expression: the value its path of fields starts
// from and the path (objectOf).
type lockKey struct {
	base ssa.Value
	path string
}

func lockKeyOf(call *ssa.Call) lockKey {
	if len(call.Call.Args) == 0 {
		return lockKey{}
	}
	base, path, _ := objectOf(call.Call.Args[0])
	return lockKey{base, path}
}

// A region is the instructions of one critical section in one function,
// from just after its Lock to just before its Unlock.
type region struct {
	key    lockKey
	unlock *ssa.Call
	in     map[ssa.Instruction]bool
}

// sectionOf returns the region that unlock ends, or nil if it is not
// one region entered at one Lock and left at this Unlock alone.
func (hs lockHelperSet) sectionOf(unlock *ssa.Call) *region {
	key := hs.keyOf(unlock)
	if key.base == nil {
		return nil
	}
	// Backward: every path to the Unlock passes exactly one Lock.
	var lock ssa.Instruction
	seen := make(map[*ssa.BasicBlock]bool)
	var back func(b *ssa.BasicBlock, from int) bool
	back = func(b *ssa.BasicBlock, from int) bool {
		for i := from; i >= 0; i-- {
			instr := b.Instrs[i]
			switch {
			case hs.sameLock(instr, lockCall, key):
				if lock != nil && lock != instr {
					return false
				}
				lock = instr
				return true
			case hs.sameLock(instr, unlockCall, key):
				return false
			}
		}
		if len(b.Preds) == 0 {
			return false // the function's entry, unlocked
		}
		for _, p := range b.Preds {
			if seen[p] {
				continue
			}
			seen[p] = true
			if !back(p, len(p.Instrs)-1) {
				return false
			}
		}
		return true
	}
	ub := unlock.Block()
	if !back(ub, indexOf(ub, unlock)-1) || lock == nil {
		return nil
	}
	// Forward: every path from the Lock reaches this Unlock.
	r := &region{key: key, unlock: unlock, in: make(map[ssa.Instruction]bool)}
	entered := make(map[*ssa.BasicBlock]bool)
	var fwd func(b *ssa.BasicBlock, from int) bool
	fwd = func(b *ssa.BasicBlock, from int) bool {
		for i := from; i < len(b.Instrs); i++ {
			instr := b.Instrs[i]
			switch instr.(type) {
			case *ssa.Return:
				return false
			case *ssa.Panic:
				return true
			}
			if instr == unlock {
				return true
			}
			if hs.sameLock(instr, lockCall, key) || hs.sameLock(instr, unlockCall, key) {
				return false
			}
			r.in[instr] = true
		}
		for _, s := range b.Succs {
			if entered[s] {
				continue
			}
			entered[s] = true
			if !fwd(s, 0) {
				return false
			}
		}
		return true
	}
	lb := lock.Block()
	if !fwd(lb, indexOf(lb, lock)+1) {
		return nil
	}
	return r
}

func indexOf(b *ssa.BasicBlock, instr ssa.Instruction) int {
	for i, x := range b.Instrs {
		if x == instr {
			return i
		}
	}
	return -1
}

// sealed reports whether nothing the region computes outlives it (see
// the comment at the top of this file).
func (r *region) sealed(fn *ssa.Function, pure *purity) bool {
	stored := make(map[*types.Var]bool) // the fields the region stores computed values to
	for instr := range r.in {
		switch instr := instr.(type) {
		case *ssa.Go, *ssa.Defer, *ssa.Send, *ssa.Select:
			return false
		case *ssa.MapUpdate:
			f := r.lockedMap(instr.Map)
			if f == nil {
				return false
			}
			stored[f] = true
		case *ssa.Store:
			if v, ok := instr.Val.(ssa.Instruction); ok && r.in[v] {
				f := r.lockedField(instr.Addr)
				if f == nil {
					return false
				}
				stored[f] = true
			}
		case *ssa.Call:
			if f := r.deleteFrom(instr.Common()); f != nil {
				stored[f] = true
			} else if !pure.call(instr.Common(), 0) {
				return false
			}
		}
		v, ok := instr.(ssa.Value)
		if !ok || v.Referrers() == nil {
			continue
		}
		for _, use := range *v.Referrers() {
			if r.in[use] || use == r.unlock {
				continue
			}
			if _, ok := use.(*ssa.DebugRef); ok {
				continue
			}
			if !timerDuration(use, v) {
				return false
			}
		}
	}
	if len(stored) == 0 {
		return true
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			load, ok := instr.(*ssa.UnOp)
			if !ok || load.Op != token.MUL || r.in[instr] {
				continue
			}
			if f := r.lockedField(load.X); f != nil && stored[f] {
				return false
			}
		}
	}
	return true
}

// lockedField returns the field that addr is, when it is reached through
// fields, elements and pointers from the object whose lock the region
// holds, which other goroutines share and the trace records; nil for other
// addresses: a local variable's, a package variable's or an object's the
// caller passed, which may be the goroutine's own and unrecorded, and
// carry the value on.
func (r *region) lockedField(addr ssa.Value) *types.Var {
	fa, ok := addr.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	if base, _, _ := objectOf(fa); base != r.key.base {
		return nil
	}
	st := fa.X.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Struct)
	return st.Field(fa.Field)
}

// lockedMap returns the field that holds map m, when m is loaded from a
// field that lockedField accepts: an update or a delete of the map's
// entries is a store into what the locked object holds, which the trace
// records and the function's next section reads again, as a field's
// (ttlcache's expiration section drops what expired from its items map).
func (r *region) lockedMap(m ssa.Value) *types.Var {
	load, ok := m.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return nil
	}
	return r.lockedField(load.X)
}

// deleteFrom returns the field that holds the map a call of the builtin
// delete removes from, when lockedMap accepts it; nil for other calls.
func (r *region) deleteFrom(c *ssa.CallCommon) *types.Var {
	if b, ok := c.Value.(*ssa.Builtin); !ok || b.Name() != "delete" {
		return nil
	}
	return r.lockedMap(c.Args[0])
}

// timerDuration reports whether use is a call of a timer or sleep that
// takes v as its duration and nowhere else.
func timerDuration(use ssa.Instruction, v ssa.Value) bool {
	call, ok := use.(*ssa.Call)
	if !ok {
		return false
	}
	callee := call.Call.StaticCallee()
	if callee == nil {
		return false
	}
	at, ok := timerDurations[fullName(callee)]
	if !ok || at >= len(call.Call.Args) || call.Call.Args[at] != v {
		return false
	}
	for i, a := range call.Call.Args {
		if i != at && a == v {
			return false
		}
	}
	return true
}

// purity memoizes which functions are pure: they store nothing outside
// memory they allocate, publish nothing (no go statement, send, select,
// defer or map update of a map they did not make) and call only pure
// functions, as far as maxPureDepth calls down.
type purity struct {
	memo map[*ssa.Function]bool
}

func newPurity() *purity { return &purity{memo: make(map[*ssa.Function]bool)} }

// call reports whether a call is of a pure function or of a builtin that
// stores nothing.
func (p *purity) call(c *ssa.CallCommon, depth int) bool {
	if b, ok := c.Value.(*ssa.Builtin); ok {
		switch b.Name() {
		case "len", "cap", "min", "max", "real", "imag", "complex", "panic":
			return true
		}
		return false
	}
	callee := c.StaticCallee()
	return callee != nil && p.fn(callee, depth+1)
}

func (p *purity) fn(fn *ssa.Function, depth int) bool {
	if pkg := fn.Pkg; pkg != nil && pureStd[pkg.Pkg.Path()] {
		// By package, body or not (a receiver in strings is a Builder
		// or a Reader, which keep what they are given).
		return pkg.Pkg.Path() != "strings" || fn.Signature.Recv() == nil
	}
	if pure, ok := p.memo[fn]; ok {
		return pure
	}
	if depth > maxPureDepth || fn.Blocks == nil {
		return false
	}
	// Not pure while it is judged: a recursive call, and what was
	// judged through it, stay impure (memoized on a guess that the
	// body then refutes, a caller would stay pure).
	p.memo[fn] = false
	pure := p.body(fn, depth)
	p.memo[fn] = pure
	return pure
}

func (p *purity) body(fn *ssa.Function, depth int) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch instr := instr.(type) {
			case *ssa.Go, *ssa.Defer, *ssa.Send, *ssa.Select:
				return false
			case *ssa.Store:
				if !fresh(instr.Addr, fn) {
					return false
				}
			case *ssa.MapUpdate:
				if !fresh(instr.Map, fn) {
					return false
				}
			case *ssa.Call:
				if !p.call(instr.Common(), depth) {
					return false
				}
			}
		}
	}
	return true
}

// fresh reports whether addr is in memory that fn allocated: a path of
// fields and elements (not through a pointer loaded from memory) from an
// Alloc or a MakeMap of fn.
func fresh(addr ssa.Value, fn *ssa.Function) bool {
	for {
		switch a := addr.(type) {
		case *ssa.FieldAddr:
			addr = a.X
			continue
		case *ssa.IndexAddr:
			addr = a.X
			continue
		case *ssa.Alloc:
			return a.Parent() == fn
		case *ssa.MakeMap:
			return a.Parent() == fn
		case *ssa.MakeSlice:
			return a.Parent() == fn
		}
		return false
	}
}

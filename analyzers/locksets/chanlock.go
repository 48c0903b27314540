package locksets

import (
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// A channel of capacity 1 is a mutex when a send on it acquires and a
// receive releases (coder/websocket's mu: lock sends in a select with
// ctx.Done, unlock receives in a select with default). While one
// goroutine's value sits in the buffer no other send completes, until a
// receive takes it out; so the code between a send and the receive that
// follows it on the same goroutine excludes every other such section, as
// Lock and Unlock do, provided only the goroutine that sent receives.
//
// It is a mutex the other way round, a token lock, when its maker puts
// one token in and a receive then acquires and a send releases (open-feature's multi-provider:
// lifecycleLock := make(chan struct{}, 1); lifecycleLock <- struct{}{};
// its lifecycle methods take the token in a select with ctx.Done and
// give it back in a deferred send). The buffer holds at most one token
// and only the maker's send puts one in without having taken one, once,
// so the tokens in the buffer and the goroutines between a receive and
// their send back are never more than one, provided only a goroutine
// that took the token sends.
//
// chanLockCandidates returns the locations that hold such channels, as
// far as the package's code can tell without the lock sets, and which
// of them are token locks: an unexported field of a type of the package,
// or a captured variable, that is only ever assigned channels made with
// the constant capacity 1, and whose channel goes nowhere but into
// sends, receives and selects (no close, no copy to another variable,
// argument or result: code that this analysis does not see could
// otherwise receive from it). Every channel stored in a token lock's
// location is sent its token by its maker (see madeOne), and no receive
// from it reads the value it took (a token that carries something is a
// value handed on, not a lock). A select that receives from two of them
// makes neither a lock that a send acquires (a release is one mutex per
// instruction), and one that sends to two makes neither a token lock.
// Whether only the holder releases is checked once the lock sets are
// known (see chanLockBroken).
func chanLockCandidates(pkg *types.Package, funcs []*ssa.Function) (locks, tokens map[sharedloc.Loc]bool, puts map[*ssa.Send]bool) {
	puts = make(map[*ssa.Send]bool)
	empty := make(map[sharedloc.Loc]bool)
	tokened := make(map[sharedloc.Loc]bool)
	bad := make(map[sharedloc.Loc]bool)
	notEmpty := make(map[sharedloc.Loc]bool)
	notToken := make(map[sharedloc.Loc]bool)
	for _, fn := range funcs {
		for _, fv := range fn.FreeVars {
			if l, ok := chanAddrLoc(pkg, fv); ok && !onlyLoadsAndStores(fv) {
				bad[l] = true
			}
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch instr := instr.(type) {
				case *ssa.Store:
					l, ok := chanAddrLoc(pkg, instr.Addr)
					if !ok {
						continue
					}
					switch madeOne(instr, puts) {
					case madeEmpty:
						empty[l] = true
					case madeToken:
						tokened[l] = true
					default:
						bad[l] = true
					}
				case *ssa.FieldAddr, *ssa.Alloc:
					l, ok := chanAddrLoc(pkg, instr.(ssa.Value))
					if !ok {
						continue
					}
					if !onlyLoadsAndStores(instr.(ssa.Value)) {
						bad[l] = true
					}
				case *ssa.Field:
					// A channel taken from a struct value, not through
					// its address: followed no further.
					if st, ok := instr.X.Type().Underlying().(*types.Struct); ok {
						f := st.Field(instr.Field)
						if _, isChan := f.Type().Underlying().(*types.Chan); isChan {
							bad[sharedloc.Loc{Kind: sharedloc.Field, Obj: f.Origin()}] = true
						}
					}
				case *ssa.UnOp:
					if l, ok := chanHolder(pkg, instr.X); ok && instr.Op == token.ARROW && valueUsed(instr, 0) {
						notToken[l] = true
					}
				case *ssa.Select:
					var recv, send []sharedloc.Loc
					j := 0 // the received values' place in the select's tuple
					for _, st := range instr.States {
						l, ok := chanHolder(pkg, st.Chan)
						if st.Dir == types.RecvOnly {
							if ok && valueUsed(instr, 2+j) {
								notToken[l] = true
							}
							j++
						}
						switch {
						case !ok:
						case st.Dir == types.RecvOnly:
							recv = append(recv, l)
						default:
							send = append(send, l)
						}
					}
					if len(recv) > 1 {
						for _, l := range recv {
							notEmpty[l] = true
						}
					}
					if len(send) > 1 {
						for _, l := range send {
							notToken[l] = true
						}
					}
				}
			}
		}
	}
	locks = make(map[sharedloc.Loc]bool)
	tokens = make(map[sharedloc.Loc]bool)
	for l := range empty {
		if !bad[l] && !tokened[l] && !notEmpty[l] {
			locks[l] = true
		}
	}
	for l := range tokened {
		if !bad[l] && !empty[l] && !notToken[l] {
			locks[l] = true
			tokens[l] = true
		}
	}
	return locks, tokens, puts
}

// valueUsed reports whether the value a receive took is used: the
// receive's own value (index 0, or the first of a comma-ok pair), or
// the select's tuple element at index i.
func valueUsed(v ssa.Value, i int) bool {
	_, isSelect := v.(*ssa.Select)
	ok := isSelect
	if u, isUnOp := v.(*ssa.UnOp); isUnOp {
		ok = u.CommaOk
	}
	for _, r := range *v.Referrers() {
		switch r := r.(type) {
		case *ssa.DebugRef:
		case *ssa.Extract:
			if ok && r.Index == i && len(*r.Referrers()) > 0 {
				return true
			}
		default:
			if !ok {
				return true
			}
		}
	}
	return false
}

// chanAddrLoc returns the location that addr, the address of a variable
// of channel type, denotes, when it is one chanLockCandidates considers:
// an unexported field of a struct type of pkg, or a captured variable.
func chanAddrLoc(pkg *types.Package, addr ssa.Value) (sharedloc.Loc, bool) {
	ptr, ok := addr.Type().Underlying().(*types.Pointer)
	if !ok {
		return sharedloc.Loc{}, false
	}
	if _, ok := ptr.Elem().Underlying().(*types.Chan); !ok {
		return sharedloc.Loc{}, false
	}
	l, ok := sharedloc.AddrLoc(addr)
	if !ok {
		return sharedloc.Loc{}, false
	}
	switch l.Kind {
	case sharedloc.Field:
		return l, !l.Obj.Exported() && l.Obj.Pkg() == pkg
	case sharedloc.Captured:
		return l, true
	}
	return sharedloc.Loc{}, false
}

// How a channel stored to a candidate location was made (see madeOne).
const (
	madeOther = iota
	madeEmpty
	madeToken
)

// madeOne tells how the channel that store stores was made: with the
// constant capacity 1 and stored nowhere else (the one store is this
// one: a copy handed to a goroutine or a callee would let code receive
// from it unseen), and whether it was made with a token (madeToken): its
// maker sends on it once, either on the channel made, in the block that
// makes it, or on the location stored to, after the store in its block
// (kcp-go's sess.writeGate = make(chan struct{}, 1); sess.writeGate <-
// struct{}{}), and the location is a field of an object allocated in
// the store's block (see madeObject), or a captured variable declared
// there, and the location gets no other store (storedAgain): so the
// token goes into the one made, and only one token per channel: a
// goroutine that did not take one puts it in. The second form's send is recorded in
// puts: it is the token's making, neither an acquire nor a release.
func madeOne(store *ssa.Store, puts map[*ssa.Send]bool) int {
	mc, ok := store.Val.(*ssa.MakeChan)
	if !ok {
		return madeOther
	}
	stores, sends := 0, 0
	for _, r := range *mc.Referrers() {
		switch r := r.(type) {
		case *ssa.Store:
			stores++
		case *ssa.Send:
			if r.X == mc || r.Block() != mc.Block() {
				return madeOther
			}
			sends++
		case *ssa.DebugRef:
		default:
			return madeOther
		}
	}
	if stores != 1 {
		return madeOther
	}
	c, ok := mc.Size.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		return madeOther
	}
	if n, exact := constant.Int64Val(c.Value); !exact || n != 1 {
		return madeOther
	}
	obj, field := madeObject(store.Addr)
	if obj == nil || obj.Block() != store.Block() {
		// Not fresh: a send on the location is taken for what the
		// location's other sends are.
		if sends == 0 {
			return madeEmpty
		}
		return madeOther
	}
	if storedAgain(store, obj, field) {
		// A second channel, with a token of its own, in the same
		// variable or the same object's field: a goroutine that took
		// the first's token and one that takes the second's hold the
		// "lock" at once.
		return madeOther
	}
	put, n := putAfter(store)
	sends += n
	switch {
	case sends == 0:
		return madeEmpty
	case sends == 1:
		if put != nil {
			puts[put] = true
		}
		return madeToken
	}
	return madeOther
}

// storedAgain reports whether the location of store, field (-1: the
// variable itself) of obj, gets another store than store: for a variable,
// anywhere, closures included (ssavalue.Stores); for a field, in store's
// function.
func storedAgain(store *ssa.Store, obj *ssa.Alloc, field int) bool {
	if field < 0 {
		return len(ssavalue.Stores(obj)) != 1
	}
	for _, b := range store.Parent().Blocks {
		for _, instr := range b.Instrs {
			if st, ok := instr.(*ssa.Store); ok && st != store {
				if o, f := madeObject(st.Addr); o == obj && f == field {
					return true
				}
			}
		}
	}
	return false
}

// madeObject returns the allocation that addr, the address of a field or
// of a variable, is in, and the field's index (-1: the variable itself):
// the Alloc the field address is taken from, directly or through a load
// of a variable that only its own function writes (a pointer captured by
// a closure that only reads it: kcp-go's sess in newUDPSession), where the
// last store to that variable before the load, in the load's block,
// stored the Alloc; or the variable's own Alloc. nil when it is none.
func madeObject(addr ssa.Value) (*ssa.Alloc, int) {
	base, field := addr, -1
	if fa, ok := addr.(*ssa.FieldAddr); ok {
		base, field = fa.X, fa.Field
	}
	if alloc, ok := base.(*ssa.Alloc); ok {
		return alloc, field
	}
	ld, ok := base.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL || ld.Block() == nil {
		return nil, 0
	}
	cell, ok := ld.X.(*ssa.Alloc)
	if !ok || cell.Parent() != ld.Parent() || !ssavalue.OnlyOwnerWrites(cell) {
		return nil, 0
	}
	instrs := ld.Block().Instrs
	for i := slices.Index(instrs, ssa.Instruction(ld)) - 1; i >= 0; i-- {
		if st, ok := instrs[i].(*ssa.Store); ok && st.Addr == cell {
			alloc, _ := st.Val.(*ssa.Alloc)
			if alloc == nil || alloc.Block() != ld.Block() {
				return nil, 0
			}
			return alloc, field
		}
	}
	return nil, 0
}

// putAfter returns the sends on the location store stored to that follow
// it in its block, before any other store there (the same field of the
// same object, or the same variable): how many, and the last.
func putAfter(store *ssa.Store) (*ssa.Send, int) {
	obj, field := madeObject(store.Addr)
	same := func(addr ssa.Value) bool {
		o, f := madeObject(addr)
		return o == obj && f == field
	}
	instrs := store.Block().Instrs
	var put *ssa.Send
	n := 0
	for _, instr := range instrs[slices.Index(instrs, ssa.Instruction(store))+1:] {
		switch instr := instr.(type) {
		case *ssa.Store:
			if same(instr.Addr) {
				return put, n
			}
		case *ssa.Send:
			if ld, ok := instr.Chan.(*ssa.UnOp); ok && ld.Op == token.MUL && same(ld.X) {
				put = instr
				n++
			}
		}
	}
	return put, n
}

// onlyLoadsAndStores reports whether the address of a channel variable
// is used only to load the channel for a send, a receive, a select or
// len and cap, to store to it, or to be captured by a closure (whose
// free variable is then checked the same way).
func onlyLoadsAndStores(addr ssa.Value) bool {
	for _, r := range *addr.Referrers() {
		switch r := r.(type) {
		case *ssa.Store:
			if r.Val == addr {
				return false
			}
		case *ssa.UnOp:
			if r.Op != token.MUL || !onlyChanOps(r) {
				return false
			}
		case *ssa.MakeClosure, *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// onlyChanOps reports whether the channel value ch is used only as the
// channel of sends, receives, select cases, len and cap.
func onlyChanOps(ch ssa.Value) bool {
	for _, r := range *ch.Referrers() {
		switch r := r.(type) {
		case *ssa.Send:
			if r.X == ch {
				return false
			}
		case *ssa.UnOp:
			if r.Op != token.ARROW {
				return false
			}
		case *ssa.Select:
			for _, st := range r.States {
				if st.Send == ch {
					return false
				}
			}
		case *ssa.Call:
			b, ok := r.Call.Value.(*ssa.Builtin)
			if !ok || b.Name() != "len" && b.Name() != "cap" {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// chanHolder returns the location that the channel value ch was loaded
// from, when it is one chanLockCandidates considers.
func chanHolder(pkg *types.Package, ch ssa.Value) (sharedloc.Loc, bool) {
	ld, ok := ch.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return sharedloc.Loc{}, false
	}
	return chanAddrLoc(pkg, ld.X)
}

// findChanLockOps records the operations on the channel locks: a send
// acquires, a receive (alone or as a select's case) releases, and a send
// that is one case of a select acquires on the branch that took that
// case only (see trySendEdge). On a token lock, receives and sends swap
// parts.
func (a *solver) findChanLockOps() {
	if len(a.chanLocks) == 0 {
		return
	}
	held := func(ch ssa.Value) (sharedloc.Loc, bool) {
		l, ok := chanHolder(a.pkg, ch)
		return l, ok && a.chanLocks[l]
	}
	op := func(l sharedloc.Loc, recv bool) model.LockOp {
		if recv != a.tokenLocks[l] {
			return model.Unlock
		}
		return model.Lock
	}
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch instr := instr.(type) {
				case *ssa.Send:
					if l, ok := held(instr.Chan); ok && !a.tokenPuts[instr] {
						a.calls[instr] = lockCall{op(l, false), l}
						a.id(l)
					}
				case *ssa.UnOp:
					if l, ok := held(instr.X); ok && instr.Op == token.ARROW {
						a.calls[instr] = lockCall{op(l, true), l}
						a.id(l)
					}
				case *ssa.Select:
					for i, st := range instr.States {
						l, ok := held(st.Chan)
						if !ok {
							continue
						}
						a.id(l)
						if op(l, st.Dir == types.RecvOnly) == model.Unlock {
							a.calls[instr] = lockCall{model.Unlock, l}
							continue
						}
						if a.trySends[instr] == nil {
							a.trySends[instr] = make(map[int]sharedloc.Loc)
						}
						a.trySends[instr][i] = l
					}
				}
			}
		}
	}
}

// trySendEdge returns the channel lock that a select's case (a send,
// or a token lock's receive) acquires on ifi's successor succ, and the select's position: go/ssa
// lowers a select to a chain of `idx == k` tests of its chosen case, and
// only the true branch of case k's test sent.
func (a *solver) trySendEdge(ifi *ssa.If, succ int) (sharedloc.Loc, token.Pos, bool) {
	if succ != 0 || len(a.trySends) == 0 {
		return sharedloc.Loc{}, token.NoPos, false
	}
	bin, ok := ifi.Cond.(*ssa.BinOp)
	if !ok || bin.Op != token.EQL {
		return sharedloc.Loc{}, token.NoPos, false
	}
	x, y := bin.X, bin.Y
	if _, ok := x.(*ssa.Const); ok {
		x, y = y, x
	}
	ext, ok := x.(*ssa.Extract)
	c, isConst := y.(*ssa.Const)
	if !ok || !isConst || ext.Index != 0 || c.Value == nil || c.Value.Kind() != constant.Int {
		return sharedloc.Loc{}, token.NoPos, false
	}
	sel, ok := ext.Tuple.(*ssa.Select)
	if !ok {
		return sharedloc.Loc{}, token.NoPos, false
	}
	k, exact := constant.Int64Val(c.Value)
	l, ok := a.trySends[sel][int(k)]
	return l, sel.Pos(), ok && exact
}

// tried returns the mutexes fn acquires by a try: a TryLock, a send on
// a channel lock that is one case of a select, or a call of a function
// that acquires them only where it succeeds.
func (a *solver) tried(fn *ssa.Function) []sharedloc.Loc {
	var out []sharedloc.Loc
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if lc, ok := a.calls[instr]; ok && (lc.op == model.TryLock || lc.op == model.TryRLock) {
				out = append(out, lc.mutex)
			}
			if call, ok := instr.(*ssa.Call); ok {
				if callee := call.Call.StaticCallee(); callee != nil {
					for _, h := range a.effects[callee].acquireOK {
						out = append(out, h.Mutex)
					}
				}
			}
			if sel, ok := instr.(*ssa.Select); ok {
				for _, l := range a.trySends[sel] {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// chanLockBroken returns the channel locks that the solved lock sets
// show received from where the receiving goroutine may not hold them.
// A receive that blocks must hold the lock on every path to it (the set
// before it); one that does not block (a case of a select with a
// default: "release if held") must hold it on some path (not so a token
// lock's send: where the goroutine does not hold the token, a send that
// does not block puts a second one in): an acquisition
// of the lock may come before it in its function, or, through every
// chain of callers, before a call that leads to it. A caller that is
// not known (code outside the package, a go statement) holds nothing.
// A channel received from otherwise is a signal or a semaphore handed
// between goroutines, not a mutex.
func (a *solver) chanLockBroken() map[sharedloc.Loc]bool {
	out := make(map[sharedloc.Loc]bool)
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				lc, ok := a.calls[instr]
				if !ok || lc.op != model.Unlock || !a.chanLocks[lc.mutex] || out[lc.mutex] {
					continue
				}
				m := lc.mutex
				if _, ok := a.at[instr].Lookup(m); ok {
					continue
				}
				if sel, ok := instr.(*ssa.Select); ok && !sel.Blocking && !a.tokenLocks[m] && a.mayHold(instr, m, make(map[*ssa.Function]bool)) {
					continue
				}
				out[m] = true
			}
		}
	}
	return out
}

// mayHold reports whether the goroutine running instr may hold m there:
// an acquisition of m in instr's function may come before it, or every
// call of that function is one where the caller may hold m. A function
// that code outside the package may call, that is stored as a value
// (whose calls are not all known), or that a go statement starts, holds
// nothing on entry.
func (a *solver) mayHold(instr ssa.Instruction, m sharedloc.Loc, seen map[*ssa.Function]bool) bool {
	fn := instr.Parent()
	for _, b := range fn.Blocks {
		for _, acq := range b.Instrs {
			if a.acquires(acq, m) && a.gr.Flow.MayFollow(acq, instr) {
				return true
			}
		}
	}
	if seen[fn] {
		return true // a cycle of calls: the other callers decide
	}
	seen[fn] = true
	callers := a.gr.CallGraph.Callers(fn)
	if a.exposed.Outside(fn) && fn.Synthetic == "" {
		return false
	}
	if len(callers) == 0 {
		// Called only through a value the call graph does not follow
		// (a method value stored in a field, called through an
		// interface elsewhere): not known not to hold it.
		return len(a.gr.RefSites(fn)) > 0 || fn.Synthetic != ""
	}
	for _, e := range callers {
		if _, isGo := e.Site.(*ssa.Go); isGo || !a.mayHold(e.Site, m, seen) {
			return false
		}
	}
	return true
}

// ownRelease reports whether instr, which releases the channel lock m
// where the lock sets do not show m held, releases only what its own
// function took: an acquisition of m in that function may come before
// it, and the release does not block (a receive in a select with a
// default, or a call of functions whose every release of m is one). Such
// an unlock is "release if held" (coder/websocket's mu.unlock, called
// again after an early unlock, or in a loop around a callee that may
// have unlocked): on the paths where the function no longer holds m it
// takes nothing, assuming no other goroutine holds m there; it is not a
// release of a lock its caller holds.
func (a *solver) ownRelease(instr ssa.Instruction, m sharedloc.Loc) bool {
	if !a.chanLocks[m] || a.tokenLocks[m] || !a.nonBlocking(instr, m, make(map[*ssa.Function]bool)) {
		return false
	}
	for _, b := range instr.Parent().Blocks {
		for _, acq := range b.Instrs {
			if a.acquires(acq, m) && a.gr.Flow.MayFollow(acq, instr) {
				return true
			}
		}
	}
	return false
}

// acquires reports whether instr may acquire m: a lock, a select's send
// case, or a call of a function that acquires m where it returns or
// where it succeeds.
func (a *solver) acquires(instr ssa.Instruction, m sharedloc.Loc) bool {
	if lc, ok := a.calls[instr]; ok && lc.mutex == m && lc.op != model.Unlock && lc.op != model.RUnlock {
		return true
	}
	if sel, ok := instr.(*ssa.Select); ok {
		for _, l := range a.trySends[sel] {
			if l == m {
				return true
			}
		}
	}
	site, ok := instr.(ssa.CallInstruction)
	if !ok {
		return false
	}
	for _, callee := range a.gr.CallGraph.Callees(site) {
		e := a.effects[callee]
		if _, ok := e.acquire.Lookup(m); ok {
			return true
		}
		if _, ok := e.acquireOK.Lookup(m); ok {
			return true
		}
	}
	return false
}

// nonBlocking reports whether instr's release of the channel lock m
// never blocks: a receive that is a case of a select with a default, or
// a call whose callees release m only by such receives.
func (a *solver) nonBlocking(instr ssa.Instruction, m sharedloc.Loc, seen map[*ssa.Function]bool) bool {
	if lc, ok := a.calls[instr]; ok && lc.mutex == m {
		sel, ok := instr.(*ssa.Select)
		return ok && !sel.Blocking
	}
	site, ok := instr.(ssa.CallInstruction)
	if !ok {
		return false
	}
	for _, callee := range a.gr.CallGraph.Callees(site) {
		if !slices.Contains(a.effects[callee].release, m) || seen[callee] {
			continue
		}
		seen[callee] = true
		for _, b := range callee.Blocks {
			for _, i := range b.Instrs {
				if a.releases(i, m) && !a.nonBlocking(i, m, seen) {
					return false
				}
			}
		}
	}
	return true
}

// releases reports whether instr may release m: an unlock or receive, or
// a call of a function that releases it.
func (a *solver) releases(instr ssa.Instruction, m sharedloc.Loc) bool {
	if lc, ok := a.calls[instr]; ok {
		return lc.mutex == m && (lc.op == model.Unlock || lc.op == model.RUnlock)
	}
	site, ok := instr.(ssa.CallInstruction)
	if !ok {
		return false
	}
	for _, callee := range a.gr.CallGraph.Callees(site) {
		if slices.Contains(a.effects[callee].release, m) {
			return true
		}
	}
	return false
}

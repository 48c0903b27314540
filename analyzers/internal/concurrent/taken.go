package concurrent

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/locksets"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// Taken is a Safe predicate: one access goes through a container (a map,
// slice or channel) that its goroutine took out of a field or package
// variable under a mutex, putting a fresh container (or nil) there in the
// same critical section, and the other access reads the container out of
// the same location and uses it within one critical section of the same
// mutex, as in
//
//	s.mu.Lock()
//	pending := s.pending
//	s.pending = make(map[*call]struct{})
//	s.mu.Unlock()
//	for c := range pending { ... }   // taken: no one else reaches it
//
//	s.mu.Lock()
//	s.pending[c] = struct{}{}        // the container s.pending holds now
//	s.mu.Unlock()
//
// The two sections exclude each other: if the other section ran first,
// the take's Lock comes after its Unlock; if it ran second, the location
// held another container by then. A take is the load of the location and
// the store of the fresh value in one block with no call between them
// (a call could release the mutex), the mutex held in write mode at the
// store, and the taken value stored nowhere. The other side's load and
// use are in one block with no call between them either that may release
// a mutex (see keepsLocks): DataDog/datadog-go's aggregator writes
// `a.sets[context] = newSetMetric(...)`, whose constructor runs between
// the load of a.sets and the write.
func (e *Env) Taken(p Pair) bool {
	return e.takenFrom(p.A, p.B, p.VB) || e.takenFrom(p.B, p.A, p.VA)
}

// takenFrom reports whether x goes through a container taken as Taken
// says, and y reads it out of the same location within a section of the
// mutex it was taken under, as held on y's view vy.
func (e *Env) takenFrom(x, y *sharedloc.Access, vy View) bool {
	loc, locks, ok := e.take(x)
	if !ok {
		return false
	}
	held := false
	for _, h := range locks {
		if _, ok := vy.Locks.Lookup(h.Mutex); ok {
			held = true
			break
		}
	}
	return held && e.readInSection(y, loc)
}

// take returns the location x's container was taken from and the mutexes
// held in write mode where it was replaced.
func (e *Env) take(x *sharedloc.Access) (sharedloc.Loc, []locksets.Held, bool) {
	load, loc, ok := loadOf(x.Ptr)
	if !ok {
		return sharedloc.Loc{}, nil, false
	}
	for _, u := range *load.Referrers() {
		switch u := u.(type) {
		case *ssa.Store:
			if u.Val == load {
				return sharedloc.Loc{}, nil, false
			}
		case *ssa.MapUpdate:
			if u.Value == load {
				return sharedloc.Loc{}, nil, false
			}
		case *ssa.Send:
			if u.X == load {
				return sharedloc.Loc{}, nil, false
			}
		}
	}
	instrs := load.Block().Instrs
	for i := slices.Index(instrs, ssa.Instruction(load)) + 1; i < len(instrs); i++ {
		switch in := instrs[i].(type) {
		case *ssa.Store:
			if l, ok := sharedloc.AddrLoc(in.Addr); ok && l == loc && fresh(in.Val) {
				var write []locksets.Held
				for _, h := range e.Locks.At(in) {
					if h.Mode == locksets.Write {
						write = append(write, h)
					}
				}
				return loc, write, len(write) > 0
			}
		case ssa.CallInstruction:
			if !builtin(in) {
				return sharedloc.Loc{}, nil, false
			}
		}
	}
	return sharedloc.Loc{}, nil, false
}

// readInSection reports whether y's container is read out of loc in y's
// block with no call between the read and y that may release a mutex.
func (e *Env) readInSection(y *sharedloc.Access, loc sharedloc.Loc) bool {
	load, l, ok := loadOf(y.Ptr)
	if !ok || l != loc || load.Block() != y.Instr.Block() {
		return false
	}
	instrs := load.Block().Instrs
	end := slices.Index(instrs, y.Instr)
	start := slices.Index(instrs, ssa.Instruction(load))
	if start < 0 || end <= start {
		return false
	}
	for _, in := range instrs[start+1 : end] {
		if c, ok := in.(ssa.CallInstruction); ok && !builtin(c) && !e.keepsLocks(c) {
			return false
		}
	}
	return true
}

// keepsLocks reports whether the call c cannot release a mutex: every
// function it may call, and every function those may call on its
// goroutine, has a body in the package and calls no method named Unlock,
// RUnlock or Wait (a sync.Cond's Wait releases its Locker), and each of
// their calls has known callees (a constructor such as newSetMetric,
// which only allocates).
func (e *Env) keepsLocks(c ssa.CallInstruction) bool {
	if _, ok := c.(*ssa.Call); !ok {
		return false
	}
	callees := e.Goroutines.CallGraph.Callees(c)
	if len(callees) == 0 {
		return false
	}
	for _, f := range callees {
		for g := range e.Order.ReachableFrom(f) {
			if !e.releasesNothing(g) {
				return false
			}
		}
	}
	return true
}

// releasesNothing reports whether fn's own body, as keepsLocks asks,
// calls nothing that may release a mutex.
func (e *Env) releasesNothing(fn *ssa.Function) bool {
	if ans, ok := e.keeps[fn]; ok {
		return ans
	}
	ans := fn.Blocks != nil || leafStd(fn)
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			c, ok := instr.(ssa.CallInstruction)
			if !ok || builtin(c) {
				continue
			}
			if _, isGo := instr.(*ssa.Go); isGo {
				continue
			}
			if name := calleeName(c); name == "Unlock" || name == "RUnlock" || name == "Wait" ||
				len(e.Goroutines.CallGraph.Callees(c)) == 0 {
				ans = false
			}
		}
	}
	if e.keeps == nil {
		e.keeps = make(map[*ssa.Function]bool)
	}
	e.keeps[fn] = ans
	return ans
}

// leafStd reports whether fn, a function without a body here, is one of
// the standard library's packages that hold no mutex of their callers and
// call no code of theirs (time.Now, the atomics' Add, strconv.Itoa): none
// of its parameters is a function or an interface, through which it
// could call back.
func leafStd(fn *ssa.Function) bool {
	if fn.Pkg == nil && fn.Object() == nil {
		return false
	}
	obj := fn.Object()
	if obj == nil || obj.Pkg() == nil {
		return false
	}
	switch obj.Pkg().Path() {
	case "time", "sync/atomic", "strings", "strconv", "math", "math/bits", "unicode", "unicode/utf8":
	default:
		return false
	}
	sig := fn.Signature
	for i := range sig.Params().Len() {
		switch sig.Params().At(i).Type().Underlying().(type) {
		case *types.Signature, *types.Interface:
			return false
		}
	}
	return true
}

// calleeName returns the name of the function or method c calls, or "".
func calleeName(c ssa.CallInstruction) string {
	com := c.Common()
	if com.IsInvoke() {
		return com.Method.Name()
	}
	if f := com.StaticCallee(); f != nil {
		return f.Name()
	}
	return ""
}

// loadOf returns the load that v, a container, was read by from a field
// or package variable, looking through changes of type.
func loadOf(v ssa.Value) (*ssa.UnOp, sharedloc.Loc, bool) {
	for {
		ct, ok := v.(*ssa.ChangeType)
		if !ok {
			break
		}
		v = ct.X
	}
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL || load.Block() == nil {
		return nil, sharedloc.Loc{}, false
	}
	loc, ok := sharedloc.AddrLoc(load.X)
	if !ok || (loc.Kind != sharedloc.Field && loc.Kind != sharedloc.Global) {
		return nil, sharedloc.Loc{}, false
	}
	return load, loc, true
}

// fresh reports whether v is a container no one else holds: made here, or
// nil.
func fresh(v ssa.Value) bool {
	switch v := v.(type) {
	case *ssa.MakeMap, *ssa.MakeSlice, *ssa.MakeChan:
		return true
	case *ssa.Const:
		return v.IsNil()
	case *ssa.Slice:
		_, ok := v.X.(*ssa.Alloc)
		return ok
	}
	return false
}

// builtin reports whether c calls a builtin function (len, append...),
// which cannot release a mutex.
func builtin(c ssa.CallInstruction) bool {
	if _, ok := c.(*ssa.Call); !ok {
		return false
	}
	_, ok := c.Common().Value.(*ssa.Builtin)
	return ok
}

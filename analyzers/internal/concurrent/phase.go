package concurrent

import (
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/locksets"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// Phased is a Safe predicate: one access (X) runs only in a phase of its
// object that the other's goroutine (Y's) has left for good before Y, as
// a supervisor's Add writes its services map only while it is not
// running, and Serve reads the map without the lock once it has marked
// itself running (thejerf/suture):
//
//	func (s *Supervisor) Add(svc Service) {
//		s.m.Lock()
//		if s.state == notRunning {
//			s.services[id] = svc // X
//			s.m.Unlock()
//			return
//		}
//		s.m.Unlock()
//		s.control <- addService{svc} // the running loop adds it
//	}
//
//	func (s *Supervisor) Serve() {
//		s.m.Lock()
//		s.state = normal
//		s.m.Unlock()
//		for id := range s.services { ... } // Y
//
// X runs with a mutex L held since a read of a field f (an unexported
// field of X's own object, of a type with no whole copies) found it equal
// to a constant C (a comparison with C, or a boolean flag), and Y runs
// only after a store to f of the same object of a constant other than C,
// made with L held in write mode (in Y's function, or in a caller that
// alone calls Y's unexported function with the object, up to
// maxPhaseDepth calls up); and no code of the package stores C to f but
// the composite literal that makes the object. If X's section of L came
// first, X ran before the store's section ended, so before Y; if not, X's
// read found f left C, and X did not run.
//
// Both accesses must touch their own object: a field of the value the
// flag is read from (or stored to), or a container in an unexported field
// of it that every object has its own of (see ownField).
func (e *Env) Phased(p Pair) bool {
	return e.phasedBefore(p.A, p.B) || e.phasedBefore(p.B, p.A)
}

// maxPhaseDepth bounds the calls that Phased follows up from Y's
// function to the store that left the phase.
const maxPhaseDepth = 3

func (e *Env) phasedBefore(x, y *sharedloc.Access) bool {
	if x.Base == nil || y.Base == nil || !e.ofBase(x) || !e.ofBase(y) {
		return false
	}
	var locks *locksets.Solution
	for _, g := range e.phaseGuards(x) {
		if !e.phaseLeft(g.field, g.value) {
			continue
		}
		if locks == nil {
			locks = e.Locks.All()
		}
		for _, h := range locks.At(g.load) {
			if !locks.HeldThrough(h.Mutex, g.load, x.Instr) {
				continue
			}
			for _, st := range e.phaseValues(g.field).stores {
				if w, ok := locks.At(st).Lookup(h.Mutex); !ok || w.Mode != locksets.Write {
					continue
				}
				if c, _ := st.Val.(*ssa.Const); c != nil && !constant.Compare(c.Value, token.EQL, g.value) &&
					e.storedBefore(st, y.Instr, y.Base, maxPhaseDepth) {
					return true
				}
			}
		}
	}
	return false
}

// ofBase reports whether a touches memory of a.Base's own object: one of
// its fields (of an embedded struct too), or the contents of a container
// in an own field (see ownField).
func (e *Env) ofBase(a *sharedloc.Access) bool {
	if a.Loc.Elem {
		load, ok := a.Ptr.(*ssa.UnOp)
		if !ok || load.Op != token.MUL {
			return false
		}
		fa, ok := load.X.(*ssa.FieldAddr)
		return ok && objectOf(fa.X) == a.Base && e.ownField(ssavalue.Field(fa))
	}
	fa, ok := a.Ptr.(*ssa.FieldAddr)
	return ok && objectOf(fa.X) == a.Base
}

// objectOf returns the value that names, in its function, the object
// whose memory the address v lies in, as sharedloc names an access's
// Base: the object itself (see enclosing), or the captured variable that
// holds it when a closure's capture spilled it to a cell (a receiver that
// a deferred literal uses) and nothing stores to the cell again.
func objectOf(v ssa.Value) ssa.Value {
	v = enclosing(v)
	if cell := ssavalue.CapturedCell(v); cell != nil && len(ssavalue.StoresTo(cell)) == 1 {
		return cell
	}
	return v
}

// A phaseGuard is a read of a field (load) that found it equal to value
// on every path to an access.
type phaseGuard struct {
	field *types.Var
	load  *ssa.UnOp
	value constant.Value
}

// phaseGuards returns the reads of fields of x's object whose outcome
// decides, on every path to x in its function, that the field held a
// constant: x lies past the true edge of `f == C`, the false edge of `f
// != C`, or an edge of a boolean f (negated any number of times).
func (e *Env) phaseGuards(x *sharedloc.Access) []phaseGuard {
	var out []phaseGuard
	for _, g := range ssaflow.Guards(x.Instr) {
		then, cond := g.Taken, g.Cond
		var load *ssa.UnOp
		var fa *ssa.FieldAddr
		var value constant.Value
		if c, ok := cond.(*ssa.BinOp); ok {
			var op token.Token
			if load, fa, op, value, ok = fieldConst(c); !ok || then != (op == token.EQL) {
				continue
			}
		} else if b, ok := cond.Type().Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
			if load, fa, ok = fieldLoad(cond); !ok {
				continue
			}
			value = constant.MakeBool(then)
		} else {
			continue
		}
		if objectOf(fa.X) != x.Base {
			continue
		}
		out = append(out, phaseGuard{field: ssavalue.Field(fa), load: load, value: value})
	}
	return out
}

// fieldConst matches a comparison of a field's value with a constant (f ==
// C, C != f): the field's load and address, the operator and C.
func fieldConst(cmp *ssa.BinOp) (load *ssa.UnOp, fa *ssa.FieldAddr, op token.Token, c constant.Value, ok bool) {
	if cmp.Op != token.EQL && cmp.Op != token.NEQ {
		return nil, nil, 0, nil, false
	}
	read, k := cmp.X, cmp.Y
	if _, isConst := read.(*ssa.Const); isConst {
		read, k = k, read
	}
	kc, isConst := k.(*ssa.Const)
	if !isConst || kc.Value == nil {
		return nil, nil, 0, nil, false
	}
	if load, fa, ok = fieldLoad(read); !ok {
		return nil, nil, 0, nil, false
	}
	return load, fa, cmp.Op, kc.Value, true
}

// fieldLoad matches a load of a field: *&x.f.
func fieldLoad(v ssa.Value) (*ssa.UnOp, *ssa.FieldAddr, bool) {
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return nil, nil, false
	}
	fa, ok := load.X.(*ssa.FieldAddr)
	return load, fa, ok
}

// A phaseField is what the package stores to a field (see phaseValues):
// the stores of constants, or bad when some write is not one (or the
// field's address goes elsewhere, or its struct is copied whole).
type phaseField struct {
	stores []*ssa.Store
	bad    bool
}

// phaseLeft reports whether no code of the package but a composite
// literal stores value to f, and some code stores another constant.
func (e *Env) phaseLeft(f *types.Var, value constant.Value) bool {
	pf := e.phaseValues(f)
	if pf.bad || len(pf.stores) == 0 {
		return false
	}
	for _, st := range pf.stores {
		if constant.Compare(st.Val.(*ssa.Const).Value, token.EQL, value) {
			return false
		}
	}
	return true
}

// phaseValues returns the package's writes of the unexported field f
// (see fieldIndex): bad for a field of another package, an exported one
// (importers write it too), or one whose struct is copied whole.
func (e *Env) phaseValues(f *types.Var) phaseField {
	bad := phaseField{bad: true}
	if f == nil || f.Exported() || f.Pkg() != e.Pass.Pkg {
		return bad
	}
	x := e.fieldIndex()
	owner := e.ownerStruct(f)
	if owner == nil || x.copied[owner] {
		return bad
	}
	if pf := x.phases[f]; pf != nil {
		return *pf
	}
	return phaseField{}
}

// literalInit reports whether st, a store through fa, fills in a field of
// an object its block has just allocated, before anything else could see
// it: between the allocation and st, the object is an operand of nothing
// but its field addresses (a composite literal's stores; the calls that
// compute its other fields' values do not see it).
func literalInit(st *ssa.Store, fa *ssa.FieldAddr) bool {
	alloc, ok := fa.X.(*ssa.Alloc)
	if !ok || alloc.Block() != st.Block() {
		return false
	}
	instrs := st.Block().Instrs
	start := slices.Index(instrs, ssa.Instruction(alloc))
	for _, instr := range instrs[start+1:] {
		if instr == st {
			return true
		}
		if _, ok := instr.(*ssa.FieldAddr); ok {
			continue
		}
		for _, op := range instr.Operands(nil) {
			if *op == alloc {
				return false
			}
		}
	}
	return false
}

// storedBefore reports whether the store st, through a field of base's
// object, runs before y on every path to y: in y's function, base being
// the store's object; or, depth calls up, at every call of y's function
// (the package's own calls are all of its: see callsOnly), base being its
// parameter and the call passing the object.
func (e *Env) storedBefore(st *ssa.Store, y ssa.Instruction, base ssa.Value, depth int) bool {
	fn := y.Parent()
	if fn == st.Parent() {
		fa := st.Addr.(*ssa.FieldAddr)
		return objectOf(fa.X) == base && e.Goroutines.Flow.RunsFirst(st, y)
	}
	if cell, ok := base.(*ssa.Alloc); ok {
		if vals := ssavalue.StoresTo(cell); len(vals) == 1 {
			base = vals[0] // a spilled parameter
		}
	}
	p, ok := base.(*ssa.Parameter)
	if depth == 0 || !ok || !e.callsOnly(fn) {
		return false
	}
	i := slices.Index(fn.Params, p)
	callers := e.Goroutines.CallGraph.Callers(fn)
	if i < 0 || len(callers) == 0 {
		return false
	}
	for _, c := range callers {
		site := c.Site
		if _, deferred := site.(*ssa.Defer); deferred {
			return false // runs when the caller returns: after a run's exit too
		}
		if site == nil || site.Common().StaticCallee() != fn || i >= len(site.Common().Args) ||
			!e.storedBefore(st, site, objectOf(site.Common().Args[i]), depth-1) {
			return false
		}
	}
	return true
}

// A runGate lets one run of fn at a time past its entry on an object: the
// entry stores a running value to the object's field under the mutex,
// after reads under that mutex found the field held no running value
// (see gates).
type runGate struct {
	entry *ssa.Store
}

// OneRun is a Safe predicate: both accesses run within runs of one
// function that a state field lets in one at a time, on the object both
// touch, as suture's Serve panics when the supervisor is already serving:
//
//	func (s *Supervisor) Serve() {
//		s.m.Lock()
//		if s.state == normal || s.state == paused {
//			s.m.Unlock()
//			panic("already serving")
//		}
//		s.state = normal // entry
//		s.m.Unlock()
//		defer func() {
//			s.m.Lock()
//			s.state = terminated // exit
//			s.m.Unlock()
//		}()
//		... // the run: what Serve and its callees do
//
// The running values are those the package stores to the field anywhere
// but in the exits: the stores in function literals the function defers
// after its entry (they run when the run ends). Every store to the field
// is made with the entry's mutex held in write mode, no exit stores a
// running value, and the entry's reads, with the mutex held since, found
// the field equal to no running value. A second run's entry then finds
// the field left running only at an earlier run's exit, when that run is
// over. Both accesses must lie after the entry on every path (in the
// function, or in callees whose every call, up to maxPhaseDepth calls
// up, does; not in a deferred call), through a field of the object the
// entry stores to (see storedBefore), and touch their own object (see
// ofBase).
func (e *Env) OneRun(p Pair) bool {
	if p.A.Base == nil || p.B.Base == nil || !e.ofBase(p.A) || !e.ofBase(p.B) {
		return false
	}
	for _, g := range e.gates() {
		if e.storedBefore(g.entry, p.A.Instr, p.A.Base, maxPhaseDepth) &&
			e.storedBefore(g.entry, p.B.Instr, p.B.Base, maxPhaseDepth) {
			return true
		}
	}
	return false
}

// gates returns the package's run gates, computed once.
func (e *Env) gates() []runGate {
	if e.runGates != nil {
		return *e.runGates
	}
	var out []runGate
	fields := e.fieldIndex().phases
	var locks *locksets.Solution
	for f := range fields {
		pf := e.phaseValues(f)
		if pf.bad {
			continue
		}
		for _, st := range pf.stores {
			if locks == nil {
				locks = e.Locks.All()
			}
			if e.isGate(locks, f, pf, st) {
				out = append(out, runGate{entry: st})
			}
		}
	}
	slices.SortFunc(out, func(a, b runGate) int { return int(a.entry.Pos() - b.entry.Pos()) })
	e.runGates = &out
	return out
}

// isGate reports whether st, a store to f, is the entry of a run gate
// (see OneRun).
func (e *Env) isGate(locks *locksets.Solution, f *types.Var, pf phaseField, st *ssa.Store) bool {
	fn := st.Parent()
	var mutex sharedloc.Loc
	held := false
	for _, h := range locks.At(st) {
		if h.Mode == locksets.Write {
			mutex, held = h.Mutex, true
			break
		}
	}
	if !held {
		return false
	}
	// The exits: stores in literals fn defers after st; the running
	// values: what every other store stores.
	var running, exits []constant.Value
	for _, w := range pf.stores {
		if h, ok := locks.At(w).Lookup(mutex); !ok || h.Mode != locksets.Write {
			return false
		}
		v := w.Val.(*ssa.Const).Value
		if e.exitOf(w, fn, st) {
			exits = append(exits, v)
		} else {
			running = append(running, v)
		}
	}
	if len(exits) == 0 {
		return false
	}
	for _, x := range exits {
		if slices.ContainsFunc(running, func(r constant.Value) bool { return constant.Compare(r, token.EQL, x) }) {
			return false
		}
	}
	// The entry's reads: each running value excluded by a comparison of
	// a read of f, from the same object with the mutex held since, on
	// the way to st.
	obj := objectOf(st.Addr.(*ssa.FieldAddr).X)
	for _, r := range running {
		excluded := false
		for _, g := range ssaflow.Guards(st) {
			cmp, ok := g.Cond.(*ssa.BinOp)
			if !ok {
				continue
			}
			load, fa, op, c, ok := fieldConst(cmp)
			if !ok || g.Taken != (op == token.NEQ) || !constant.Compare(c, token.EQL, r) {
				continue
			}
			if ssavalue.Field(fa) == f && objectOf(fa.X) == obj && locks.HeldThrough(mutex, load, st) {
				excluded = true
				break
			}
		}
		if !excluded {
			return false
		}
	}
	return true
}

// exitOf reports whether the store w runs in a function literal that fn
// only defers, each defer after the entry st on every path.
func (e *Env) exitOf(w *ssa.Store, fn *ssa.Function, st *ssa.Store) bool {
	lit := w.Parent()
	if lit.Parent() != fn {
		return false
	}
	mc := ssavalue.OnlyClosure(lit)
	if mc == nil {
		return false
	}
	deferred := false
	for _, u := range *mc.Referrers() {
		switch u := u.(type) {
		case *ssa.Defer:
			if u.Call.Value != mc || isArg(&u.Call, mc) || !e.Goroutines.Flow.RunsFirst(st, u) {
				return false
			}
			deferred = true
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return deferred
}

package ordering

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// ctorReturnBefore orders a, run by the function C that starts the
// goroutine of cb (a constructor), before b, which that goroutine runs
// only past a receive from a channel in a field of the fresh object it
// was started with, when nothing C runs sends on that field: theine's
// NewStore starts `go s.maintenance()` and only then sets s.rg, which
// maintenance reads only for an item received from s.writeChan, which
// only the returned store's Set and Delete send (held-out rehearsal 27's
// shape W). A send that C runs could come first: one in C, in a function
// C calls or in a goroutine C starts (their own calls and starts
// included) or in a function literal made in C (the control: a
// constructor that queues an item itself before setting the field is
// still reported).
//
// a is a load or store of a field of the fresh object itself: C may run
// again while an earlier run's goroutine, fed by then, works, and only
// the fresh object is this run's alone (see ownField).
//
// The rule needs the object and the channel to stay C's until it
// returns: the object is allocated in C, which hands it to nothing but
// `go` statements, function literals and its result; the field is
// unexported, set only to channels made where they are stored and used
// only by channel operations, so that every send on the channel is a
// send through the field, which the package's accesses list.
func (r *Result) ctorReturnBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	if cb.Site == nil || ca == cb || a.Parent() != cb.Site.Parent() || !slices.Contains(r.gr.Of(a.Parent()), ca) {
		return Edge{}, false
	}
	ctor := a.Parent()
	args := cb.Site.Common().Args
	callee := cb.Site.Common().StaticCallee()
	if len(args) == 0 || len(cb.Entry.Params) == 0 || callee == nil || (callee != cb.Entry && callee.Origin() != cb.Entry) {
		return Edge{}, false
	}
	obj := freshIn(args[0], ctor)
	if obj == nil || !ownField(a, obj) || !r.staysIn(obj) {
		return Edge{}, false
	}
	for _, rv := range r.ops.fnRecvs[cb.Entry] {
		if !isFieldOf(rv.acc.Ptr, cb.Entry.Params[0]) || !r.after(rv.at, b, cb, MaxCallDepth) {
			continue
		}
		if r.sentOnlyOutside(rv.acc.Loc, ctor) {
			return Edge{Rule: Channel, Pos: rv.acc.Pos()}, true
		}
	}
	return Edge{}, false
}

// ownField reports whether a loads or stores a field of obj itself. The
// rule orders one run of the constructor before its own goroutine; a
// constructor that runs again while an earlier run's goroutine works
// (a server's per-connection session) makes a fresh object each time,
// so only obj's own fields are that run's. What a reaches through
// another value, a shared server's map through s.srv, a package
// variable, a parameter, is touched by every run: the earlier run's
// goroutine, fed by then, reads it while this run writes it (review33's
// w1: concurrent map read and map write, silenced).
func ownField(a ssa.Instruction, obj *ssa.Alloc) bool {
	var addr ssa.Value
	switch a := a.(type) {
	case *ssa.Store:
		addr = a.Addr
	case *ssa.UnOp:
		if a.Op != token.MUL {
			return false
		}
		addr = a.X
	default:
		return false
	}
	fa, ok := addr.(*ssa.FieldAddr)
	return ok && freshIn(fa.X, a.Parent()) == obj
}

// isFieldOf reports whether ch is loaded from a field of the struct p
// points to.
func isFieldOf(ch, p ssa.Value) bool {
	load, ok := ch.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return false
	}
	fa, ok := load.X.(*ssa.FieldAddr)
	return ok && (fa.X == p || storedOnlyWith(fa.X, p))
}

// storedOnlyWith reports whether v is loaded from a variable whose only
// store stores p (a parameter that a function literal captures).
func storedOnlyWith(v, p ssa.Value) bool {
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return false
	}
	cell, ok := load.X.(*ssa.Alloc)
	if !ok {
		return false
	}
	for _, ref := range *cell.Referrers() {
		if st, ok := ref.(*ssa.Store); ok && st.Addr == ssa.Value(cell) && st.Val != p {
			return false
		}
	}
	return true
}

// freshIn returns the object that v, in ctor, is: allocated there, or
// loaded from a variable of ctor stored once with such an object (the
// variable a function literal captures), or nil.
func freshIn(v ssa.Value, ctor *ssa.Function) *ssa.Alloc {
	if load, ok := v.(*ssa.UnOp); ok && load.Op == token.MUL {
		cell, ok := load.X.(*ssa.Alloc)
		if !ok || cell.Parent() != ctor {
			return nil
		}
		var obj *ssa.Alloc
		for _, ref := range *cell.Referrers() {
			if st, ok := ref.(*ssa.Store); ok && st.Addr == ssa.Value(cell) {
				if o, ok := st.Val.(*ssa.Alloc); ok && obj == nil {
					obj = o
					continue
				}
				return nil
			}
		}
		v = obj
	}
	if obj, ok := v.(*ssa.Alloc); ok && obj != nil && obj.Parent() == ctor {
		return obj
	}
	return nil
}

// staysIn reports whether the object obj stays ctor's until ctor
// returns: no goroutine already running can get it, and so call a method
// that sends on its channel, before then. It follows the object and the
// variables it is stored in, in ctor, in the function literals that
// capture them and in the functions they hand it to (a `go` statement's
// function too), through at most maxStayFuncs functions: each use must be
// a field's address, a comparison, ctor's return, a store into a variable
// followed in turn or into a field of the object (or of a field of it),
// or an argument of a static call whose parameter stays too. A function
// literal that captures it, or a method value bound to it, is followed
// as the object is, and may be called. Stored in a field of the object
// (not of a field's struct, nor through a pointer field), what is loaded
// from that field is followed too, and the field's address must not be
// handed on. A store anywhere else, a send, a map, an interface, an
// interface method's call or a callee's return of it lets it out.
func (r *Result) staysIn(obj *ssa.Alloc) bool {
	r.mu.Lock()
	in, ok := r.stays[obj]
	r.mu.Unlock()
	if !ok {
		in = stays(obj)
		r.mu.Lock()
		if r.stays == nil {
			r.stays = make(map[*ssa.Alloc]bool)
		}
		r.stays[obj] = in
		r.mu.Unlock()
	}
	return in
}

// stays is staysIn's walk.
func stays(obj *ssa.Alloc) bool {
	s := stay{ctor: obj.Parent(), seen: map[ssa.Value]bool{}, vars: map[ssa.Value]bool{}, read: map[*ssa.FieldAddr]bool{}}
	s.value(obj)
	for len(s.work) > 0 {
		for len(s.work) > 0 {
			v := s.work[len(s.work)-1]
			s.work = s.work[:len(s.work)-1]
			if !s.uses(v) {
				return false
			}
		}
		// The object, or a literal that captures it, is stored only in
		// a field of the object itself (s.onFlush = func() { s.Set(0) }),
		// not in a field of a struct field's (s.elem.owner = s, with
		// &s.elem handed out) nor of what a pointer field points to
		// (s.child.parent = s, with the child published), and what is
		// loaded from such a field holds the object in turn (hooks <-
		// s.onFlush): review33's w2, w8, w9.
		for _, st := range s.stored {
			fa := st.Addr.(*ssa.FieldAddr)
			if !s.seen[fa.X] || s.vars[fa.X] {
				return false
			}
		}
		for _, fa := range s.fields {
			if s.read[fa] || !slices.ContainsFunc(s.stored, func(st *ssa.Store) bool { return sameField(st.Addr.(*ssa.FieldAddr), fa) }) {
				continue
			}
			s.read[fa] = true
			for _, ref := range *fa.Referrers() {
				switch ref := ref.(type) {
				case *ssa.DebugRef:
				case *ssa.Store:
					if ref.Addr != ssa.Value(fa) {
						return false // the field's address handed on
					}
				case *ssa.UnOp:
					if ref.Op != token.MUL {
						return false
					}
					s.value(ref)
				default:
					return false
				}
			}
		}
	}
	return true
}

// sameField reports whether x and y address the same field of the same
// struct type.
func sameField(x, y *ssa.FieldAddr) bool {
	return x.Field == y.Field && types.Identical(x.X.Type(), y.X.Type())
}

// maxStayFuncs bounds the functions staysIn follows the object into.
const maxStayFuncs = 64

// stay is staysIn's walk: the values that hold the object (or a
// variable holding it), still to look at in work, and the stores of
// function literals that capture one of them.
type stay struct {
	ctor   *ssa.Function
	seen   map[ssa.Value]bool
	vars   map[ssa.Value]bool // the variables among seen
	work   []ssa.Value
	funcs  int
	stored []*ssa.Store
	fields []*ssa.FieldAddr        // the fields of the object addressed
	read   map[*ssa.FieldAddr]bool // those among fields whose loads are followed
}

// value queues v, which holds the object.
func (s *stay) value(v ssa.Value) {
	if !s.seen[v] {
		s.seen[v] = true
		s.work = append(s.work, v)
	}
}

// variable queues v, a variable that may hold the object.
func (s *stay) variable(v ssa.Value) {
	s.vars[v] = true
	s.value(v)
}

// param follows the object into the parameter i of callee.
func (s *stay) param(callee *ssa.Function, i int) bool {
	if callee == nil || len(callee.Blocks) == 0 || i >= len(callee.Params) {
		return false
	}
	if p := callee.Params[i]; !s.seen[p] {
		if s.funcs++; s.funcs > maxStayFuncs {
			return false
		}
		s.value(p)
	}
	return true
}

// uses reports whether each use of v, which holds the object or is a
// variable that may hold it, keeps it in (queueing what it flows to).
func (s *stay) uses(v ssa.Value) bool {
	variable := s.vars[v]
	for _, ref := range *v.Referrers() {
		switch ref := ref.(type) {
		case *ssa.DebugRef, *ssa.BinOp:
		case *ssa.ChangeType:
			if variable {
				return false
			}
			s.value(ref) // a generic method's receiver
		case *ssa.FieldAddr:
			// A field of the object: its loads are followed where the
			// object is stored in it (see stays).
			if !variable {
				s.fields = append(s.fields, ref)
			}
		case *ssa.UnOp:
			if ref.Op != token.MUL || !variable {
				return false
			}
			s.value(ref)
		case *ssa.Store:
			switch {
			case variable && ref.Addr == v:
				// A store into the variable: what it stores is another
				// value, whose loads are followed as the variable's.
			case ref.Val == v && isLocalCell(ref.Addr, ref.Parent()):
				s.variable(ref.Addr)
			case ref.Val == v && isField(ref.Addr):
				s.stored = append(s.stored, ref) // rooted, once the walk is done
			default:
				return false
			}
		case *ssa.Return:
			if ref.Parent() != s.ctor {
				return false
			}
		case *ssa.MakeClosure:
			// A function literal capturing the variable, or a method
			// value bound to the object: followed into the literal, and
			// the literal's own uses followed as the object's.
			fn := ref.Fn.(*ssa.Function)
			for i, b := range ref.Bindings {
				if b == v && i < len(fn.FreeVars) {
					if variable {
						s.variable(fn.FreeVars[i])
					} else {
						s.value(fn.FreeVars[i])
					}
				}
			}
			s.value(ref)
		case ssa.CallInstruction:
			cc := ref.Common()
			if cc.IsInvoke() {
				return false
			}
			callee := cc.StaticCallee()
			for i, a := range cc.Args {
				if a == v && !s.param(callee, i) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// isField reports whether addr is a field's address.
func isField(addr ssa.Value) bool {
	_, ok := addr.(*ssa.FieldAddr)
	return ok
}

// isLocalCell reports whether addr is a local variable of fn.
func isLocalCell(addr ssa.Value, fn *ssa.Function) bool {
	cell, ok := addr.(*ssa.Alloc)
	return ok && cell.Parent() == fn
}

// sentOnlyOutside reports whether loc is an unexported channel field
// that only channels made where they are stored are stored into, whose
// loads only channel operations use, and whose every send or close is in
// a function that ctor does not run: not ctor, nor a function literal
// made in it, nor a function it may call or start a goroutine in,
// transitively.
func (r *Result) sentOnlyOutside(loc sharedloc.Loc, ctor *ssa.Function) bool {
	f, ok := loc.Obj.(*types.Var)
	if loc.Kind != sharedloc.Field || !ok || f.Exported() {
		return false
	}
	for _, acc := range r.shared.ByLoc[loc] {
		switch acc.Op {
		case sharedloc.Store:
			st, ok := acc.Instr.(*ssa.Store)
			if !ok {
				return false
			}
			mk, ok := st.Val.(*ssa.MakeChan)
			if !ok || len(*mk.Referrers()) != 1 {
				return false
			}
		case sharedloc.Load:
			v, ok := acc.Instr.(ssa.Value)
			if !ok || !onlyChanOps(v) {
				return false
			}
		}
	}
	runs := r.runBy(ctor)
	for _, s := range r.ops.sends[loc] {
		fn := s.Parent()
		if runs[fn] {
			return false
		}
		if fn == ctor || source.Within(fn, ctor) {
			return false
		}
	}
	return true
}

// onlyChanOps reports whether every use of the channel v is a send, a
// receive, a select's case, or a call of close, len or cap.
func onlyChanOps(v ssa.Value) bool {
	for _, ref := range *v.Referrers() {
		switch ref := ref.(type) {
		case *ssa.Send:
			if ref.X == v {
				return false
			}
		case *ssa.UnOp:
			if ref.Op != token.ARROW {
				return false
			}
		case *ssa.Select:
			if slices.ContainsFunc(ref.States, func(st *ssa.SelectState) bool { return st.Send == v }) {
				return false
			}
		case *ssa.DebugRef:
		case *ssa.Call:
			b, ok := ref.Call.Value.(*ssa.Builtin)
			if !ok || (b.Name() != "close" && b.Name() != "len" && b.Name() != "cap") {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// runBy returns the functions that ctor may run while it runs: those it
// may call, and those the goroutines it starts may, transitively.
func (r *Result) runBy(ctor *ssa.Function) map[*ssa.Function]bool {
	out := map[*ssa.Function]bool{}
	work := []*ssa.Function{ctor}
	for len(work) > 0 {
		fn := work[len(work)-1]
		work = work[:len(work)-1]
		if out[fn] {
			continue
		}
		for f := range r.reachableFrom(fn) {
			if out[f] {
				continue
			}
			out[f] = true
			for _, blk := range f.Blocks {
				for _, instr := range blk.Instrs {
					if g, ok := instr.(*ssa.Go); ok {
						work = append(work, r.gr.CallGraph.Callees(g)...)
					}
				}
			}
		}
	}
	return out
}

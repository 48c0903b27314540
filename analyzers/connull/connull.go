package connull

import (
	_ "embed"
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/internal/concurrent"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/internal/suppress"
	"github.com/precog-dev/precog/analyzers/sharedloc"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// ID is the check's stable identifier, used as the diagnostics' Category
// and in //precog:ignore directives.
const ID = finding.ConNull

// Analyzer reports Con-NULL bugs.
var Analyzer = &analysis.Analyzer{
	Name:       "connull",
	Doc:        analyzerutil.MustExtractDoc(doc, "connull"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/connull",
	Requires:   concurrent.Requires,
	Run:        analyzerutil.Guard(run, analyzerutil.NoSites),
	ResultType: analyzerutil.SitesType,
}

func init() { suppress.DefineAll(Analyzer) }

func run(pass *analysis.Pass) (any, error) {
	env := concurrent.New(pass)
	rep := suppress.New(pass, ID)
	for _, loc := range env.Shared.Locs() {
		check(env, rep, env.Shared.ByLoc[loc])
	}
	return rep.Finish(), nil
}

func check(env *concurrent.Env, rep *suppress.Reporter, accs []*sharedloc.Access) {
	var nils []*sharedloc.Access
	// through holds, for a store of a parameter, the calls of its
	// function that pass nil to it (see nilPassed).
	through := make(map[*sharedloc.Access][]ssa.CallInstruction)
	for _, a := range accs {
		if a.Op == sharedloc.Store && ssavalue.IsNil(a.Val) && nilable(a.Val.Type()) && !clearsBeforeShrinking(a) ||
			a.Op == sharedloc.AtomicStore && ssavalue.IsNil(a.Val) && atomicPointer(a.Val.Type()) {
			nils = append(nils, a)
		} else if sites := nilPassed(env, a); len(sites) > 0 {
			nils = append(nils, a)
			through[a] = sites
		}
	}
	if len(nils) == 0 {
		return
	}
	for _, r := range accs {
		if r.Op != sharedloc.Load && r.Op != sharedloc.AtomicLoad {
			continue
		}
		for _, d := range env.Derefs(r.Instr.(ssa.Value)) {
			for _, w := range nils {
				safe := func(p concurrent.Pair) bool {
					// A mutex held across the read and the
					// dereference, and at the nil store, makes
					// them atomic. Locks held by the caller (on a
					// lifted view) are held across both.
					callers := p.VA.Locks.Minus(env.Locks.At(r.Instr))
					across := p.VA.Locks.Intersect(env.Locks.At(d.Instr).Union(callers))
					if _, ok := across.Excludes(p.VB.Locks); ok {
						return true
					}
					// So does one held from a nil check of the
					// location to the read, and at the nil store:
					// the read sees what the check found not nil.
					if env.CheckedNotNil(p) {
						return true
					}
					return env.Ordered(p) || env.Elected(p) || through[w] != nil && env.Ordered(p.AtCall()) || closedBeforeNil(env, r, d, w)
				}
				var p concurrent.Pair
				var ok bool
				if sites := through[w]; sites != nil {
					p, ok = env.OverlapThrough(r, w, sites, safe)
				} else {
					p, ok = env.Overlap(r, w, safe)
				}
				if !ok {
					continue
				}
				report(env, rep, p, d)
				break
			}
		}
	}
}

func report(env *concurrent.Env, rep *suppress.Reporter, p concurrent.Pair, d concurrent.Deref) {
	r, w := p.A, p.B
	expr := env.Expr(r.Pos(), r.Loc.String())
	writer := source.FuncName(w.Fn())
	msg := fmt.Sprintf("%s may be nil when %s here: %s stores nil to it concurrently", expr, d.Verb, writer)
	if !d.Crash {
		msg += " (an operation on a nil channel blocks forever)"
	}
	var rel []analysis.RelatedInformation
	if r.Pos().IsValid() {
		// A range statement's read of an element has no position of
		// its own: the dereference's is the one shown.
		rel = append(rel, analysis.RelatedInformation{Pos: r.Pos(), Message: fmt.Sprintf("%s read here", expr)})
	}
	rel = append(rel, env.Related(p, fmt.Sprintf("nil stored here by %s", writer))...)
	if site := p.VB.Site; site != nil && !ssavalue.IsNil(w.Val) {
		rel = append(rel, analysis.RelatedInformation{Pos: site.Pos(), Message: fmt.Sprintf("nil passed to %s here by %s", writer, source.FuncName(site.Parent()))})
	}
	judged := p
	if !ssavalue.IsNil(w.Val) {
		judged = p.AtCall() // a nil passed to a setter: the caller decides when
	}
	rep.ReportAssuming(env.Assumption(judged), analysis.Diagnostic{Pos: d.Instr.Pos(), Message: msg, Related: rel},
		analyzerutil.RoleAt{Role: finding.RoleDeref, Pos: r.Pos()}, analyzerutil.RoleAt{Role: finding.RoleNilStore, Pos: w.Pos()})
}

// nilPassed returns, for a store of a parameter of its own function into
// a location (a setter's `e.hook = h`), the calls of that function that
// pass the constant nil to the parameter (`e.SetHook(nil)`): each such
// call stores nil there. The store is taken for a nil store only as seen
// through those calls (concurrent.Env.OverlapThrough: their goroutines,
// the locks held at them, the objects they pass), so a setter called with
// nil before the goroutines start and with a value while they run pairs
// nothing. A function that compares the parameter with nil (a setter
// that stores a default, or stores only a value that is not nil) or lets
// its address go anywhere is left out, and so are calls the call graph
// does not resolve statically (through an interface, a function value
// or a go statement) or that pass a nil from a variable: the rule only
// adds reports, and each rests on a call that passes nil as written.
func nilPassed(env *concurrent.Env, a *sharedloc.Access) []ssa.CallInstruction {
	if a.Op != sharedloc.Store {
		return nil
	}
	p, ok := a.Val.(*ssa.Parameter)
	if !ok || !nilable(p.Type()) {
		return nil
	}
	fn := p.Parent()
	idx := slices.Index(fn.Params, p)
	if idx < 0 || fn != a.Fn() {
		return nil
	}
	for _, u := range *p.Referrers() {
		if bin, ok := u.(*ssa.BinOp); ok && (bin.Op == token.EQL || bin.Op == token.NEQ) && (ssavalue.IsNil(bin.X) || ssavalue.IsNil(bin.Y)) {
			return nil
		}
	}
	var sites []ssa.CallInstruction
	for _, edge := range env.Goroutines.CallGraph.Callers(fn) {
		site := edge.Site
		if _, isCall := site.(*ssa.Call); !isCall || callgraph.StaticCallee(site.Common()) != fn {
			continue
		}
		if args := site.Common().Args; idx < len(args) && ssavalue.IsNil(args[idx]) {
			sites = append(sites, site)
		}
	}
	return sites
}

// clearsBeforeShrinking reports whether the nil store a clears a slice
// element that the same function then cuts off, the idiom that lets the
// collector free it:
//
//	s.items[last] = nil
//	s.items = s.items[:last]
//
// or clears, in a loop, every element from the length it then cuts the
// slice to (a node's split, Workiva/go-datastructures' keys.splitAt):
//
//	for j := i; j < len(s.items); j++ { s.items[j] = nil }
//	s.items = s.items[:i]
//
// where the index and the new length may be computed twice from the
// field (s.items[len(s.items)-1] = nil; s.items = s.items[:len(s.items)-1],
// as Workiva/go-datastructures' keys.delete does),
// or clears the elements of a reuse buffer that it then stores back
// empty, keeping only the backing array (tidwall/buntdb's
// insertIntoDatabase gathers indexes in db.insIdxs this way):
//
//	for i := range buf { buf[i] = nil }
//	s.buf = buf[:0]
//
// or clears the first element of a queue that it then stores back
// sliced past it, directly or through append (a sliding window, as
// rabbitmq/amqp091-go's stateListener.enqueue keeps):
//
//	s.q[0] = nil
//	s.q = s.q[1:] // or append(s.q[1:], x)
//
// The nil is never visible at an index below the new length, nor at or
// above the new start.
func clearsBeforeShrinking(a *sharedloc.Access) bool {
	store, ok := a.Instr.(*ssa.Store)
	if !ok {
		return false
	}
	elem, ok := store.Addr.(*ssa.IndexAddr)
	if !ok {
		return false
	}
	cut := elem.Index
	if phi, ok := cut.(*ssa.Phi); ok {
		cut = ascendingFrom(phi)
	}
	if cut != nil && cut.Referrers() != nil {
		for _, u := range *cut.Referrers() {
			if sl, ok := u.(*ssa.Slice); ok && sl.High == cut && sl.Parent() == a.Fn() {
				return true
			}
		}
	}
	if lenMinusOfLoad(elem.Index) != nil {
		for _, b := range a.Fn().Blocks {
			for _, in := range b.Instrs {
				sl, ok := in.(*ssa.Slice)
				if !ok || sl.High == nil || !sameLenMinus(elem.Index, sl.High) {
					continue
				}
				if l, ok := sl.X.(*ssa.UnOp); ok && l.Op == token.MUL && sameAddr(l.X, lenMinusOfLoad(elem.Index).X) {
					return true
				}
			}
		}
	}
	if refs := elem.X.Referrers(); refs != nil {
		for _, u := range *refs {
			if sl, ok := u.(*ssa.Slice); ok && sl.X == elem.X && sl.Low == nil && isZero(sl.High) && sl.Parent() == a.Fn() && storedBack(sl) {
				return true
			}
		}
	}
	return poppedFront(store, elem)
}

// lenMinusOfLoad returns the load of a slice from memory when v is
// len(that slice) minus a constant, or nil.
func lenMinusOfLoad(v ssa.Value) *ssa.UnOp {
	sub, ok := v.(*ssa.BinOp)
	if !ok || sub.Op != token.SUB {
		return nil
	}
	if _, ok := constInt(sub.Y); !ok {
		return nil
	}
	call, ok := sub.X.(*ssa.Call)
	if !ok || len(call.Call.Args) != 1 {
		return nil
	}
	if bi, ok := call.Call.Value.(*ssa.Builtin); !ok || bi.Name() != "len" {
		return nil
	}
	load, ok := call.Call.Args[0].(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return nil
	}
	return load
}

// sameLenMinus reports whether x and y are one length computed twice:
// len of a slice loaded from the same address, minus the same constant, in
// one block with nothing between the loads that may store a slice header
// there (a call, or a store to that address).
func sameLenMinus(x, y ssa.Value) bool {
	if x == y {
		return true
	}
	lx, ly := lenMinusOfLoad(x), lenMinusOfLoad(y)
	if lx == nil || ly == nil || lx.Block() != ly.Block() || !sameAddr(lx.X, ly.X) {
		return false
	}
	cx, _ := constInt(x.(*ssa.BinOp).Y)
	cy, _ := constInt(y.(*ssa.BinOp).Y)
	if cx != cy {
		return false
	}
	between := false
	for _, in := range lx.Block().Instrs {
		if in == lx || in == ly {
			if between {
				return true
			}
			between = true
			continue
		}
		if !between {
			continue
		}
		switch in := in.(type) {
		case ssa.CallInstruction:
			if _, builtin := in.Common().Value.(*ssa.Builtin); !builtin {
				return false
			}
		case *ssa.Store:
			if sameAddr(in.Addr, lx.X) {
				return false
			}
		}
	}
	return false
}

// ascendingFrom returns the value that the loop index phi starts from
// when every other edge into it adds a positive constant to it (j++, j +=
// 2), so that it never goes below that start; or nil.
func ascendingFrom(phi *ssa.Phi) ssa.Value {
	var start ssa.Value
	for _, e := range phi.Edges {
		if add, ok := e.(*ssa.BinOp); ok && add.Op == token.ADD && add.X == phi {
			if c, ok := constInt(add.Y); ok && c > 0 {
				continue
			}
		}
		if start != nil && start != e {
			return nil
		}
		start = e
	}
	return start
}

// poppedFront reports whether the function storing nil to elem, the
// element at a constant index of a slice loaded from memory, stores that
// memory back sliced past the index: the slice loaded again from the
// same address (the same field of the same value, or the same variable),
// resliced from a constant above the index, and stored to that address
// as it is or as the first argument of an append.
func poppedFront(store *ssa.Store, elem *ssa.IndexAddr) bool {
	idx, ok := constInt(elem.Index)
	if !ok {
		return false
	}
	load, ok := elem.X.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return false
	}
	for _, b := range store.Parent().Blocks {
		for _, in := range b.Instrs {
			sl, ok := in.(*ssa.Slice)
			if !ok {
				continue
			}
			low, ok := constInt(sl.Low)
			l2, isLoad := sl.X.(*ssa.UnOp)
			if !ok || low <= idx || !isLoad || l2.Op != token.MUL || !sameAddr(l2.X, load.X) {
				continue
			}
			for _, u := range *sl.Referrers() {
				v := ssa.Value(sl)
				if call, ok := u.(*ssa.Call); ok {
					if bi, ok := call.Call.Value.(*ssa.Builtin); !ok || bi.Name() != "append" || len(call.Call.Args) == 0 || call.Call.Args[0] != v {
						continue
					}
					v = call
				}
				for _, w := range *v.Referrers() {
					if st, ok := w.(*ssa.Store); ok && st.Val == v && sameAddr(st.Addr, load.X) {
						return true
					}
				}
			}
		}
	}
	return false
}

// sameAddr reports whether the addresses x and y are the same memory on
// every execution: the same value, or the same field of the same value.
func sameAddr(x, y ssa.Value) bool {
	if x == y {
		return true
	}
	fx, ok1 := x.(*ssa.FieldAddr)
	fy, ok2 := y.(*ssa.FieldAddr)
	return ok1 && ok2 && fx.X == fy.X && fx.Field == fy.Field
}

// constInt returns the value of the integer constant v.
func constInt(v ssa.Value) (int64, bool) {
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(c.Value)
}

// isZero reports whether v is the constant 0.
func isZero(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.Value != nil && constant.Sign(c.Value) == 0
}

// storedBack reports whether the slice sl is stored to memory (the
// buffer put back for the next use).
func storedBack(sl *ssa.Slice) bool {
	for _, u := range *sl.Referrers() {
		if st, ok := u.(*ssa.Store); ok && st.Val == ssa.Value(sl) {
			return true
		}
	}
	return false
}

// nilable reports whether a nil of type t makes a dereference fail: slices
// are left to con-index, where a nil slice is just empty.
// atomicPointer reports whether a sync/atomic store of a value of type t
// can make the location nil: an atomic.Pointer's Store, Swap or
// CompareAndSwap of nil. (An atomic.Value's Store of nil panics instead;
// an unsafe.Pointer's dereference is a conversion this check does not
// follow.)
func atomicPointer(t types.Type) bool {
	_, ok := t.Underlying().(*types.Pointer)
	return ok
}

func nilable(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Signature, *types.Interface, *types.Chan:
		return true
	}
	return false
}

// closedBeforeNil reports whether d, which closes the channel r loads,
// crashes on the nil that w stores only where it would crash anyway: w is
// reached only through receives from the same object's field that found
// its channel closed, and each object's field holds one channel in its
// life (every other store is of a channel made for an object just
// allocated). go-metrics' statsd sink sets its queue to nil once its
// flusher finds the queue closed; only Shutdown closes it. If Shutdown's
// read comes after the nil store, the channel was closed before it, and
// Shutdown closing it again panics as closing nil does; if Shutdown closes
// it first, its read came before the nil store (held-out rehearsal 28's
// shape Y).
func closedBeforeNil(env *concurrent.Env, r *sharedloc.Access, d concurrent.Deref, w *sharedloc.Access) bool {
	call, ok := d.Instr.(*ssa.Call)
	if !ok {
		return false
	}
	if b, ok := call.Call.Value.(*ssa.Builtin); !ok || b.Name() != "close" || w.Loc != r.Loc {
		return false
	}
	st, ok := w.Instr.(*ssa.Store)
	if !ok {
		return false
	}
	fa, ok := st.Addr.(*ssa.FieldAddr)
	return ok && onlyPastClosed(st, fa) && oneChannelEach(env, w.Loc)
}

// onlyPastClosed reports whether every path from its function's entry to
// st passes the branch where a receive from the channel in field fa (of
// fa's object) found it closed: a receive's ok false, or a select's, in
// the body of the case receiving from that field.
func onlyPastClosed(st *ssa.Store, fa *ssa.FieldAddr) bool {
	fromField := func(ch ssa.Value) bool {
		load, ok := ch.(*ssa.UnOp)
		if !ok || load.Op != token.MUL {
			return false
		}
		f, ok := load.X.(*ssa.FieldAddr)
		return ok && f.X == fa.X && f.Field == fa.Field
	}
	closed := make(map[[2]*ssa.BasicBlock]bool) // edges taken when the channel was closed
	for _, b := range st.Parent().Blocks {
		test, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		ex, ok := test.Cond.(*ssa.Extract)
		if !ok || ex.Index != 1 {
			continue
		}
		switch x := ex.Tuple.(type) {
		case *ssa.UnOp:
			ok = x.Op == token.ARROW && x.CommaOk && fromField(x.X)
		case *ssa.Select:
			ok = false
			for i, state := range x.States {
				if state.Dir == types.RecvOnly && fromField(state.Chan) {
					body := ssaflow.SelectBody(x, i)
					ok = ok || body != nil && body.Block().Dominates(b)
				}
			}
		default:
			ok = false
		}
		if ok {
			closed[[2]*ssa.BasicBlock{b, b.Succs[1]}] = true
		}
	}
	if len(closed) == 0 {
		return false
	}
	seen := map[*ssa.BasicBlock]bool{st.Parent().Blocks[0]: true}
	work := []*ssa.BasicBlock{st.Parent().Blocks[0]}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if b == st.Block() {
			return false
		}
		for _, s := range b.Succs {
			if !seen[s] && !closed[[2]*ssa.BasicBlock{b, s}] {
				seen[s] = true
				work = append(work, s)
			}
		}
	}
	return true
}

// oneChannelEach reports whether each object's field loc holds one channel
// in its life: every store to it is of nil or of a channel made for an
// object allocated in the storing block (a composite literal), stored
// there once.
func oneChannelEach(env *concurrent.Env, loc sharedloc.Loc) bool {
	made := make(map[*ssa.Function]int)
	for _, a := range env.Shared.ByLoc[loc] {
		switch a.Op {
		case sharedloc.Load:
			continue
		case sharedloc.Store:
		default:
			return false
		}
		st, ok := a.Instr.(*ssa.Store)
		if !ok {
			return false
		}
		if ssavalue.IsNil(st.Val) {
			continue
		}
		fa, ok := st.Addr.(*ssa.FieldAddr)
		if !ok {
			return false
		}
		if _, ok := st.Val.(*ssa.MakeChan); !ok {
			return false
		}
		if alloc, ok := fa.X.(*ssa.Alloc); !ok || !alloc.Heap || alloc.Block() != st.Block() {
			return false
		}
		if made[st.Parent()]++; made[st.Parent()] > 1 {
			return false
		}
	}
	return true
}

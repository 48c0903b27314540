package instrument

import (
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/internal/nilrecv"
	"github.com/precog-dev/precog/pipeline/rewrite"
	"github.com/precog-dev/precog/shim/trace"
)

// maxUseDepth bounds the arithmetic steps, conversions and phis through
// which a loaded value is followed to an index or a branch.
const maxUseDepth = 6

// A usesFinder says where loaded values go (trace.Site.Uses): a static
// stand-in for the dependence tracking that ConMem (conmem.txt §4.5) did
// in a second run, as analyzers/conindex reasons, and for the loop-exit
// reads of its spin-loop analysis (§4.6), which it found with CodeSurfer.
type usesFinder struct {
	loops map[*ssa.Function]*loopInfo
}

func newUsesFinder() *usesFinder {
	return &usesFinder{loops: make(map[*ssa.Function]*loopInfo)}
}

// of returns the uses of the value of load, space-separated in the order
// deref, index, loop-exit, branch, ptr, scalar.
func (u *usesFinder) of(load *ssa.UnOp) string {
	var uses []string
	if derefs(load) {
		uses = append(uses, trace.UseDeref)
	}
	if u.flows(load, maxUseDepth, indexes) {
		uses = append(uses, trace.UseIndex)
	}
	li := u.loopsOf(load.Parent())
	if u.flows(load, maxUseDepth, func(v ssa.Value, use ssa.Instruction) bool {
		ifi, ok := use.(*ssa.If)
		return ok && li.exits(load.Block(), ifi.Block())
	}) {
		uses = append(uses, trace.UseLoopExit)
	}
	if onlyBranches(load, maxUseDepth) {
		uses = append(uses, trace.UseBranch)
	}
	if rewrite.PointerShaped(load.Type()) {
		uses = append(uses, trace.UsePointer)
	}
	if scalar(load.Type()) {
		uses = append(uses, trace.UseScalar)
	}
	return strings.Join(uses, " ")
}

// scalar reports whether t, a loaded value's type (never untyped), is a
// boolean, an integer or a float, at most 8 bytes (trace.UseScalar): the
// shim records its writes' bits.
func scalar(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsBoolean|types.IsInteger|types.IsFloat) != 0
}

// derefs reports whether the pointer-shaped value v is dereferenced
// without being compared with nil: *v, v.f, v[i] of an array pointer, a
// store through it, a map update of it, a call of it (a func or an
// interface's method) or of a method with it as the receiver, unless the
// method takes a nil receiver (nilrecv: *os.File's).
func derefs(v ssa.Value) bool {
	switch v.Type().Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Signature, *types.Interface:
	default:
		return false
	}
	refs := v.Referrers()
	if refs == nil {
		return false
	}
	deref := false
	for _, r := range *refs {
		switch r := r.(type) {
		case *ssa.BinOp:
			if (r.Op == token.EQL || r.Op == token.NEQ) && (isNil(r.X) || isNil(r.Y)) {
				return false // checked: the use is guarded by the same value
			}
		case *ssa.FieldAddr:
			deref = deref || r.X == v
		case *ssa.IndexAddr:
			deref = deref || r.X == v
		case *ssa.UnOp:
			deref = deref || (r.Op == token.MUL && r.X == v)
		case *ssa.Store:
			deref = deref || r.Addr == v
		case *ssa.MapUpdate:
			deref = deref || r.Map == v
		case ssa.CallInstruction:
			c := r.Common()
			if c.Value == v {
				deref = true
			} else if callee := c.StaticCallee(); callee != nil && callee.Signature.Recv() != nil && len(c.Args) > 0 && c.Args[0] == v {
				deref = deref || !nilrecv.OK(fullName(callee))
			}
		}
	}
	return deref
}

// fullName returns the types.Func.FullName of fn's generic origin, or "".
func fullName(fn *ssa.Function) string {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	if obj, ok := fn.Object().(*types.Func); ok {
		return obj.FullName()
	}
	return ""
}

func isNil(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.Value == nil && !isBasic(c.Type())
}

func isBasic(t types.Type) bool {
	_, ok := t.Underlying().(*types.Basic)
	return ok
}

// indexes reports whether use takes v as an index or slice bound, or
// indexes or slices v, a slice.
func indexes(v ssa.Value, use ssa.Instruction) bool {
	_, isSlice := v.Type().Underlying().(*types.Slice)
	switch u := use.(type) {
	case *ssa.IndexAddr:
		return u.Index == v || (u.X == v && isSlice && !ownBound(v, u))
	case *ssa.Index:
		return u.Index == v
	case *ssa.Lookup:
		return u.Index == v && isBasic(u.X.Type())
	case *ssa.Slice:
		return u.Low == v || u.High == v || u.Max == v || (u.X == v && isSlice)
	}
	return false
}

// ownBound reports whether the index of use, an element of the slice s,
// was checked below len(s) of that very value, on the true branch of an
// If that dominates use, as a range loop over s checks its index: the
// slice's header was read once, and no other goroutine's store to where
// it came from can take the index out of it (go-nsq's tests ranged over
// a field another goroutine appends to: con-index, never out of range).
func ownBound(s ssa.Value, use *ssa.IndexAddr) bool {
	for d := use.Block(); d != nil; d = d.Idom() {
		if len(d.Preds) != 1 {
			continue
		}
		p := d.Preds[0]
		ifi, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If)
		if !ok || p.Succs[0] != d {
			continue
		}
		cmp, ok := ifi.Cond.(*ssa.BinOp)
		if !ok || cmp.Op != token.LSS || cmp.X != use.Index {
			continue
		}
		if n, ok := cmp.Y.(*ssa.Call); ok && len(n.Call.Args) == 1 && n.Call.Args[0] == s {
			if b, ok := n.Call.Value.(*ssa.Builtin); ok && b.Name() == "len" {
				return true
			}
		}
	}
	return false
}

// flows reports whether v, or a value computed from it by arithmetic,
// comparison, negation, conversion, len or cap or a phi in at most depth
// steps, has a use for which match holds.
func (u *usesFinder) flows(v ssa.Value, depth int, match func(ssa.Value, ssa.Instruction) bool) bool {
	seen := make(map[ssa.Value]bool)
	var walk func(v ssa.Value, depth int) bool
	walk = func(v ssa.Value, depth int) bool {
		if depth == 0 || seen[v] {
			return false
		}
		seen[v] = true
		refs := v.Referrers()
		if refs == nil {
			return false
		}
		for _, r := range *refs {
			if match(v, r) {
				return true
			}
			if next := derivedOrLen(r); next != nil && walk(next, depth-1) {
				return true
			}
		}
		return false
	}
	return walk(v, depth)
}

// derived returns the value instruction r computes from its operand by
// arithmetic, a comparison, negation, a conversion or a phi; nil for any
// other instruction.
func derived(r ssa.Instruction) ssa.Value {
	switch r := r.(type) {
	case *ssa.BinOp:
		return r
	case *ssa.UnOp:
		if r.Op == token.NOT || r.Op == token.SUB || r.Op == token.XOR {
			return r
		}
	case *ssa.Convert:
		return r
	case *ssa.ChangeType:
		return r
	case *ssa.Phi:
		return r
	}
	return nil
}

// derivedOrLen is derived, and also the length or capacity that a call
// of len or cap computes from its operand.
func derivedOrLen(r ssa.Instruction) ssa.Value {
	if c, ok := r.(*ssa.Call); ok {
		if b, ok := c.Call.Value.(*ssa.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
			return c
		}
	}
	return derived(r)
}

// copies reports whether the store st writes a value loaded from memory
// as it is, with no computation between (`q.rightMargin = q.tail`):
// trace.UseCopy.
func copies(st *ssa.Store) bool {
	v := st.Val
	for {
		switch x := v.(type) {
		case *ssa.ChangeType:
			v = x.X
			continue
		case *ssa.UnOp:
			return x.Op == token.MUL
		}
		return false
	}
}

// onlyBranches reports whether every use of v, directly or through
// arithmetic, comparisons, negation, conversions, len, cap and phis in
// at most depth steps, is an if's condition: the value decides branches
// and goes nowhere else (trace.UseBranch; `if len(q.chunks) == 0 {
// return nil }` looks at the queue, as guards.go's conditions do). A
// value with no use is not one.
func onlyBranches(v ssa.Value, depth int) bool {
	seen := make(map[ssa.Value]bool)
	decided := false
	var walk func(v ssa.Value, depth int) bool
	walk = func(v ssa.Value, depth int) bool {
		if seen[v] {
			return true
		}
		if depth == 0 {
			return false
		}
		seen[v] = true
		refs := v.Referrers()
		if refs == nil {
			return false
		}
		for _, r := range *refs {
			switch r.(type) {
			case *ssa.If:
				decided = true
				continue
			case *ssa.DebugRef:
				continue
			}
			if next := derivedOrLen(r); next == nil || !walk(next, depth-1) {
				return false
			}
		}
		return true
	}
	return walk(v, depth) && decided
}

// loopInfo holds, for one function, the blocks of each natural loop.
type loopInfo struct {
	in [][]bool // per loop, per block index: the block is in the loop
}

// loopsOf returns fn's natural loops: for each back edge b -> h (h
// dominates b), h and the blocks that reach b without passing h.
func (u *usesFinder) loopsOf(fn *ssa.Function) *loopInfo {
	if li, ok := u.loops[fn]; ok {
		return li
	}
	li := &loopInfo{}
	u.loops[fn] = li
	if fn == nil {
		return li
	}
	for _, b := range fn.Blocks {
		for _, h := range b.Succs {
			if !h.Dominates(b) {
				continue
			}
			in := make([]bool, len(fn.Blocks))
			in[h.Index] = true
			stack := []*ssa.BasicBlock{b}
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if in[x.Index] {
					continue
				}
				in[x.Index] = true
				stack = append(stack, x.Preds...)
			}
			li.in = append(li.in, in)
		}
	}
	return li
}

// exits reports whether block b, ending in an If, is in a loop that one
// of its successors leaves and that holds the load's block too: the load
// runs again on every iteration, so the loop can spin on its value.
func (li *loopInfo) exits(load, b *ssa.BasicBlock) bool {
	for _, in := range li.in {
		if !in[b.Index] || !in[load.Index] {
			continue
		}
		for _, s := range b.Succs {
			if !in[s.Index] {
				return true
			}
		}
	}
	return false
}

// loadCallUses returns the Uses of fn's calls that load a pointer
// atomically (atomic.Pointer's and atomic.Value's Load, atomic.LoadPointer,
// and sync.Map's Load, which shim/rt records as an atomic load),
// by the call's position (its Lparen, where the rewriter asks for them):
// deref when the value loaded is dereferenced unchecked (derefsLoaded).
// Only the deref mark is computed: a call is a sync event in the trace,
// which detect/conmem pairs as a memory access only for con-null and
// con-uninit.
func loadCallUses(fn *ssa.Function) map[token.Pos]string {
	var out map[token.Pos]string
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(*ssa.Call)
			if !ok || !call.Pos().IsValid() {
				continue
			}
			callee := call.Call.StaticCallee()
			if isAtomicPointerLoad(callee) && derefsLoaded(call) || isSyncMapLoad(callee) && derefsMapLoaded(call) {
				if out == nil {
					out = make(map[token.Pos]string)
				}
				out[call.Pos()] = trace.UseDeref
			}
		}
	}
	return out
}

// isAtomicPointerLoad reports whether callee is a load of sync/atomic that
// returns a pointer-shaped value: (*atomic.Pointer[T]).Load,
// (*atomic.Value).Load or atomic.LoadPointer.
func isAtomicPointerLoad(callee *ssa.Function) bool {
	if callee == nil {
		return false
	}
	obj, ok := callee.Object().(*types.Func)
	if !ok || obj.Pkg() == nil || obj.Pkg().Path() != "sync/atomic" {
		return false
	}
	if obj.Name() == "LoadPointer" {
		return true
	}
	recv := obj.Type().(*types.Signature).Recv()
	if obj.Name() != "Load" || recv == nil {
		return false
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && (n.Obj().Name() == "Pointer" || n.Obj().Name() == "Value")
}

// derefsLoaded is derefs for a value loaded by a call (an atomic load):
// besides derefs' uses, a type assertion without comma-ok of an interface
// value (atomic.Value's), which panics on a nil interface, and an
// unsafe.Pointer (atomic.LoadPointer's) converted to a pointer that is
// dereferenced, unless the value is compared with nil first.
func derefsLoaded(v ssa.Value) bool {
	if derefs(v) {
		return true
	}
	if v.Referrers() == nil {
		return false
	}
	deref := false
	for _, r := range *v.Referrers() {
		switch r := r.(type) {
		case *ssa.BinOp:
			if (r.Op == token.EQL || r.Op == token.NEQ) && (isNil(r.X) || isNil(r.Y)) {
				return false
			}
		case *ssa.TypeAssert:
			deref = deref || !r.CommaOk && types.IsInterface(v.Type())
		case *ssa.Convert:
			deref = deref || isUnsafePointer(v.Type()) && derefs(r)
		}
	}
	return deref
}

func isUnsafePointer(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.UnsafePointer
}

// isSyncMapLoad reports whether callee is (*sync.Map).Load.
func isSyncMapLoad(callee *ssa.Function) bool {
	if callee == nil {
		return false
	}
	obj, ok := callee.Object().(*types.Func)
	if !ok || obj.Pkg() == nil || obj.Pkg().Path() != "sync" || obj.Name() != "Load" {
		return false
	}
	recv := obj.Type().(*types.Signature).Recv()
	if recv == nil {
		return false
	}
	p, ok := recv.Type().(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := p.Elem().(*types.Named)
	return ok && n.Obj().Name() == "Map"
}

// derefsMapLoaded is derefsLoaded for the value of a sync.Map Load call
// (value, ok): the value is dereferenced unchecked when ok is not used (a
// branch on ok guards the value as a nil check does) and derefsLoaded
// holds for the value.
func derefsMapLoaded(call *ssa.Call) bool {
	if call.Referrers() == nil {
		return false
	}
	var value ssa.Value
	for _, r := range *call.Referrers() {
		e, ok := r.(*ssa.Extract)
		if !ok {
			continue
		}
		switch {
		case e.Index == 1 && e.Referrers() != nil && len(*e.Referrers()) > 0:
			return false
		case e.Index == 0:
			value = e
		}
	}
	return value != nil && derefsLoaded(value)
}

package concurrent

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/internal/nilrecv"
)

// maxDerefDepth bounds how deep Derefs looks into methods of the package
// called on the value.
const maxDerefDepth = 3

// A Deref is an instruction that fails if a value is nil.
type Deref struct {
	Instr ssa.Instruction
	// Verb says what happens to the value, for messages: "dereferenced",
	// "called", "used to call (*T).m".
	Verb string
	// Crash reports a panic; otherwise the operation blocks forever (a
	// send or receive on a nil channel).
	Crash bool
}

// Derefs returns the instructions that use v (a pointer, map, function,
// interface or channel value) in a way that fails when v is nil, and that
// no check of v against nil guards.
func (e *Env) Derefs(v ssa.Value) []Deref {
	var out []Deref
	refs := v.Referrers()
	if refs == nil {
		return nil
	}
	for _, u := range *refs {
		d, ok := e.deref(v, u, maxDerefDepth)
		if ok && !e.guarded(v, u) {
			out = append(out, d)
		}
	}
	return out
}

func (e *Env) deref(v ssa.Value, u ssa.Instruction, depth int) (Deref, bool) {
	switch u := u.(type) {
	case *ssa.FieldAddr:
		if u.X == v {
			return Deref{u, "dereferenced", true}, true
		}
	case *ssa.UnOp:
		if u.X == v {
			switch u.Op {
			case token.MUL:
				return Deref{u, "dereferenced", true}, true
			case token.ARROW:
				return Deref{u, "received from", false}, true
			}
		}
	case *ssa.Store:
		if u.Addr == v {
			return Deref{u, "dereferenced", true}, true
		}
	case *ssa.IndexAddr:
		if _, ok := v.Type().Underlying().(*types.Pointer); ok && u.X == v {
			return Deref{u, "indexed", true}, true
		}
	case *ssa.MapUpdate:
		if u.Map == v {
			return Deref{u, "written to", true}, true
		}
	case *ssa.Send:
		if u.Chan == v {
			return Deref{u, "sent on", false}, true
		}
	case *ssa.Call:
		return e.callDeref(v, u, depth)
	}
	return Deref{}, false
}

func (e *Env) callDeref(v ssa.Value, call *ssa.Call, depth int) (Deref, bool) {
	c := &call.Call
	if c.Value == v {
		if c.IsInvoke() {
			return Deref{call, "used to call " + c.Method.Name(), true}, true
		}
		return Deref{call, "called", true}, true
	}
	if b, ok := c.Value.(*ssa.Builtin); ok {
		if b.Name() == "close" && c.Args[0] == v {
			return Deref{call, "closed", true}, true
		}
		return Deref{}, false
	}
	callee := c.StaticCallee()
	if callee == nil || len(c.Args) == 0 || c.Args[0] != v || callee.Signature.Recv() == nil {
		return Deref{}, false
	}
	if _, ok := callee.Signature.Recv().Type().Underlying().(*types.Pointer); !ok {
		return Deref{}, false
	}
	if nilrecv.OK(model.Name(callee)) {
		// It checks for nil (the model says so whether or not its
		// body was loaded: os.File's methods dereference the file
		// after checkValid returned, which no nil check here guards).
		return Deref{}, false
	}
	verb := "used to call " + source.FuncName(callee)
	if len(callee.Blocks) == 0 {
		// A method of another package on a nil pointer: assume it
		// dereferences its receiver, as nearly all do.
		return Deref{call, verb, true}, true
	}
	if depth > 0 && len(callee.Params) > 0 {
		recv := callee.Params[0]
		if refs := recv.Referrers(); refs != nil {
			for _, u := range *refs {
				if _, ok := e.deref(recv, u, depth-1); ok && !e.guarded(recv, u) {
					return Deref{call, verb, true}, true
				}
			}
		}
	}
	return Deref{}, false
}

// guarded reports whether the use u of v runs only where v is not nil: a
// comparison of v with nil dominates it on its non-nil side, or every
// path from v's definition to u takes the comparison's non-nil edge (a
// copy read under a lock, checked after the Unlock by `if cli == nil {
// continue }`, then used in loops whose header the check's edge joins:
// paho.golang's managePublishQueue). v, an SSA value, keeps the value
// the check saw on such a path.
func (e *Env) guarded(v ssa.Value, u ssa.Instruction) bool {
	refs := v.Referrers()
	if refs == nil {
		return false
	}
	for _, r := range *refs {
		cmp, ok := r.(*ssa.BinOp)
		if !ok || (cmp.Op != token.NEQ && cmp.Op != token.EQL) || !isNil(cmp.X, cmp.Y, v) {
			continue
		}
		for _, cr := range *cmp.Referrers() {
			ifi, ok := cr.(*ssa.If)
			if !ok {
				continue
			}
			nonNil := ifi.Block().Succs[0]
			if cmp.Op == token.EQL {
				nonNil = ifi.Block().Succs[1]
			}
			if len(nonNil.Preds) == 1 && nonNil.Dominates(u.Block()) || onlyThrough(v, u, ifi.Block(), nonNil) {
				return true
			}
		}
	}
	return false
}

func isNil(x, y, v ssa.Value) bool {
	if x != v {
		x, y = y, x
	}
	if x != v {
		return false
	}
	c, ok := y.(*ssa.Const)
	return ok && c.IsNil()
}

// onlyThrough reports whether every path from v's definition (the
// function's entry, for a value that is not an instruction) to u takes
// the edge from block from to block to. A path that defines v again
// starts anew there, so it is left.
func onlyThrough(v ssa.Value, u ssa.Instruction, from, to *ssa.BasicBlock) bool {
	def, _ := v.(ssa.Instruction)
	fn := u.Parent()
	if fn == nil || len(fn.Blocks) == 0 || def != nil && def.Parent() != fn {
		return false
	}
	start, at := fn.Blocks[0], 0
	if def != nil {
		start, at = def.Block(), slices.Index(def.Block().Instrs, def)+1
	}
	// scan reports whether b, from instruction i on, reaches u before
	// defining v again, and whether it runs to its end.
	scan := func(b *ssa.BasicBlock, i int) (reached, through bool) {
		for _, instr := range b.Instrs[i:] {
			if instr == u {
				return true, false
			}
			if instr == def {
				return false, false
			}
		}
		return false, true
	}
	seen := map[*ssa.BasicBlock]bool{}
	work := []*ssa.BasicBlock{start}
	for first := true; len(work) > 0; first = false {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		i := 0
		if first {
			i = at
		}
		reached, through := scan(b, i)
		if reached {
			return false
		}
		if !through {
			continue
		}
		for _, s := range b.Succs {
			if b == from && s == to || seen[s] {
				continue
			}
			seen[s] = true
			work = append(work, s)
		}
	}
	return true
}

package instrument

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"
)

// Guards: which loads decide that an access runs (trace.Site.Guards and
// Switches). A trace shows every read that decides a branch
// (trace.UseBranch) but not which accesses the branch leads to;
// detect/oscs needs that to tell a write made because of what another
// critical section left (redigo's `if l.count == 0 { l.back = pc }`
// after another goroutine's pop set the count) from a blind one that
// discards it unseen (a lost update), and an access that runs only in
// the order the trace shows (dns's ShutdownContext reads srv.conns only
// past `if !srv.started { return }`, and the section that made the map
// set started) from one that may run in the other order too.
//
// A load guards an access (a store or another load) when the access's
// block is dominated by a block that ends in an If whose condition is
// computed from the load (through arithmetic, comparisons, negation,
// conversions, len and cap, at most maxUseDepth steps; not through phis,
// whose value may come from another edge), and the access cannot be
// reached from the If's other successor without passing the If's block
// again. Then every run of the access comes after a run of the If, and
// the If's last run before it took the edge toward the access: that
// run's condition, and so the load's last value before it, decided that
// the access runs. A loop whose body holds both the If and the access
// therefore counts (each iteration decides afresh); an access that both
// edges reach (after the If's join) does not. The load cannot run again
// between the If and the access: its block dominates the If's (a value
// dominates its uses), which dominates the access's, so a path from the
// load to the access that avoided the If would give one from the
// function's entry.

// A guard is a load that guards an access (guardLoads). It switches
// when the If's condition is the loaded value itself (a bool), its
// negation, or its comparison with nil (a pointer-shaped value, which the
// trace records as nil or not): a value that the trace records otherwise
// takes the If's other edge (trace.Site.Switches).
type guard struct {
	pos      token.Pos
	switches bool
}

// guardLoads returns the loads that guard the access instr (a store or
// a load), by position; nil for none.
func guardLoads(instr ssa.Instruction) []guard {
	b := instr.Block()
	if b == nil {
		return nil
	}
	var out []guard
	for d := b; d != nil; d = d.Idom() {
		ifi, ok := d.Instrs[len(d.Instrs)-1].(*ssa.If)
		if !ok || len(d.Succs) != 2 || d == b {
			continue
		}
		decided := false
		for i, s := range d.Succs {
			other := d.Succs[1-i]
			if s != other && reaches(s, b, d) && !reaches(other, b, d) {
				decided = true
			}
		}
		if !decided {
			continue
		}
		sw := switchLoad(ifi.Cond)
		for _, load := range condLoads(ifi.Cond, maxUseDepth) {
			out = append(out, guard{load.Pos(), load == sw})
		}
	}
	slices.SortFunc(out, func(a, b guard) int { return int(a.pos - b.pos) })
	return slices.CompactFunc(out, func(a, b guard) bool { return a.pos == b.pos })
}

// switchLoad returns the load whose value alone decides cond, as guard's
// switches says, or nil.
func switchLoad(cond ssa.Value) *ssa.UnOp {
	switch x := cond.(type) {
	case *ssa.UnOp:
		if x.Op == token.NOT {
			return switchLoad(x.X)
		}
		if b, ok := x.Type().Underlying().(*types.Basic); ok && x.Op == token.MUL && b.Kind() == types.Bool {
			return x
		}
	case *ssa.BinOp:
		if x.Op != token.EQL && x.Op != token.NEQ {
			return nil
		}
		for _, v := range [2][2]ssa.Value{{x.X, x.Y}, {x.Y, x.X}} {
			load, ok := v[0].(*ssa.UnOp)
			if ok && load.Op == token.MUL && isNil(v[1]) && nilRecorded(load.Type()) {
				return load
			}
		}
	}
	return nil
}

// nilRecorded reports whether the trace records a value of type t as nil
// or not (shim's wordNil class): a pointer, map, channel, func, interface
// or unsafe.Pointer.
func nilRecorded(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Chan, *types.Signature, *types.Interface:
		_, param := t.(*types.TypeParam)
		return !param
	case *types.Basic:
		return u.Kind() == types.UnsafePointer
	}
	return false
}

// reaches reports whether block to can be reached from block from
// (from itself included) without passing block avoid.
func reaches(from, to, avoid *ssa.BasicBlock) bool {
	seen := make(map[*ssa.BasicBlock]bool)
	stack := []*ssa.BasicBlock{from}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == to {
			return true
		}
		if x == avoid || seen[x] {
			continue
		}
		seen[x] = true
		stack = append(stack, x.Succs...)
	}
	return false
}

// condLoads returns the loads that v is computed from by the steps
// guardLoads follows, in at most depth steps.
func condLoads(v ssa.Value, depth int) []*ssa.UnOp {
	if depth == 0 {
		return nil
	}
	switch x := v.(type) {
	case *ssa.UnOp:
		switch x.Op {
		case token.MUL:
			if x.Pos().IsValid() {
				return []*ssa.UnOp{x}
			}
			return nil
		case token.NOT, token.SUB, token.XOR:
			return condLoads(x.X, depth-1)
		}
	case *ssa.BinOp:
		return append(condLoads(x.X, depth-1), condLoads(x.Y, depth-1)...)
	case *ssa.Convert:
		return condLoads(x.X, depth-1)
	case *ssa.ChangeType:
		return condLoads(x.X, depth-1)
	case *ssa.Call:
		if b, ok := x.Call.Value.(*ssa.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") && len(x.Call.Args) == 1 {
			return condLoads(x.Call.Args[0], depth-1)
		}
	}
	return nil
}

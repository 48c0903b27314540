package concurrent

import (
	"go/constant"
	"go/token"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// serialStarts reports whether the goroutines of c, a Multi context, never
// run two at once: c's `go` statement S is in a loop of a function F that
// joins each goroutine S starts before S runs again (ordering's
// SerialStarts: kine's watcher restarted by a loop that waits for the
// last one's result first), F repeats nowhere and runs in contexts none
// of which is Multi or overlaps another, so two invocations of F never
// run at once either. Two goroutines of c then run one after the other.
func (e *Env) serialStarts(c *goroutines.Context) bool {
	g, ok := c.Site.(*ssa.Go)
	if !ok || c.Kind != goroutines.Go {
		return false
	}
	f := g.Parent()
	if e.Goroutines.Repeats(f) {
		return false
	}
	parents := e.Goroutines.Of(f)
	for i, p := range parents {
		for _, q := range parents[i:] {
			if goroutines.MayOverlap(p, q) {
				return false
			}
		}
	}
	return len(parents) > 0 && e.Order.SerialStarts(c)
}

// ownSlots reports whether a and b, two accesses to the elements of a
// container by goroutines of the Multi context c, each touch the element
// at the index its goroutine was started with, when the goroutines get
// distinct indexes: c's entry is started in one loop of a function that
// does not repeat, once per turn, with the loop's counter as the index
// (`for i := 0; i < n; i++ { go func(i int) { chans[i] = ...; close(chans[i]) }(i) }`,
// concurrent-map's snapshot). Two goroutines of c then touch two elements;
// one goroutine's own accesses are ordered.
func (e *Env) ownSlots(a, b *sharedloc.Access, c *goroutines.Context) bool {
	if !a.Loc.Elem || a.Loc != b.Loc || a.Fn() != c.Entry || b.Fn() != c.Entry {
		return false
	}
	ia, ib := slotIndex(a), slotIndex(b)
	if ia == nil || ia != ib {
		return false
	}
	p, ok := ia.(*ssa.Parameter)
	if !ok || p.Parent() != c.Entry {
		return false
	}
	g, ok := c.Site.(*ssa.Go)
	if !ok || g.Call.IsInvoke() {
		return false
	}
	if !madeBy(a.Loc.Holder(), g.Parent()) {
		// A container that outlives the spawner's invocation: two
		// invocations' goroutines may get one index.
		if e.Goroutines.Repeats(g.Parent()) {
			return false
		}
		for _, pc := range e.Goroutines.Of(g.Parent()) {
			if pc.Multi {
				return false
			}
		}
	}
	i := slices.Index(c.Entry.Params, p)
	if i < 0 || i >= len(g.Call.Args) || e.Goroutines.CallGraph == nil {
		return false
	}
	return e.oncePerTurn(g, ssavalue.Unconverted(g.Call.Args[i]))
}

// madeBy reports whether the container at l is made afresh by each
// invocation of fn: made there, or held in a variable of fn (captured by
// its closures) that only ever holds containers made there.
func madeBy(l sharedloc.Loc, fn *ssa.Function) bool {
	switch l.Kind {
	case sharedloc.Made:
		switch m := l.Cell.(type) {
		case *ssa.MakeSlice, *ssa.MakeMap, *ssa.MakeChan:
			return m.Parent() == fn
		}
	case sharedloc.Captured:
		cell, ok := l.Cell.(*ssa.Alloc)
		if !ok || cell.Parent() != fn || !ssavalue.OnlyOwnerWrites(cell) {
			return false
		}
		stored := ssavalue.StoresTo(cell)
		made := false
		for _, v := range stored {
			switch m := v.(type) {
			case *ssa.MakeSlice, *ssa.MakeMap, *ssa.MakeChan:
				if m.Parent() != fn {
					return false
				}
				made = true
			case *ssa.Const:
				// A named result's zero value.
				if !m.IsNil() {
					return false
				}
			case *ssa.UnOp:
				// Its own value stored back.
				if m.Op != token.MUL || m.X != cell {
					return false
				}
			default:
				return false
			}
		}
		return made
	}
	return false
}

// slotIndex returns the index of the element a touches, c[k] for the
// container c, or nil.
func slotIndex(a *sharedloc.Access) ssa.Value {
	v := a.Ptr
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		v = u.X
	}
	switch x := v.(type) {
	case *ssa.IndexAddr:
		return ssavalue.Unconverted(x.Index)
	case *ssa.Index:
		return ssavalue.Unconverted(x.Index)
	}
	if st, ok := a.Instr.(*ssa.Store); ok {
		if ia, ok := st.Addr.(*ssa.IndexAddr); ok {
			return ssavalue.Unconverted(ia.Index)
		}
	}
	return nil
}

// oncePerTurn reports whether v, the argument the `go` statement g passes,
// is a counter of a loop that runs g at most once per turn: a phi of the
// loop's header whose value comes back increased by a constant (i++), or
// that phi plus the constant (a range over a slice gives i+1), with every
// path from g back to g through the phi.
func (e *Env) oncePerTurn(g *ssa.Go, v ssa.Value) bool {
	phi, ok := v.(*ssa.Phi)
	if !ok {
		bin, isBin := v.(*ssa.BinOp)
		if !isBin || !stepOf(bin, nil) {
			return false
		}
		phi, ok = bin.X.(*ssa.Phi)
		if !ok || !slices.Contains(phi.Edges, ssa.Value(bin)) {
			return false
		}
	} else if !slices.ContainsFunc(phi.Edges, func(x ssa.Value) bool {
		bin, isBin := x.(*ssa.BinOp)
		return isBin && stepOf(bin, phi)
	}) {
		return false
	}
	flow := e.Goroutines.Flow
	return phi.Parent() == g.Parent() && flow.InLoop(g) && !flow.MayFollowAvoiding(g, g, phi)
}

// stepOf reports whether bin is x + k for a nonzero constant k, with x
// the phi (any value, when phi is nil).
func stepOf(bin *ssa.BinOp, phi *ssa.Phi) bool {
	if bin.Op != token.ADD {
		return false
	}
	k, ok := bin.Y.(*ssa.Const)
	if !ok || k.Value == nil || k.Value.Kind() != constant.Int || constant.Sign(k.Value) == 0 {
		return false
	}
	return phi == nil || bin.X == ssa.Value(phi)
}

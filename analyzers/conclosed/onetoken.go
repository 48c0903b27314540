package conclosed

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/concurrent"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// A tokenChan tells whether the channels of one location are used as a
// one-shot hand-off: each channel held there gets one send (the token),
// and a closer that first receives from the channel closes it only once
// it holds the token or finds the channel closed (chromedp's allocated:
// NewContext makes it with one buffered token, and each allocation path
// takes the token before it starts the goroutine that closes the
// channel when the browser stops). Two such closers both close only when
// the token is taken twice, the second receive completing because the
// first closer already closed the channel: a caller that runs the taking
// path twice on one object, which an API may forbid (chromedp's Run
// allocates once per context) and the analysis cannot check. Such a pair
// is reported at low confidence.
type tokenChan struct {
	c    *checker
	loc  sharedloc.Loc // the channels' contents location
	accs []*sharedloc.Access
	one  int // 0 unknown, 1 one token, -1 not
}

// both reports whether the two closes of the pair p each run only after
// a receive of the channel's one token.
func (t *tokenChan) both(p concurrent.Pair) bool {
	return t.oneToken() && t.taken(p.A, p.CA) && t.taken(p.B, p.CB)
}

// assumption returns what a report of the close pair p assumes when both
// closes run only after a receive of the token (both), or "".
func (t *tokenChan) assumption(p concurrent.Pair) string {
	if !t.both(p) {
		return ""
	}
	return fmt.Sprintf("that the one token sent on %s is taken twice: each close comes after a receive from it, which completes a second time only once the channel is closed", t.c.chanExpr(p.A))
}

// oneToken reports whether every channel held at the location gets one
// send at most, and some channel gets one. It holds when
//   - every store to the holding field or captured variable puts there a
//     channel just made, used for nothing else, in the function that
//     allocated the object (or declared the variable), once per call
//     (the store on no cycle, one such store per function), so that each
//     object holds one channel for its whole life;
//   - every read of the field or variable uses the channel only as a
//     channel (a receive, send, select case, close, len, cap or a
//     comparison), so that no other location comes to hold it; and
//   - every send is a plain send in a function that made the object's
//     channel, after that store, on no cycle, one per function; and
//   - no code of the package copies or assigns whole the struct whose
//     field holds the channel (see copied).
//
// With no send at all, a receive completes only once the channel is
// closed, and the pair is not the token's.
func (t *tokenChan) oneToken() bool {
	if t.one == 0 {
		t.one = -1
		if t.computeOne() {
			t.one = 1
		}
	}
	return t.one == 1
}

func (t *tokenChan) computeOne() bool {
	if t.loc.Kind != sharedloc.Field && t.loc.Kind != sharedloc.Captured {
		return false
	}
	var stores []*sharedloc.Access
	storeFns := map[*ssa.Function]bool{}
	for _, h := range t.c.env.Shared.ByLoc[t.loc.Holder()] {
		switch h.Op {
		case sharedloc.Store:
			st, ok := h.Instr.(*ssa.Store)
			if !ok || !freshChan(st) || storeFns[st.Parent()] {
				return false
			}
			storeFns[st.Parent()] = true
			stores = append(stores, h)
		case sharedloc.Load:
			load, ok := h.Instr.(*ssa.UnOp)
			if !ok || !usedAsChan(load) {
				return false
			}
		default:
			return false
		}
	}
	sendFns := map[*ssa.Function]bool{}
	for _, a := range t.accs {
		if a.Op != sharedloc.ChanSend {
			continue
		}
		s, ok := a.Instr.(*ssa.Send)
		if !ok || sendFns[s.Parent()] || ssaflow.OnCycle(s.Block()) {
			return false
		}
		sendFns[s.Parent()] = true
		made := false
		for _, st := range stores {
			if a.Base != nil && st.Base == a.Base && ssaflow.Dominates(st.Instr, s) {
				made = true
			}
		}
		if !made {
			return false
		}
	}
	return len(sendFns) > 0 && !t.copied(stores)
}

// copied reports whether the package reads or writes whole a struct whose
// field holds the channels (stores are the field's): a copy holds the
// channel in a location the rules above do not see, and a whole-struct
// store replaces it.
func (t *tokenChan) copied(stores []*sharedloc.Access) bool {
	if t.loc.Kind != sharedloc.Field {
		return false
	}
	fa, ok := stores[0].Instr.(*ssa.Store).Addr.(*ssa.FieldAddr)
	if !ok {
		return true
	}
	st := fa.X.Type().Underlying().(*types.Pointer).Elem()
	for _, fn := range t.c.env.Goroutines.Funcs() {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch in := instr.(type) {
				case *ssa.UnOp:
					if in.Op == token.MUL && types.Identical(in.Type(), st) {
						return true
					}
				case *ssa.Store:
					if types.Identical(in.Val.Type(), st) {
						return true
					}
				}
			}
		}
	}
	return false
}

// freshChan reports whether st stores a channel made for it alone into a
// field of an object allocated in st's function, or into a captured
// variable declared there, on no cycle of the function.
func freshChan(st *ssa.Store) bool {
	mk, ok := st.Val.(*ssa.MakeChan)
	if !ok || ssaflow.OnCycle(st.Block()) {
		return false
	}
	for _, r := range *mk.Referrers() {
		if _, ok := r.(*ssa.DebugRef); !ok && r != ssa.Instruction(st) {
			return false
		}
	}
	addr := st.Addr
	if fa, ok := addr.(*ssa.FieldAddr); ok {
		addr = fa.X
		// The object through a captured variable that holds it alone
		// (chromedp's NewContext: c := &Context{...}, used by a
		// goroutine's closure too).
		if cell := ssavalue.CapturedCell(addr); cell != nil {
			vals := ssavalue.StoresTo(cell)
			if len(vals) != 1 {
				return false
			}
			addr = vals[0]
		}
	}
	obj, ok := addr.(*ssa.Alloc)
	return ok && obj.Parent() == st.Parent()
}

// usedAsChan reports whether the channel that load reads is only operated
// on as a channel, never stored, passed or returned.
func usedAsChan(load *ssa.UnOp) bool {
	for _, r := range *load.Referrers() {
		switch r := r.(type) {
		case *ssa.DebugRef:
		case *ssa.UnOp:
			if r.Op != token.ARROW {
				return false
			}
		case *ssa.Send:
			if r.X == ssa.Value(load) {
				return false
			}
		case *ssa.Select:
			for _, st := range r.States {
				if st.Send == ssa.Value(load) {
					return false
				}
			}
		case *ssa.BinOp:
			if r.Op != token.EQL && r.Op != token.NEQ {
				return false
			}
		case *ssa.Call:
			b, ok := r.Call.Value.(*ssa.Builtin)
			if !ok || b.Name() != "close" && b.Name() != "len" && b.Name() != "cap" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// taken reports whether the close cl, on the goroutines of g, runs only
// after a receive from the same channel completed: a receive of the same
// object's channel (the same root of the access path) that dominates the
// close in its function, or, for a close in the function a `go`
// statement starts, that dominates the statement in the function that
// runs it. A receive in a select counts on the paths through its case's
// body only. The receive and the close (or statement) must lie on no
// cycle of their function: a later turn of a loop may receive after its
// own close, or start a second closer after one receive. A close in a
// callee of the goroutine's function is not matched.
func (t *tokenChan) taken(cl *sharedloc.Access, g *goroutines.Context) bool {
	if cl.Base == nil || ssaflow.OnCycle(cl.Instr.Block()) {
		return false
	}
	if t.takenBefore(cl.Instr, cl.Base) {
		return true
	}
	if g == nil || g.Kind != goroutines.Go || g.Site == nil || g.Entry != cl.Fn() || ssaflow.OnCycle(g.Site.Block()) {
		return false
	}
	base := cl.Base
	if p, ok := base.(*ssa.Parameter); ok {
		callee := g.Site.Common().StaticCallee()
		i := slices.Index(g.Entry.Params, p)
		if callee != g.Entry || i < 0 || i >= len(g.Site.Common().Args) {
			return false
		}
		base = sharedloc.Root(g.Site.Common().Args[i])
	}
	return t.takenBefore(g.Site, base)
}

// takenBefore reports whether a receive from the channel of the object
// rooted at base completes before every run of at.
func (t *tokenChan) takenBefore(at ssa.Instruction, base ssa.Value) bool {
	if !oneValue(base) {
		return false
	}
	for _, r := range t.accs {
		if r.Op != sharedloc.ChanRecv || r.Base != base || r.Fn() != at.Parent() || ssaflow.OnCycle(r.Instr.Block()) {
			continue
		}
		switch in := r.Instr.(type) {
		case *ssa.UnOp:
			if in != at && ssaflow.Dominates(in, at) {
				return true
			}
		case *ssa.Select:
			for i, st := range in.States {
				if st.Dir != types.RecvOnly || st.Pos != r.At {
					continue
				}
				if body := ssaflow.SelectBody(in, i); body != nil && ssaflow.Dominates(body, at) {
					return true
				}
			}
		}
	}
	return false
}

// oneValue reports whether the root base of an access path names one
// object throughout: not a captured variable holding a pointer that
// another store may replace between the receive and the close.
func oneValue(base ssa.Value) bool {
	cell, ok := base.(*ssa.Alloc)
	if !ok {
		return true
	}
	if _, ptr := cell.Type().(*types.Pointer).Elem().Underlying().(*types.Pointer); !ptr {
		return true // the object itself, or the channel variable (oneToken checks its stores)
	}
	return len(ssavalue.StoresTo(cell)) == 1
}

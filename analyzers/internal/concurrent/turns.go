package concurrent

import (
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/locksets"
)

// A turnFlag keeps at most one goroutine per object in flight: the
// goroutines run fn, which only `go` statements start, each for an object
// x (fn's parameter number param) and each only past a check, under a
// mutex, that x's flag field is clear, setting the flag before the start
// with the mutex still held; the flag is cleared only by fn itself, on x,
// under that mutex, as the last thing its goroutine does before it
// returns (rabbitmq/amqp091-go's lifeCycle, one deliverer per listener):
//
//	l.mutex.Lock()
//	if !listener.sending {
//		listener.sending = true
//		go l.deliver(listener)
//	}
//	l.mutex.Unlock()
//	...
//	func (l *lifeCycle) deliver(listener *stateListener) {
//		for {
//			l.mutex.Lock()
//			if len(listener.queue) == 0 {
//				listener.sending = false
//				l.mutex.Unlock()
//				return
//			}
//			...
//
// So one goroutine's turn on x ends (its clear, under the mutex) before
// the next one for x can start (the check that finds the flag clear,
// under the mutex, comes before the start): what two of them do to x is
// ordered. A goroutine that reaches no clear after some point (it closed
// x's channel, and returns without clearing) is x's last.
type turnFlag struct {
	fn     *ssa.Function
	param  int
	flag   *types.Var
	sites  []*ssa.Go
	clears []*ssa.Store
}

// Turns is a Safe predicate: both accesses run on goroutines of one
// turnFlag, in fn itself, on the object whose flag elects them (their
// base is fn's parameter), so the goroutines took turns on it. Like
// Elected, it takes what fn reaches from that object to be the object's
// own: two goroutines for two objects are not compared.
func (e *Env) Turns(p Pair) bool {
	return e.turnsOf(p) != nil
}

// TurnBefore is a Safe predicate: Turns holds, and B's goroutine clears
// the flag on no path from B, so it is the last to take a turn on its
// object and A's goroutine (another one) ended its turn before B's
// started.
func (e *Env) TurnBefore(p Pair) bool {
	t := e.turnsOf(p)
	return t != nil && !reachesAny(p.B.Instr, t.clears)
}

func (e *Env) turnsOf(p Pair) *turnFlag {
	if p.A.Fn() != p.B.Fn() || p.CA.Entry != p.A.Fn() || p.CB.Entry != p.A.Fn() {
		return nil
	}
	t := e.turnFlagOf(p.A.Fn())
	if t == nil || p.A.Base != t.fn.Params[t.param] || p.B.Base != p.A.Base {
		return nil
	}
	for _, c := range []*goroutines.Context{p.CA, p.CB} {
		if g, ok := c.Site.(*ssa.Go); !ok || c.Kind != goroutines.Go || !slices.Contains(t.sites, g) {
			return nil
		}
	}
	return t
}

// turnFlagOf returns the turnFlag whose goroutines run fn, or nil.
func (e *Env) turnFlagOf(fn *ssa.Function) *turnFlag {
	if t, ok := e.turns[fn]; ok {
		return t
	}
	t := e.findTurnFlag(fn)
	e.turns[fn] = t
	return t
}

func (e *Env) findTurnFlag(fn *ssa.Function) *turnFlag {
	if obj := fn.Object(); obj == nil || obj.Exported() || fn.Parent() != nil || len(e.Goroutines.RefSites(fn)) > 0 {
		return nil
	}
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			if _, ok := in.(*ssa.Defer); ok {
				return nil // deferred calls run after the clear
			}
		}
	}
	callers := e.Goroutines.CallGraph.Callers(fn)
	if len(callers) == 0 {
		return nil
	}
	var t *turnFlag
	var mutexes locksets.Set
	for _, edge := range callers {
		g, ok := edge.Site.(*ssa.Go)
		if !ok || callgraph.StaticCallee(&g.Call) != fn {
			return nil
		}
		param, flag, held, ok := e.guardedStart(g)
		if !ok {
			return nil
		}
		if t == nil {
			t = &turnFlag{fn: fn, param: param, flag: flag}
			mutexes = held
		} else if param != t.param || flag != t.flag {
			return nil
		}
		mutexes = writeHeld(mutexes.Intersect(held))
		t.sites = append(t.sites, g)
	}
	// Every other write of the flag in the package is a clear by fn, on
	// its parameter, under the starters' mutex, followed only by the
	// mutex's release and the return; the flag's address is taken for
	// nothing else.
	ssainput := e.Pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
	for _, f := range ssainput.SrcFuncs {
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				fa, ok := in.(*ssa.FieldAddr)
				if !ok || ssavalue.Field(fa) != t.flag {
					continue
				}
				for _, u := range *fa.Referrers() {
					if l, ok := u.(*ssa.UnOp); ok && l.Op == token.MUL {
						continue
					}
					st, ok := u.(*ssa.Store)
					if !ok || st.Addr != ssa.Value(fa) {
						return nil
					}
					if t.isSet(st) {
						continue
					}
					if f != fn || fa.X != fn.Params[t.param] || !isBool(st.Val, false) || !lastWord(st) {
						return nil
					}
					mutexes = writeHeld(mutexes.Intersect(e.Locks.At(st)))
					t.clears = append(t.clears, st)
				}
			}
		}
	}
	if len(t.clears) == 0 || len(mutexes) == 0 {
		return nil
	}
	return t
}

// isSet reports whether st is the set of the flag that one of t's starts
// makes (see guardedStart).
func (t *turnFlag) isSet(st *ssa.Store) bool {
	for _, g := range t.sites {
		if setBefore(g, t.flag) == st {
			return true
		}
	}
	return false
}

// guardedStart checks the shape of one start of a turnFlag's goroutine:
//
//	if !y.flag {      // a load of y.flag, in the block ending in the If
//		y.flag = true // in the If's false successor, whose only
//		go fn(..., y) // predecessor it is
//	}
//
// with mutexes held (in write mode) on every instruction from the load to
// the `go`. It returns the parameter y is passed to, the flag, and the
// mutexes held.
func (e *Env) guardedStart(g *ssa.Go) (param int, flag *types.Var, held locksets.Set, ok bool) {
	set := setBefore(g, nil)
	if set == nil {
		return 0, nil, nil, false
	}
	fa := set.Addr.(*ssa.FieldAddr)
	flag = ssavalue.Field(fa)
	param = slices.Index(g.Call.Args, fa.X)
	blk := g.Block()
	if flag == nil || param < 0 || len(blk.Preds) != 1 {
		return 0, nil, nil, false
	}
	pred := blk.Preds[0]
	ifi, isIf := pred.Instrs[len(pred.Instrs)-1].(*ssa.If)
	if !isIf {
		return 0, nil, nil, false
	}
	cond, clearSucc := ifi.Cond, 1
	if not, ok := cond.(*ssa.UnOp); ok && not.Op == token.NOT {
		cond, clearSucc = not.X, 0
	}
	load, isLoad := cond.(*ssa.UnOp)
	if !isLoad || load.Op != token.MUL || pred.Succs[clearSucc] != blk || pred.Succs[1-clearSucc] == blk {
		return 0, nil, nil, false
	}
	lfa, isField := load.X.(*ssa.FieldAddr)
	if !isField || lfa.X != fa.X || ssavalue.Field(lfa) != flag || load.Block() != pred {
		return 0, nil, nil, false
	}
	held = writeHeld(e.Locks.At(load))
	for _, in := range pred.Instrs[slices.Index(pred.Instrs, ssa.Instruction(load))+1:] {
		held = writeHeld(held.Intersect(e.Locks.At(in)))
	}
	for _, in := range blk.Instrs[:slices.Index(blk.Instrs, ssa.Instruction(g))+1] {
		held = writeHeld(held.Intersect(e.Locks.At(in)))
	}
	if len(held) == 0 {
		return 0, nil, nil, false
	}
	return param, flag, held, true
}

// setBefore returns the store of true to a field of a value that g passes
// as an argument, earlier in g's block (of the field flag, if not nil),
// or nil.
func setBefore(g *ssa.Go, flag *types.Var) *ssa.Store {
	instrs := g.Block().Instrs
	for _, in := range slices.Backward(instrs[:slices.Index(instrs, ssa.Instruction(g))]) {
		st, ok := in.(*ssa.Store)
		if !ok {
			continue
		}
		fa, ok := st.Addr.(*ssa.FieldAddr)
		if ok && isBool(st.Val, true) && slices.Contains(g.Call.Args, fa.X) && (flag == nil || ssavalue.Field(fa) == flag) {
			return st
		}
	}
	return nil
}

// lastWord reports whether all that follows the store st in its function
// is the release of mutexes and the return: in its block, loads of the
// mutexes and the calls that unlock them, then a Return, or a Jump to a
// block holding only a Return.
func lastWord(st *ssa.Store) bool {
	instrs := st.Block().Instrs
	for _, in := range instrs[slices.Index(instrs, ssa.Instruction(st))+1:] {
		switch in := in.(type) {
		case *ssa.FieldAddr, *ssa.UnOp:
			if u, ok := in.(*ssa.UnOp); ok && u.Op != token.MUL {
				return false
			}
		case *ssa.Call:
			op, ok := model.LockOpOf(model.CalleeName(&in.Call))
			if !ok || op != model.Unlock && op != model.RUnlock {
				return false
			}
		case *ssa.Return:
			return true
		case *ssa.Jump:
			next := in.Block().Succs[0]
			_, ret := next.Instrs[0].(*ssa.Return)
			return ret
		default:
			return false
		}
	}
	return false
}

// reachesAny reports whether some path from just after instr, within its
// function, reaches one of the targets.
func reachesAny(instr ssa.Instruction, targets []*ssa.Store) bool {
	at := func(b *ssa.BasicBlock, from int) bool {
		for _, in := range b.Instrs[from:] {
			if st, ok := in.(*ssa.Store); ok && slices.Contains(targets, st) {
				return true
			}
		}
		return false
	}
	start := instr.Block()
	if at(start, slices.Index(start.Instrs, instr)+1) {
		return true
	}
	seen := map[*ssa.BasicBlock]bool{}
	work := slices.Clone(start.Succs)
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[b] {
			continue
		}
		seen[b] = true
		if at(b, 0) {
			return true
		}
		work = append(work, b.Succs...)
	}
	return false
}

// writeHeld returns the mutexes of s held in write mode.
func writeHeld(s locksets.Set) locksets.Set {
	var out locksets.Set
	for _, h := range s {
		if h.Mode == locksets.Write {
			out = append(out, h)
		}
	}
	return out
}

// isBool reports whether v is the boolean constant b.
func isBool(v ssa.Value, b bool) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.Value != nil && c.Value.Kind() == constant.Bool && constant.BoolVal(c.Value) == b
}

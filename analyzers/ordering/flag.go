package ordering

import (
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// A flagProtocol keeps at most one goroutine of a group in flight: the
// function fn starts them (the group's `go` statements, sites) only past
// a guard that finds the flag field clear, and sets the flag first; each
// goroutine's last word is a send on ch; and the flag is cleared only
// after a receive from ch, or on a path of fn that starts none of them:
//
//	func (sc *serverConn) startWrite(w write) {
//		if sc.writing {
//			panic("one write at a time")
//		}
//		sc.writing = true
//		if w.small(sc.bw.Available()) { // no write in flight here
//			sc.wrote(w.write(sc))         // clears sc.writing, synchronously
//		} else {
//			go sc.writeAsync(w)           // sends on sc.wroteCh when done
//		}
//	}
//	...
//	case res := <-sc.wroteCh:
//		sc.wrote(res) // clears sc.writing
//
// A goroutine of the group that started earlier has sent on ch, and its
// send was received, before the flag can be clear again, so before fn
// passes the guard again: what it did before its send happens before the
// next start of the group and before the code of fn between the guard and
// that start.
type flagProtocol struct {
	fn    *ssa.Function
	set   *ssa.Store        // flag = true
	sites []ssa.Instruction // the group's go statements, in fn
	ch    sharedloc.Loc     // the channel each goroutine ends by sending on
	sends []ssa.Instruction // the sends on ch
	group []*goroutines.Context
	// reaches holds the functions that may call fn on the calling
	// goroutine, directly or not (see mayReach).
	reaches map[*ssa.Function]bool
}

// flagBefore orders a, on a goroutine of ca, before b on cb by a
// flagProtocol that ca's goroutines belong to, when a comes before the
// goroutine's send: b runs on a goroutine of the group too (started after
// ca's goroutine sent), or b runs in fn past the flag's set and before
// any start of the group and any call that may lead back to fn (in fn, or
// in callees called from such points).
//
// It assumes what the protocol itself needs: that the flag is read and
// written by one goroutine at a time (the goroutine that owns the
// object, as serverConn's serve loop does). It does not check that.
func (r *Result) flagBefore(a ssa.Instruction, ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) (Edge, bool) {
	p := r.flagOf(ca)
	if p == nil {
		return Edge{}, false
	}
	mine := 0
	for _, x := range p.sends {
		if x.Parent() != ca.Entry {
			continue
		}
		mine++
		if !r.precedesSend(a, x, ca) {
			return Edge{}, false
		}
	}
	if mine == 0 {
		return Edge{}, false
	}
	for _, g := range p.group {
		if g == cb {
			return Edge{Rule: Flag, Pos: p.set.Pos()}, true
		}
	}
	if r.guarded(p, b, cb, MaxCallDepth) {
		return Edge{Rule: Flag, Pos: p.set.Pos()}, true
	}
	return Edge{}, false
}

// precedesSend reports whether a, on the goroutines of c, runs only
// before x, an instruction of c's entry: in the entry, a cannot follow x;
// elsewhere, every call that leads to a does not. A goroutine's work
// lies deeper below its entry than the accesses the other rules order
// (a frame's write through its interface, the framer, the buffer), so
// it follows up to sendDepth calls, maxQuerySteps in all.
func (r *Result) precedesSend(a, x ssa.Instruction, c *goroutines.Context) bool {
	ok, _ := r.query(func(steps *int) bool { return r.precedesSendSteps(a, x, c, sendDepth, steps) })
	return ok
}

const sendDepth = 2 * MaxCallDepth

func (r *Result) precedesSendSteps(a, x ssa.Instruction, c *goroutines.Context, depth int, steps *int) bool {
	if *steps++; *steps > maxQuerySteps {
		return false
	}
	if a.Parent() == x.Parent() {
		return r.gr.Flow.Precedes(a, x)
	}
	if depth == 0 || a.Parent() == c.Entry {
		return false
	}
	sites := r.callSites(a.Parent(), c)
	return len(sites) > 0 && all(sites, func(s ssa.Instruction) bool { return r.precedesSendSteps(s, x, c, depth-1, steps) })
}

// guarded reports whether x, on the goroutines of c, runs only in fn
// between the flag's set and any call or start that follows it, or in
// callees that no call precedes, called from such points.
func (r *Result) guarded(p *flagProtocol, x ssa.Instruction, c *goroutines.Context, depth int) bool {
	flow := r.gr.Flow
	if x.Parent() == p.fn {
		if !flow.Dominates(p.set, x) {
			return false
		}
		for _, s := range p.sites {
			if s == x || flow.MayFollow(s, x) {
				return false
			}
		}
		return !r.callBetween(p, p.set, x)
	}
	if depth == 0 || x.Parent() == c.Entry || r.callBetween(p, nil, x) {
		return false
	}
	sites := r.callSites(x.Parent(), c)
	return len(sites) > 0 && all(sites, func(s ssa.Instruction) bool { return r.guarded(p, s, c, depth-1) })
}

// callBetween reports whether a call other than x that may lead back to
// fn (and start a goroutine of the group there) may run after from (from
// the function's entry if from is nil) and before x.
func (r *Result) callBetween(p *flagProtocol, from, x ssa.Instruction) bool {
	flow := r.gr.Flow
	for _, blk := range x.Parent().Blocks {
		for _, k := range blk.Instrs {
			call, ok := k.(ssa.CallInstruction)
			if !ok || k == x || !r.mayReach(p, call) {
				continue
			}
			if (from == nil || flow.MayFollow(from, k)) && flow.MayFollow(k, x) {
				return true
			}
		}
	}
	return false
}

// mayReach reports whether call may lead to a call of p.fn on the same
// goroutine: one of its callees is fn or calls it, directly or not, or
// the call is dynamic and its callees are unknown.
func (r *Result) mayReach(p *flagProtocol, call ssa.CallInstruction) bool {
	common := call.Common()
	if callee := common.StaticCallee(); callee != nil {
		return p.reaches[callee]
	}
	callees := r.gr.CallGraph.Callees(call)
	if len(callees) == 0 {
		return true
	}
	for _, f := range callees {
		if p.reaches[f] {
			return true
		}
	}
	return false
}

// flagOf returns the flagProtocol that the goroutines of c belong to, or
// nil; it is computed once per context.
func (r *Result) flagOf(c *goroutines.Context) *flagProtocol {
	if c.Kind != goroutines.Go || c.Site == nil {
		return nil
	}
	r.mu.Lock()
	p, ok := r.flags[c]
	r.mu.Unlock()
	if ok {
		return p
	}
	p = r.findFlag(c)
	r.mu.Lock()
	if r.flags == nil {
		r.flags = make(map[*goroutines.Context]*flagProtocol)
	}
	r.flags[c] = p
	r.mu.Unlock()
	return p
}

func (r *Result) findFlag(c *goroutines.Context) *flagProtocol {
	if _, isGo := c.Site.(*ssa.Go); !isGo {
		return nil
	}
	fn := c.Site.Parent()
	// The channels the entry sends on, in instruction order.
	for _, blk := range c.Entry.Blocks {
		for _, k := range blk.Instrs {
			for _, acc := range r.shared.ByInstr[k] {
				if acc.Op != sharedloc.ChanSend {
					continue
				}
				if p := r.flagOn(fn, acc.Loc, r.ops.sends[acc.Loc], c); p != nil {
					return p
				}
			}
		}
	}
	return nil
}

// flagOn returns the protocol of fn's goroutines that end by sending on
// ch, if c is one of them and the protocol holds.
func (r *Result) flagOn(fn *ssa.Function, ch sharedloc.Loc, sends []ssa.Instruction, c *goroutines.Context) *flagProtocol {
	p := &flagProtocol{fn: fn, ch: ch, sends: sends}
	flow := r.gr.Flow
	seen := map[*goroutines.Context]bool{}
	for _, x := range sends {
		for _, acc := range r.shared.ByInstr[x] {
			if acc.Loc == ch && acc.Op != sharedloc.ChanSend {
				return nil // a close
			}
		}
		if flow.InLoop(x) {
			return nil
		}
		cs := r.gr.Of(x.Parent())
		if len(cs) == 0 {
			return nil
		}
		for _, g := range cs {
			// Sent only by goroutines of the group, from their entry.
			if _, isGo := g.Site.(*ssa.Go); !isGo || g.Kind != goroutines.Go || g.Entry != x.Parent() || g.Site.Parent() != fn {
				return nil
			}
			if !seen[g] {
				seen[g] = true
				p.group = append(p.group, g)
				p.sites = append(p.sites, g.Site)
			}
		}
	}
	if !seen[c] {
		return nil
	}
	field, base := r.guardFlag(fn, p.sites)
	if field == nil {
		return nil
	}
	for _, blk := range fn.Blocks {
		for _, k := range blk.Instrs {
			st, ok := k.(*ssa.Store)
			if !ok || !isFlag(st.Addr, field, base) || !isBool(st.Val, true) {
				continue
			}
			if all(p.sites, func(s ssa.Instruction) bool { return flow.Dominates(st, s) }) {
				p.set = st
			}
		}
	}
	if p.set == nil || !r.clearsAfterReceive(p, field) {
		return nil
	}
	p.reaches = map[*ssa.Function]bool{fn: true}
	work := []*ssa.Function{fn}
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		for _, e := range r.gr.CallGraph.Callers(f) {
			if _, isGo := e.Site.(*ssa.Go); isGo || p.reaches[e.Caller.Func] {
				continue
			}
			p.reaches[e.Caller.Func] = true
			work = append(work, e.Caller.Func)
		}
	}
	return p
}

// guardFlag returns the flag field that fn tests before every one of
// sites, on a branch that then never reaches them (`if sc.writing {
// panic(...) }`), and the value whose field it is.
func (r *Result) guardFlag(fn *ssa.Function, sites []ssa.Instruction) (*types.Var, ssa.Value) {
	flow := r.gr.Flow
	for _, blk := range fn.Blocks {
		ifi, ok := blk.Instrs[len(blk.Instrs)-1].(*ssa.If)
		if !ok || len(blk.Succs) != 2 || len(blk.Succs[0].Instrs) == 0 {
			continue
		}
		load, ok := ifi.Cond.(*ssa.UnOp)
		if !ok || load.Op != token.MUL {
			continue
		}
		fa, ok := load.X.(*ssa.FieldAddr)
		if !ok {
			continue
		}
		then := blk.Succs[0].Instrs[0]
		if all(sites, func(s ssa.Instruction) bool {
			return flow.Dominates(ifi, s) && then != s && !flow.MayFollow(then, s)
		}) {
			return ssavalue.Field(fa), fa.X
		}
	}
	return nil, nil
}

// clearsAfterReceive reports whether every write of the flag field in the
// package sets it, or clears it after a receive from the protocol's
// channel, or clears it in fn on a path that starts no goroutine of the
// group (a synchronous write). The field must be unexported, and its
// address used only to load and store it.
func (r *Result) clearsAfterReceive(p *flagProtocol, field *types.Var) bool {
	if field.Exported() {
		return false
	}
	for _, fn := range r.gr.Funcs() {
		for _, blk := range fn.Blocks {
			for _, k := range blk.Instrs {
				fa, ok := k.(*ssa.FieldAddr)
				if !ok || ssavalue.Field(fa) != field {
					continue
				}
				for _, u := range *fa.Referrers() {
					switch u := u.(type) {
					case *ssa.UnOp:
						if u.Op != token.MUL {
							return false
						}
					case *ssa.Store:
						if u.Addr != fa {
							return false
						}
						if isBool(u.Val, true) {
							continue
						}
						if !isBool(u.Val, false) {
							return false
						}
						for _, c := range r.gr.Of(fn) {
							if !r.clearedAfterReceive(p, u, c, MaxCallDepth) {
								return false
							}
						}
					case *ssa.DebugRef:
					default:
						return false
					}
				}
			}
		}
	}
	return true
}

func (r *Result) clearedAfterReceive(p *flagProtocol, x ssa.Instruction, c *goroutines.Context, depth int) bool {
	for _, j := range r.ops.recvs[p.ch] {
		if r.received(j, x, c) {
			return true
		}
	}
	flow := r.gr.Flow
	if x.Parent() == p.fn && flow.Dominates(p.set, x) &&
		all(p.sites, func(s ssa.Instruction) bool { return !flow.MayFollow(s, x) && !flow.MayFollow(x, s) }) {
		return true
	}
	if depth == 0 || x.Parent() == c.Entry && c.Kind != goroutines.Caller {
		return false
	}
	sites := r.callSites(x.Parent(), c)
	return len(sites) > 0 && all(sites, func(s ssa.Instruction) bool { return r.clearedAfterReceive(p, s, c, depth-1) })
}

// isFlag reports whether addr is the address of field of base.
func isFlag(addr ssa.Value, field *types.Var, base ssa.Value) bool {
	fa, ok := addr.(*ssa.FieldAddr)
	return ok && fa.X == base && ssavalue.Field(fa) == field
}

func isBool(v ssa.Value, want bool) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.Value != nil && c.Value.Kind() == constant.Bool && constant.BoolVal(c.Value) == want
}

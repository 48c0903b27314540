package ordering

import (
	"go/token"
	"slices"

	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// indexFieldCloses files each close of a channel held in a struct field
// also under the channel's make site, when a function of the package
// makes the channel and stores it into that field, as tus/tusd's part
// producer does:
//
//	func newProducer() (producer, <-chan chunk) {
//		ch := make(chan chunk)
//		return producer{files: ch}, ch
//	}
//	func (p *producer) produce() { ...; p.err = err; close(p.files) }
//
//	p, ch := newProducer(); go p.produce()
//	for c := range ch { ... }
//	return p.err
//
// sharedloc names the close by the field and the receive by the make
// site (the channel newProducer returns), so closedBefore, which asks
// that every close of the received channel's location follow the write,
// found no close of the make site's and ordered nothing.
//
// The closes filed under the make site must be every close of its
// channels in the package, or closedBefore would order past a close it
// did not see. So the make site counts only when its channel goes
// nowhere but into struct fields (every close through one of them is
// filed), out of the function as a result (where indexReturnedChannels
// names the callers' receives by the make site, as it already does
// without a close through a field), and into channel operations; a
// channel handed to a call, an interface, a phi or another variable is
// left alone. A close through such a field may close a channel of
// another make site too: that only adds a close that must follow the
// write, which can refuse an order but never make one. The closes keep
// their own location in fieldClose, for sharedSend.
func (r *Result) indexFieldCloses(ops *syncOps) {
	ssainput, ok := r.pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
	if !ok {
		return
	}
	fields := map[sharedloc.Loc][]sharedloc.Loc{} // field's contents -> make sites' contents
	for _, fn := range ssainput.SrcFuncs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				m, ok := instr.(*ssa.MakeChan)
				if !ok {
					continue
				}
				into, ok := fieldsOf(m)
				if !ok || len(into) == 0 {
					continue
				}
				made := sharedloc.Loc{Kind: sharedloc.Made, Cell: m}.Contents()
				for _, f := range into {
					fields[f] = append(fields[f], made)
				}
			}
		}
	}
	for f, made := range fields {
		for _, x := range ops.closes[f] {
			for _, m := range made {
				if !contains(ops.closes[m], x) {
					ops.closes[m] = append(ops.closes[m], x)
					if ops.fieldClose == nil {
						ops.fieldClose = map[ssa.Instruction]sharedloc.Loc{}
					}
					ops.fieldClose[x] = f
				}
			}
		}
	}
}

// fieldsOf returns the contents of the struct fields that the channel v
// is stored into, with false when v also goes anywhere but into fields,
// results and channel operations (see indexFieldCloses).
func fieldsOf(v ssa.Value) ([]sharedloc.Loc, bool) {
	var out []sharedloc.Loc
	var walk func(v ssa.Value, depth int) bool
	walk = func(v ssa.Value, depth int) bool {
		if depth > 4 {
			return false
		}
		for _, ref := range *v.Referrers() {
			switch ref := ref.(type) {
			case *ssa.Store:
				if ref.Val != v {
					return false
				}
				fa, ok := ref.Addr.(*ssa.FieldAddr)
				if !ok {
					return false
				}
				f := ssavalue.Field(fa)
				if f == nil {
					return false
				}
				out = append(out, sharedloc.Loc{Kind: sharedloc.Field, Obj: f}.Contents())
			case *ssa.ChangeType:
				if !walk(ref, depth+1) {
					return false
				}
			case *ssa.Return:
			case *ssa.Send:
				if ref.X == v {
					return false // the channel sent on another channel
				}
			case *ssa.Select:
				for _, st := range ref.States {
					if st.Send == v {
						return false
					}
				}
			case *ssa.UnOp:
				if ref.Op != token.ARROW {
					return false
				}
			case *ssa.Call:
				bi, ok := ref.Call.Value.(*ssa.Builtin)
				if !ok {
					return false
				}
				switch bi.Name() {
				case "close", "len", "cap":
				default:
					return false
				}
			case *ssa.DebugRef:
			default:
				return false
			}
		}
		return true
	}
	if !walk(v, 0) {
		return nil, false
	}
	return out, true
}

func contains(xs []ssa.Instruction, x ssa.Instruction) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// fieldCloseAfter reports whether the close x through a struct field,
// filed under the make site of the channel that recv receives from (see
// indexFieldCloses), runs after a whenever it closes that channel. recv
// receives from the channel a call K returns (returnedChannel); each run
// of K makes a channel of its own. x must close a field of its
// goroutine's entry parameter, and every goroutine that runs it must be
// started by a go statement handed a variable of its spawner that holds
// the struct a call returned, whose field the callee set to the channel
// it made (freshArg): a goroutine whose struct came from another call
// than K closes another channel, and is left out. The goroutines whose
// struct came from K itself must be those of a's context, with a before
// x; when that context is Multi, K, the variable and the go statement
// must run once per run of the function that holds them and the
// receive, so that the goroutine started beside a run's receive is the
// only one that closes the channel that run made.
func (r *Result) fieldCloseAfter(a ssa.Instruction, ca *goroutines.Context, x ssa.Instruction, recv ssa.Instruction) bool {
	u, ok := recv.(*ssa.UnOp)
	if !ok {
		return false
	}
	k, _ := returnedChannel(u)
	if k == nil || k.Parent() != u.Parent() {
		return false
	}
	found := false
	for _, c := range r.gr.Of(x.Parent()) {
		call, alloc := r.freshArg(c, x)
		if call == nil {
			return false
		}
		if call != k {
			continue // another run's struct, another channel
		}
		if c != ca || !r.before(a, x, ca, MaxCallDepth) {
			return false
		}
		if ca.Multi {
			site := ca.Site.(ssa.Instruction)
			if site.Parent() != k.Parent() || r.gr.Flow.InLoop(site) || r.gr.Flow.InLoop(k) || r.gr.Flow.InLoop(alloc) || r.gr.Flow.InLoop(u) {
				return false
			}
		}
		found = true
	}
	return found
}

// freshArg returns, for the close x run on c, the call whose returned
// struct holds the closed channel, and the spawner's variable that holds
// it, when x closes a field of its function's parameter and c is started
// by a go statement that binds that parameter to the variable (go
// p.produce()), or by one whose function literal, the context's entry,
// calls x's function on the variable it captures, once and with nothing
// else on c calling it (go func() { p.produce(); ... }()), the
// variable is set once (from the call's result) and otherwise only read,
// its address handed to calls or captured, and the call's static callee
// returns, on every return, a struct of its own whose field it set to a
// channel it made there (see madeInto); or nil.
func (r *Result) freshArg(c *goroutines.Context, x ssa.Instruction) (*ssa.Call, *ssa.Alloc) {
	g, ok := c.Site.(*ssa.Go)
	if !ok || c.Entry == nil {
		return nil, nil
	}
	cl, ok := x.(*ssa.Call)
	if !ok || len(cl.Call.Args) != 1 {
		return nil, nil
	}
	ld, ok := ssavalue.Unconverted(cl.Call.Args[0]).(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return nil, nil
	}
	fa, ok := ld.X.(*ssa.FieldAddr)
	if !ok {
		return nil, nil
	}
	p, ok := fa.X.(*ssa.Parameter)
	if !ok {
		return nil, nil
	}
	fn := x.Parent()
	idx := slices.Index(fn.Params, p)
	if idx < 0 {
		return nil, nil
	}
	var arg ssa.Value
	if fn == c.Entry {
		// go p.produce(...)
		if callgraph.StaticCallee(&g.Call) != fn || idx >= len(g.Call.Args) {
			return nil, nil
		}
		arg = g.Call.Args[idx]
	} else {
		// go func() { p.produce(...); ... }(): the entry calls fn on
		// the variable it captures, and nothing else calls fn on c.
		sites := r.callSites(fn, c)
		if len(sites) != 1 || sites[0].Parent() != c.Entry {
			return nil, nil
		}
		site, ok := sites[0].(*ssa.Call)
		if !ok || callgraph.StaticCallee(&site.Call) != fn || idx >= len(site.Call.Args) {
			return nil, nil
		}
		arg = site.Call.Args[idx]
		if fv, ok := arg.(*ssa.FreeVar); ok {
			arg = ssavalue.Binding(fv)
		}
	}
	alloc, ok := arg.(*ssa.Alloc)
	if !ok {
		return nil, nil
	}
	var call *ssa.Call
	for _, ref := range *alloc.Referrers() {
		switch ref := ref.(type) {
		case *ssa.Store:
			if ref.Addr != alloc || call != nil {
				return nil, nil
			}
			switch v := ref.Val.(type) {
			case *ssa.Extract:
				call, _ = v.Tuple.(*ssa.Call)
			case *ssa.Call:
				call = v
			}
			if call == nil || call.Parent() != alloc.Parent() {
				return nil, nil
			}
			if ex, ok := ref.Val.(*ssa.Extract); ok {
				if !madeInto(call, ex.Index, fa.Field) {
					return nil, nil
				}
			} else if !madeInto(call, 0, fa.Field) {
				return nil, nil
			}
		case *ssa.Go, *ssa.Call, *ssa.Defer, *ssa.MakeClosure, *ssa.FieldAddr, *ssa.DebugRef:
		case *ssa.UnOp:
			if ref.Op != token.MUL {
				return nil, nil
			}
		default:
			return nil, nil
		}
	}
	if call == nil {
		return nil, nil
	}
	return call, alloc
}

// madeInto reports whether the static callee of call returns as its
// result idx, on every return, the value of a struct variable of its own
// whose field field it set to a channel made there.
func madeInto(call *ssa.Call, idx, field int) bool {
	callee := call.Call.StaticCallee()
	if callee == nil || len(callee.Blocks) == 0 {
		return false
	}
	rets := 0
	for _, b := range callee.Blocks {
		for _, instr := range b.Instrs {
			ret, ok := instr.(*ssa.Return)
			if !ok {
				continue
			}
			rets++
			if idx >= len(ret.Results) {
				return false
			}
			ld, ok := ret.Results[idx].(*ssa.UnOp)
			if !ok || ld.Op != token.MUL {
				return false
			}
			st, ok := ld.X.(*ssa.Alloc)
			if !ok || !setToMade(st, field) {
				return false
			}
		}
	}
	return rets > 0
}

// setToMade reports whether the struct variable st has its field field
// stored once, with a channel made in st's function.
func setToMade(st *ssa.Alloc, field int) bool {
	n := 0
	for _, ref := range *st.Referrers() {
		fa, ok := ref.(*ssa.FieldAddr)
		if !ok || fa.Field != field {
			continue
		}
		for _, u := range *fa.Referrers() {
			s, ok := u.(*ssa.Store)
			if !ok {
				continue
			}
			m, ok := ssavalue.Unconverted(s.Val).(*ssa.MakeChan)
			if !ok || s.Addr != fa || m.Parent() != st.Parent() {
				return false
			}
			n++
		}
	}
	return n == 1
}

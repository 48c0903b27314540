package spawnfacts

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
)

// TaskLoopFact marks a function R(x, f) that runs f on a task loop of x:
// it sends f, in a struct with a done channel it makes, on a channel kept
// in x, and waits for done; the one goroutine that receives from that
// channel calls f and only then signals done (pion/ice's internal
// taskloop: Run sends task{fn, done} on l.tasks, runLoop calls t.fn(l)
// and closes t.done). Fn and Loop are indexes into the call's arguments,
// receiver first for methods: f's and x's. Two calls of R on the same x
// run their functions one at a time, on the loop's goroutine, each while
// its caller waits for it.
//
// The fact is given only when, in R's package:
//   - the channel is an unexported field C of a struct type of the
//     package, set by one store in the whole package, of a channel made
//     there, into an object that the same function allocated, and that
//     function starts the loop with one `go` statement (outside loops) on
//     that object: one loop goroutine per channel;
//   - the loop is an unexported function or method, referred to only by
//     that `go` statement, and every receive from C in the package is in
//     it; what it receives it uses only to call the struct's function
//     field (a plain call, on its own goroutine) and to close or send on
//     the done field after that call;
//   - C's channel goes nowhere but into sends, receives and selects;
//   - R uses f only to store it into the struct, and receives from done
//     on every path from the send (or the select case that sends) to its
//     returns.
type TaskLoopFact struct {
	Fn, Loop int
}

// AFact marks TaskLoopFact as an analysis.Fact.
func (*TaskLoopFact) AFact() {}

func (f *TaskLoopFact) String() string { return fmt.Sprintf("taskloop(fn %d, loop %d)", f.Fn, f.Loop) }

// TaskLoopStartFact marks the function N that makes a task loop's object
// and starts its one goroutine (see TaskLoopFact), returning the object:
// OnLoop are the indexes of N's function parameters that the loop's
// goroutine calls (pion/ice's taskloop.New(onClose), whose loop defers
// onClose): they run on the loop's goroutine, so one at a time with its
// tasks. Each such parameter goes into the `go` statement alone, and the
// loop only calls it.
type TaskLoopStartFact struct {
	OnLoop []int
}

// AFact marks TaskLoopStartFact as an analysis.Fact.
func (*TaskLoopStartFact) AFact() {}

func (f *TaskLoopStartFact) String() string { return fmt.Sprintf("loopstart%v", f.OnLoop) }

// TaskLoopStart returns the argument indexes of call whose functions run
// on the goroutine of the task loop whose object the call returns (see
// TaskLoopStartFact).
func (r *Result) TaskLoopStart(call *ssa.CallCommon) []int {
	if call.IsInvoke() {
		return nil
	}
	callee := call.StaticCallee()
	if callee == nil {
		return nil
	}
	f := calleeFact(callee, r.starts0, r.startsImported, func(f *TaskLoopStartFact) *TaskLoopStartFact { return f })
	if f == nil {
		return nil
	}
	for _, i := range f.OnLoop {
		if i >= len(call.Args) {
			return nil
		}
	}
	return f.OnLoop
}

// TaskLoop returns the argument indexes of the function a call runs on a
// task loop, and of the object whose loop it is (see TaskLoopFact).
func (r *Result) TaskLoop(call *ssa.CallCommon) (fn, loop int, ok bool) {
	if call.IsInvoke() {
		return 0, 0, false
	}
	callee := call.StaticCallee()
	if callee == nil {
		return 0, 0, false
	}
	f := calleeFact(callee, r.loops, r.loopsImported, func(f *TaskLoopFact) *TaskLoopFact { return f })
	if f == nil || f.Fn >= len(call.Args) || f.Loop >= len(call.Args) {
		return 0, 0, false
	}
	return f.Fn, f.Loop, true
}

// findTaskLoops computes TaskLoopFacts for the package's named functions.
func (b *builder) findTaskLoops(funcs []*ssa.Function) {
	loops := make(map[*types.Var]bool) // checked fields C, by verdict
	defer func() {
		for field, ok := range loops {
			if ok {
				b.findTaskLoopStart(funcs, field)
			}
		}
	}()
	for _, fn := range funcs {
		k := funcKey(fn)
		if k == nil {
			continue
		}
		f, field := taskLoopRunner(fn)
		if f == nil {
			continue
		}
		ok, seen := loops[field]
		if !seen {
			ok = taskLoopChannel(b.pass.Pkg, funcs, field)
			loops[field] = ok
		}
		if !ok {
			continue
		}
		b.res.loops[k] = f
		if k.Exported() {
			b.pass.ExportObjectFact(k, f)
		}
	}
}

// findTaskLoopStart gives the function that starts field's task loop its
// TaskLoopStartFact.
func (b *builder) findTaskLoopStart(funcs []*ssa.Function, field *types.Var) {
	g := taskLoopStart(b.pass.Pkg, funcs, field)
	if g == nil {
		return
	}
	n, loop := g.Parent(), g.Call.StaticCallee()
	k := funcKey(n)
	if k == nil || loop == nil || len(loop.Params) != len(g.Call.Args) {
		return
	}
	obj := g.Call.Args[0]
	for _, blk := range n.Blocks {
		if ret, ok := blk.Instrs[len(blk.Instrs)-1].(*ssa.Return); ok && (len(ret.Results) != 1 || ret.Results[0] != obj) {
			return
		}
	}
	var on []int
	for i, arg := range g.Call.Args[1:] {
		p, ok := arg.(*ssa.Parameter)
		if !ok {
			continue
		}
		if _, ok := p.Type().Underlying().(*types.Signature); !ok || onlyUse[*ssa.Go](p) != g || slices.Index(g.Call.Args, arg) != i+1 {
			continue
		}
		if !onlyCalledHere(loop.Params[i+1]) {
			continue
		}
		on = append(on, slices.Index(n.Params, p))
	}
	if len(on) == 0 {
		return
	}
	f := &TaskLoopStartFact{OnLoop: on}
	b.res.starts0[k] = f
	if k.Exported() {
		b.pass.ExportObjectFact(k, f)
	}
}

// onlyCalledHere reports whether every use of the function value v is a
// plain or deferred call of it, on the goroutine it is in, or a capture by
// a closure that is itself used only so and only calls it (ice's runLoop:
// `defer func() { onClose(); close(l.taskLoopDone) }()`).
func onlyCalledHere(v ssa.Value) bool {
	return onlyCalledDepth(v, 0)
}

func onlyCalledDepth(v ssa.Value, depth int) bool {
	if depth > 4 {
		return false
	}
	for _, r := range *v.Referrers() {
		switch r := r.(type) {
		case *ssa.Call:
			if r.Call.Value != v || argOf(&r.Call, v) {
				return false
			}
		case *ssa.Defer:
			if r.Call.Value != v || argOf(&r.Call, v) {
				return false
			}
		case *ssa.MakeClosure:
			if !capturedCalledHere(r, v, func(fv ssa.Value) bool { return onlyCalledDepth(fv, depth+1) }, depth) {
				return false
			}
		case *ssa.Store:
			// v spilled to the variable a closure captures.
			if _, ok := r.Addr.(*ssa.Alloc); !ok || r.Val != v || !varCalledHere(r.Addr, r, depth+1) {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// capturedCalledHere reports whether the closure mc, which captures v, is
// itself only called here and uses its free variable for v only as ok
// says.
func capturedCalledHere(mc *ssa.MakeClosure, v ssa.Value, ok func(ssa.Value) bool, depth int) bool {
	fn, isFn := mc.Fn.(*ssa.Function)
	i := slices.Index(mc.Bindings, v)
	return isFn && i >= 0 && i < len(fn.FreeVars) && slices.Index(mc.Bindings[i+1:], v) < 0 &&
		onlyCalledDepth(mc, depth+1) && ok(fn.FreeVars[i])
}

// varCalledHere reports whether the variable at addr (an Alloc, or a
// closure's free variable holding one) is set only by init (nil for a
// free variable) and every value loaded from it is only called here.
func varCalledHere(addr ssa.Value, init *ssa.Store, depth int) bool {
	if depth > 4 {
		return false
	}
	for _, r := range *addr.Referrers() {
		switch r := r.(type) {
		case *ssa.Store:
			if r != init {
				return false
			}
		case *ssa.UnOp:
			if r.Op != token.MUL || !onlyCalledDepth(r, depth+1) {
				return false
			}
		case *ssa.MakeClosure:
			if !capturedCalledHere(r, addr, func(fv ssa.Value) bool { return varCalledHere(fv, nil, depth+1) }, depth) {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// taskLoopRunner checks R's side of a task loop: fn stores a function
// parameter f and a channel done it makes into a struct it sends on the
// channel of field C of another parameter x, and receives from done on
// every path from the send to its returns. It returns the fact and C.
func taskLoopRunner(fn *ssa.Function) (*TaskLoopFact, *types.Var) {
	if len(fn.Blocks) == 0 {
		return nil, nil
	}
	for fi, p := range fn.Params {
		if _, ok := p.Type().Underlying().(*types.Signature); !ok {
			continue
		}
		// f's one use: a store into a field of a struct the function
		// allocates.
		store := onlyUse[*ssa.Store](p)
		if store == nil || store.Val != p {
			continue
		}
		fa, ok := store.Addr.(*ssa.FieldAddr)
		if !ok {
			continue
		}
		alloc, ok := fa.X.(*ssa.Alloc)
		if !ok || alloc.Heap {
			continue
		}
		st, ok := alloc.Type().(*types.Pointer).Elem().Underlying().(*types.Struct)
		if !ok {
			continue
		}
		// The struct's other stores: one of done, a channel made here;
		// its one load goes into a send.
		var done ssa.Value
		var load *ssa.UnOp
		good := true
		for _, r := range *alloc.Referrers() {
			switch r := r.(type) {
			case *ssa.FieldAddr:
				s := onlyUse[*ssa.Store](r)
				if s == nil || s.Addr != r {
					good = false
					break
				}
				if r.Field == fa.Field {
					good = good && s == store
					continue
				}
				if _, ok := s.Val.(*ssa.MakeChan); ok && done == nil {
					if _, isChan := st.Field(r.Field).Type().Underlying().(*types.Chan); isChan {
						done = s.Val
						continue
					}
				}
				// Another field: any value, it is not read here.
			case *ssa.UnOp:
				if r.Op != token.MUL || load != nil {
					good = false
					break
				}
				load = r
			case *ssa.DebugRef:
			default:
				good = false
			}
		}
		if !good || done == nil || load == nil || !onlyReceived(done) {
			continue
		}
		// The send of the struct on x.C.
		var ch ssa.Value
		var after *ssa.BasicBlock // where the send has completed
		afterIdx := 0
		switch s := onlyUse[ssa.Instruction](load).(type) {
		case *ssa.Send:
			if s.X != load {
				continue
			}
			ch, after = s.Chan, s.Block()
			afterIdx = indexOf(s) + 1
		case *ssa.Select:
			k := -1
			for i, state := range s.States {
				if state.Send == load && state.Dir == types.SendOnly {
					k = i
					ch = state.Chan
				}
			}
			if k < 0 {
				continue
			}
			after = selectCase(s, k)
		}
		if ch == nil || after == nil {
			continue
		}
		cl, ok := ch.(*ssa.UnOp)
		if !ok || cl.Op != token.MUL {
			continue
		}
		cfa, ok := cl.X.(*ssa.FieldAddr)
		if !ok {
			continue
		}
		li := -1
		for i, q := range fn.Params {
			if q == cfa.X && i != fi {
				li = i
			}
		}
		if li < 0 {
			continue
		}
		if !waitsFor(after, afterIdx, done) {
			continue
		}
		field := fieldOf(cfa)
		if field == nil {
			continue
		}
		return &TaskLoopFact{Fn: fi, Loop: li}, field
	}
	return nil, nil
}

// onlyReceived reports whether the channel done, made by R, goes into
// one store (into the task) and otherwise only into receives.
func onlyReceived(done ssa.Value) bool {
	stores := 0
	for _, r := range *done.Referrers() {
		switch r := r.(type) {
		case *ssa.Store:
			if r.Val != done {
				return false
			}
			stores++
		case *ssa.UnOp:
			if r.Op != token.ARROW {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return stores == 1
}

// onlyUse returns v's one use other than debug references, when it is a T.
func onlyUse[T ssa.Instruction](v ssa.Value) T {
	var zero, out T
	n := 0
	refs := v.Referrers()
	if refs == nil {
		return zero
	}
	for _, r := range *refs {
		if _, ok := r.(*ssa.DebugRef); ok {
			continue
		}
		n++
		t, ok := r.(T)
		if !ok {
			return zero
		}
		out = t
	}
	if n != 1 {
		return zero
	}
	return out
}

func indexOf(instr ssa.Instruction) int {
	for i, x := range instr.Block().Instrs {
		if x == instr {
			return i
		}
	}
	return -1
}

// selectCase returns the block a select goes to when case k was chosen:
// go/ssa compares the select's index with each case's in turn.
func selectCase(s *ssa.Select, k int) *ssa.BasicBlock {
	for _, r := range *s.Referrers() {
		ex, ok := r.(*ssa.Extract)
		if !ok || ex.Index != 0 {
			continue
		}
		for _, r := range *ex.Referrers() {
			cmp, ok := r.(*ssa.BinOp)
			if !ok || cmp.Op != token.EQL {
				continue
			}
			c, ok := cmp.Y.(*ssa.Const)
			if !ok || c.Value == nil || c.Int64() != int64(k) {
				continue
			}
			for _, r := range *cmp.Referrers() {
				if iff, ok := r.(*ssa.If); ok {
					return iff.Block().Succs[0]
				}
			}
		}
	}
	return nil
}

// waitsFor reports whether every path from instruction i of b to a
// return or panic receives from done first (a plain receive).
func waitsFor(b *ssa.BasicBlock, i int, done ssa.Value) bool {
	seen := make(map[*ssa.BasicBlock]bool)
	var visit func(b *ssa.BasicBlock, i int) bool
	visit = func(b *ssa.BasicBlock, i int) bool {
		for _, instr := range b.Instrs[i:] {
			switch instr := instr.(type) {
			case *ssa.UnOp:
				if instr.Op == token.ARROW && instr.X == done {
					return true
				}
			case *ssa.Return, *ssa.Panic:
				return false
			}
		}
		for _, s := range b.Succs {
			if seen[s] {
				continue
			}
			seen[s] = true
			if !visit(s, 0) {
				return false
			}
		}
		return true
	}
	return visit(b, i)
}

// fieldOf returns the field fa addresses, its generic origin.
func fieldOf(fa *ssa.FieldAddr) *types.Var {
	st, ok := fa.X.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	return st.Field(fa.Field).Origin()
}

// taskLoopChannel checks the loop's side of field C: an unexported field
// of a type of pkg, set once, in the function that allocates its object
// and starts the loop on it once; the loop receives every value sent on
// it, calls the function it carries and then signals its done channel.
func taskLoopChannel(pkg *types.Package, funcs []*ssa.Function, field *types.Var) bool {
	return taskLoopStart(pkg, funcs, field) != nil
}

// taskLoopStart is taskLoopChannel that returns the `go` statement that
// starts the loop, or nil.
func taskLoopStart(pkg *types.Package, funcs []*ssa.Function, field *types.Var) *ssa.Go {
	if field.Exported() || field.Pkg() != pkg {
		return nil
	}
	var stores []*ssa.Store
	var recvFns []*ssa.Function
	var recvs []ssa.Value // the values received
	for _, fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch instr := instr.(type) {
				case *ssa.Field:
					if st, ok := instr.X.Type().Underlying().(*types.Struct); ok && st.Field(instr.Field).Origin() == field {
						return nil // copied out of a struct value
					}
				case *ssa.FieldAddr:
					if fieldOf(instr) != field {
						continue
					}
					for _, r := range *instr.Referrers() {
						switch r := r.(type) {
						case *ssa.Store:
							if r.Addr != instr {
								return nil
							}
							stores = append(stores, r)
						case *ssa.UnOp:
							if r.Op != token.MUL {
								return nil
							}
							for _, u := range *r.Referrers() {
								switch u := u.(type) {
								case *ssa.Send:
									if u.X == r {
										return nil
									}
								case *ssa.UnOp:
									if u.Op != token.ARROW {
										return nil
									}
									recvFns = append(recvFns, fn)
									recvs = append(recvs, received(u))
								case *ssa.Select:
									n := 0
									for _, st := range u.States {
										if st.Dir == types.RecvOnly {
											if st.Chan == r {
												recvFns = append(recvFns, fn)
												recvs = append(recvs, selectRecv(u, 2+n))
											}
											n++
										}
									}
								case *ssa.DebugRef:
								default:
									return nil
								}
							}
						case *ssa.DebugRef:
						default:
							return nil
						}
					}
				}
			}
		}
	}
	if len(stores) != 1 || len(recvFns) == 0 {
		return nil
	}
	loop := recvFns[0]
	for i, fn := range recvFns {
		if fn != loop || recvs[i] == nil || !callsThenSignals(recvs[i]) {
			return nil
		}
	}
	obj, ok := loop.Object().(*types.Func)
	if !ok || loop.Parent() != nil || obj.Exported() {
		return nil
	}
	// The store: a channel made, into an object the function allocated,
	// which also starts the loop on it, once, outside loops; nothing
	// else refers to the loop.
	s := stores[0]
	if _, ok := s.Val.(*ssa.MakeChan); !ok {
		return nil
	}
	obj0 := s.Addr.(*ssa.FieldAddr).X
	if _, ok := obj0.(*ssa.Alloc); !ok {
		return nil
	}
	var starts []*ssa.Go
	for _, fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if c, ok := instr.(ssa.CallInstruction); ok && c.Common().IsInvoke() && c.Common().Method.Name() == loop.Name() {
					return nil // maybe the loop, through an interface
				}
				for _, op := range instr.Operands(nil) {
					if f, ok := (*op).(*ssa.Function); ok && f != loop &&
						(ssavalue.BoundMethod(f) == loop || ssavalue.ThunkMethod(f) == loop || ssavalue.WrappedMethod(f) == loop) {
						return nil // a method value or expression of the loop
					}
					if *op != loop {
						continue
					}
					g, ok := instr.(*ssa.Go)
					if !ok || g.Call.Value != loop || g.Call.IsInvoke() {
						return nil
					}
					starts = append(starts, g)
				}
			}
		}
	}
	if len(starts) != 1 {
		return nil
	}
	g := starts[0]
	if g.Parent() != s.Parent() || len(g.Call.Args) == 0 || g.Call.Args[0] != obj0 || inCycle(g.Block()) {
		return nil
	}
	return g
}

// received returns the value a receive takes: the receive, or for `v,
// ok := <-ch` (a range over the channel too) the Extract of v; nil when
// the value is not used.
func received(u *ssa.UnOp) ssa.Value {
	if !u.CommaOk {
		return u
	}
	return selectRecvOf(u, 0)
}

// selectRecv returns the Extract of select s's result i, or nil.
func selectRecv(s *ssa.Select, i int) ssa.Value { return selectRecvOf(s, i) }

// selectRecvOf returns the Extract of the tuple v's result i, or nil.
func selectRecvOf(v ssa.Value, i int) ssa.Value {
	for _, r := range *v.Referrers() {
		if ex, ok := r.(*ssa.Extract); ok && ex.Index == i {
			return ex
		}
	}
	return nil
}

// callsThenSignals reports whether the loop uses the task v it received
// only to call its function field (a plain call) and to close or send on
// its done field after that call. v's fields are read from the value, or
// from a local variable v is stored into (go/ssa's form of `t :=
// <-l.tasks; t.fn(l)`), which nothing else sets.
func callsThenSignals(v ssa.Value) bool {
	type read struct {
		field int
		val   ssa.Value
	}
	var reads []read
	for _, r := range *v.Referrers() {
		switch r := r.(type) {
		case *ssa.Field:
			reads = append(reads, read{r.Field, r})
		case *ssa.Store:
			a, ok := r.Addr.(*ssa.Alloc)
			if !ok || r.Val != v || a.Heap {
				return false
			}
			for _, u := range *a.Referrers() {
				switch u := u.(type) {
				case *ssa.Store:
					if u != r {
						return false
					}
				case *ssa.FieldAddr:
					for _, w := range *u.Referrers() {
						switch w := w.(type) {
						case *ssa.UnOp:
							if w.Op != token.MUL {
								return false
							}
							reads = append(reads, read{u.Field, w})
						case *ssa.DebugRef:
						default:
							return false
						}
					}
				case *ssa.DebugRef:
				default:
					return false
				}
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	var call *ssa.Call
	var signals []ssa.Instruction
	var fnField, doneField = -1, -1
	for _, rd := range reads {
		for _, u := range *rd.val.Referrers() {
			switch u := u.(type) {
			case *ssa.Call:
				if u.Call.Value == rd.val && !argOf(&u.Call, rd.val) && call == nil && fnField < 0 {
					call, fnField = u, rd.field
					continue
				}
				if b, ok := u.Call.Value.(*ssa.Builtin); ok && b.Name() == "close" && (doneField < 0 || doneField == rd.field) {
					signals, doneField = append(signals, u), rd.field
					continue
				}
				return false
			case *ssa.Send:
				if u.Chan != rd.val || doneField >= 0 && doneField != rd.field {
					return false
				}
				signals, doneField = append(signals, u), rd.field
			case *ssa.DebugRef:
			default:
				return false
			}
		}
	}
	if call == nil || len(signals) == 0 || fnField == doneField {
		return false
	}
	for _, s := range signals {
		if !after(call, s) {
			return false
		}
	}
	return true
}

func argOf(call *ssa.CallCommon, v ssa.Value) bool {
	for _, a := range call.Args {
		if a == v {
			return true
		}
	}
	return false
}

// after reports whether b runs only after a: later in a's block, or in a
// block a's block dominates.
func after(a, b ssa.Instruction) bool {
	if a.Block() == b.Block() {
		return indexOf(a) < indexOf(b)
	}
	return a.Block().Dominates(b.Block())
}

// inCycle reports whether b can reach itself.
func inCycle(b *ssa.BasicBlock) bool {
	seen := make(map[*ssa.BasicBlock]bool)
	stack := append([]*ssa.BasicBlock(nil), b.Succs...)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == b {
			return true
		}
		if seen[x] {
			continue
		}
		seen[x] = true
		stack = append(stack, x.Succs...)
	}
	return false
}

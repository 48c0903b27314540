package spawnfacts

import (
	_ "embed"
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// Analyzer finds spawning functions and exports their facts.
var Analyzer = &analysis.Analyzer{
	Name:       "spawnfacts",
	Doc:        analyzerutil.MustExtractDoc(doc, "spawnfacts"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/spawnfacts",
	ResultType: reflect.TypeFor[*Result](),
	FactTypes:  []analysis.Fact{new(SpawnsFact), new(WaitGroupFact), new(SyncCallsFact), new(StartsFact), new(TaskLoopFact), new(TaskLoopStartFact)},
	Run:        analyzerutil.Guard(run, func() any { return newResult(nil) }),
}

// SpawnsFact marks a function that runs some of its function-typed
// parameters on a new goroutine. Params are indexes into the call's
// arguments, receiver first for methods. Joins reports that the function
// waits (with sync.WaitGroup.Wait) for the goroutines before it returns,
// as testing.B.RunParallel does.
type SpawnsFact struct {
	Params []int
	Joins  bool
}

// AFact marks SpawnsFact as an analysis.Fact.
func (*SpawnsFact) AFact() {}

func (f *SpawnsFact) String() string {
	s := make([]string, len(f.Params))
	for i, p := range f.Params {
		s[i] = fmt.Sprint(p)
	}
	if f.Joins {
		return "spawns(" + strings.Join(s, ",") + ") joins"
	}
	return "spawns(" + strings.Join(s, ",") + ")"
}

// Result tells which calls of the package spawn. It names functions by
// their objects and `go` statements by their positions, not by SSA
// values: the analyzer builds the SSA form it works on itself and drops
// it when it returns, so that the dependencies analyzed only for their
// facts do not keep their SSA form (and the syntax and control-flow
// graphs that buildssa would keep) until the driver is done; and the
// analyzers of a package that use the Result see the SSA form that
// buildssa builds for them.
type Result struct {
	pkg *types.Package
	// spawns maps a function of this package to the argument indexes it
	// runs on new goroutines; joins holds those that wait for them.
	spawns map[*types.Func][]int
	joins  map[*types.Func]bool
	// imported holds the facts of the other packages' functions that
	// this package calls.
	imported map[*types.Func]*SpawnsFact
	// realizes holds the positions of the `go` statements inside
	// spawners that run a spawned parameter.
	realizes map[token.Pos]bool
	// wgOps holds the WaitGroupFacts of this package's functions, and
	// wgImported those of the other packages' functions it calls.
	wgOps      map[*types.Func][]WaitGroupOp
	wgImported map[*types.Func]*WaitGroupFact
	// syncs holds the parameters of this package's functions that they
	// call only synchronously (see SyncCallsFact), and syncImported the
	// facts of the other packages' functions it calls.
	syncs        map[*types.Func][]int
	syncImported map[*types.Func]*SyncCallsFact
	// loops holds the TaskLoopFacts of this package's functions, and
	// loopsImported those of the other packages' functions it calls.
	loops         map[*types.Func]*TaskLoopFact
	loopsImported map[*types.Func]*TaskLoopFact
	// starts0 holds the TaskLoopStartFacts of this package's functions,
	// and startsImported those of the other packages' functions it calls.
	starts0        map[*types.Func]*TaskLoopStartFact
	startsImported map[*types.Func]*TaskLoopStartFact

	// starts holds the Lparens of the calls into packages that may start
	// goroutines (StartCalls).
	starts map[token.Pos]bool
}

func newResult(pkg *types.Package) *Result {
	return &Result{
		pkg:      pkg,
		spawns:   make(map[*types.Func][]int),
		joins:    make(map[*types.Func]bool),
		imported: make(map[*types.Func]*SpawnsFact),
		realizes: make(map[token.Pos]bool),

		wgOps:      make(map[*types.Func][]WaitGroupOp),
		wgImported: make(map[*types.Func]*WaitGroupFact),

		syncs:        make(map[*types.Func][]int),
		syncImported: make(map[*types.Func]*SyncCallsFact),

		loops:         make(map[*types.Func]*TaskLoopFact),
		loopsImported: make(map[*types.Func]*TaskLoopFact),

		starts0:        make(map[*types.Func]*TaskLoopStartFact),
		startsImported: make(map[*types.Func]*TaskLoopStartFact),
	}
}

// Realizes reports whether the `go` statement g runs a parameter of a
// spawner of the package: its goroutine is better rooted at the spawner's
// call sites, where the function passed is known.
func (r *Result) Realizes(g ssa.Instruction) bool { return g.Pos().IsValid() && r.realizes[g.Pos()] }

// funcKey names a function of the package declared at top level (a
// function or method; for an instance of a generic one, its generic
// origin), or is nil.
func funcKey(fn *ssa.Function) *types.Func {
	if obj, ok := fn.Object().(*types.Func); ok && fn.Parent() == nil {
		return obj.Origin()
	}
	return nil
}

// SpawnerArgs returns the argument indexes of call that run on new
// goroutines, from the model of known libraries, SpawnsFacts of other
// packages, and spawners of this package; and whether the call waits for
// them before it returns.
func (r *Result) SpawnerArgs(call *ssa.CallCommon) (args []int, joins bool) {
	if call.IsInvoke() {
		return nil, false
	}
	callee := call.StaticCallee()
	if callee == nil {
		return nil, false
	}
	// The model stands in for code the analysis does not see; in the
	// modeled package itself, its real goroutines are found instead.
	if s, ok := model.SpawnerOf(model.Name(callee)); ok && (callee.Pkg == nil || callee.Pkg.Pkg != r.pkg) {
		if s.Arg < len(call.Args) {
			return []int{s.Arg}, false
		}
		return nil, false
	}
	if k := funcKey(callee); k != nil {
		if params, ok := r.spawns[k]; ok {
			return params, r.joins[k]
		}
	}
	if obj, ok := callee.Object().(*types.Func); ok {
		if f := r.imported[obj.Origin()]; f != nil {
			return f.Params, f.Joins
		}
	}
	return nil, false
}

func run(pass *analysis.Pass) (any, error) {
	if analyzerutil.StdInternal(pass) {
		// No program can hand these packages a function, so none of
		// their functions runs one of a program's on a goroutine: they
		// have no fact an importer outside the standard library could use
		// (on net/http's dependencies, runtime and about forty internal
		// packages among them, the analysis exported one fact, for sync's
		// WaitGroup.Go). Their SSA form, runtime's above all, is the
		// largest a program imports: building it was a seventh of the CPU
		// of analyzing a package that imports only sync.
		return newResult(pass.Pkg), nil
	}
	funcs := analyzerutil.BuildSSA(pass) // the control-flow facts only add paths, on which a spawner may look like it does not wait
	b := &builder{pass: pass, res: newResult(pass.Pkg), flow: ssaflow.New(), visiting: make(map[ssa.Value]bool)}
	b.importFacts(funcs)
	b.findSpawners(funcs)
	b.findWaitGroupOps(funcs)
	b.findSyncCalls(funcs)
	b.findTaskLoops(funcs)
	b.findStarts(funcs)
	return b.res, nil
}

type builder struct {
	pass *analysis.Pass
	res  *Result
	flow *ssaflow.Graph
	// visiting holds the values whose uses onlyCalled and varOnlyCalled
	// are following, so that a closure kept in a variable it calls
	// itself through ends the walk.
	visiting map[ssa.Value]bool
}

// importFacts reads the facts of the other packages' functions the
// package calls.
func (b *builder) importFacts(funcs []*ssa.Function) {
	for _, fn := range funcs {
		for _, blk := range fn.Blocks {
			for _, instr := range blk.Instrs {
				site, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				callee := site.Common().StaticCallee()
				if callee == nil {
					continue
				}
				obj, ok := callee.Object().(*types.Func)
				if !ok || obj.Pkg() == nil || obj.Pkg() == b.pass.Pkg {
					continue
				}
				obj = obj.Origin()
				if _, done := b.res.imported[obj]; done {
					continue
				}
				var f SpawnsFact
				if b.pass.ImportObjectFact(obj, &f) {
					b.res.imported[obj] = &f
				} else {
					b.res.imported[obj] = nil
				}
				var w WaitGroupFact
				if b.pass.ImportObjectFact(obj, &w) {
					b.res.wgImported[obj] = &w
				}
				var sc SyncCallsFact
				if b.pass.ImportObjectFact(obj, &sc) {
					b.res.syncImported[obj] = &sc
				}
				var tl TaskLoopFact
				if b.pass.ImportObjectFact(obj, &tl) {
					b.res.loopsImported[obj] = &tl
				}
				var ts TaskLoopStartFact
				if b.pass.ImportObjectFact(obj, &ts) {
					b.res.startsImported[obj] = &ts
				}
			}
		}
	}
}

// growParams fills table with the parameter indexes that params gives
// each of the package's named functions, again until no function's list
// grows: a function may hand its parameter to another one of the package,
// whose list params reads from table.
func growParams(funcs []*ssa.Function, table map[*types.Func][]int, params func(*ssa.Function) []int) {
	for changed := true; changed; {
		changed = false
		for _, fn := range funcs {
			if fn.Parent() != nil || fn.Signature == nil {
				continue
			}
			k := funcKey(fn)
			if k == nil {
				continue
			}
			if ps := params(fn); len(ps) > len(table[k]) {
				table[k] = ps
				changed = true
			}
		}
	}
}

// findSpawners computes SpawnsFacts for the package's named functions,
// iterating because a spawner may spawn through another one.
func (b *builder) findSpawners(funcs []*ssa.Function) {
	growParams(funcs, b.res.spawns, b.spawnedParams)
	for _, fn := range funcs {
		k := funcKey(fn)
		params := b.res.spawns[k]
		if k == nil || len(params) == 0 {
			continue
		}
		b.res.joins[k] = b.waitsBeforeReturn(fn)
		if obj, ok := fn.Object().(*types.Func); ok && obj.Exported() {
			b.pass.ExportObjectFact(obj, &SpawnsFact{Params: params, Joins: b.res.joins[k]})
		}
	}
}

// spawnedParams returns the indexes of fn's parameters (in call-argument
// order, receiver first) that fn runs on a new goroutine, either with a
// `go` statement that calls the parameter, possibly from inside a closure
// started by the `go` statement, or by passing it to another spawner.
func (b *builder) spawnedParams(fn *ssa.Function) []int {
	var out []int
	isFuncParam := func(p *ssa.Parameter) bool {
		_, ok := p.Type().Underlying().(*types.Signature)
		return ok
	}
	paramIndex := func(v ssa.Value) int {
		for _, s := range ssavalue.Sources(v) {
			if p, ok := s.(*ssa.Parameter); ok && p.Parent() == fn && isFuncParam(p) {
				return slices.Index(fn.Params, p)
			}
		}
		return -1
	}
	add := func(i int) {
		if i >= 0 && !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	s, ok := model.SpawnerOf(model.Name(fn))
	modeledTask := ok && s.Kind == model.Task
	var walk func(f *ssa.Function, inGo ssa.Instruction)
	walk = func(f *ssa.Function, inGo ssa.Instruction) {
		for _, blk := range f.Blocks {
			for _, instr := range blk.Instrs {
				site, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				call := site.Common()
				if g, ok := instr.(*ssa.Go); ok {
					if i := paramIndex(call.Value); i >= 0 {
						add(i)
						b.res.realizes[g.Pos()] = true
						continue
					}
					if mc, ok := call.Value.(*ssa.MakeClosure); ok {
						before := len(out)
						walk(mc.Fn.(*ssa.Function), g)
						if len(out) > before {
							b.res.realizes[g.Pos()] = true
						}
					}
					continue
				}
				if inGo != nil && !call.IsInvoke() {
					if i := paramIndex(call.Value); i >= 0 {
						add(i)
						continue
					}
				}
				args, _ := b.res.SpawnerArgs(call)
				ms, ok := model.SpawnerOf(model.CalleeName(call))
				task := ok && ms.Kind == model.Task
				for _, argIdx := range args {
					if i := paramIndex(call.Args[argIdx]); i >= 0 {
						add(i)
					} else if mc, ok := call.Args[argIdx].(*ssa.MakeClosure); ok && task && !modeledTask {
						// A literal a Task spawner of the model runs,
						// as a `go` statement's: `g.Go(func() error {
						// return f() })` runs f on the group's goroutine
						// (review33's j2, j1c: f's run past the return
						// of a spawner that waits on some paths only,
						// or not at all, was nobody's). Not in a Task
						// spawner of the model itself (conc's
						// Stream.Go, in its own package): its join is
						// another method's, which no fact says.
						walk(mc.Fn.(*ssa.Function), instr)
					}
				}
			}
		}
		for _, anon := range f.AnonFuncs {
			if inGo == nil {
				// Closures called synchronously by fn are handled
				// through the `go` statements they contain.
				walk(anon, nil)
			}
		}
	}
	walk(fn, nil)
	slices.Sort(out)
	return out
}

// waitsBeforeReturn reports whether fn waits, on every path from a spawn
// to a return, for the goroutines it spawns (joinsSpawns), and spawns
// some: a spawner that starts its goroutines only through a function
// literal it calls itself is not known to wait.
func (b *builder) waitsBeforeReturn(fn *ssa.Function) bool {
	joined, spawns := b.joinsSpawns(fn)
	return joined && spawns
}

// joinsSpawns reports whether fn waits for the goroutines it spawns
// before it returns, and whether it spawns any. A spawn is a `go`
// statement, joined by a sync.WaitGroup.Wait (called or deferred) on a
// WaitGroup its literal is done on last (doneOn) or a receive from its
// done channel (doneReceives), which, for a `go` statement in a loop,
// must come round with it (each turn receives); a Task spawner of the
// model (errgroup.Group.Go, conc's), joined only by its Join called on
// the same group value (model.JoinCalls). Calls of other spawners that
// do not join are spawns nothing joins when they are handed a parameter
// or a captured variable (a Task whose literal passes f on to a detached
// spawner); handed a function literal, they are not asked about, as
// before Tasks were: they may start goroutines that have nothing to do
// with the parameters (shim's racyAppends starts its workers with a
// helper and receives from the channels it returns). A spawn is joined at a return
// when one of its joins dominates the return or lies on every path from
// the spawn to it (a receive after the `go` statement in a loop's body,
// which does not dominate the return after the loop). The function
// literal a spawn runs must join its own spawns too: pubsub's
// Subscriber.Receive returns group.Wait() of errgroup tasks that defer
// wg.Wait() for the goroutines they start per message, each of which
// waits for the callback's goroutine to close cbDone (held-out rehearsal
// 27's shape J: 11 diagnostics that took the callbacks to outlive
// Receive).
func (b *builder) joinsSpawns(fn *ssa.Function) (joined, spawns bool) {
	var waits, gos []ssa.Instruction
	joins := make(map[ssa.Instruction][]ssa.Instruction) // the joins of spawns other than `go` statements
	var closures []*ssa.Function                         // the function literals the spawns run
	closure := func(v ssa.Value) {
		if mc, ok := v.(*ssa.MakeClosure); ok {
			closures = append(closures, mc.Fn.(*ssa.Function))
		}
	}
	for _, blk := range fn.Blocks {
		for _, instr := range blk.Instrs {
			switch instr := instr.(type) {
			case *ssa.Go:
				gos = append(gos, instr)
				closure(instr.Call.Value)
			case *ssa.Defer:
				if model.CalleeName(&instr.Call) == model.WaitGroupWait {
					waits = append(waits, instr)
				}
			case *ssa.Call:
				if model.CalleeName(&instr.Call) == model.WaitGroupWait {
					waits = append(waits, instr)
					continue
				}
				args, joined := b.res.SpawnerArgs(&instr.Call)
				if len(args) == 0 {
					continue
				}
				for _, i := range args {
					closure(instr.Call.Args[i])
				}
				if joined {
					spawns = true
					continue
				}
				if s, ok := model.SpawnerOf(model.CalleeName(&instr.Call)); ok && s.Kind == model.Task && s.Join != "" {
					joins[instr] = model.JoinCalls(instr.Call.Args[0], s.Join)
					continue
				}
				for _, i := range args {
					if fromOutside(instr.Call.Args[i]) {
						joins[instr] = nil // handed on to a spawner that does not join
					}
				}
			}
		}
	}
	recvs := doneReceives(fn, gos)
	for _, g := range gos {
		// A WaitGroup's Wait joins the goroutines that are done on that
		// WaitGroup, a receive the goroutine it hears from, and, for a
		// `go` statement in a loop, only when each turn receives
		// (review33's j12: a Wait for warm-up workers joined the
		// goroutine running f; j9: one receive for n goroutines, the
		// first of n answers, joined all of them).
		joins[g] = nil
		for _, w := range waits {
			if doneOn(g.(*ssa.Go), w) {
				joins[g] = append(joins[g], w)
			}
		}
		for _, r := range recvs[g] {
			if !b.flow.MayFollowAvoiding(g, g, r) {
				joins[g] = append(joins[g], r)
			}
		}
	}
	for _, ret := range ssaflow.Returns(fn) {
		for s, ws := range joins {
			if b.flow.MayFollow(s, ret) && !slices.ContainsFunc(ws, func(w ssa.Instruction) bool {
				return b.flow.Dominates(w, ret) || !b.flow.MayFollowAvoiding(s, ret, w)
			}) {
				return false, true
			}
		}
	}
	for _, c := range closures {
		if ok, _ := b.joinsSpawns(c); !ok {
			return false, true
		}
	}
	return true, spawns || len(joins) > 0
}

// fromOutside reports whether the function value v is a parameter or a
// captured variable (go/ssa loads it through its free variable) rather
// than a function literal or a named function.
func fromOutside(v ssa.Value) bool {
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		v = u.X
	}
	switch v.(type) {
	case *ssa.Parameter, *ssa.FreeVar:
		return true
	}
	return false
}

// doneReceives returns the receives in fn that wait for a goroutine that
// one of gos starts, by the go statement: the "done channel" join,
//
//	done := make(chan struct{})
//	go func() { defer close(done); f() }()
//	<-done
//
// A receive counts when its channel is made in fn, captured by the
// goroutine's closure, and closed there by a deferred close or sent on or
// closed as the closure's last action before it returns, as each of its
// sends and closes is: a goroutine that signals when it starts, and works
// after, is not joined by it.
func doneReceives(fn *ssa.Function, gos []ssa.Instruction) map[ssa.Instruction][]ssa.Instruction {
	out := map[ssa.Instruction][]ssa.Instruction{}
	for _, g := range gos {
		mc, ok := g.(*ssa.Go).Call.Value.(*ssa.MakeClosure)
		if !ok {
			continue
		}
		signalled := map[ssa.Value]bool{} // channels (or the variables holding them) made in fn
		closure := mc.Fn.(*ssa.Function)
		for i, fv := range closure.FreeVars {
			if i < len(mc.Bindings) && ssaflow.SignalsLast(closure, fv) {
				signalled[mc.Bindings[i]] = true
			}
		}
		if len(signalled) == 0 {
			continue
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if u, ok := instr.(*ssa.UnOp); ok && u.Op == token.ARROW && signalled[ssaflow.ChannelVar(u.X)] {
					out[g] = append(out[g], u)
				}
				if sel, ok := instr.(*ssa.Select); ok && selectJoins(sel, signalled) {
					out[g] = append(out[g], sel)
				}
			}
		}
	}
	return out
}

// doneOn reports whether the goroutine g starts is done on the
// WaitGroup that w, a call or deferred call of its Wait, waits on: its
// function literal, capturing the WaitGroup (or what holds it), defers
// Done on it, or calls it as its last action before it returns.
func doneOn(g *ssa.Go, w ssa.Instruction) bool {
	want := place(w.(ssa.CallInstruction).Common().Args[0], nil)
	mc, ok := g.Call.Value.(*ssa.MakeClosure)
	if want == "" || !ok {
		return false
	}
	fn := mc.Fn.(*ssa.Function)
	outer := map[ssa.Value]ssa.Value{} // fn's free variables: what g binds them to
	for i, fv := range fn.FreeVars {
		if i < len(mc.Bindings) {
			outer[fv] = mc.Bindings[i]
		}
	}
	isDone := func(c *ssa.CallCommon) bool {
		return model.CalleeName(c) == model.WaitGroupDone && len(c.Args) == 1 && place(c.Args[0], outer) == want
	}
	for _, b := range fn.Blocks {
		for i, instr := range b.Instrs {
			switch instr := instr.(type) {
			case *ssa.Defer:
				if isDone(&instr.Call) {
					return true
				}
			case *ssa.Call:
				if isDone(&instr.Call) && ssaflow.ReturnsAfter(b.Instrs[i+1:]) {
					return true
				}
			}
		}
	}
	return false
}

// place names the memory v addresses, in the function that starts the
// goroutine: its root (an allocation, a parameter, a free or package
// variable; a free variable of the goroutine's literal stands for what
// outer binds it to) and the fields and loads on the way, or "".
func place(v ssa.Value, outer map[ssa.Value]ssa.Value) string {
	switch x := v.(type) {
	case *ssa.FieldAddr:
		if p := place(x.X, outer); p != "" {
			return fmt.Sprintf("%s.%d", p, x.Field)
		}
	case *ssa.UnOp:
		if x.Op == token.MUL {
			if p := place(x.X, outer); p != "" {
				return "*" + p
			}
		}
	case *ssa.FreeVar, *ssa.Parameter:
		if o, ok := outer[v]; ok {
			return place(o, nil)
		}
		return fmt.Sprintf("%p", v)
	case *ssa.Alloc, *ssa.Global:
		return fmt.Sprintf("%p", v)
	}
	return ""
}

// selectJoins reports whether a blocking select receives from one of the
// signalled channels and each of its other cases ends the goroutine or
// the program in its first block (t.Fatal on a timeout, a panic), so that
// the select goes on only once the channel has been signalled:
//
//	select {
//	case <-done:
//	case <-time.After(d):
//		t.Fatalf("did not complete")
//	}
func selectJoins(sel *ssa.Select, signalled map[ssa.Value]bool) bool {
	if !sel.Blocking {
		return false
	}
	join := -1
	for i, st := range sel.States {
		if st.Dir == types.RecvOnly && signalled[ssaflow.ChannelVar(st.Chan)] {
			join = i
			break
		}
	}
	if join < 0 {
		return false
	}
	// go/ssa tests the chosen index against each case in turn: the If on
	// index == i enters case i's body at its first successor.
	bodies := make(map[int]*ssa.BasicBlock)
	for _, r := range *sel.Referrers() {
		ex, ok := r.(*ssa.Extract)
		if !ok || ex.Index != 0 {
			continue
		}
		for _, r := range *ex.Referrers() {
			bin, ok := r.(*ssa.BinOp)
			if !ok || bin.Op != token.EQL || bin.X != ssa.Value(ex) {
				continue
			}
			c, ok := bin.Y.(*ssa.Const)
			if !ok || c.Value == nil {
				continue
			}
			i, exact := constant.Int64Val(c.Value)
			if !exact {
				continue
			}
			for _, r := range *bin.Referrers() {
				if ifi, ok := r.(*ssa.If); ok {
					bodies[int(i)] = ifi.Block().Succs[0]
				}
			}
		}
	}
	for i := range sel.States {
		if i == join {
			continue
		}
		body, ok := bodies[i]
		if !ok || !endsHere(body) {
			return false
		}
	}
	return true
}

// endsHere reports whether b panics or calls a function that never
// returns (t.Fatal, t.FailNow, t.Skip, os.Exit, log.Fatal, runtime.Goexit).
func endsHere(b *ssa.BasicBlock) bool {
	for _, instr := range b.Instrs {
		switch instr := instr.(type) {
		case *ssa.Panic:
			return true
		case *ssa.Call:
			if model.NoReturn(model.CalleeName(&instr.Call)) {
				return true
			}
		}
	}
	return false
}

package cfpplan

import (
	_ "embed"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/budget"
	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/postdom"
	"github.com/precog-dev/precog/analyzers/sharedloc"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// loops is the -loops flag: the at-least-one-iteration heuristic.
var loops = true

func init() {
	Analyzer.Flags.BoolVar(&loops, "loops", true, "Opt2: assume every loop runs its body at least once (CFP section 3.2.3)")
}

// Analyzer plans the cheap run's function logging.
var Analyzer = &analysis.Analyzer{
	Name:       "cfpplan",
	Doc:        analyzerutil.MustExtractDoc(doc, "cfpplan"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/cfpplan",
	Requires:   []*analysis.Analyzer{ssabuild.Analyzer, callgraph.Analyzer, sharedloc.Analyzer, postdom.Analyzer, budget.Analyzer},
	ResultType: reflect.TypeFor[*Result](),
	Run:        analyzerutil.Guard(run, func() any { return &Result{byFn: map[*ssa.Function]*Func{}} }),
}

// Skip says why a function's entry and exit need not be logged.
type Skip int

const (
	Logged Skip = iota // logged: none of the optimizations applies
	Opt1               // touches no shared memory
	Opt2               // inherits the concurrent functions of its callers
	Pre                // runs only before any goroutine starts
	Test               // is test code (a _test.go file): the input, not the program
)

var skipNames = [...]string{Logged: "", Opt1: "opt1", Opt2: "opt2", Pre: "pre", Test: "test"}

// String returns "", "opt1", "opt2", "pre" or "test".
func (s Skip) String() string { return skipNames[s] }

// A Func is the plan for one function of the package.
type Func struct {
	Fn   *ssa.Function
	Skip Skip
	// Callers are, for Opt2, the functions whose concurrent functions Fn
	// inherits: all its callers.
	Callers []*ssa.Function
	// Spawned is set when Fn runs on a goroutine the package starts (a
	// context other than the caller's; see the goroutines analyzer): a
	// function the user would expect some test to run concurrently.
	Spawned bool
	// Body and End are the positions of the opening and closing braces
	// of Fn's body; Body identifies it to the instrumenter (its Enter
	// site is there).
	Body, End token.Pos
}

// Result is the plan for the package's functions.
type Result struct {
	// Funcs lists the source functions and their closures in the order
	// of buildssa's SrcFuncs, each closure after its parent.
	Funcs []*Func
	byFn  map[*ssa.Function]*Func
}

// Of returns fn's plan, or nil for a function not in the package.
func (r *Result) Of(fn *ssa.Function) *Func { return r.byFn[fn] }

func run(pass *analysis.Pass) (any, error) {
	ssainput := pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
	cg := pass.ResultOf[callgraph.Analyzer].(*callgraph.Result)
	shared := pass.ResultOf[sharedloc.Analyzer].(*sharedloc.Result)
	pd := pass.ResultOf[postdom.Analyzer].(*postdom.Result)
	p := &planner{
		pass: pass, cg: cg, pd: pd,
		res:   &Result{byFn: make(map[*ssa.Function]*Func)},
		syncs: make(map[*ssa.Function]bool),
	}
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		if len(fn.Blocks) > 0 {
			f := &Func{Fn: fn}
			f.Body, f.End = bodyPos(fn)
			for _, c := range shared.Goroutines.Of(fn) {
				if c.Kind != goroutines.Caller {
					f.Spawned = true
				}
			}
			p.res.Funcs = append(p.res.Funcs, f)
			p.res.byFn[fn] = f
		}
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
	}
	for _, fn := range ssainput.SrcFuncs {
		if fn.Parent() == nil {
			add(fn)
		}
	}
	b := pass.ResultOf[budget.Analyzer].(*budget.Budget)
	for _, f := range p.res.Funcs {
		n := 0
		for _, blk := range f.Fn.Blocks {
			n += len(blk.Instrs)
		}
		if !b.Spend(n) {
			// Out of budget: log every function, which loses no pair.
			b.Skip("the cfp plan (every function is logged)")
			return p.res, nil
		}
	}
	p.summarize()
	for _, f := range p.res.Funcs {
		if f.Body.IsValid() && strings.HasSuffix(pass.Fset.File(f.Body).Name(), "_test.go") {
			f.Skip = Test
		}
	}
	p.pre()
	touches := make(map[*ssa.Function]bool)
	for _, a := range shared.Accesses {
		if !shared.Local(a) {
			touches[a.Fn()] = true
		}
	}
	for _, f := range p.res.Funcs {
		// sharedloc looks only at functions that run in some context;
		// the others are unknown, and logged.
		if f.Skip == Logged && !touches[f.Fn] && len(shared.Goroutines.Of(f.Fn)) > 0 {
			f.Skip = Opt1
		}
	}
	p.opt2()
	return p.res, nil
}

// bodyPos returns the positions of the braces of fn's body.
func bodyPos(fn *ssa.Function) (lbrace, rbrace token.Pos) {
	switch s := fn.Syntax().(type) {
	case *ast.FuncDecl:
		if s.Body != nil {
			return s.Body.Lbrace, s.Body.Rbrace
		}
	case *ast.FuncLit:
		return s.Body.Lbrace, s.Body.Rbrace
	}
	return token.NoPos, token.NoPos
}

type planner struct {
	pass  *analysis.Pass
	cg    *callgraph.Result
	pd    *postdom.Result
	res   *Result
	syncs map[*ssa.Function]bool // functions of the package that may synchronize
}

// summarize computes syncs to a fixed point over the package's static
// calls.
func (p *planner) summarize() {
	for changed := true; changed; {
		changed = false
		for _, f := range p.res.Funcs {
			if p.syncs[f.Fn] {
				continue
			}
			for _, b := range f.Fn.Blocks {
				for _, instr := range b.Instrs {
					if p.instrSyncs(instr) {
						p.syncs[f.Fn] = true
						changed = true
						break
					}
				}
				if p.syncs[f.Fn] {
					break
				}
			}
		}
	}
}

// instrSyncs reports whether instr may execute a recorded sync operation,
// given the current summaries.
func (p *planner) instrSyncs(instr ssa.Instruction) bool {
	switch in := instr.(type) {
	case *ssa.Go, *ssa.Select, *ssa.Send:
		return true
	case *ssa.UnOp:
		return in.Op == token.ARROW
	case ssa.CallInstruction:
		return p.callSyncs(in.Common())
	}
	return false
}

// callSyncs reports whether a call may execute a recorded sync operation.
func (p *planner) callSyncs(c *ssa.CallCommon) bool {
	if b, ok := c.Value.(*ssa.Builtin); ok {
		return b.Name() == "close"
	}
	name := model.CalleeName(c)
	if isSyncName(name) {
		return true
	}
	callee := c.StaticCallee()
	if callee == nil {
		return true // an interface method or a function value
	}
	if _, ours := p.res.byFn[callee]; ours {
		return p.syncs[callee]
	}
	if callee.Pkg != nil && callee.Pkg.Pkg == p.pass.Pkg {
		return true // a wrapper or instance we did not summarize
	}
	if p.instrumented(callee) {
		return true
	}
	for _, a := range c.Args {
		if _, ok := a.Type().Underlying().(*types.Signature); ok {
			return true // a callback the library may run
		}
	}
	return false
}

// instrumented reports whether callee, a function of another package, is
// in code the instrumenter also rewrites: a package of the same module.
func (p *planner) instrumented(callee *ssa.Function) bool {
	pkg := callee.Pkg
	if pkg == nil {
		if o := callee.Origin(); o != nil {
			pkg = o.Pkg
		}
	}
	if pkg == nil {
		return true
	}
	path := pkg.Pkg.Path()
	if m := p.pass.Module; m != nil && m.Path != "" {
		return path == m.Path || strings.HasPrefix(path, m.Path+"/")
	}
	return !finding.StdPackage(path)
}

// isSyncName reports whether a callee's full name is a sync operation the
// shim records.
func isSyncName(name string) bool {
	for _, prefix := range []string{"(*sync.", "(sync.", "sync/atomic.", "(*sync/atomic.", "(sync/atomic."} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	if _, ok := model.SpawnerOf(name); ok {
		return true
	}
	return model.IsJoin(name) || model.ParallelMethods[name]
}

// knownCallers returns fn's callers if every call of fn is a static call
// (no function value, no go or defer) that the package's call graph
// knows and fn cannot be called from another package; ok is false
// otherwise.
func (p *planner) knownCallers(fn *ssa.Function) (sites []*ssa.Call, ok bool) {
	if fn.TypeParams() != nil || fn.TypeArgs() != nil {
		return nil, false
	}
	if obj := fn.Object(); obj != nil && obj.Exported() {
		return nil, false
	}
	if fn.Parent() == nil && fn.Object() == nil {
		return nil, false // a synthetic function: init, a wrapper
	}
	edges := p.cg.Callers(fn)
	if len(edges) == 0 {
		return nil, false
	}
	for _, e := range edges {
		call, isCall := e.Site.(*ssa.Call)
		if !isCall || callgraph.StaticCallee(&call.Call) != fn {
			return nil, false
		}
		if _, ours := p.res.byFn[call.Parent()]; !ours && !isInit(call.Parent()) {
			return nil, false
		}
		sites = append(sites, call)
	}
	return sites, true
}

// isInit reports whether fn is the package's initializer or one of its
// init functions.
func isInit(fn *ssa.Function) bool {
	return fn.Parent() == nil && fn.Signature.Recv() == nil &&
		(fn.Name() == "init" || strings.HasPrefix(fn.Name(), "init#"))
}

// pre marks the functions that only the package's initialization calls,
// when nothing reachable from it starts a goroutine.
func (p *planner) pre() {
	var inits []*ssa.Function
	for _, f := range p.res.Funcs {
		if isInit(f.Fn) {
			inits = append(inits, f.Fn)
		}
	}
	if init := p.pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA).Pkg.Func("init"); init != nil {
		inits = append(inits, init)
	}
	// Everything initialization reaches must start no goroutine and call
	// nothing unknown that might.
	seen := make(map[*ssa.Function]bool)
	stack := inits
	for len(stack) > 0 {
		fn := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[fn] {
			continue
		}
		seen[fn] = true
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch in := instr.(type) {
				case *ssa.Go:
					return
				case ssa.CallInstruction:
					name := model.CalleeName(in.Common())
					if _, ok := model.SpawnerOf(name); ok {
						return
					}
					callee := in.Common().StaticCallee()
					if callee == nil {
						return
					}
					if _, ours := p.res.byFn[callee]; ours {
						stack = append(stack, callee)
					} else if p.instrumented(callee) {
						return
					}
				}
			}
		}
		for _, anon := range fn.AnonFuncs {
			stack = append(stack, anon)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, f := range p.res.Funcs {
			if f.Skip != Logged || isInit(f.Fn) || f.Fn.Parent() != nil {
				continue
			}
			sites, ok := p.knownCallers(f.Fn)
			if !ok {
				continue
			}
			all := true
			for _, s := range sites {
				if c := p.res.byFn[s.Parent()]; !isInit(s.Parent()) && (c == nil || c.Skip != Pre) {
					all = false
				}
			}
			if all {
				f.Skip = Pre
				changed = true
			}
		}
	}
}

// opt2 marks the callees that inherit their callers' concurrent
// functions.
func (p *planner) opt2() {
	trees := make(map[*ssa.Function]*postdom.Tree)
	tree := func(fn *ssa.Function) *postdom.Tree {
		t, ok := trees[fn]
		if !ok {
			if loops {
				t = p.pd.Build(fn, postdom.Options{LoopsIterate: true})
			} else {
				t = p.pd.Of(fn)
			}
			trees[fn] = t
		}
		return t
	}
	for changed := true; changed; {
		changed = false
		for _, f := range p.res.Funcs {
			if f.Skip != Logged {
				continue
			}
			sites, ok := p.knownCallers(f.Fn)
			if !ok {
				continue
			}
			var callers []*ssa.Function
			for _, s := range sites {
				f1 := s.Parent()
				c := p.res.byFn[f1]
				if c == nil || (c.Skip != Logged && c.Skip != Opt2) || p.inheritsFrom(f1, f.Fn) {
					ok = false
					break
				}
				if t := tree(f1); t == nil || !t.AlwaysReached(s) || p.syncsBesides(f1, s) {
					ok = false
					break
				}
				if !slices.Contains(callers, f1) {
					callers = append(callers, f1)
				}
			}
			if ok {
				f.Skip, f.Callers = Opt2, callers
				changed = true
			}
		}
	}
}

// inheritsFrom reports whether fn inherits, through any chain of Opt2
// callers, from target (or is target): skipping target would then make a
// cycle with nothing logged.
func (p *planner) inheritsFrom(fn, target *ssa.Function) bool {
	seen := make(map[*ssa.Function]bool)
	stack := []*ssa.Function{fn}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f == target {
			return true
		}
		if seen[f] {
			continue
		}
		seen[f] = true
		if c := p.res.byFn[f]; c != nil && c.Skip == Opt2 {
			stack = append(stack, c.Callers...)
		}
	}
	return false
}

// syncsBesides reports whether fn may synchronize other than through the
// call site.
func (p *planner) syncsBesides(fn *ssa.Function, site *ssa.Call) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if instr != ssa.Instruction(site) && p.instrSyncs(instr) {
				return true
			}
		}
	}
	return false
}

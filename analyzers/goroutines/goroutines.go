package goroutines

import (
	"cmp"
	_ "embed"
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/srcfuncs"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/spawnfacts"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// Analyzer finds the goroutine contexts of the package's functions.
var Analyzer = &analysis.Analyzer{
	Name:       "goroutines",
	Doc:        analyzerutil.MustExtractDoc(doc, "goroutines"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/goroutines",
	Requires:   []*analysis.Analyzer{ssabuild.Analyzer, callgraph.Analyzer, spawnfacts.Analyzer},
	ResultType: reflect.TypeFor[*Result](),
	Run:        analyzerutil.Guard(run, func() any { return newResult(nil, nil) }),
}

// Kind is the kind of root that starts a context's goroutines.
type Kind int

const (
	// Caller is the goroutine that calls into the package.
	Caller Kind = iota
	// Go is a `go` statement.
	Go
	// Task is a function given to a library spawner that joins it
	// (sync.WaitGroup.Go, errgroup, conc).
	Task
	// Detached is a function given to a spawner that never joins it
	// (time.AfterFunc), or to a spawner known only by its SpawnsFact.
	Detached
	// Handler is an HTTP handler.
	Handler
	// ParallelTest is a test or subtest that calls t.Parallel.
	ParallelTest
)

func (k Kind) String() string {
	switch k {
	case Caller:
		return "caller"
	case Go:
		return "go statement"
	case Task:
		return "task"
	case Detached:
		return "detached function"
	case Handler:
		return "HTTP handler"
	case ParallelTest:
		return "parallel test"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// A Context is the set of goroutines started at one root.
type Context struct {
	// Index is the context's position in Result.Contexts; the Caller
	// context has index 0.
	Index int
	Kind  Kind
	// Site is the `go` statement or the spawning call. It is nil for the
	// Caller context, for ServeHTTP methods and for top-level tests.
	Site ssa.CallInstruction
	// Entry is the function the goroutines start in.
	Entry *ssa.Function
	// Root is the position of the root: the spawn site, the conversion to
	// http.HandlerFunc, or the entry function's name.
	Root token.Pos
	// Multi reports that several goroutines of this context may run at
	// the same time.
	Multi bool
	// Unsure reports that the context is Multi only through a recursive
	// call chain that may run its start again, or, for a start in a
	// closure made in a test function, only through code of other tests
	// (a loop of another test, or goroutines of another test, that reach
	// the closure through a call the call graph does not resolve to one
	// callback: the FSM of one test calls the callbacks of every test).
	// Without those, no loop, handler or Multi starter would make it
	// Multi. Whether such a path runs the start twice is decided by values
	// the analysis does not follow (which callback a map lookup returns,
	// the depth of a structure).
	Unsure bool
	// Join names the method that waits for a Task, called on the same
	// receiver as Site (Site.Common().Args[0]).
	Join string
	// Wrapper is, for a context rooted at a call of a spawner of this
	// package (Kind Detached), the function that the spawner's own `go`
	// statement starts and that calls the entry on the new goroutine
	// (`go func() { defer wg.Done(); f() }()`), when there is one such
	// statement; otherwise nil. What it does after the call (a deferred
	// Done) runs after all of the entry's work. The wrapper, and what it
	// calls besides the spawner's function parameters, runs in the
	// context (Result.Of).
	Wrapper *ssa.Function
	// JoinedByReturn reports that the spawning call itself waits for the
	// goroutines before it returns (testing.B.RunParallel, or a helper of
	// this or another package whose SpawnsFact says it joins).
	JoinedByReturn bool
	// Test is the top-level test, benchmark, example or fuzz function
	// that all the goroutines of the context belong to (each such
	// function runs in a Caller context of its own), or nil. Goroutines
	// of two different tests do not overlap: go test runs tests one after
	// another, unless both call t.Parallel (TestParallel).
	Test         *ssa.Function
	TestParallel bool
	// outside reports that the context's goroutines are started only by
	// the package's callers' code, its API entries that no test calls
	// (the Caller context's, or goroutines such code started), not by
	// code the package's initializer reaches: in a test binary they do
	// not run (see inheritOutside).
	outside bool

	// in is the function the root is in, when it is not a call (a
	// conversion to http.HandlerFunc), and conv that conversion.
	in   *ssa.Function
	conv ssa.Instruction
	// serves are the calls that serve a Handler context's handler, when
	// its root's function hands it to nothing else (Starts).
	serves []ssa.Instruction

	// static holds the functions reached from Entry by static calls and
	// references only: those that every goroutine of the context runs,
	// whatever function values it was given.
	static map[*ssa.Function]bool
}

// Static reports whether every goroutine of c that reaches fn does so
// through static calls from the entry, so that two goroutines of a Multi
// context run the same code on fn rather than different callbacks.
func (c *Context) Static(fn *ssa.Function) bool {
	return c.static[fn]
}

// Pos returns the position of the context's root.
func (c *Context) Pos() token.Pos {
	return c.Root
}

// Start returns the instruction that the context's goroutines all run
// after: Site, or, for a handler rooted at a conversion to
// http.HandlerFunc, the conversion, since no request reaches the handler
// before its value exists (a server started after the code that fills
// what its handlers read). It is nil for the Caller context, the tests
// and ServeHTTP methods, which have no such instruction.
func (c *Context) Start() ssa.Instruction {
	if c.Site != nil {
		return c.Site
	}
	return c.conv
}

// starter returns the function whose code starts the context's
// goroutines: the one its Site or handler conversion is in, or nil.
func (c *Context) starter() *ssa.Function {
	if c.Site != nil {
		return c.Site.Parent()
	}
	return c.in
}

// Spawner returns the function that contains the context's spawn site, or
// nil.
func (c *Context) Spawner() *ssa.Function {
	if c.Site == nil {
		return nil
	}
	return c.Site.Parent()
}

func (c *Context) String() string {
	if c.Kind == Caller {
		return "caller"
	}
	return fmt.Sprintf("%s %s", c.Kind, c.Entry.Name())
}

// Result gives the goroutine contexts of the package.
type Result struct {
	// Contexts lists the contexts; Contexts[0] is the Caller context.
	Contexts []*Context
	// CallGraph and Flow are shared with later analyzers so that the
	// package's call graph and control-flow facts are computed once.
	CallGraph *callgraph.Result
	Flow      *ssaflow.Graph

	of      map[*ssa.Function][]*Context
	repeats map[*ssa.Function]bool
	refs    map[*ssa.Function][]ssa.CallInstruction
	targets map[ssa.CallInstruction][]*ssa.Function
	funcs   []*ssa.Function
	// init holds the functions the package's initializer reaches.
	init map[*ssa.Function]bool
	// closes tells, for the tests that contexts belong to, whether the
	// test closes its servers (StartApart).
	closes map[*ssa.Function]bool
}

func newResult(cg *callgraph.Result, flow *ssaflow.Graph) *Result {
	r := &Result{
		of:        make(map[*ssa.Function][]*Context),
		repeats:   make(map[*ssa.Function]bool),
		refs:      make(map[*ssa.Function][]ssa.CallInstruction),
		targets:   make(map[ssa.CallInstruction][]*ssa.Function),
		CallGraph: cg,
		Flow:      flow,
	}
	if r.Flow == nil {
		r.Flow = ssaflow.New()
	}
	r.Contexts = []*Context{{Index: 0, Kind: Caller}}
	return r
}

// Of returns the contexts fn may run in, ordered by index.
func (r *Result) Of(fn *ssa.Function) []*Context {
	return r.of[fn]
}

// Repeats reports whether one goroutine may call fn more than once: a
// call to it sits in a loop, or in a function that repeats.
func (r *Result) Repeats(fn *ssa.Function) bool {
	return r.repeats[fn]
}

// RefSites returns the calls that hand fn, as a function value, to a
// callee without a body in the package that runs it on the calling
// goroutine (sort.Slice, sync.Once.Do); they act as fn's call sites.
func (r *Result) RefSites(fn *ssa.Function) []ssa.CallInstruction {
	return r.refs[fn]
}

// RefTargets returns the function values that site hands to a callee
// without a body in the package, to be run on the calling goroutine.
func (r *Result) RefTargets(site ssa.CallInstruction) []*ssa.Function {
	return r.targets[site]
}

// Funcs returns the package's functions that run in some context, in the
// order of srcfuncs.Of (buildssa's SrcFuncs, then the closures of
// package-level variable initializers).
func (r *Result) Funcs() []*ssa.Function {
	return r.funcs
}

// MayOverlap reports whether goroutines of a and b may run at the same
// time: they are different contexts, not of two sequential tests, not
// the package's callers' (the Caller context, or goroutines only its API
// entries start) and a test's own, and not
// two callees of one `go` statement that runs one at a time, or one
// context with Multi set.
//
// A `go` statement through a function value (`go strategy(p, s)`, with
// strategy picked in a switch) makes a context per function the value may
// hold; each run of the statement starts one goroutine, running one of
// them, so when the statement's goroutines do not run several at once
// (neither context is Multi: the statement is in no loop, and the code
// around it does not repeat or run on several goroutines) its callees do
// not run at the same time either.
func MayOverlap(a, b *Context) bool {
	if a == b {
		return a.Multi
	}
	if _, isGo := a.Site.(*ssa.Go); isGo && a.Site == b.Site && !a.Multi && !b.Multi {
		return false
	}
	if a.outside && b.Test != nil || b.outside && a.Test != nil {
		// Goroutines the package's API entries start, which no test
		// calls, and a test's: in a test binary the first do not run.
		return false
	}
	if a.Index == 0 && topTest(b) || b.Index == 0 && topTest(a) {
		// The package's own callers (its API's entries that no test
		// calls, init) and a test's goroutine: in a test binary the
		// entries no test calls do not run, and init and TestMain run
		// before the tests; outside one there are no tests.
		return false
	}
	return a.Test == nil || b.Test == nil || a.Test == b.Test || a.TestParallel && b.TestParallel
}

// topTest reports whether c is a test's own goroutine: a top-level test,
// sequential or parallel, with the subtests it runs on it.
func topTest(c *Context) bool {
	return c.Site == nil && c.Test != nil && (c.Kind == Caller || c.Kind == ParallelTest)
}

func run(pass *analysis.Pass) (any, error) {
	ssainput := pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
	cg := pass.ResultOf[callgraph.Analyzer].(*callgraph.Result)
	b := &builder{
		pass:     pass,
		res:      newResult(cg, ssaflow.New()),
		spawns:   pass.ResultOf[spawnfacts.Analyzer].(*spawnfacts.Result),
		refs:     make(map[*ssa.Function][]*ssa.Function),
		cleanups: make(map[*ssa.Function]map[*ssa.Function]bool),
	}
	funcs := srcfuncs.Of(ssainput)
	b.findRoots(funcs)
	b.findServes()
	b.findRefs(funcs)
	b.propagate(funcs)
	b.computeMulti(funcs)
	b.findClosers()
	for _, fn := range funcs {
		if len(b.res.of[fn]) > 0 {
			b.res.funcs = append(b.res.funcs, fn)
		}
	}
	return b.res, nil
}

type builder struct {
	pass *analysis.Pass
	res  *Result

	// spawns tells which calls start goroutines.
	spawns *spawnfacts.Result
	// refs maps a function to the function values it hands to callees
	// without a body here, which run on the same goroutine.
	refs map[*ssa.Function][]*ssa.Function
	// cleanups maps a function to the function values among its refs
	// that it hands only to testing Cleanup methods, which run them on
	// the test's goroutine (see testGoroutine); late lists those that
	// a goroutine of another kind registers, by its context, for
	// propagate to give that test's context.
	cleanups map[*ssa.Function]map[*ssa.Function]bool
	late     []handedCleanup
	// roots are the entries of non-Caller contexts.
	roots map[*ssa.Function]bool
	// valueTaken holds the functions used as values (see unused),
	// computed the first time it is asked.
	valueTaken map[*ssa.Function]bool
	// realized maps a context to the `go` statement of a spawner of this
	// package that its goroutines run (the one whose callee is the
	// context's Wrapper, or the statement of a realizing Go context).
	realized map[*Context]*ssa.Go
}

func (b *builder) addContext(kind Kind, site ssa.CallInstruction, pos token.Pos, entry *ssa.Function, join string) *Context {
	if len(entry.Blocks) == 0 {
		return nil // a function of another package: nothing here runs on it
	}
	for _, c := range b.res.Contexts {
		if c.Kind == kind && c.Site == site && c.Entry == entry && c.Root == pos {
			return c
		}
	}
	c := &Context{
		Index: len(b.res.Contexts),
		Kind:  kind,
		Site:  site,
		Entry: entry,
		Root:  pos,
		Join:  join,
	}
	b.res.Contexts = append(b.res.Contexts, c)
	b.roots[entry] = true
	return c
}

// findRoots creates a context for every root in the package.
func (b *builder) findRoots(funcs []*ssa.Function) {
	b.roots = make(map[*ssa.Function]bool)
	b.realized = make(map[*Context]*ssa.Go)
	var realizing []*ssa.Go
	for _, fn := range funcs {
		for _, blk := range fn.Blocks {
			for _, instr := range blk.Instrs {
				switch instr := instr.(type) {
				case *ssa.Go:
					if b.spawns.Realizes(instr) {
						realizing = append(realizing, instr)
						continue
					}
					for _, callee := range b.res.CallGraph.Callees(instr) {
						b.addContext(Go, instr, instr.Pos(), callee, "")
					}
				case *ssa.Call:
					b.spawnerRoots(fn, instr)
				case *ssa.Defer:
					b.spawnerRoots(fn, instr)
				case *ssa.ChangeType:
					if isHandlerFunc(instr.Type()) {
						for _, h := range ssavalue.Funcs(instr.X) {
							if c := b.addContext(Handler, nil, instr.Pos(), h, ""); c != nil {
								c.in, c.conv = fn, instr
							}
						}
					}
				}
			}
		}
		if isServeHTTP(fn) {
			b.addContext(Handler, nil, fn.Pos(), fn, "")
		}
		if isTopLevelTest(b.pass, fn) && callsParallel(fn) {
			b.addContext(ParallelTest, nil, fn.Pos(), fn, "")
		}
	}
	b.realizingRoots(realizing)
}

// realizingRoots gives a context of its own to a `go` statement that
// runs a function parameter of the function it is in (a spawner of this
// package: `go func() { log(s.Cfg.Name) }()` in Start(log)) and whose
// goroutines no context rooted at the spawner's callers stands for: the
// spawner has no caller in the package (an exported Start called only
// from outside), a caller hands it a function the analysis cannot name,
// or the spawner has several such statements (no Wrapper). The new Go
// context's entry is the statement's callee, as for any `go` statement;
// calls through the spawner's function parameters are not followed in it
// (realizedBindings), since the functions they hold are rooted at the
// callers already. A statement whose callee is not static (`go f()`, f
// the parameter) runs only the parameter's functions and gets none.
func (b *builder) realizingRoots(realizing []*ssa.Go) {
	// wrapped holds, per Wrapper, the spawning calls whose contexts
	// carry it.
	wrapped := make(map[*ssa.Function]map[ssa.CallInstruction]bool)
	for _, c := range b.res.Contexts {
		if c.Wrapper != nil {
			if wrapped[c.Wrapper] == nil {
				wrapped[c.Wrapper] = make(map[ssa.CallInstruction]bool)
			}
			wrapped[c.Wrapper][c.Site] = true
		}
	}
	for _, g := range realizing {
		callee := g.Call.StaticCallee()
		if callee == nil || len(callee.Blocks) == 0 {
			continue
		}
		if b.coveredByCallers(g, wrapped[callee]) {
			continue
		}
		if c := b.addContext(Go, g, g.Pos(), callee, ""); c != nil {
			b.realized[c] = g
		}
	}
}

// coveredByCallers reports whether some function enclosing g (or g's own
// function) is called in the package, and each of its calls is a
// spawning call whose contexts carry g's callee as their Wrapper: then
// every goroutine g starts, as far as the package's own calls go, is
// one of those contexts'.
func (b *builder) coveredByCallers(g *ssa.Go, sites map[ssa.CallInstruction]bool) bool {
	if len(sites) == 0 {
		return false
	}
	for f := g.Parent(); f != nil; f = f.Parent() {
		n, all := 0, true
		for _, e := range b.res.CallGraph.Callers(f) {
			if _, isGo := e.Site.(*ssa.Go); isGo || e.Caller.Func == f {
				continue
			}
			n++
			all = all && sites[e.Site]
		}
		if n > 0 && all {
			return true
		}
	}
	return false
}

// realizedBindings binds, for a goroutine of g (a `go` statement of a
// spawner), the function-typed parameters of g's function and of the
// functions enclosing it to nothing: the functions they hold, handed to
// the spawner, are contexts rooted at its callers, and following the
// calls to them here would run them in a second context. The bindings of
// g's callee's own parameters follow from g's arguments.
func realizedBindings(g *ssa.Go, entry *ssa.Function) bindings {
	up := bindings{}
	for f := g.Parent(); f != nil; f = f.Parent() {
		for _, p := range f.Params {
			if _, ok := p.Type().Underlying().(*types.Signature); ok {
				up[p] = []*ssa.Function{}
			}
		}
	}
	bind := bindArgs(g, entry, up)
	if bind == nil {
		bind = bindings{}
	}
	if encloses(g.Parent(), entry) {
		for p, fs := range up {
			bind[p] = fs
		}
	}
	return bind
}

func (b *builder) spawnerRoots(fn *ssa.Function, site ssa.CallInstruction) {
	call := site.Common()
	args, joins := b.spawns.SpawnerArgs(call)
	if len(args) == 0 {
		return
	}
	kind, join := Detached, ""
	var subtest bool
	if callee := call.StaticCallee(); callee != nil && (callee.Pkg == nil || callee.Pkg.Pkg != b.pass.Pkg) {
		if s, ok := model.SpawnerOf(model.Name(callee)); ok {
			join = s.Join
			switch s.Kind {
			case model.Task:
				kind = Task
			case model.Handler:
				kind = Handler
			case model.Subtest:
				subtest = true
			}
		}
	}
	for _, i := range args {
		if kind == Handler && convertedHandler(call.Args[i]) {
			// The conversion rooted the handler already (findRoots): a
			// second context of it would pair each of its accesses with
			// itself as if on two kinds of goroutine, as a handler that
			// runs once (a test's) would not be.
			continue
		}
		for _, entry := range ssavalue.Funcs(call.Args[i]) {
			switch {
			case subtest && !callsParallel(entry):
				// The parent test waits for a sequential subtest.
				b.addRef(fn, site, entry)
			case subtest:
				b.addContext(ParallelTest, site, site.Pos(), entry, "")
			case kind == Detached && b.runByTasks(call.StaticCallee(), i, entry):
				// The spawner's task literals, contexts of their own,
				// run entry on their goroutines already.
			default:
				if c := b.addContext(kind, site, site.Pos(), entry, join); c != nil {
					c.JoinedByReturn = joins
					if callee := call.StaticCallee(); kind == Detached && callee != nil && callee.Pkg != nil && callee.Pkg.Pkg == b.pass.Pkg {
						if w, g := b.wrapper(callee); w != nil {
							c.Wrapper = w
							b.realized[c] = g
						}
					}
				}
			}
		}
	}
}

// runByTasks reports whether spawner, a function of this package, runs
// its parameter i (in call-argument order) on other goroutines only by
// calling it from function literals it declares and hands to a Task
// spawner of the model, each such call resolved by the call graph to
// entry, and otherwise only calls it itself (fsutil's doubleWalkDiff:
// `g.Go(func() error { defer close(c2); return b(ctx, c2) })`). Each of
// those literals is the entry of a Task context rooted at its Go call,
// which reaches entry through that call: a context rooted at the
// spawner's call for entry would stand for the same goroutines a second
// time, and pair what entry does with what the literal does around the
// call (the deferred close after the walker's sends) as if on two
// goroutines (held-out rehearsal 46). Any other use of the parameter (a
// `go` statement, another spawner, a store, a closure not so handed)
// keeps the call's context.
func (b *builder) runByTasks(spawner *ssa.Function, i int, entry *ssa.Function) bool {
	if spawner == nil || spawner.Pkg == nil || spawner.Pkg.Pkg != b.pass.Pkg || i >= len(spawner.Params) {
		return false
	}
	param := spawner.Params[i]
	found := false
	// onlyCalled reports whether every use of v, in fn, is a call of it
	// allowed there: v is the parameter in the spawner, a load of the
	// variable that holds it (a closure captures the parameter by its
	// variable), or, when cell is set, that variable or the free
	// variable by which a task literal fn captured it.
	var onlyCalled func(v ssa.Value, fn *ssa.Function, cell bool) bool
	onlyCalled = func(v ssa.Value, fn *ssa.Function, cell bool) bool {
		for _, ref := range *v.Referrers() {
			switch ref := ref.(type) {
			case *ssa.DebugRef:
			case *ssa.Store:
				// The parameter's one store to the variable it is
				// captured in.
				alloc, ok := ref.Addr.(*ssa.Alloc)
				switch {
				case cell && ref.Addr == v && ref.Val == ssa.Value(param):
				case !cell && ref.Val == v && ok && fn == spawner && len(ssavalue.Stores(alloc)) == 1:
					if !onlyCalled(alloc, fn, true) {
						return false
					}
				default:
					return false
				}
			case *ssa.UnOp:
				if !cell || ref.Op != token.MUL || !onlyCalled(ref, fn, false) {
					return false
				}
			case *ssa.Call, *ssa.Defer:
				call := ref.(ssa.CallInstruction)
				if cell || call.Common().Value != v || slices.Contains(call.Common().Args, v) {
					return false
				}
				if fn == spawner {
					continue // on the spawner's goroutine
				}
				if !slices.ContainsFunc(b.res.CallGraph.Callees(call), func(f *ssa.Function) bool {
					return f == entry || ssavalue.BoundMethod(f) == entry // a method value's wrapper calls it
				}) {
					return false
				}
				found = true
			case *ssa.MakeClosure:
				lit := ref.Fn.(*ssa.Function)
				k := slices.Index(ref.Bindings, v)
				if fn != spawner || lit.Parent() != spawner || !b.taskLiteral(ref) ||
					!onlyCalled(lit.FreeVars[k], lit, cell) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return onlyCalled(param, spawner, false) && found
}

// taskLiteral reports whether every use of the closure mc is as the
// function argument of a Task spawner of the model (errgroup's Go), so
// that it runs only as the entry of the Task context rooted there.
func (b *builder) taskLiteral(mc *ssa.MakeClosure) bool {
	refs := *mc.Referrers()
	for _, ref := range refs {
		call, ok := ref.(*ssa.Call)
		if !ok {
			return false
		}
		s, ok := model.SpawnerOf(model.CalleeName(&call.Call))
		if !ok || s.Kind != model.Task || s.Arg >= len(call.Call.Args) || call.Call.Args[s.Arg] != ssa.Value(mc) {
			return false
		}
		if callee := call.Call.StaticCallee(); callee == nil || callee.Pkg != nil && callee.Pkg.Pkg == b.pass.Pkg {
			return false // the modeled package itself: its Go is analyzed, not rooted
		}
	}
	return len(refs) > 0
}

// wrapper returns the callee of the one `go` statement in spawner (or in
// a closure it declares) that runs a function parameter of the spawner,
// when it starts a closure of the spawner that the goroutine runs the
// parameter from, with the statement; or nil.
func (b *builder) wrapper(spawner *ssa.Function) (*ssa.Function, *ssa.Go) {
	var found *ssa.Function
	var stmt *ssa.Go
	n := 0
	var visit func(fn *ssa.Function)
	visit = func(fn *ssa.Function) {
		for _, blk := range fn.Blocks {
			for _, instr := range blk.Instrs {
				if g, ok := instr.(*ssa.Go); ok && b.spawns.Realizes(g) {
					n++
					if callee := g.Call.StaticCallee(); callee != nil && encloses(spawner, callee) {
						found, stmt = callee, g
					}
				}
			}
		}
		for _, anon := range fn.AnonFuncs {
			visit(anon)
		}
	}
	visit(spawner)
	if n != 1 || found == nil {
		return nil, nil
	}
	return found, stmt
}

// findRefs records the function values that fn hands to callees without
// a body in this package and that are not spawned: they run on fn's
// goroutine (sort.Slice, sync.Once.Do, strings.Map).
func (b *builder) findRefs(funcs []*ssa.Function) {
	for _, fn := range funcs {
		for _, blk := range fn.Blocks {
			for _, instr := range blk.Instrs {
				site, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				if _, isGo := instr.(*ssa.Go); isGo {
					continue
				}
				call := site.Common()
				if args, _ := b.spawns.SpawnerArgs(call); len(args) > 0 {
					continue
				}
				if callees := b.res.CallGraph.Callees(site); len(callees) > 0 && hasBodies(callees) {
					continue
				}
				for _, arg := range call.Args {
					if _, ok := arg.Type().Underlying().(*types.Signature); !ok {
						continue
					}
					for _, f := range ssavalue.Funcs(arg) {
						b.addRef(fn, site, f)
					}
				}
			}
		}
	}
}

func (b *builder) addRef(fn *ssa.Function, site ssa.CallInstruction, f *ssa.Function) {
	if len(f.Blocks) == 0 {
		return
	}
	if b.cleanups[fn] == nil {
		b.cleanups[fn] = make(map[*ssa.Function]bool)
	}
	if only, seen := b.cleanups[fn][f]; only || !seen {
		b.cleanups[fn][f] = model.Cleanup(model.CalleeName(site.Common()))
	}
	b.refs[fn] = append(b.refs[fn], f)
	b.res.refs[f] = append(b.res.refs[f], site)
	b.res.targets[site] = append(b.res.targets[site], f)
}

func hasBodies(fns []*ssa.Function) bool {
	for _, f := range fns {
		if len(f.Blocks) == 0 {
			return false
		}
	}
	return true
}

// propagate assigns contexts to functions: each root's context flows from
// its entry along call edges (except `go` statements) and references.
func (b *builder) propagate(funcs []*ssa.Function) {
	referenced := make(map[*ssa.Function]bool)
	for _, fs := range b.refs {
		for _, f := range fs {
			referenced[f] = true
		}
	}
	caller := b.res.Contexts[0]
	var reentered map[*ssa.Function]bool // computed the first time it is asked
	for _, fn := range funcs {
		if fn.Parent() != nil || b.roots[fn] || referenced[fn] {
			continue
		}
		if fn.Synthetic != "" && fn.Synthetic != "package initializer" {
			continue
		}
		if b.hasCallers(fn) {
			if !token.IsExported(fn.Name()) {
				continue
			}
			if reentered == nil {
				reentered = b.selfEntered(funcs)
			}
			if !reentered[fn] {
				continue
			}
		}
		if isTestFunc(b.pass, fn) {
			// Each test runs on the caller's goroutine, one after
			// another: a context of its own.
			c := b.addContext(Caller, nil, fn.Pos(), fn, "")
			c.Test = fn
			continue
		}
		if b.unused(fn, funcs) {
			continue
		}
		b.assign(caller, fn)
	}
	for _, c := range b.res.Contexts[1:] {
		if c.Kind == ParallelTest && c.Site == nil {
			c.Test, c.TestParallel = c.Entry, true
		}
		if g := b.realized[c]; g != nil && c.Kind == Go {
			b.assignBound(c, c.Entry, realizedBindings(g, c.Entry))
		} else {
			b.assign(c, c.Entry)
		}
		if c.Wrapper != nil {
			// The spawner's goroutine function runs on the goroutine
			// too, before and after the entry: its own work is the
			// context's.
			b.assignBound(c, c.Wrapper, realizedBindings(b.realized[c], c.Wrapper))
		}
	}
	b.inheritTests()
	if len(b.late) > 0 {
		for _, h := range b.late {
			b.assign(b.testContext(h.c), h.f)
		}
		b.inheritTests()
	}
	b.inheritOutside()
}

// inheritOutside marks the contexts whose goroutines only the package's
// callers' code starts (Context.outside): every context of the function
// that starts them is the Caller context or such a context, and the
// package's initializer does not reach that function. The Caller
// context's code that runs in a test binary is the initializer's (and
// TestMain's, a test of its own); its API entries that no test calls do
// not run there, nor do the goroutines they start (an API entry that
// serves handlers, which no test calls, against a test that fills what
// the handlers read). A context that a test's code starts too is not
// outside: a goroutine of it may outlive that test.
func (b *builder) inheritOutside() {
	init := b.initReach()
	b.res.init = init
	for changed := true; changed; {
		changed = false
		for _, c := range b.res.Contexts[1:] {
			from := c.starter()
			if c.outside || c.Test != nil || from == nil || init[from] {
				continue
			}
			pcs := b.res.of[from]
			ok := len(pcs) > 0
			for _, pc := range pcs {
				ok = ok && pc != c && (pc.Index == 0 || pc.outside)
			}
			if ok {
				c.outside, changed = true, true
			}
		}
	}
}

// initReach returns the functions the package's initializer reaches by
// calls (not `go` statements).
func (b *builder) initReach() map[*ssa.Function]bool {
	in := b.pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
	seen := make(map[*ssa.Function]bool)
	var visit func(fn *ssa.Function)
	visit = func(fn *ssa.Function) {
		if fn == nil || seen[fn] {
			return
		}
		seen[fn] = true
		for _, e := range b.res.CallGraph.Out(fn) {
			if _, isGo := e.Site.(*ssa.Go); !isGo {
				visit(e.Callee.Func)
			}
		}
		for _, f := range b.refs[fn] {
			visit(f)
		}
	}
	visit(in.Pkg.Func("init"))
	return seen
}

// handedCleanup is a function handed to a testing Cleanup by code running
// in context c.
type handedCleanup struct {
	c *Context
	f *ssa.Function
}

// testGoroutine reports whether c's goroutines are those of tests (the
// Caller, which runs the tests and the subtests that do not call
// t.Parallel, or a parallel test): a function handed to a Cleanup there
// runs on the same goroutine, once the test has ended.
func testGoroutine(c *Context) bool {
	return c.Kind == Caller || c.Kind == ParallelTest
}

// testContext returns the context of the test that c's goroutines belong
// to (the one that runs the functions they hand to Cleanup), or the
// Caller's when they belong to no one test.
func (b *builder) testContext(c *Context) *Context {
	for _, tc := range b.res.Contexts {
		if c.Test != nil && tc.Entry == c.Test && tc.Site == nil && testGoroutine(tc) {
			return tc
		}
	}
	return b.res.Contexts[0]
}

// inheritTests gives a context the test of the code that starts it, when
// all of that code runs for one test.
func (b *builder) inheritTests() {
	for changed := true; changed; {
		changed = false
		for _, c := range b.res.Contexts[1:] {
			from := c.starter()
			if c.Test != nil || from == nil {
				continue
			}
			var test *ssa.Function
			parallel := false
			for i, pc := range b.res.of[from] {
				if pc.Test == nil || i > 0 && pc.Test != test {
					test = nil
					break
				}
				test, parallel = pc.Test, pc.TestParallel
			}
			if test != nil {
				c.Test, c.TestParallel = test, parallel
				changed = true
			}
		}
	}
}

// hasCallers reports whether fn is called (not spawned) in the package by
// a function other than itself.
// unused reports whether fn, which nothing in the package calls, never
// runs: a function of a _test.go file that go test does not run itself
// and whose value no function of the package takes (no other package can
// name it). Giving it the Caller context would make an unused test
// helper's call of a library function without the package's lock look
// like one of the package's own goroutines (kcp-go's fecDecoder.decode,
// called under the session's lock and by a test helper no test calls).
func (b *builder) unused(fn *ssa.Function, funcs []*ssa.Function) bool {
	if fn.Synthetic != "" || fn.Signature.Recv() != nil || fn.Pkg == nil || !source.InTestFile(fn.Prog.Fset, fn.Pos()) {
		return false
	}
	if b.valueTaken == nil {
		b.valueTaken = valuesTaken(fn.Pkg, funcs)
	}
	return !b.valueTaken[fn]
}

// valuesTaken returns the functions that some instruction of funcs or of
// the package's initializer (var hook = helper) uses as a value rather
// than as the callee of a static call: stored, passed, converted, bound
// in a closure or called through a variable.
func valuesTaken(pkg *ssa.Package, funcs []*ssa.Function) map[*ssa.Function]bool {
	taken := make(map[*ssa.Function]bool)
	var ops []*ssa.Value
	if init := pkg.Func("init"); init != nil {
		funcs = append(slices.Clip(funcs), init)
	}
	for _, fn := range funcs {
		for _, blk := range fn.Blocks {
			for _, instr := range blk.Instrs {
				var callee ssa.Value
				if site, ok := instr.(ssa.CallInstruction); ok && site.Common().StaticCallee() != nil {
					callee = site.Common().Value
				}
				for _, op := range instr.Operands(ops[:0]) {
					if f, ok := (*op).(*ssa.Function); ok && *op != callee {
						taken[f] = true
					}
				}
			}
		}
	}
	return taken
}

// selfEntered returns the functions of funcs that only code they reach
// themselves calls: those whose strongly connected component of the
// package's call graph (calls, `go` statements and the functions handed to
// callees without a body, refs) has no edge in from outside it. Such a
// function calls itself back, through a goroutine it starts say, and
// nothing else in the package enters it; if it is exported, the code
// outside the package that calls it runs it in the Caller context, as it
// would a function nobody in the package calls.
func (b *builder) selfEntered(funcs []*ssa.Function) map[*ssa.Function]bool {
	comp := make(map[*ssa.Function]int, len(funcs)) // component, numbered from 1
	index := make(map[*ssa.Function]int, len(funcs))
	low := make(map[*ssa.Function]int, len(funcs))
	var stack []*ssa.Function
	onStack := make(map[*ssa.Function]bool)
	next, comps := 1, 0
	var visit func(fn *ssa.Function)
	visit = func(fn *ssa.Function) {
		index[fn], low[fn] = next, next
		next++
		stack = append(stack, fn)
		onStack[fn] = true
		succ := func(g *ssa.Function) {
			if index[g] == 0 {
				visit(g)
				low[fn] = min(low[fn], low[g])
			} else if onStack[g] {
				low[fn] = min(low[fn], index[g])
			}
		}
		for _, e := range b.res.CallGraph.Out(fn) {
			succ(e.Callee.Func)
		}
		for _, g := range b.refs[fn] {
			succ(g)
		}
		if low[fn] == index[fn] {
			comps++
			for {
				g := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[g] = false
				comp[g] = comps
				if g == fn {
					break
				}
			}
		}
	}
	for _, fn := range funcs {
		if index[fn] == 0 {
			visit(fn)
		}
	}
	entered := make(map[int]bool) // components with an edge in from outside
	for _, fn := range funcs {
		for _, e := range b.res.CallGraph.Callers(fn) {
			if comp[e.Caller.Func] != comp[fn] {
				entered[comp[fn]] = true
			}
		}
		for _, g := range b.refs[fn] {
			if comp[g] != comp[fn] {
				entered[comp[g]] = true
			}
		}
	}
	self := make(map[*ssa.Function]bool)
	for _, fn := range funcs {
		if !entered[comp[fn]] {
			self[fn] = true
		}
	}
	return self
}

func (b *builder) hasCallers(fn *ssa.Function) bool {
	for _, e := range b.res.CallGraph.Callers(fn) {
		if _, isGo := e.Site.(*ssa.Go); !isGo && e.Caller.Func != fn {
			return true
		}
	}
	return false
}

func (b *builder) assign(c *Context, entry *ssa.Function) {
	b.assignBound(c, entry, b.entryBindings(c, entry))
}

// assignBound is assign with the bindings of entry's function parameters
// given.
func (b *builder) assignBound(c *Context, entry *ssa.Function, bind bindings) {
	b.reach(c, entry, bind)
	if c.static == nil {
		c.static = make(map[*ssa.Function]bool)
	}
	b.walk(entry, true, func(fn *ssa.Function) bool {
		if c.static[fn] {
			return false
		}
		c.static[fn] = true
		return true
	})
}

// maxBindings bounds how many different bindings of function-typed
// parameters reach analyzes per function and context; past it, calls
// through those parameters follow every callee the call graph gives.
const maxBindings = 8

// bindings maps function-typed parameters to the functions they may hold
// on one way into their function. A parameter not in the map may hold
// anything.
type bindings map[*ssa.Parameter][]*ssa.Function

func (bs bindings) key() string {
	var params []*ssa.Parameter
	for p := range bs {
		params = append(params, p)
	}
	slices.SortFunc(params, func(x, y *ssa.Parameter) int { return cmp.Compare(x.Pos(), y.Pos()) })
	var sb strings.Builder
	for _, p := range params {
		fmt.Fprintf(&sb, "%s:", p.Name())
		for _, f := range bs[p] {
			fmt.Fprintf(&sb, "%d,", f.Pos())
		}
		sb.WriteByte(';')
	}
	return sb.String()
}

// reach adds c to the contexts of the functions reachable from entry. Calls
// through a function-typed parameter follow only the functions that the
// parameter was given on the way in, so that a callback handed to a helper
// by one goroutine is not taken to run on every goroutine that uses the
// helper (the call graph alone merges them).
func (b *builder) reach(c *Context, entry *ssa.Function, entryBind bindings) {
	type state struct {
		fn   *ssa.Function
		bind bindings
	}
	seen := map[*ssa.Function]map[string]bool{}
	stack := []state{{entry, entryBind}}
	for len(stack) > 0 {
		st := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k := st.bind.key()
		if seen[st.fn] == nil {
			seen[st.fn] = map[string]bool{}
		}
		if !seen[st.fn][k] && len(seen[st.fn]) >= maxBindings {
			st.bind, k = nil, ""
		}
		if seen[st.fn][k] {
			continue
		}
		seen[st.fn][k] = true
		if !slices.Contains(b.res.of[st.fn], c) {
			b.res.of[st.fn] = append(b.res.of[st.fn], c)
		}
		for _, e := range b.res.CallGraph.Out(st.fn) {
			if _, isGo := e.Site.(*ssa.Go); isGo {
				continue
			}
			callee := e.Callee.Func
			if len(callee.Blocks) == 0 {
				continue
			}
			if b.otherTests(c, callee) {
				continue // another test's literal: this goroutine never holds it
			}
			if p := calledParam(e.Site); p != nil {
				if fs, ok := st.bind[p]; ok && !slices.Contains(fs, callee) {
					continue // not a function this parameter was given
				}
			}
			bind := bindArgs(e.Site, callee, st.bind)
			if encloses(st.fn, callee) {
				// A closure sees its enclosing functions' parameters.
				for p, fs := range st.bind {
					if bind == nil {
						bind = bindings{}
					}
					bind[p] = fs
				}
			}
			stack = append(stack, state{callee, bind})
		}
		for _, f := range b.refs[st.fn] {
			if b.cleanups[st.fn][f] && !testGoroutine(c) {
				if h := (handedCleanup{c, f}); !slices.Contains(b.late, h) {
					b.late = append(b.late, h)
				}
				continue
			}
			if !b.otherTests(c, f) {
				stack = append(stack, state{f, nil})
			}
		}
	}
}

// otherTests reports whether fn is a function literal of a test,
// benchmark, fuzz target or example (isTestFunc) that the goroutine of c,
// the goroutine calling into the package, cannot hold: c stands for
// another test's run, or (the generic Caller context) for code outside
// the package calling its exported functions. A test's literal exists
// only while go test runs that test, and code outside the package cannot
// name it. The call graph still resolves a dynamic call through a field
// of a struct of funcs to every literal stored in such a field, tests'
// included: porcupine's Visualize, called by one test and exported,
// calls model.Step, which the graph takes to every test's Step, putting
// one test's callback on goroutines that never run it, concurrent with
// the goroutines that test itself starts to run it. Goroutines started
// along the way (contexts with a Site) and handlers are not cut: they may
// run a literal their starter was given. Assumption: a test hands its
// literals neither to another test (through package-level state) nor to
// code outside the package that calls back into it with them.
func (b *builder) otherTests(c *Context, fn *ssa.Function) bool {
	if c.Site != nil || c.Kind != Caller && c.Kind != ParallelTest || fn.Parent() == nil {
		return false
	}
	t := b.testOwner(fn)
	return t != nil && t != c.Test
}

// testOwner returns the test, benchmark, fuzz target or example
// (isTestFunc) that fn is or whose body declares the literal fn, or nil.
func (b *builder) testOwner(fn *ssa.Function) *ssa.Function {
	if top := source.Outermost(fn); isTestFunc(b.pass, top) {
		return top
	}
	return nil
}

// encloses reports whether inner is a closure declared (at any depth) in
// outer.
func encloses(outer, inner *ssa.Function) bool {
	for f := inner.Parent(); f != nil; f = f.Parent() {
		if f == outer {
			return true
		}
	}
	return false
}

// calledParam returns the parameter, of the calling function or of a
// function enclosing it, that a dynamic call calls, or nil.
func calledParam(site ssa.CallInstruction) *ssa.Parameter {
	call := site.Common()
	if call.IsInvoke() || call.StaticCallee() != nil {
		return nil
	}
	srcs := ssavalue.Sources(call.Value)
	if len(srcs) != 1 {
		return nil
	}
	p, ok := srcs[0].(*ssa.Parameter)
	if !ok || p.Parent() != site.Parent() && !encloses(p.Parent(), site.Parent()) {
		return nil
	}
	return p
}

// bindArgs computes the bindings of callee's function-typed parameters
// from the arguments of site, given the bindings of the caller.
func bindArgs(site ssa.CallInstruction, callee *ssa.Function, caller bindings) bindings {
	call := site.Common()
	params := callee.Params
	if call.IsInvoke() {
		if len(params) == 0 {
			return nil
		}
		params = params[1:]
	}
	var out bindings
	for i, q := range params {
		if i >= len(call.Args) {
			break
		}
		if _, ok := q.Type().Underlying().(*types.Signature); !ok {
			continue
		}
		if fs, ok := funcsOf(call.Args[i], caller); ok {
			if out == nil {
				out = bindings{}
			}
			out[q] = fs
		}
	}
	return out
}

// funcsOf returns the functions a function value may hold, if they can be
// told: function constants and closures (nil holds none), and parameters
// bound on the way in.
func funcsOf(v ssa.Value, bind bindings) ([]*ssa.Function, bool) {
	srcs := ssavalue.Sources(v)
	if len(srcs) == 0 {
		return nil, false
	}
	var out []*ssa.Function
	for _, s := range srcs {
		switch s := s.(type) {
		case *ssa.Function, *ssa.MakeClosure:
			out = append(out, ssavalue.Funcs(s)...)
			if mc, ok := s.(*ssa.MakeClosure); ok {
				// Keep the wrapper too: the call graph calls it.
				out = append(out, mc.Fn.(*ssa.Function))
			}
		case *ssa.Parameter:
			fs, ok := bind[s]
			if !ok {
				return nil, false
			}
			out = append(out, fs...)
		case *ssa.Const:
			if !s.IsNil() {
				return nil, false
			}
			// A nil function: a call of it panics, nothing runs
			// (readline's Refresh(nil) from any goroutine, while the
			// closures other callers pass run on its loop).
		default:
			return nil, false
		}
	}
	return out, true
}

// entryBindings binds the function-typed parameters of a `go` statement's
// callee to the functions given at the statement, looking one call up
// when the statement passes on a parameter of the function it is in.
func (b *builder) entryBindings(c *Context, entry *ssa.Function) bindings {
	g, ok := c.Site.(*ssa.Go)
	if !ok || callgraph.StaticCallee(&g.Call) != entry {
		return nil
	}
	spawner := g.Parent()
	var up bindings
	for _, e := range b.res.CallGraph.Callers(spawner) {
		for q, fs := range bindArgs(e.Site, spawner, nil) {
			if up == nil {
				up = bindings{}
			}
			up[q] = append(up[q], fs...)
		}
	}
	// Parameters some caller passes unknown functions for stay unbound.
	for q := range up {
		for _, e := range b.res.CallGraph.Callers(spawner) {
			if _, ok := bindArgs(e.Site, spawner, nil)[q]; !ok {
				delete(up, q)
			}
		}
	}
	if len(b.res.CallGraph.Callers(spawner)) == 0 {
		up = nil
	}
	return bindArgs(g, entry, up)
}

// walk visits the functions that run on the goroutine that runs entry,
// following only calls whose callee is known without the call graph, and
// function values handed to callees outside the package. visit returns
// false for functions already seen.
func (b *builder) walk(entry *ssa.Function, static bool, visit func(*ssa.Function) bool) {
	stack := []*ssa.Function{entry}
	for len(stack) > 0 {
		fn := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !visit(fn) {
			continue
		}
		for _, e := range b.res.CallGraph.Out(fn) {
			if _, isGo := e.Site.(*ssa.Go); isGo {
				continue
			}
			callee := e.Callee.Func
			// A call of a generic function is a static call of its
			// instantiation wrapper, whose body the call graph's edge
			// goes to (callgraph.Unwrap).
			if len(callee.Blocks) == 0 || static && callgraph.StaticCallee(e.Site.Common()) != callee {
				continue
			}
			stack = append(stack, callee)
		}
		stack = append(stack, b.refs[fn]...)
	}
}

// computeMulti decides which contexts may have several goroutines running
// at once, and which functions repeat.
func (b *builder) computeMulti(funcs []*ssa.Function) {
	const (
		unvisited = iota
		visiting
		done
	)
	state := make(map[*ssa.Function]int)
	var repeats func(fn *ssa.Function) bool
	repeats = func(fn *ssa.Function) bool {
		switch state[fn] {
		case visiting:
			return true // recursion
		case done:
			return b.res.repeats[fn]
		}
		state[fn] = visiting
		r := false
		var sites []ssa.CallInstruction // the calls so far
		for _, e := range b.res.CallGraph.Callers(fn) {
			if _, isGo := e.Site.(*ssa.Go); isGo {
				continue
			}
			if b.res.Flow.InLoop(e.Site) || repeats(e.Caller.Func) || b.twice(sites, e.Site) {
				r = true
				break
			}
			sites = append(sites, e.Site)
		}
		state[fn] = done
		b.res.repeats[fn] = r
		return r
	}
	for _, fn := range funcs {
		repeats(fn)
	}
	for changed := true; changed; {
		changed = false
		for _, c := range b.res.Contexts[1:] {
			if c.Multi {
				continue
			}
			// The server runs a handler once per request, but a test
			// makes the requests it means to: a handler closure in a test
			// runs as often as the test's own code says.
			multi := c.Kind == Handler && !(c.Entry.Parent() != nil && c.Test != nil)
			if site := c.Site; site != nil {
				multi = multi || b.res.Flow.InLoop(site) || b.res.repeats[site.Parent()]
				for _, pc := range b.res.of[site.Parent()] {
					multi = multi || pc.Multi
				}
			}
			if multi {
				c.Multi = true
				changed = true
			}
		}
	}
	b.markUnsure()
	for fn, cs := range b.res.of {
		slices.SortFunc(cs, func(a, b *Context) int { return cmp.Compare(a.Index, b.Index) })
		b.res.of[fn] = cs
	}
}

// twice reports whether site and one of the calls before it are two calls
// in one function that one invocation may both make, with the same
// arguments (s.Start(); s.Start()): the callee runs twice there on the
// same objects, as in a loop. (a.Start(); b.Start() starts two servers
// once each.)
func (b *builder) twice(before []ssa.CallInstruction, site ssa.CallInstruction) bool {
	for _, o := range before {
		if o.Parent() == site.Parent() && o != site && sameArgs(o.Common(), site.Common()) &&
			(b.res.Flow.MayFollow(o, site) || b.res.Flow.MayFollow(site, o)) {
			return true
		}
	}
	return false
}

// sameArgs reports whether two calls call the same function value (or
// method of the same value) with the same arguments.
func sameArgs(x, y *ssa.CallCommon) bool {
	if x.IsInvoke() != y.IsInvoke() || x.Value != y.Value || len(x.Args) != len(y.Args) {
		return false
	}
	for i := range x.Args {
		if ssavalue.Unconverted(x.Args[i]) != ssavalue.Unconverted(y.Args[i]) {
			return false
		}
	}
	return true
}

// markUnsure sets Unsure on the Multi contexts that are Multi only
// through recursion or through other tests' code: computeMulti's fixed
// point again, with a function repeating only when a call site in a
// loop, or two calls in one function (twice), reach it through calls,
// and, for a start in a closure of a test function, leaving out the
// callers and starting contexts of other tests.
func (b *builder) markUnsure() {
	owners := make(map[*ssa.Function]*ssa.Function)
	owner := func(fn *ssa.Function) *ssa.Function {
		if o, ok := owners[fn]; ok {
			return o
		}
		o := b.testOwner(fn)
		owners[fn] = o
		return o
	}
	// other reports whether fn belongs to a test other than t.
	other := func(t, fn *ssa.Function) bool {
		o := owner(fn)
		return t != nil && o != nil && o != t
	}
	inLoop := func(fn *ssa.Function) bool {
		t := owner(fn)
		seen := map[*ssa.Function]bool{fn: true}
		stack := []*ssa.Function{fn}
		for len(stack) > 0 {
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			var sites []ssa.CallInstruction
			for _, e := range b.res.CallGraph.Callers(f) {
				g := e.Caller.Func
				if _, isGo := e.Site.(*ssa.Go); isGo || other(t, g) {
					continue
				}
				if b.res.Flow.InLoop(e.Site) || b.twice(sites, e.Site) {
					return true
				}
				sites = append(sites, e.Site)
				if !seen[g] {
					seen[g] = true
					stack = append(stack, g)
				}
			}
		}
		return false
	}
	multi := make(map[*Context]bool)
	for changed := true; changed; {
		changed = false
		for _, c := range b.res.Contexts[1:] {
			if multi[c] || !c.Multi {
				continue
			}
			m := c.Kind == Handler && !(c.Entry.Parent() != nil && c.Test != nil)
			if site := c.Site; site != nil {
				m = m || b.res.Flow.InLoop(site) || inLoop(site.Parent())
				t := owner(site.Parent())
				for _, pc := range b.res.of[site.Parent()] {
					if t != nil && pc.Test != nil && pc.Test != t {
						continue
					}
					m = m || multi[pc]
				}
			}
			if m {
				multi[c] = true
				changed = true
			}
		}
	}
	for _, c := range b.res.Contexts[1:] {
		c.Unsure = c.Multi && !multi[c]
	}
}

// convertedHandler reports whether v, through conversions between func
// types, is a conversion to http.HandlerFunc: `mux.HandleFunc(p,
// http.HandlerFunc(f))`, whose f findRoots gives a Handler context at the
// conversion.
func convertedHandler(v ssa.Value) bool {
	for {
		ct, ok := v.(*ssa.ChangeType)
		if !ok {
			return false
		}
		if isHandlerFunc(ct.Type()) {
			return true
		}
		v = ct.X
	}
}

func isHandlerFunc(t types.Type) bool {
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return false
	}
	return named.Obj().Pkg().Path()+"."+named.Obj().Name() == model.HTTPHandlerFunc
}

// isServeHTTP reports whether fn is a ServeHTTP method with the signature
// of http.Handler.
func isServeHTTP(fn *ssa.Function) bool {
	sig := fn.Signature
	if fn.Name() != "ServeHTTP" || sig.Recv() == nil || sig.Params().Len() != 2 || sig.Results().Len() != 0 {
		return false
	}
	return typeString(sig.Params().At(0).Type()) == "net/http.ResponseWriter" &&
		typeString(sig.Params().At(1).Type()) == "*net/http.Request"
}

func typeString(t types.Type) string {
	return types.TypeString(t, nil)
}

// isTopLevelTest reports whether fn is a TestXxx function of a _test.go
// file.
func isTopLevelTest(pass *analysis.Pass, fn *ssa.Function) bool {
	if fn.Parent() != nil || fn.Signature.Recv() != nil || !strings.HasPrefix(fn.Name(), "Test") {
		return false
	}
	sig := fn.Signature
	if sig.Params().Len() != 1 || typeString(sig.Params().At(0).Type()) != "*testing.T" {
		return false
	}
	f := pass.Fset.File(fn.Pos())
	return f != nil && strings.HasSuffix(f.Name(), "_test.go")
}

// isTestFunc reports whether fn is a function of a _test.go file that go
// test runs itself: TestXxx, BenchmarkXxx, FuzzXxx or ExampleXxx.
func isTestFunc(pass *analysis.Pass, fn *ssa.Function) bool {
	if fn.Parent() != nil || fn.Signature.Recv() != nil {
		return false
	}
	f := pass.Fset.File(fn.Pos())
	if f == nil || !strings.HasSuffix(f.Name(), "_test.go") {
		return false
	}
	for _, prefix := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
		if strings.HasPrefix(fn.Name(), prefix) {
			return true
		}
	}
	return false
}

// callsParallel reports whether fn itself calls t.Parallel.
func callsParallel(fn *ssa.Function) bool {
	for _, blk := range fn.Blocks {
		for _, instr := range blk.Instrs {
			if c, ok := instr.(*ssa.Call); ok && model.ParallelMethods[model.CalleeName(&c.Call)] {
				return true
			}
		}
	}
	return false
}

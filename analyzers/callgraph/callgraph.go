package callgraph

import (
	_ "embed"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	xcallgraph "golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/cha"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/precog-dev/precog/analyzers/budget"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// DefaultMaxVTAInstructions is the default of the -maxvta flag: the number
// of SSA instructions in a package above which the analyzer keeps the CHA
// call graph instead of refining it with VTA, so that huge generated
// packages cannot stall go vet.
const DefaultMaxVTAInstructions = 1_000_000

var maxVTAInstructions = DefaultMaxVTAInstructions

func init() {
	Analyzer.Flags.IntVar(&maxVTAInstructions, "maxvta", DefaultMaxVTAInstructions, "use the CHA call graph for packages with more SSA instructions than this")
}

// Analyzer builds the call graph of the package.
var Analyzer = &analysis.Analyzer{
	Name:       "callgraph",
	Doc:        analyzerutil.MustExtractDoc(doc, "callgraph"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/callgraph",
	Requires:   []*analysis.Analyzer{ssabuild.Analyzer, budget.Analyzer},
	ResultType: reflect.TypeFor[*Result](),
	Run:        analyzerutil.Guard(run, func() any { return newResult(xcallgraph.New(nil), "") }),
}

// Result is the call graph of one package.
type Result struct {
	// Graph has a node for every function of the package's SSA program
	// and the functions they call. It has no root.
	Graph *xcallgraph.Graph
	// Limit is empty when VTA refined the graph, and otherwise says which
	// budget was exceeded and that the coarser CHA graph is used.
	Limit string

	callers map[*ssa.Function][]*xcallgraph.Edge // sorted in-edges
	out     map[*ssa.Function][]*xcallgraph.Edge // sorted out-edges
	// callees are the functions each dynamic call site may call, in
	// Callees' order: the checks ask for a site's callees again and again,
	// and a search of its function's edges and a sort each time took 8%
	// of go-redis's analysis.
	callees map[ssa.CallInstruction][]*ssa.Function
}

func newResult(g *xcallgraph.Graph, limit string) *Result {
	r := &Result{
		Graph:   g,
		Limit:   limit,
		callers: make(map[*ssa.Function][]*xcallgraph.Edge),
		out:     make(map[*ssa.Function][]*xcallgraph.Edge),
	}
	for fn, node := range g.Nodes {
		for _, e := range node.Out {
			callee := Unwrap(e.Callee.Func)
			r.out[fn] = append(r.out[fn], e)
			if Unwrap(fn) != fn && callee == Unwrap(fn) {
				// The wrapper's own call of its generic body: the
				// wrapper's callers call the body directly instead.
				continue
			}
			if callee != e.Callee.Func {
				n := g.Nodes[callee]
				if n == nil {
					n = g.CreateNode(callee)
				}
				e = &xcallgraph.Edge{Caller: e.Caller, Site: e.Site, Callee: n}
				r.out[fn][len(r.out[fn])-1] = e
			}
			r.callers[callee] = append(r.callers[callee], e)
		}
	}
	r.paramCalls(g)
	for _, edges := range r.callers {
		sortEdges(edges)
	}
	r.callees = make(map[ssa.CallInstruction][]*ssa.Function)
	for _, edges := range r.out {
		sortEdges(edges)
		// Sorted by site, then callee (CompareFuncs): each site's
		// callees come in order, an edge to the same callee again
		// next to the last.
		for _, e := range edges {
			if e.Site == nil || e.Site.Common().StaticCallee() != nil {
				continue
			}
			if fns := r.callees[e.Site]; len(fns) == 0 || fns[len(fns)-1] != e.Callee.Func {
				r.callees[e.Site] = append(fns, e.Callee.Func)
			}
		}
	}
	return r
}

// paramCalls adds the edges of calls through a function parameter that the
// graph resolves to nothing: f(k, v) in a generic body such as
//
//	func (h *mapping[K, V]) eachPair(f func(k K, v V) bool)
//
// which VTA leaves without an edge. Each such call may call the functions
// and closures that the function's callers pass as that parameter.
func (r *Result) paramCalls(g *xcallgraph.Graph) {
	var fns []*ssa.Function
	for fn := range r.callers {
		fns = append(fns, fn)
	}
	sortFuncs(fns)
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				site, ok := instr.(ssa.CallInstruction)
				if !ok || site.Common().IsInvoke() {
					continue
				}
				p, ok := site.Common().Value.(*ssa.Parameter)
				if !ok || p.Parent() != fn || slices.ContainsFunc(r.out[fn], func(e *xcallgraph.Edge) bool { return e.Site == site }) {
					continue
				}
				idx := slices.Index(fn.Params, p)
				for _, e := range r.callers[fn] {
					args := e.Site.Common().Args
					if e.Site.Common().IsInvoke() || idx >= len(args) {
						continue
					}
					for _, callee := range ssavalue.Funcs(args[idx]) {
						n := g.Nodes[callee]
						if n == nil {
							n = g.CreateNode(callee)
						}
						edge := &xcallgraph.Edge{Caller: g.Nodes[fn], Site: site, Callee: n}
						r.out[fn] = append(r.out[fn], edge)
						r.callers[callee] = append(r.callers[callee], edge)
					}
				}
			}
		}
	}
}

// Unwrap returns the generic function whose body an instantiation wrapper
// fn runs, or fn itself. go/ssa (without InstantiateGenerics, as buildssa
// builds) calls a generic function through one wrapper per instantiation,
// a synthetic function whose body only calls the generic one with the same
// arguments; the graph has the caller call the generic body directly, so
// that what flows into its parameters (locks held, objects passed) comes
// from the real call sites rather than from a wrapper no analyzer looks
// into.
func Unwrap(fn *ssa.Function) *ssa.Function {
	if fn != nil && fn.Origin() != nil && strings.HasPrefix(fn.Synthetic, "instantiation wrapper") {
		return fn.Origin()
	}
	return fn
}

// StaticCallee returns the function that the static call c calls, the
// generic body for a call of an instantiation wrapper (Unwrap), or nil for
// a dynamic call: the function the graph's edge for c goes to, which a
// check comparing a call's callee with a function of the graph must use.
func StaticCallee(c *ssa.CallCommon) *ssa.Function { return Unwrap(c.StaticCallee()) }

func run(pass *analysis.Pass) (any, error) {
	ssainput := pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
	prog := ssainput.Pkg.Prog
	initial := cha.CallGraph(prog)

	funcs := ssautil.AllFunctions(prog)
	n := 0
	for fn := range funcs {
		for _, b := range fn.Blocks {
			n += len(b.Instrs)
		}
	}
	b := pass.ResultOf[budget.Analyzer].(*budget.Budget)
	if n > maxVTAInstructions || !b.Spend(n) {
		limit := fmt.Sprintf("call graph: %d SSA instructions, more than the %d VTA may refine; using the coarser CHA call graph", n, maxVTAInstructions)
		if n <= maxVTAInstructions {
			limit = fmt.Sprintf("call graph: budget exhausted %s; using the coarser CHA call graph", b.Reason())
		}
		b.Skip(limit)
		return newResult(initial, limit), nil
	}
	return newResult(vta.CallGraph(funcs, initial), ""), nil
}

// Callees returns the functions that site may call, in a stable order
// (CompareFuncs). The slice must not be modified.
func (r *Result) Callees(site ssa.CallInstruction) []*ssa.Function {
	if fn := site.Common().StaticCallee(); fn != nil {
		return []*ssa.Function{Unwrap(fn)}
	}
	return slices.Clip(r.callees[site])
}

// Out returns the call edges out of fn, in a stable order. The slice must
// not be modified.
func (r *Result) Out(fn *ssa.Function) []*xcallgraph.Edge {
	return r.out[fn]
}

// Callers returns the call edges into fn, in a stable order. The slice
// must not be modified.
func (r *Result) Callers(fn *ssa.Function) []*xcallgraph.Edge {
	return r.callers[fn]
}

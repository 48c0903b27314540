package pointsto

import (
	_ "embed"
	"fmt"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/container/intsets"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/budget"
	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// Analyzer computes points-to sets.
var Analyzer = &analysis.Analyzer{
	Name:       "pointsto",
	Doc:        analyzerutil.MustExtractDoc(doc, "pointsto"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/pointsto",
	Requires:   []*analysis.Analyzer{ssabuild.Analyzer, callgraph.Analyzer, budget.Analyzer},
	ResultType: reflect.TypeFor[*Result](),
	Run:        analyzerutil.Guard(run, func() any { return &Result{} }),
}

// ElemPath is the path step of the elements of an array, slice, map or
// channel.
const ElemPath = "[]"

// DerefPath is the path step that dereferences a pointer held in memory:
// ".tasks*" is the object that field tasks points to.
const DerefPath = "*"

// FieldPath returns the path step of field f.
func FieldPath(f *types.Var) string { return "." + f.Name() }

// Access paths are bounded, which merges the memory that longer paths
// denote: at most maxPathLen bytes and maxDerefs dereferences (a linked
// list's nodes beyond the second are one object).
const (
	maxPathLen = 48
	maxDerefs  = 2
)

// An Obj is an abstract object, or a pointer into one.
type Obj struct {
	// Site is the allocation: an *ssa.Alloc, MakeMap, MakeSlice,
	// MakeChan or MakeClosure, an *ssa.Global, or the ssa.CallInstruction
	// of a function without a body. Nil for External objects.
	Site ssa.Value
	// External names the type of an object passed in from outside the
	// package, when Site is nil.
	External string
	// Clone is the call site a constructor returned this object to, or
	// nil for every object made at Site.
	Clone ssa.CallInstruction
	// Path makes this a pointer into the object: to the field or element
	// that the access path (".f.g", ".buf[]") selects. The analyzer's own
	// paths select fields and elements only; the checks' context-sensitive
	// refinement also dereferences (".tasks*": what field tasks holds), to
	// tell apart objects that one allocation site made for different
	// owners.
	Path string
}

// Select returns the pointer to the field or element step of o.
func (o Obj) Select(step string) Obj {
	if len(o.Path)+len(step) > maxPathLen || step == DerefPath && strings.Count(o.Path, DerefPath) >= maxDerefs {
		return o
	}
	o.Path += step
	return o
}

// MayAlias reports whether pointers o and p may point to the same memory.
func (o Obj) MayAlias(p Obj) bool {
	return o.Site == p.Site && o.External == p.External && o.Path == p.Path && compatible(o.Clone, p.Clone)
}

func compatible(a, b ssa.CallInstruction) bool {
	return a == nil || b == nil || a == b
}

// Result holds the points-to sets.
type Result struct {
	// Limit is empty when the analysis finished, and otherwise says which
	// budget stopped it.
	Limit string
	objs  []Obj
	nodes map[ssa.Value]int
	pts   [][]int // each node's objects, sorted; frozen after solving
	// heap indexes the memory of each allocation site by path, with the
	// static type of what it holds (nil when only interface values were
	// seen stored there).
	heap map[ssa.Value][]heapCell
	// concrete marks the heap nodes that hold values of a concrete
	// (non-interface) type.
	concrete []bool
	// escaped holds the allocation sites some of whose objects may be
	// reached other than through the registers of the goroutine that made
	// them (see Confined).
	escaped    map[cloneKey]bool
	anyEscaped map[ssa.Value]bool
}

// A cloneKey names the objects of an allocation site that the analysis
// returned to one call site (clone), or, with a nil clone, all of them.
type cloneKey struct {
	site  ssa.Value
	clone ssa.CallInstruction
}

type heapCell struct {
	path string
	node int
}

// Reachable returns the allocation sites reachable from roots through
// memory of concrete pointer, map, slice and channel types, up to depth
// steps. Memory of interface type is not followed: what an interface
// field may hold, to a context-insensitive analysis, is every
// implementation that flows anywhere. A closure that a constructor
// returned to one call site (a clone, made by `return func(...) { ... f
// ... }` or through a generic constructor that returns such a call's
// result) holds in a variable it captured from the constructor's
// parameter what that call passed, not what every call of the
// constructor passed (see cloneHeld): a parallel subtest handed an action
// that Func made from a closure that captures nothing was not handed the
// object another caller's closure captured.
func (r *Result) Reachable(roots []Obj, depth int) map[ssa.Value]bool {
	seen := map[ssa.Value]bool{}
	if r.pts == nil {
		return seen
	}
	type item struct {
		o Obj
		d int
	}
	// left holds, for each object met, the most steps left when it was
	// met: an object first met at the end of a long path is expanded
	// again when a shorter path reaches it.
	left := map[Obj]int{}
	chains := map[ssa.CallInstruction]*cloneChain{} // by clone site, nil for none
	var work []item
	for _, o := range roots {
		if o.Site != nil {
			work = append(work, item{o, depth})
			left[o] = depth
		}
	}
	for len(work) > 0 {
		it := work[len(work)-1]
		work = work[:len(work)-1]
		seen[it.o.Site] = true
		if it.d == 0 || left[it.o] > it.d {
			continue
		}
		var ch *cloneChain // only a closure's memory is read through it
		if _, isClosure := it.o.Site.(*ssa.MakeClosure); isClosure && it.o.Clone != nil {
			var ok bool
			if ch, ok = chains[it.o.Clone]; !ok {
				ch = newCloneChain(it.o.Clone)
				chains[it.o.Clone] = ch
			}
		}
		for _, cell := range r.heap[it.o.Site] {
			if !r.concrete[cell.node] || !strings.HasPrefix(cell.path, it.o.Path) {
				continue
			}
			held, through, ok := r.cloneHeld(ch, it.o, cell.path)
			if through != nil {
				seen[through] = true
			}
			if !ok {
				held = make([]Obj, len(r.pts[cell.node]))
				for i, id := range r.pts[cell.node] {
					held[i] = r.objs[id]
				}
			}
			for _, child := range held {
				if d, ok := left[child]; child.Site != nil && (!ok || d < it.d-1) {
					left[child] = it.d - 1
					work = append(work, item{child, it.d - 1})
				}
			}
		}
	}
	return seen
}

// A cloneChain is the calls that one call site's call goes through to
// make what it returns: calls[0] is the site's, funcs[i] the static
// callee of calls[i], and each later call the one whose result the
// function before it returns at every return (`return Func(func(...) {
// ... fn ... })`; an instantiation wrapper of a generic constructor calls
// the generic body so). The last function returns at every return the
// closure fresh that it makes. So the closure that one run of the site's
// call gets was made by one run of each function of the chain, each
// called by the one before at its call of the chain, with that call's
// arguments; so was every closure that one of those runs passed down.
type cloneChain struct {
	site  ssa.CallInstruction
	calls []*ssa.CallCommon
	funcs []*ssa.Function
	fresh *ssa.MakeClosure
}

// maxCloneChain bounds the calls a cloneChain follows from its site.
const maxCloneChain = 4

// newCloneChain returns the chain of site's call, or nil when a function
// on the way has no static callee, or returns anything but the one call's
// result or the one closure it makes (another object, a parameter, what
// a load or a second call gives, a second result), or the chain is longer
// than maxCloneChain.
func newCloneChain(site ssa.CallInstruction) *cloneChain {
	ch := &cloneChain{site: site}
	call := site.Common()
	for range maxCloneChain {
		fn := call.StaticCallee()
		if fn == nil {
			return nil
		}
		ch.calls = append(ch.calls, call)
		ch.funcs = append(ch.funcs, fn)
		switch v := onlyReturned(fn).(type) {
		case *ssa.MakeClosure:
			ch.fresh = v
			return ch
		case *ssa.Call:
			call = &v.Call
		default:
			return nil
		}
	}
	return nil
}

// onlyReturned returns the value of fn's own that fn returns at every
// return: fn has one result, and at each return it has one source
// (ssavalue.Sources), the same instruction of fn. Nil otherwise.
func onlyReturned(fn *ssa.Function) ssa.Value {
	var found ssa.Value
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		if len(ret.Results) != 1 {
			return nil
		}
		srcs := ssavalue.Sources(ret.Results[0])
		if len(srcs) != 1 || found != nil && srcs[0] != found {
			return nil
		}
		found = srcs[0]
	}
	if instr, ok := found.(ssa.Instruction); !ok || instr.Parent() != fn {
		return nil
	}
	return found
}

// made reports whether the chain's run made every closure of site that
// the chain names: site is the closure the last function returns, or one
// that a function of the chain passes (through type changes) to the next.
func (ch *cloneChain) made(site *ssa.MakeClosure) bool {
	if site == ch.fresh {
		return true
	}
	for _, call := range ch.calls[1:] {
		for _, a := range call.Args {
			if ssavalue.Unconverted(a) == site {
				return true
			}
		}
	}
	return false
}

// cloneHeld returns what the memory at path of o holds, when o is a
// closure that the run of a clone site's chain made (see cloneChain; ch
// is o.Clone's chain, nil when it has none): its memory ".v" holds what
// it captured as v. A parameter captured as itself (a method value's
// receiver), or through a cell that its function stores it to once and
// nothing else writes (paramCell), holds for this run what the chain's
// call passed for it (see cloneArg), not what every call of the function
// passed. Such a cell, returned as through, is no step of its own: go/ssa
// makes it only because closures capture variables, not values, and a
// variable nothing writes is its value, as a bound receiver is (a
// constructor that wraps another, as Expose wraps Func, would otherwise
// cost two steps more per level than the closure it wraps). ok is false
// for any other object or memory: then the site's memory, the union over
// all runs, is what it may hold.
func (r *Result) cloneHeld(ch *cloneChain, o Obj, path string) (held []Obj, through *ssa.Alloc, ok bool) {
	site, isClosure := o.Site.(*ssa.MakeClosure)
	if ch == nil || !isClosure || !ch.made(site) {
		return nil, nil, false
	}
	fn := site.Fn.(*ssa.Function)
	for i, b := range site.Bindings {
		if "."+fn.FreeVars[i].Name() != path {
			continue
		}
		switch b := b.(type) {
		case *ssa.Parameter:
			held, ok = r.cloneArg(ch, b)
			return held, nil, ok
		case *ssa.Alloc:
			if p := paramCell(b); p != nil {
				held, ok = r.cloneArg(ch, p)
				return held, b, ok
			}
		}
		return nil, nil, false
	}
	return nil, nil, false
}

// cloneArg returns the objects that p, a parameter of a function of the
// chain, holds in the chain's run: those of the argument the chain's call
// of that function passes. An argument that is a parameter of the
// function before in the chain (through type changes: a wrapper's,
// of the generic signature) holds what that parameter holds; one that is
// a closure the function before makes is that closure of this run. ok is
// false when p's function is not on the chain.
func (r *Result) cloneArg(ch *cloneChain, p *ssa.Parameter) ([]Obj, bool) {
	i := slices.Index(ch.funcs, p.Parent())
	j := slices.Index(p.Parent().Params, p)
	if i < 0 || j < 0 || j >= len(ch.calls[i].Args) {
		return nil, false
	}
	arg := ch.calls[i].Args[j]
	if i > 0 {
		switch a := ssavalue.Unconverted(arg).(type) {
		case *ssa.MakeClosure:
			return []Obj{{Site: a, Clone: ch.site}}, true
		case *ssa.Parameter:
			return r.cloneArg(ch, a)
		}
	}
	return r.PointsTo(arg), true
}

// paramCell returns the parameter whose value the cell of a captured
// variable holds for the whole run that made it: its function stores
// that parameter to it once, nothing else writes it, and its address
// goes nowhere but to loads, that store and closures that only load it
// (ssavalue.Loaders and ssavalue.Stores follow the closures, nested or
// not). Nil otherwise.
func paramCell(cell *ssa.Alloc) *ssa.Parameter {
	if _, escapes := ssavalue.Loaders(cell); escapes {
		return nil
	}
	stores := ssavalue.Stores(cell)
	if len(stores) != 1 {
		return nil
	}
	p, ok := stores[0].Val.(*ssa.Parameter)
	if !ok || p.Parent() != cell.Parent() {
		return nil
	}
	return p
}

// PointsTo returns the objects v may point to, or nil if v is not a
// pointer-like value the analysis tracked.
func (r *Result) PointsTo(v ssa.Value) []Obj {
	if r.pts == nil {
		return nil // no result (see Limit)
	}
	n, ok := r.nodes[v]
	if !ok {
		if g, ok := v.(*ssa.Global); ok {
			// Only read and written as a scalar: never given a node.
			return []Obj{{Site: g}}
		}
		return nil
	}
	var out []Obj
	for _, id := range r.pts[n] {
		out = append(out, r.objs[id])
	}
	return out
}

// Intersect reports whether some object of xs may alias some of ys.
func Intersect(xs, ys []Obj) bool {
	for _, x := range xs {
		for _, y := range ys {
			if x.MayAlias(y) {
				return true
			}
		}
	}
	return false
}

type heapKey struct {
	site     ssa.Value
	external string
	path     string
}

// constraint kinds attached to a pointer node, applied to each object the
// node comes to point to.
type kind int

const (
	kLoad      kind = iota // dst ⊇ *o
	kStore                 // *o ⊇ src
	kField                 // dst ∋ &o.field
	kElemLoad              // dst ⊇ o[*]
	kElemStore             // o[*] ⊇ src
	kLoadAll               // dst ⊇ every field of *o (whole-struct load)
	kStoreAll              // every field of *o ⊇ src (whole-struct store)
)

type constraint struct {
	kind  kind
	other int      // dst or src node
	step  string   // for kField
	paths []string // for kLoadAll and kStoreAll: the paths inside the struct

	// on, for kField, is the type of the operand the step selects in (a
	// pointer to a struct or array, or a slice); sel the selection's.
	on, sel types.Type
}

type edge struct {
	dst   int
	clone ssa.CallInstruction // non-nil: clone factory objects of fn
	fn    *ssa.Function
	// filter, when non-nil, lets through only the objects that a value
	// of this type may point to (see admits).
	filter types.Type
}

type solver struct {
	res    *Result
	budget *budget.Budget
	facts  int // (node, object) pairs added and not yet charged to the budget
	// pts holds the sets while solving (not []Sparse: a Sparse must not
	// be copied). They are frozen into res.pts after, because a Sparse
	// writes to itself on first read and the checks read concurrently.
	pts       []*intsets.Sparse
	objID     map[Obj]int
	heap      map[heapKey]int
	edges     [][]edge
	complex   [][]constraint
	delta     []*intsets.Sparse
	spare     *intsets.Sparse // an empty set, swapped with a node's delta
	diff      intsets.Sparse  // scratch of apply
	ids       []int           // scratch of solve
	work      []int
	queued    []bool
	types     []types.Type // of value nodes; nil for heap and return nodes
	rets      map[retKey]int
	factories map[*ssa.Function]map[ssa.Value]bool
	cg        *callgraph.Result

	// selected holds, for objects whose type objType cannot tell (made
	// outside the package, or paths into those), the types of the
	// selections that made them (see selects).
	selected map[int][]types.Type
}

func run(pass *analysis.Pass) (any, error) {
	cg := pass.ResultOf[callgraph.Analyzer].(*callgraph.Result)
	s := &solver{
		res:       &Result{nodes: map[ssa.Value]int{}, heap: map[ssa.Value][]heapCell{}},
		objID:     map[Obj]int{},
		heap:      map[heapKey]int{},
		rets:      map[retKey]int{},
		selected:  map[int][]types.Type{},
		factories: map[*ssa.Function]map[ssa.Value]bool{},
		cg:        cg,
		budget:    pass.ResultOf[budget.Analyzer].(*budget.Budget),
		spare:     new(intsets.Sparse),
	}
	var funcs []*ssa.Function
	for fn := range cg.Graph.Nodes {
		if fn != nil && len(fn.Blocks) > 0 {
			funcs = append(funcs, fn)
		}
	}
	// Deterministic object numbering.
	slices.SortFunc(funcs, callgraph.CompareFuncs)
	for _, fn := range funcs {
		s.function(fn)
	}
	if !s.solve() {
		s.res.Limit = fmt.Sprintf("points-to analysis stopped %s; precog's checks are silent on this package", s.budget.Reason())
		s.budget.Skip(s.res.Limit)
		s.res.pts = nil
		return s.res, nil
	}
	s.res.pts = make([][]int, len(s.pts))
	for i, set := range s.pts {
		s.res.pts[i] = set.AppendTo(nil)
	}
	s.escapes(funcs)
	return s.res, nil
}

func (s *solver) newNode() int {
	s.pts = append(s.pts, new(intsets.Sparse))
	s.delta = append(s.delta, new(intsets.Sparse))
	s.edges = append(s.edges, nil)
	s.complex = append(s.complex, nil)
	s.queued = append(s.queued, false)
	s.types = append(s.types, nil)
	s.res.concrete = append(s.res.concrete, false)
	return len(s.pts) - 1
}

// node returns the node of value v, creating it.
func (s *solver) node(v ssa.Value) int {
	if n, ok := s.res.nodes[v]; ok {
		return n
	}
	n := s.newNode()
	s.res.nodes[v] = n
	s.types[n] = v.Type()
	switch v := v.(type) {
	case *ssa.Global:
		s.addObj(n, Obj{Site: v})
	case *ssa.Function:
		// Function constants point to nothing of interest.
	}
	return n
}

func (s *solver) obj(o Obj) int {
	if id, ok := s.objID[o]; ok {
		return id
	}
	id := len(s.res.objs)
	s.res.objs = append(s.res.objs, o)
	s.objID[o] = id
	return id
}

func (s *solver) addObj(n int, o Obj) {
	id := s.obj(o)
	if s.pts[n].Insert(id) {
		s.facts++
		s.delta[n].Insert(id)
		s.push(n)
	}
}

func (s *solver) push(n int) {
	if !s.queued[n] {
		s.queued[n] = true
		s.work = append(s.work, n)
	}
}

// heapNode returns the node of the memory o points to: heap memory is
// told apart by site and path, not by clone.
func (s *solver) heapNode(o Obj) int {
	k := heapKey{site: o.Site, external: o.External, path: o.Path}
	if n, ok := s.heap[k]; ok {
		return n
	}
	n := s.newNode()
	s.heap[k] = n
	if o.Site != nil {
		s.res.heap[o.Site] = append(s.res.heap[o.Site], heapCell{path: o.Path, node: n})
	}
	return n
}

// typed records that the memory behind heap node n holds values of the
// type of value node v.
func (s *solver) typed(n, v int) {
	if t := s.types[v]; t != nil && !types.IsInterface(t) {
		s.res.concrete[n] = true
	}
}

func (s *solver) copy(dst, src int) {
	s.addEdge(src, edge{dst: dst})
}

func (s *solver) addEdge(src int, e edge) {
	s.edges[src] = append(s.edges[src], e)
	if !s.pts[src].IsEmpty() {
		s.apply(e, s.pts[src])
	}
}

func (s *solver) apply(e edge, set *intsets.Sparse) {
	if e.filter != nil {
		for _, id := range set.AppendTo(nil) {
			if o := s.res.objs[id]; Admits(e.filter, o) {
				s.addObj(e.dst, o)
			}
		}
		return
	}
	if e.clone == nil {
		diff := &s.diff
		diff.Difference(set, s.pts[e.dst])
		if !diff.IsEmpty() {
			s.pts[e.dst].UnionWith(diff)
			s.facts += diff.Len()
			s.delta[e.dst].UnionWith(diff)
			s.push(e.dst)
		}
		return
	}
	for _, id := range set.AppendTo(nil) {
		o := s.res.objs[id]
		if o.Clone == nil && o.Site != nil && s.factories[e.fn][o.Site] {
			o.Clone = e.clone
		}
		s.addObj(e.dst, o)
	}
}

func (s *solver) addComplex(n int, c constraint) {
	s.complex[n] = append(s.complex[n], c)
	for _, id := range s.pts[n].AppendTo(nil) {
		s.applyComplex(c, s.res.objs[id])
	}
}

func (s *solver) applyComplex(c constraint, o Obj) {
	switch c.kind {
	case kField:
		if s.selects(c, o) {
			s.addObj(c.other, o.Select(c.step))
		}
	case kLoad:
		s.typed(s.heapNode(o), c.other)
		s.copy(c.other, s.heapNode(o))
		s.external(o, c.other)
	case kStore:
		s.typed(s.heapNode(o), c.other)
		s.copy(s.heapNode(o), c.other)
	case kElemLoad:
		s.typed(s.heapNode(o.Select(ElemPath)), c.other)
		s.copy(c.other, s.heapNode(o.Select(ElemPath)))
		s.external(o, c.other)
	case kElemStore:
		s.typed(s.heapNode(o.Select(ElemPath)), c.other)
		s.copy(s.heapNode(o.Select(ElemPath)), c.other)
	case kLoadAll:
		// A struct value carries the pointers of all its fields.
		for _, p := range c.paths {
			s.copy(c.other, s.heapNode(o.Select(p)))
		}
		s.external(o, c.other)
	case kStoreAll:
		for _, p := range c.paths {
			s.copy(s.heapNode(o.Select(p)), c.other)
		}
	}
}

// selects reports whether field or element step c may select in object
// o: whether o may be of the type c selects in. A struct holds no struct
// of its own type, so the paths of well-typed selections are as deep as
// their types nest; a selection on an object of another type (one that
// reached the operand through an interface value that held objects of many
// types) makes a path no memory has, and each such path is selected in
// again, field after field, until the paths reach their bound: gobwas/ws's
// Reader wraps readers of three types behind io.Reader, and its fields
// selected on one another's objects made 5,700 paths of each allocation
// and spent the whole budget. Objects whose type objType cannot tell are
// told by the selections that made them: the external object behind an
// io.Reader may be of any type, but what a selection of field raw of a
// *Reader made in it is an io.LimitedReader.
func (s *solver) selects(c constraint, o Obj) bool {
	want := filterable(c.on)
	if want == nil {
		return true
	}
	id := s.obj(o)
	if objType(o) != nil {
		if !Admits(c.on, o) {
			return false
		}
	} else if seen := s.selected[id]; len(seen) > 0 && !slices.ContainsFunc(seen, func(t types.Type) bool {
		return types.Identical(want, filterable(t))
	}) {
		return false
	}
	if sel := o.Select(c.step); objType(sel) == nil && c.sel != nil {
		sid := s.obj(sel)
		if !slices.ContainsFunc(s.selected[sid], func(t types.Type) bool { return types.Identical(t, c.sel) }) {
			s.selected[sid] = append(s.selected[sid], c.sel)
		}
	}
	return true
}

// external makes a load from an object made outside the package yield an
// object made outside the package, of the loaded value's type.
func (s *solver) external(o Obj, dst int) {
	if o.External != "" && s.types[dst] != nil && mayPoint(s.types[dst]) {
		s.addObj(dst, Obj{External: types.TypeString(s.types[dst], nil)})
	}
}

// Admits reports whether a value of type t, the concrete type a type
// assertion asks for, may point to o. A pointer of type *S points to an
// object of type S (or of a type with S's underlying type), a map or
// channel value to a map or channel of its type. An interface value holds
// objects of every dynamic type that flowed into it (a func(msg any) that
// type-switches on *Request and *Response sees both), and without this
// filter the case for one type gets the objects of the other, and through
// their fields everything they hold. Objects whose type is unknown (made
// outside the package, results of calls without a body, memory reached
// through a path the types do not follow) are always let through, as is
// every object when t is not such a type or involves type parameters.
func Admits(t types.Type, o Obj) bool {
	want := filterable(t)
	if want == nil || o.Site == nil {
		return true
	}
	got := objType(o)
	if got == nil {
		return true
	}
	return types.Identical(want, filterable(got))
}

// filterable returns the type that decides which objects a value of type
// t may point to (the underlying type of a pointer's element, or of a map
// or channel), or nil when the filter does not apply to t.
func filterable(t types.Type) types.Type {
	if t == nil || typeparams(t) {
		return nil
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return types.NewPointer(u.Elem().Underlying())
	case *types.Map, *types.Chan:
		return u
	}
	return nil
}

// typeparams reports whether t mentions a type parameter.
func typeparams(t types.Type) bool {
	found := false
	var visit func(types.Type, int)
	visit = func(t types.Type, depth int) {
		if found || depth > 8 {
			return
		}
		switch t := t.(type) {
		case *types.TypeParam:
			found = true
		case *types.Named:
			if args := t.TypeArgs(); args != nil {
				for i := range args.Len() {
					visit(args.At(i), depth+1)
				}
			}
		case *types.Pointer:
			visit(t.Elem(), depth+1)
		case *types.Slice:
			visit(t.Elem(), depth+1)
		case *types.Array:
			visit(t.Elem(), depth+1)
		case *types.Map:
			visit(t.Key(), depth+1)
			visit(t.Elem(), depth+1)
		case *types.Chan:
			visit(t.Elem(), depth+1)
		}
	}
	visit(t, 0)
	return found
}

// objType returns the type of a pointer to o: for an allocation, its
// pointer; for a map or channel made, its own type; for a path into the
// object, a pointer to the field or element it selects. It returns nil
// when the type is unknown.
func objType(o Obj) types.Type {
	var t types.Type // the type of the memory at the path
	switch site := o.Site.(type) {
	case *ssa.Alloc:
		t = site.Type().Underlying().(*types.Pointer).Elem()
	case *ssa.Global:
		t = site.Type().Underlying().(*types.Pointer).Elem()
	case *ssa.MakeMap, *ssa.MakeChan:
		if o.Path == "" {
			return site.Type()
		}
		t = site.Type()
	case *ssa.MakeSlice:
		if o.Path == "" {
			return nil // the array behind the slice
		}
		t = site.Type()
	default:
		return nil
	}
	for path := o.Path; path != ""; {
		switch {
		case strings.HasPrefix(path, ElemPath):
			path = path[len(ElemPath):]
			switch u := t.Underlying().(type) {
			case *types.Array:
				t = u.Elem()
			case *types.Slice:
				t = u.Elem()
			case *types.Map:
				return nil // keys and values are stored there alike
			case *types.Chan:
				t = u.Elem()
			default:
				return nil
			}
		case strings.HasPrefix(path, "."):
			end := strings.IndexAny(path[1:], ".[*")
			if end < 0 {
				end = len(path) - 1
			}
			name := path[1 : 1+end]
			path = path[1+end:]
			st, ok := t.Underlying().(*types.Struct)
			if !ok {
				return nil
			}
			var f *types.Var
			for i := range st.NumFields() {
				if st.Field(i).Name() == name {
					f = st.Field(i)
				}
			}
			if f == nil {
				return nil
			}
			t = f.Type()
		default:
			return nil
		}
	}
	return types.NewPointer(t)
}

// solve propagates to a fixed point, or gives up when the budget runs
// out. Every fact it derives is one unit of work: the number of facts is
// at most the number of nodes times the number of objects, and each is
// propagated once along each edge.
func (s *solver) solve() bool {
	for len(s.work) > 0 {
		if !s.budget.Spend(s.facts + 1) {
			return false
		}
		s.facts = 0
		n := s.work[len(s.work)-1]
		s.work = s.work[:len(s.work)-1]
		s.queued[n] = false
		// Take n's delta, leaving it a cleared set to collect what
		// reaches n meanwhile.
		d := s.delta[n]
		s.delta[n], s.spare = s.spare, nil
		if d.IsEmpty() {
			s.spare = d
			continue
		}
		ids := d.AppendTo(s.ids[:0])
		s.ids = ids
		for _, c := range s.complex[n] {
			for _, id := range ids {
				s.applyComplex(c, s.res.objs[id])
			}
		}
		for _, e := range s.edges[n] {
			s.apply(e, d)
		}
		d.Clear()
		s.spare = d
	}
	return true
}

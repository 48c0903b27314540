package sharedloc

import (
	_ "embed"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// Analyzer finds the accesses of the package to shared locations.
var Analyzer = &analysis.Analyzer{
	Name:       "sharedloc",
	Doc:        analyzerutil.MustExtractDoc(doc, "sharedloc"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/sharedloc",
	Requires:   []*analysis.Analyzer{ssabuild.Analyzer, goroutines.Analyzer},
	ResultType: reflect.TypeFor[*Result](),
	Run: analyzerutil.Guard(run, func() any {
		r := &Result{ByLoc: map[Loc][]*Access{}, local: map[*Access]bool{}, shared: map[sharedKey]bool{}}
		r.coll = &collector{res: r, params: map[*ssa.Parameter]bool{}}
		return r
	}),
}

// Op is the operation an access performs.
type Op int

const (
	Load        Op = iota + 1 // read of a variable or field
	Store                     // write of a variable or field
	MapLookup                 // m[k], v, ok := m[k]
	MapUpdate                 // m[k] = v
	MapDelete                 // delete(m, k), clear(m)
	MapRange                  // for k, v := range m
	ChanSend                  // ch <- v, including a select case
	ChanRecv                  // <-ch, including a select case
	ChanClose                 // close(ch)
	AtomicLoad                // sync/atomic load
	AtomicStore               // sync/atomic store, add, swap, compare-and-swap
)

var opNames = [...]string{
	Load: "read", Store: "write", MapLookup: "map read", MapUpdate: "map write",
	MapDelete: "map delete", MapRange: "map iteration", ChanSend: "send", ChanRecv: "receive",
	ChanClose: "close", AtomicLoad: "atomic read", AtomicStore: "atomic write",
}

func (op Op) String() string { return opNames[op] }

// IsWrite reports whether op modifies its location.
func (op Op) IsWrite() bool {
	switch op {
	case Store, MapUpdate, MapDelete, ChanClose, AtomicStore:
		return true
	}
	return false
}

// IsAtomic reports whether op is a sync/atomic operation.
func (op Op) IsAtomic() bool { return op == AtomicLoad || op == AtomicStore }

// An Access is one instruction's access to a location.
type Access struct {
	Instr ssa.Instruction
	Loc   Loc
	Op    Op
	// Val is the value written by a Store or MapUpdate, or nil.
	Val ssa.Value
	// Base is the root of the address: the parameter, global, captured
	// cell or allocation the access path starts from, or nil if unknown.
	Base ssa.Value
	// Ptr is the pointer the access goes through: the address of a load,
	// store or atomic operation, or the map, slice or channel value whose
	// contents it touches.
	Ptr ssa.Value
	// At is the position of the access when it is not the instruction's:
	// the arrow of one case of a select, the return statement of a named
	// result's reload.
	At token.Pos
}

// Pos returns the position of the access in the source.
func (a *Access) Pos() token.Pos {
	if a.At.IsValid() {
		return a.At
	}
	return a.Instr.Pos()
}

// Fn returns the function containing the access.
func (a *Access) Fn() *ssa.Function { return a.Instr.Parent() }

// Addr returns the address operand of a plain load or store (the p of
// *p or *p = v), nil for the other accesses.
func (a *Access) Addr() ssa.Value {
	switch in := a.Instr.(type) {
	case *ssa.UnOp:
		return in.X
	case *ssa.Store:
		return in.Addr
	}
	return nil
}

// Result holds the package's accesses to shared locations.
type Result struct {
	// Accesses lists the accesses in the order of the functions and
	// instructions of the package.
	Accesses []*Access
	// ByLoc indexes Accesses by location.
	ByLoc map[Loc][]*Access
	// ByInstr indexes Accesses by instruction.
	ByInstr map[ssa.Instruction][]*Access
	// Goroutines is the goroutines analyzer's result.
	Goroutines *goroutines.Result

	mu     sync.Mutex
	local  map[*Access]bool
	shared map[sharedKey]bool
	// Memos of freshAt and sharedIn, pure functions of their arguments
	// that branch at every call site: with them a package's queries cost
	// at most one step per (value, instruction or context, depth) they
	// reach, instead of a number exponential in maxSharingDepth.
	fresh    map[depthKey]bool
	sharedAt map[depthKey]bool
	// through memoizes LocalThrough.
	through map[throughKey]bool
	// kept memoizes keeps.
	kept map[*ssa.Parameter]bool
	coll *collector
}

// A depthKey is the argument of a memoized recursive query: a value, the
// instruction or context it is asked at, and the depth left.
type depthKey struct {
	v     ssa.Value
	at    ssa.Instruction
	c     *goroutines.Context
	depth int
	// entering is freshAt's: at is a call handing v to its callee.
	entering bool
}

// Locs returns the locations of ByLoc in the order of their first access,
// so that checks that walk locations report in a stable order.
func (r *Result) Locs() []Loc {
	var out []Loc
	seen := make(map[Loc]bool)
	for _, a := range r.Accesses {
		if !seen[a.Loc] {
			seen[a.Loc] = true
			out = append(out, a.Loc)
		}
	}
	return out
}

// Objects returns the locations that may hold the object that the pointer,
// map, slice or channel value v refers to: the field, variable or captured
// variable it was loaded from or whose address it is, or the make or new
// that created it, following parameters to their call sites in the
// package. It returns nil when it cannot tell.
func (r *Result) Objects(v ssa.Value) []Loc {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.coll.locs(v)
}

func run(pass *analysis.Pass) (any, error) {
	gr := pass.ResultOf[goroutines.Analyzer].(*goroutines.Result)
	r := &Result{
		ByLoc:      make(map[Loc][]*Access),
		ByInstr:    make(map[ssa.Instruction][]*Access),
		Goroutines: gr,
		local:      make(map[*Access]bool),
		shared:     make(map[sharedKey]bool),
		fresh:      make(map[depthKey]bool),
		sharedAt:   make(map[depthKey]bool),
	}
	c := &collector{res: r, params: make(map[*ssa.Parameter]bool)}
	r.coll = c
	for _, fn := range gr.Funcs() {
		if len(gr.Of(fn)) == 0 {
			continue
		}
		live := Live(fn)
		for _, b := range fn.Blocks {
			if !live[b.Index] {
				continue
			}
			for _, instr := range b.Instrs {
				c.instr(instr)
			}
		}
	}
	return r, nil
}

// Live reports, by block index, the blocks of fn that can run: those
// reachable from its entry (or its recover block) without taking the
// branch of an if whose condition is a constant that rules it out, as in
// `if debug { ... }` with `const debug = false`. The accesses of a dead
// block are not collected: they never run, so they neither race nor
// order anything.
func Live(fn *ssa.Function) []bool {
	live := make([]bool, len(fn.Blocks))
	var stack []*ssa.BasicBlock
	if len(fn.Blocks) > 0 {
		stack = append(stack, fn.Blocks[0])
	}
	if fn.Recover != nil {
		stack = append(stack, fn.Recover)
	}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if live[b.Index] {
			continue
		}
		live[b.Index] = true
		succs := b.Succs
		if len(b.Instrs) > 0 {
			if ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If); ok && len(succs) == 2 {
				if k, ok := ifi.Cond.(*ssa.Const); ok && k.Value != nil && k.Value.Kind() == constant.Bool {
					if constant.BoolVal(k.Value) {
						succs = succs[:1]
					} else {
						succs = succs[1:]
					}
				}
			}
		}
		stack = append(stack, succs...)
	}
	return live
}

type collector struct {
	res    *Result
	params map[*ssa.Parameter]bool // parameters being followed, against cycles
	steps  int                     // containerLocs calls in the current query
}

// maxLocSteps bounds the calls of containerLocs that one query makes: it
// branches at every call site of a parameter's function, up to
// ssavalue.MaxDepth deep, and is not memoized (see paramLocs). A query
// that needs more gives up, as one that reaches the depth does.
const maxLocSteps = 1 << 12

// locs returns the locations of container v (see containerLocs), or nil
// when finding them takes more than maxLocSteps steps.
func (c *collector) locs(v ssa.Value) []Loc {
	c.steps = 0
	out := c.containerLocs(v, ssavalue.MaxDepth)
	if c.steps > maxLocSteps {
		return nil
	}
	return out
}

func (c *collector) add(instr ssa.Instruction, loc Loc, op Op, val, ptr ssa.Value) *Access {
	a := &Access{Instr: instr, Loc: loc, Op: op, Val: val, Base: Root(ptr), Ptr: ptr}
	c.res.Accesses = append(c.res.Accesses, a)
	c.res.ByLoc[loc] = append(c.res.ByLoc[loc], a)
	c.res.ByInstr[instr] = append(c.res.ByInstr[instr], a)
	return a
}

func (c *collector) instr(instr ssa.Instruction) {
	switch in := instr.(type) {
	case *ssa.UnOp:
		switch in.Op {
		case token.MUL:
			if loc, ok := AddrLoc(in.X); ok {
				a := c.add(in, loc, Load, nil, in.X)
				if !in.Pos().IsValid() {
					a.At = returnOf(in)
				}
			} else if ia, ok := in.X.(*ssa.IndexAddr); ok {
				c.contents(in, ia.X, Load, nil)
			}
		case token.ARROW:
			c.contents(in, in.X, ChanRecv, nil)
		}
	case *ssa.Store:
		if loc, ok := AddrLoc(in.Addr); ok {
			c.add(in, loc, Store, in.Val, in.Addr)
		} else if ia, ok := in.Addr.(*ssa.IndexAddr); ok {
			c.contents(in, ia.X, Store, in.Val)
		}
	case *ssa.Lookup:
		if _, ok := in.X.Type().Underlying().(*types.Map); ok {
			c.contents(in, in.X, MapLookup, nil)
		}
	case *ssa.MapUpdate:
		c.contents(in, in.Map, MapUpdate, in.Value)
	case *ssa.Range:
		if _, ok := in.X.Type().Underlying().(*types.Map); ok {
			c.contents(in, in.X, MapRange, nil)
		}
	case *ssa.Send:
		c.contents(in, in.Chan, ChanSend, in.X)
	case *ssa.Select:
		for _, st := range in.States {
			op := ChanRecv
			if st.Dir == types.SendOnly {
				op = ChanSend
			}
			for _, a := range c.contents(in, st.Chan, op, st.Send) {
				a.At = st.Pos
			}
		}
	case *ssa.Call:
		c.call(in)
	case *ssa.Defer:
		c.call(in)
	}
}

// returnOf returns the position of the return statement whose result
// load is, or token.NoPos: go/ssa reloads a function's named results (or
// the results of a function with defers) right before its Return, without
// a position of their own, and a bare return has no result expression to
// point at.
func returnOf(load *ssa.UnOp) token.Pos {
	instrs := load.Block().Instrs
	for _, instr := range instrs[slices.Index(instrs, ssa.Instruction(load))+1:] {
		if ret, ok := instr.(*ssa.Return); ok && slices.Contains(ret.Results, ssa.Value(load)) {
			return ret.Pos()
		}
	}
	return token.NoPos
}

// call records the accesses of a call or deferred call: builtins that
// touch containers, and sync/atomic operations.
func (c *collector) call(call ssa.CallInstruction) {
	common := call.Common()
	if b, ok := common.Value.(*ssa.Builtin); ok {
		switch b.Name() {
		case "close":
			c.contents(call, common.Args[0], ChanClose, nil)
		case "delete":
			c.contents(call, common.Args[0], MapDelete, nil)
		case "clear":
			if _, ok := common.Args[0].Type().Underlying().(*types.Map); ok {
				c.contents(call, common.Args[0], MapDelete, nil)
			}
		}
		return
	}
	name := model.CalleeName(common)
	if op, ok := AtomicOp(name); ok && len(common.Args) > 0 {
		if loc, ok := AddrLoc(common.Args[0]); ok {
			var val ssa.Value
			if op == AtomicStore && len(common.Args) > 1 {
				val = common.Args[len(common.Args)-1]
			}
			c.add(call, loc, op, val, common.Args[0])
		}
	}
}

// AtomicOp classifies sync/atomic functions and methods of its types, by
// their full name (model.CalleeName), as loads and stores.
func AtomicOp(name string) (Op, bool) {
	rest, ok := strings.CutPrefix(name, "sync/atomic.")
	if !ok {
		rest, ok = strings.CutPrefix(name, "(*sync/atomic.")
		if !ok {
			return 0, false
		}
		_, rest, _ = strings.Cut(rest, ").")
	}
	if strings.HasPrefix(rest, "Load") {
		return AtomicLoad, true
	}
	for _, p := range []string{"Store", "Add", "Swap", "CompareAndSwap", "And", "Or"} {
		if strings.HasPrefix(rest, p) {
			return AtomicStore, true
		}
	}
	return 0, false
}

// contents records accesses to the contents of the container value v.
//
// The pointer of an access to a channel looked up in a map is the map:
// the channels of its entries are the map's contents (chanMap), and the
// objects the checks compare are the map's, as for an element of a slice.
func (c *collector) contents(instr ssa.Instruction, v ssa.Value, op Op, val ssa.Value) []*Access {
	ptr := v
	if m := chanMap(v); m != nil {
		ptr = m
	}
	var out []*Access
	for _, loc := range c.locs(v) {
		out = append(out, c.add(instr, loc.Contents(), op, val, ptr))
	}
	return out
}

// AddrLoc returns the location that the address addr denotes, if it is a
// field, a package variable or a captured variable.
func AddrLoc(addr ssa.Value) (Loc, bool) {
	switch a := addr.(type) {
	case *ssa.FieldAddr:
		if f := ssavalue.Field(a); f != nil {
			return Loc{Kind: Field, Obj: f}, true
		}
	case *ssa.Global:
		if obj := a.Object(); obj != nil {
			return Loc{Kind: Global, Obj: obj}, true
		}
	case *ssa.Alloc, *ssa.FreeVar:
		if cell := ssavalue.Cell(a); cell != nil && isCaptured(cell) {
			return Loc{Kind: Captured, Cell: cell}, true
		}
	}
	return Loc{}, false
}

// isCaptured reports whether cell is a local variable that some closure
// captures.
func isCaptured(cell *ssa.Alloc) bool {
	if !cell.Heap {
		return false
	}
	for _, r := range *cell.Referrers() {
		if _, ok := r.(*ssa.MakeClosure); ok {
			return true
		}
	}
	return false
}

// containerLocs returns the locations that hold the container value v
// (whose contents are accessed), following loads, reslicing, phis and,
// for parameters, the arguments of every call site in the package.
func (c *collector) containerLocs(v ssa.Value, depth int) []Loc {
	c.steps++
	if depth == 0 || c.steps > maxLocSteps {
		return nil
	}
	switch v := v.(type) {
	case *ssa.UnOp:
		if v.Op == token.MUL {
			if loc, ok := AddrLoc(v.X); ok {
				return []Loc{loc}
			}
			if ia, ok := v.X.(*ssa.IndexAddr); ok {
				// An element of a container of containers: all the
				// inner containers are one location.
				var out []Loc
				for _, l := range c.containerLocs(ia.X, depth-1) {
					out = append(out, l.Contents())
				}
				return out
			}
		}
	case *ssa.FieldAddr, *ssa.Global:
		// An array held in a field or variable, indexed in place.
		if loc, ok := AddrLoc(v); ok {
			return []Loc{loc}
		}
	case *ssa.Alloc:
		if cell := ssavalue.Cell(v); cell != nil && isCaptured(cell) {
			return []Loc{{Kind: Captured, Cell: cell}}
		}
		return []Loc{{Kind: Made, Cell: v}}
	case *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeSlice:
		return []Loc{{Kind: Made, Cell: v}}
	case *ssa.Call:
		// A channel a getter returns is the field's, or the package
		// variable's, that it reads.
		if locs := c.getterLocs(v, depth-1); len(locs) > 0 {
			return locs
		}
		// An object returned by a call and used from this value, such
		// as s := stream.New(); s.Go(f); s.Wait().
		return []Loc{{Kind: Made, Cell: v}}
	case *ssa.Lookup, *ssa.Extract:
		// A channel kept as a map's value: the channels of all the
		// map's entries are one location, its contents, as the
		// containers in a slice's elements are (a registry's done
		// channels, closed by whoever finds one).
		if m := chanMap(v); m != nil {
			var out []Loc
			for _, l := range c.containerLocs(m, depth-1) {
				out = append(out, l.Contents())
			}
			return out
		}
	case *ssa.Slice:
		return c.containerLocs(v.X, depth-1)
	case *ssa.ChangeType:
		return c.containerLocs(v.X, depth-1)
	case *ssa.MakeInterface:
		return c.containerLocs(v.X, depth-1)
	case *ssa.Phi:
		var out []Loc
		for _, e := range v.Edges {
			out = appendNew(out, c.containerLocs(e, depth-1)...)
		}
		return out
	case *ssa.FreeVar:
		if b := ssavalue.Binding(v); b != nil {
			return c.containerLocs(b, depth-1)
		}
	case *ssa.Parameter:
		return c.paramLocs(v, depth-1)
	}
	return nil
}

// getterLocs returns, for a call whose one result is a channel, the
// locations of the fields or package variables that its static callee
// returns the channel of, on every return: a load of one (`return
// l.ready`, through a conversion to a receive-only channel, or through
// the result variable that go/ssa keeps for a function that defers a
// call, as a getter that locks does), or the result of another such
// getter. The channel a receive or send through the call's result
// touches is then one of those the location names, as for a receive from
// the field itself (`<-l.Ready()` is `<-l.ready`); each call's own Made
// location would pair it with nothing. It returns nil for any other call.
func (c *collector) getterLocs(call *ssa.Call, depth int) []Loc {
	if _, ok := call.Type().Underlying().(*types.Chan); !ok || depth <= 0 {
		return nil
	}
	fn := call.Call.StaticCallee()
	if fn == nil || len(fn.Blocks) == 0 || fn.Signature.Results().Len() != 1 {
		return nil
	}
	var out []Loc
	var result func(v ssa.Value) bool
	result = func(v ssa.Value) bool {
		if c.steps++; c.steps > maxLocSteps {
			return false
		}
		switch v := ssavalue.Unconverted(v).(type) {
		case *ssa.UnOp:
			if v.Op != token.MUL {
				return false
			}
			if loc, ok := AddrLoc(v.X); ok && (loc.Kind == Field || loc.Kind == Global) {
				out = appendNew(out, loc)
				return true
			}
			// The result variable: every value stored to it, or nil
			// (from the recover block after a panic before the
			// store), a channel no one sends on or receives from.
			cell, ok := v.X.(*ssa.Alloc)
			if !ok || cell.Heap || cell.Parent() != fn || !all(*cell.Referrers(), func(ref ssa.Instruction) bool { return ssavalue.LoadsOrStores(cell, ref) }) {
				return false
			}
			vals := ssavalue.StoresTo(cell)
			return len(vals) > 0 && all(vals, result)
		case *ssa.Call:
			locs := c.getterLocs(v, depth-1)
			out = appendNew(out, locs...)
			return len(locs) > 0
		}
		return false
	}
	returns := 0
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if ret, ok := instr.(*ssa.Return); ok {
				if len(ret.Results) != 1 || !result(ret.Results[0]) {
					return nil
				}
				returns++
			}
		}
	}
	if returns == 0 {
		return nil
	}
	return out
}

func all[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}

// chanMap returns the map that v, a channel, was looked up in (m[k], or
// the value of v, ok := m[k]), or nil.
func chanMap(v ssa.Value) ssa.Value {
	if _, ok := v.Type().Underlying().(*types.Chan); !ok {
		return nil
	}
	switch v := v.(type) {
	case *ssa.Lookup:
		if !v.CommaOk {
			if _, ok := v.X.Type().Underlying().(*types.Map); ok {
				return v.X
			}
		}
	case *ssa.Extract:
		if l, ok := v.Tuple.(*ssa.Lookup); ok && l.CommaOk && v.Index == 0 {
			if _, ok := l.X.Type().Underlying().(*types.Map); ok {
				return l.X
			}
		}
	}
	return nil
}

// paramLocs follows a container parameter to the arguments of its call
// sites, including `go` statements, when the function is not exported
// (an exported function may be called with any container).
func (c *collector) paramLocs(p *ssa.Parameter, depth int) []Loc {
	// No memo: what a query finds must not depend on which queries came
	// before it (the checks query concurrently). A parameter met again
	// on the way is a cycle, which adds nothing.
	if c.params[p] {
		return nil
	}
	c.params[p] = true
	defer delete(c.params, p)
	fn := p.Parent()
	idx := -1
	for i, q := range fn.Params {
		if q == p {
			idx = i
		}
	}
	var out []Loc
	if obj := fn.Object(); idx >= 0 && fn.Parent() == nil && (obj == nil || !obj.Exported()) {
		for _, e := range c.res.Goroutines.CallGraph.Callers(fn) {
			args := e.Site.Common().Args
			if e.Site.Common().IsInvoke() {
				// The receiver is Value, not an argument.
				idx := idx - 1
				if idx < 0 || idx >= len(args) {
					continue
				}
				out = appendNew(out, c.containerLocs(args[idx], depth)...)
				continue
			}
			if idx < len(args) {
				out = appendNew(out, c.containerLocs(args[idx], depth)...)
			}
		}
	}
	return out
}

func appendNew(out []Loc, locs ...Loc) []Loc {
	for _, l := range locs {
		dup := false
		for _, o := range out {
			if o == l {
				dup = true
			}
		}
		if !dup {
			out = append(out, l)
		}
	}
	return out
}

// Root returns the root of the address or value v: the value an access
// path such as s.conn.buf[i] starts from (s), looking through field and
// element selection, loads of pointers, conversions, and loads of
// captured variables, which give the variable's cell.
func Root(v ssa.Value) ssa.Value { return RootVia(v, nil) }

// RootVia returns Root(v), and calls through, unless it is nil, with
// each value the walk passes on its way from v to the root, v first (the
// root itself, and a load of a captured variable that gives its cell,
// are not passed): the steps of the access path, which a check comparing
// two paths from one root reads (ordering's SentAfterOwnWrite).
func RootVia(v ssa.Value, through func(ssa.Value)) ssa.Value {
	for range 32 {
		var next ssa.Value
		switch x := v.(type) {
		case *ssa.FieldAddr:
			next = x.X
		case *ssa.Field:
			next = x.X
		case *ssa.IndexAddr:
			next = x.X
		case *ssa.Index:
			next = x.X
		case *ssa.Slice:
			next = x.X
		case *ssa.ChangeType:
			next = x.X
		case *ssa.Convert:
			next = x.X
		case *ssa.MakeInterface:
			next = x.X
		case *ssa.TypeAssert:
			next = x.X
		case *ssa.UnOp:
			if x.Op != token.MUL {
				return v
			}
			if cell := ssavalue.Cell(x.X); cell != nil {
				return cell
			}
			next = x.X
		case *ssa.FreeVar:
			if cell := ssavalue.Cell(x); cell != nil {
				return cell
			}
			if next = ssavalue.Binding(x); next == nil {
				return v
			}
		default:
			return v
		}
		if through != nil {
			through(v)
		}
		v = next
	}
	return v
}

package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/internal/analyzerutil"
	"github.com/precog-dev/precog/pipeline/rewrite"
	"github.com/precog-dev/precog/shim/trace"
)

// Two-steps: which functions of the program call two locking operations
// of one object one after the other (trace.Site.After). detect/oscs needs
// the fact to tell a library's own two-step, which relies on both calls
// seeing the same state (StringBuffer's Append calls other.Length() and
// then other.GetChars(0, n, ...): the multi-variable atomicity shape of
// Mozilla-1 and MySQL1-A through two calls), from a test's loop that
// drives a lock-per-operation structure (Set, then Get, then Set...): in
// a trace both are one goroutine's neighbor critical sections of one lock,
// and a run records no call stacks by default.
//
// A locking operation is a function that takes a lock on an object it is
// given (a method's receiver, a function's first argument, or what is
// reached from it through fields, elements and pointers) or on a
// package-level variable, itself or through the operations it calls on
// such objects (fastcache's (*Cache).Set locks the bucket it picks from
// c.buckets). A two-step is a function declared outside _test.go files
// that calls an operation and then, on a path of its control flow graph
// (a loop's next iteration included), an operation of the same object:
// the same variable, or the same field path from it, or the same
// package-level variable. Calls through interfaces and function values
// are not followed, and test code never makes a two-step.

// maxLockRefs bounds the locks one function's fact lists; maxPathDepth
// the field, element and pointer steps followed from an object.
const (
	maxLockRefs  = 64
	maxPathDepth = 16
)

// lockStepAnalyzer exports a lockStepFact for every locking operation and
// returns the package's two-steps ([]lockPair).
var lockStepAnalyzer = &analysis.Analyzer{
	Name:       "lockstep",
	Doc:        "find the functions that call two locking operations of one object in sequence",
	Run:        runLockStep,
	FactTypes:  []analysis.Fact{new(lockStepFact)},
	ResultType: reflect.TypeOf([]lockPair(nil)),
}

// A lockStepFact lists the Lock calls that a call of the function makes
// on the object it is given or on package-level variables.
type lockStepFact struct {
	Locks []lockRef
}

// A lockRef is one Lock call of a locking operation.
type lockRef struct {
	At     string // the Lock call's line, file:line (its site's: the rewriter and go/ssa place a call at different columns)
	Global string // the package-level variable locked through, or "" for the argument's object
}

func (*lockStepFact) AFact() {}

func (f *lockStepFact) String() string {
	var b strings.Builder
	for i, l := range f.Locks {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(l.At)
		if l.Global != "" {
			b.WriteString("@" + l.Global)
		}
	}
	return b.String()
}

// A lockPair is a two-step: a non-test function calls the operation that
// locks at From, then one that locks at To, on the same object.
type lockPair struct {
	From, To string // Lock lines, file:line
}

type lockStep struct {
	pass  *analysis.Pass
	locks map[*ssa.Function][]lockRef
	busy  map[*ssa.Function]bool
	// helpers are the package's lock helpers (lockHelpers), whose lock
	// operation the rewriter records at each call: a call of one is a
	// Lock call at the call's line.
	helpers map[*types.Func]*rewrite.LockHelper
}

func runLockStep(pass *analysis.Pass) (any, error) {
	if analyzerutil.InGOROOT(pass) {
		// The standard library's Lock calls have no sites (it is not
		// instrumented), so its facts could name none.
		return []lockPair(nil), nil
	}
	srcFuncs := analyzerutil.BuildSSA(pass)
	ls := &lockStep{pass: pass, locks: make(map[*ssa.Function][]lockRef), busy: make(map[*ssa.Function]bool)}
	if asm, ok := asmNames(pass.OtherFiles); ok {
		ls.helpers = lockHelpers(pass.Pkg, pass.TypesInfo, pass.Files, asm, func(f *ast.File) bool { return !importsC(f) })
	}
	for _, fn := range srcFuncs {
		if refs := ls.of(fn); len(refs) > 0 && fn.Parent() == nil {
			if obj, ok := fn.Object().(*types.Func); ok && obj.Pkg() == pass.Pkg {
				pass.ExportObjectFact(obj, &lockStepFact{Locks: refs})
			}
		}
	}
	seen := make(map[lockPair]bool)
	var pairs []lockPair
	for _, fn := range srcFuncs {
		if !fn.Pos().IsValid() || strings.HasSuffix(pass.Fset.PositionFor(fn.Pos(), false).Filename, "_test.go") {
			continue
		}
		for _, p := range ls.twoSteps(fn) {
			if !seen[p] {
				seen[p] = true
				pairs = append(pairs, p)
			}
		}
	}
	slices.SortFunc(pairs, func(a, b lockPair) int {
		return strings.Compare(a.From+"\x00"+a.To, b.From+"\x00"+b.To)
	})
	return pairs, nil
}

// isLock reports whether fn is a lock acquisition of package sync.
func isLock(fn *ssa.Function) bool { return lockOp(fn) == lockCall }

// of returns the Lock calls that a call of fn makes on its first
// parameter's object (Global "") or on package-level variables.
func (ls *lockStep) of(fn *ssa.Function) []lockRef {
	if fn == nil {
		return nil
	}
	if o := fn.Origin(); o != nil {
		fn = o
	}
	if refs, ok := ls.locks[fn]; ok {
		return refs
	}
	if fn.Pkg == nil || fn.Pkg.Pkg != ls.pass.Pkg {
		var f lockStepFact
		if obj, ok := fn.Object().(*types.Func); ok && ls.pass.ImportObjectFact(obj, &f) {
			ls.locks[fn] = f.Locks
			return f.Locks
		}
		ls.locks[fn] = nil
		return nil
	}
	if ls.busy[fn] {
		return nil // recursion: what the outer call finds is enough
	}
	ls.busy[fn] = true
	defer delete(ls.busy, fn)
	var param ssa.Value
	if len(fn.Params) > 0 {
		param = fn.Params[0]
	}
	var refs []lockRef
	add := func(r lockRef) {
		if len(refs) < maxLockRefs && !slices.Contains(refs, r) {
			refs = append(refs, r)
		}
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(*ssa.Call)
			if !ok {
				continue
			}
			for _, r := range ls.callLocks(call) {
				switch {
				case r.global != "":
					add(lockRef{At: r.at, Global: r.global})
				case param != nil && r.base == param:
					add(lockRef{At: r.at})
				}
			}
		}
	}
	ls.locks[fn] = refs
	return refs
}

// A callLock is one Lock call that a call makes, with the object it is
// taken on: base and path name it in the caller (the value the path of
// fields, elements and pointers starts from), global when it is a
// package-level variable's.
type callLock struct {
	at     string
	base   ssa.Value
	path   string
	global string
}

// callLocks returns the Lock calls that call makes, directly or through
// the operation it calls.
func (ls *lockStep) callLocks(call *ssa.Call) []callLock {
	c := call.Common()
	callee := c.StaticCallee()
	if callee == nil {
		return nil
	}
	var obj ssa.Value
	if len(c.Args) > 0 {
		obj = c.Args[0]
	}
	if isLock(callee) {
		if obj == nil {
			return nil
		}
		base, path, global := objectOf(obj)
		return []callLock{{at: ls.pos(call.Pos()), base: base, path: path, global: global}}
	}
	var out []callLock
	helper := false
	if f, ok := callee.Object().(*types.Func); ok && ls.helpers[f.Origin()] != nil {
		helper = true
	}
	for _, r := range ls.of(callee) {
		if helper {
			// The rewriter records the helper's Lock at the call.
			r.At = ls.pos(call.Pos())
		}
		if r.Global != "" {
			// Only from the package's own functions: a package's
			// operations on its own state, not every lock of the
			// standard library that a call reaches.
			if callee.Pkg != nil && callee.Pkg.Pkg == ls.pass.Pkg {
				out = append(out, callLock{at: r.At, global: r.Global})
			}
			continue
		}
		if obj == nil {
			continue
		}
		base, path, global := objectOf(obj)
		out = append(out, callLock{at: r.At, base: base, path: path, global: global})
	}
	return out
}

// objectOf names the object v is: the value its path of field, element
// and pointer steps starts from, the path, and the package-level
// variable's name when it starts from one.
func objectOf(v ssa.Value) (ssa.Value, string, string) {
	var path []string
	for range maxPathDepth {
		switch x := v.(type) {
		case *ssa.FieldAddr:
			path = append(path, "."+fieldName(x.X.Type().Underlying().(*types.Pointer).Elem(), x.Field))
			v = x.X
			continue
		case *ssa.Field:
			path = append(path, "."+fieldName(x.X.Type(), x.Field))
			v = x.X
			continue
		case *ssa.IndexAddr:
			path = append(path, "[]")
			v = x.X
			continue
		case *ssa.Index:
			path = append(path, "[]")
			v = x.X
			continue
		case *ssa.UnOp:
			if x.Op == token.MUL {
				path = append(path, "*")
				v = x.X
				continue
			}
		case *ssa.ChangeType:
			v = x.X
			continue
		}
		break
	}
	slices.Reverse(path)
	p := strings.Join(path, "")
	if g, ok := v.(*ssa.Global); ok {
		name := g.Name()
		if g.Pkg != nil {
			name = g.Pkg.Pkg.Path() + "." + name
		}
		return v, p, name + p
	}
	return v, p, ""
}

func fieldName(t types.Type, i int) string {
	if s, ok := t.Underlying().(*types.Struct); ok && i < s.NumFields() {
		return s.Field(i).Name()
	}
	return strconv.Itoa(i)
}

func (ls *lockStep) pos(p token.Pos) string {
	pos := ls.pass.Fset.PositionFor(p, false)
	return fmt.Sprintf("%s:%d", absPath(pos.Filename), pos.Line)
}

// twoSteps returns the two-steps of fn: for every call of a locking
// operation, and every later call on a path from it (itself again in a
// loop), the pairs of their Lock calls on one object.
func (ls *lockStep) twoSteps(fn *ssa.Function) []lockPair {
	type site struct {
		b, i  int
		locks []callLock
	}
	var calls []site
	for bi, b := range fn.Blocks {
		for i, instr := range b.Instrs {
			if call, ok := instr.(*ssa.Call); ok {
				if locks := ls.callLocks(call); len(locks) > 0 {
					calls = append(calls, site{bi, i, locks})
				}
			}
		}
	}
	if len(calls) == 0 {
		return nil
	}
	reach := make(map[int][]bool) // block -> blocks reached through at least one edge
	reached := func(from int) []bool {
		if r, ok := reach[from]; ok {
			return r
		}
		r := make([]bool, len(fn.Blocks))
		work := []*ssa.BasicBlock{fn.Blocks[from]}
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			for _, s := range b.Succs {
				if !r[s.Index] {
					r[s.Index] = true
					work = append(work, s)
				}
			}
		}
		reach[from] = r
		return r
	}
	var pairs []lockPair
	for _, c1 := range calls {
		for _, c2 := range calls {
			if !(c1.b == c2.b && c1.i < c2.i) && !reached(c1.b)[c2.b] {
				continue
			}
			for _, l1 := range c1.locks {
				for _, l2 := range c2.locks {
					if sameObject(l1, l2) {
						pairs = append(pairs, lockPair{From: l1.at, To: l2.at})
					}
				}
			}
		}
	}
	return pairs
}

// absPath is the rewriter's file name for a site (trace.Site.File).
func absPath(name string) string {
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return name
}

func sameObject(a, b callLock) bool {
	if a.global != "" || b.global != "" {
		return a.global == b.global
	}
	return a.base == b.base && a.path == b.path
}

// addSteps fills trace.Site.After of the lock sites from the two-steps.
func addSteps(sites []trace.Site, steps []lockPair) {
	if len(steps) == 0 {
		return
	}
	at := make(map[string][]int) // lock line -> indices in sites (one Lock a line, as a rule)
	after := make(map[int][]uint32)
	for i, s := range sites {
		switch s.Kind {
		case "lock", "rlock", "trylock", "tryrlock":
			k := s.File + ":" + strconv.Itoa(s.Line)
			at[k] = append(at[k], i)
		}
	}
	for _, p := range steps {
		for _, to := range at[p.To] {
			for _, from := range at[p.From] {
				after[to] = append(after[to], sites[from].ID)
			}
		}
	}
	for i, ids := range after {
		slices.Sort(ids)
		var b strings.Builder
		for j, id := range slices.Compact(ids) {
			if j > 0 {
				b.WriteString(" ")
			}
			b.WriteString(strconv.FormatUint(uint64(id), 10))
		}
		sites[i].After = b.String()
	}
}

package spawnfacts

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
)

// WaitGroupFact marks a function that calls Add, Done or Wait on a
// sync.WaitGroup it reaches from one of its parameters: a wrapper such as
// ristretto's z.Closer (Done calls lc.waiting.Done(), SignalAndWait ends
// with lc.waiting.Wait()) or a helper handed the WaitGroup itself. A call
// of the function then stands, at its call site, for the operation on the
// WaitGroup the argument reaches, so that the ordering analysis joins a
// goroutine that defers lc.Done() with the code after lc.SignalAndWait()
// as it joins one that defers wg.Done() with the code after wg.Wait().
type WaitGroupFact struct {
	Ops []WaitGroupOp
}

// A WaitGroupOp is one operation of a WaitGroupFact.
//
// Only what a call of the function may stand for is recorded: a Wait that
// runs on every path to the function's returns (code after the call is
// after the Wait); a Done that the function makes at most once per call,
// outside loops, in its own body (the call is then one Done); any Add,
// in the body or in a closure of it (Must when the Add runs on every path
// to the returns, in the body): an Add the analysis missed could let the
// checks take a goroutine that counts itself as joined.
type WaitGroupOp struct {
	Op    string // model.WaitGroupAdd, WaitGroupDone or WaitGroupWait
	Param int    // index into the call's arguments, receiver first
	// Path holds the indexes of the struct fields that lead from the
	// parameter to the WaitGroup, each through a pointer or in place;
	// empty when the parameter is the *sync.WaitGroup itself.
	Path []int
	Must bool
}

// AFact marks WaitGroupFact as an analysis.Fact.
func (*WaitGroupFact) AFact() {}

func (f *WaitGroupFact) String() string {
	s := make([]string, len(f.Ops))
	for i, op := range f.Ops {
		s[i] = op.String()
	}
	return "waitgroup(" + strings.Join(s, "; ") + ")"
}

func (op WaitGroupOp) String() string {
	name := op.Op[strings.LastIndexByte(op.Op, '.')+1:]
	path := fmt.Sprint(op.Param)
	for _, f := range op.Path {
		path += fmt.Sprintf(".%d", f)
	}
	if op.Op == model.WaitGroupAdd && op.Must {
		name += "!"
	}
	return name + " " + path
}

func (op WaitGroupOp) key() string { return op.String() }

// WaitGroupOps returns the operations on WaitGroups that call stands for,
// from the WaitGroupFacts of its static callee (of this package or an
// imported one).
func (r *Result) WaitGroupOps(call *ssa.CallCommon) []WaitGroupOp {
	if call.IsInvoke() {
		return nil
	}
	callee := call.StaticCallee()
	if callee == nil {
		return nil
	}
	return calleeFact(callee, r.wgOps, r.wgImported, func(f *WaitGroupFact) []WaitGroupOp { return f.Ops })
}

// calleeFact returns what local holds for callee, one of this package's
// functions (by funcKey), or else what of takes from imported's fact for
// its generic origin, a function of another package; the zero value when
// neither has it.
func calleeFact[T any, F any](callee *ssa.Function, local map[*types.Func]T, imported map[*types.Func]F, of func(F) T) T {
	if k := funcKey(callee); k != nil {
		if v, ok := local[k]; ok {
			return v
		}
	}
	if obj, ok := callee.Object().(*types.Func); ok {
		if f, ok := imported[obj.Origin()]; ok {
			return of(f)
		}
	}
	var zero T
	return zero
}

// WaitGroupField returns the struct field that op's Path names, starting
// from a value of type t (the call's argument), or nil when the path is
// empty or does not fit t.
func WaitGroupField(t types.Type, path []int) *types.Var {
	var field *types.Var
	for _, i := range path {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return nil
		}
		field = st.Field(i).Origin()
		t = field.Type()
	}
	return field
}

// findWaitGroupOps computes the WaitGroupFacts of the package's named
// functions, iterating because a wrapper may call another one
// (SignalAndWait calls Wait).
func (b *builder) findWaitGroupOps(funcs []*ssa.Function) {
	if b.pass.Pkg.Path() == "sync" {
		// The model knows WaitGroup's own methods (Done is an Add of
		// -1 inside).
		return
	}
	for round := 0; round < 8; round++ {
		changed := false
		for _, fn := range funcs {
			k := funcKey(fn)
			if k == nil || fn.Signature == nil || len(fn.Blocks) == 0 {
				continue
			}
			ops := b.waitGroupOps(fn)
			if !slices.EqualFunc(ops, b.res.wgOps[k], func(x, y WaitGroupOp) bool { return x.key() == y.key() }) {
				if len(ops) == 0 {
					delete(b.res.wgOps, k)
				} else {
					b.res.wgOps[k] = ops
				}
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for _, fn := range funcs {
		k := funcKey(fn)
		if k == nil {
			continue
		}
		if ops := b.res.wgOps[k]; len(ops) > 0 {
			if obj, ok := fn.Object().(*types.Func); ok && obj.Exported() {
				b.pass.ExportObjectFact(obj, &WaitGroupFact{Ops: ops})
			}
		}
	}
}

// wgSite is one operation on a WaitGroup reached from a parameter of the
// function being summarized.
type wgSite struct {
	op     WaitGroupOp
	instr  ssa.Instruction
	inBody bool // in the function's own body, not in a closure of it
}

// waitGroupOps summarizes fn.
func (b *builder) waitGroupOps(fn *ssa.Function) []WaitGroupOp {
	var sites []wgSite
	var walk func(f *ssa.Function)
	walk = func(f *ssa.Function) {
		for _, blk := range f.Blocks {
			for _, instr := range blk.Instrs {
				site, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				if _, isGo := instr.(*ssa.Go); isGo && f == fn {
					// Runs on another goroutine: only its Adds count,
					// found below through the closure.
					continue
				}
				call := site.Common()
				var ops []WaitGroupOp
				switch name := model.CalleeName(call); name {
				case model.WaitGroupAdd, model.WaitGroupDone, model.WaitGroupWait:
					if !call.IsInvoke() && len(call.Args) > 0 {
						ops = []WaitGroupOp{{Op: name, Param: 0, Must: true}}
					}
				default:
					ops = b.res.WaitGroupOps(call)
				}
				for _, op := range ops {
					if op.Param >= len(call.Args) {
						continue
					}
					param, path, ok := paramPath(fn, call.Args[op.Param])
					if !ok {
						continue
					}
					sites = append(sites, wgSite{
						op:     WaitGroupOp{Op: op.Op, Param: param, Path: append(path, op.Path...), Must: op.Must},
						instr:  instr,
						inBody: f == fn,
					})
				}
			}
		}
		for _, anon := range f.AnonFuncs {
			walk(anon)
		}
	}
	walk(fn)
	returns := ssaflow.Returns(fn)
	onEveryPath := func(instr ssa.Instruction) bool {
		if len(returns) == 0 {
			return false
		}
		for _, ret := range returns {
			if !instr.Block().Dominates(ret.Block()) {
				return false
			}
		}
		return true
	}
	var out []WaitGroupOp
	seen := map[string]bool{}
	addOp := func(op WaitGroupOp) {
		if !seen[op.key()] {
			seen[op.key()] = true
			out = append(out, op)
		}
	}
	doneCount := map[string]int{}
	for _, s := range sites {
		if s.op.Op == model.WaitGroupDone {
			doneCount[WaitGroupOp{Op: s.op.Op, Param: s.op.Param, Path: s.op.Path}.key()]++
		}
	}
	for _, s := range sites {
		op := s.op
		switch op.Op {
		case model.WaitGroupWait:
			if s.inBody && op.Must && onEveryPath(s.instr) {
				addOp(WaitGroupOp{Op: op.Op, Param: op.Param, Path: op.Path, Must: true})
			}
		case model.WaitGroupDone:
			k := WaitGroupOp{Op: op.Op, Param: op.Param, Path: op.Path}.key()
			if s.inBody && doneCount[k] == 1 && !b.flow.InLoop(s.instr) {
				addOp(WaitGroupOp{Op: op.Op, Param: op.Param, Path: op.Path})
			}
		case model.WaitGroupAdd:
			must := s.inBody && op.Must && onEveryPath(s.instr)
			if must {
				delete(seen, WaitGroupOp{Op: op.Op, Param: op.Param, Path: op.Path}.key())
			} else if seen[WaitGroupOp{Op: op.Op, Param: op.Param, Path: op.Path, Must: true}.key()] {
				continue
			}
			addOp(WaitGroupOp{Op: op.Op, Param: op.Param, Path: op.Path, Must: must})
		}
	}
	// A may-Add left beside a must-Add on the same WaitGroup says
	// nothing more.
	out = slices.DeleteFunc(out, func(op WaitGroupOp) bool {
		return op.Op == model.WaitGroupAdd && !op.Must &&
			seen[WaitGroupOp{Op: op.Op, Param: op.Param, Path: op.Path, Must: true}.key()]
	})
	slices.SortFunc(out, func(x, y WaitGroupOp) int { return strings.Compare(x.key(), y.key()) })
	return out
}

// paramPath returns the parameter of fn that v is reached from, and the
// struct fields on the way (p.f.g: loads of pointer fields and addresses
// of fields in place).
func paramPath(fn *ssa.Function, v ssa.Value) (int, []int, bool) {
	var path []int
	for depth := 0; depth < 8; depth++ {
		switch x := v.(type) {
		case *ssa.Parameter:
			if x.Parent() != fn {
				return 0, nil, false
			}
			i := slices.Index(fn.Params, x)
			if i < 0 {
				return 0, nil, false
			}
			slices.Reverse(path)
			return i, path, true
		case *ssa.FieldAddr:
			path = append(path, x.Field)
			v = x.X
		case *ssa.Field:
			path = append(path, x.Field)
			v = x.X
		case *ssa.FreeVar:
			// A closure of fn (an Add in a goroutine it starts)
			// captures the parameter itself.
			bound := ssavalue.Binding(x)
			if bound == nil {
				return 0, nil, false
			}
			v = bound
		case *ssa.UnOp:
			if x.Op != token.MUL {
				return 0, nil, false
			}
			if _, ok := x.X.(*ssa.FieldAddr); ok {
				v = x.X
				continue
			}
			// A parameter captured by a closure of fn (an Add in a
			// goroutine it starts) lives in a cell: follow the one
			// value ever stored there.
			cell := ssavalue.Cell(x.X)
			if cell == nil || cell.Parent() != fn {
				return 0, nil, false
			}
			stored := ssavalue.StoresTo(cell)
			if len(stored) != 1 {
				return 0, nil, false
			}
			v = stored[0]
		default:
			return 0, nil, false
		}
	}
	return 0, nil, false
}

package spawnfacts

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/types/typeutil"
)

// StartsFact marks a function that may start a goroutine: its body has a
// go statement, or calls (statically, or defers) a function that may.
// Calls through interfaces and function values are not followed, so a
// function without the fact may still start one: the fact only says where
// goroutines may be created (shim.MarkF), never where they are not.
type StartsFact struct{ Own bool }

// AFact marks StartsFact as an analysis.Fact.
func (*StartsFact) AFact() {}

func (f *StartsFact) String() string {
	if f.Own {
		return "starts goroutines"
	}
	return "starts goroutines through a call"
}

// findStarts exports the StartsFacts of the package's functions and
// returns the positions (Lparen) of the package's calls of functions and
// methods of other packages that have one.
func (b *builder) findStarts(funcs []*ssa.Function) {
	starts := make(map[*ssa.Function]bool)
	own := make(map[*ssa.Function]bool)
	imported := make(map[*types.Func]bool)
	// importedStarts reports whether obj, a function or method of another
	// package, has a StartsFact.
	importedStarts := func(obj *types.Func) bool {
		if obj == nil || obj.Pkg() == nil || obj.Pkg() == b.pass.Pkg {
			return false
		}
		obj = obj.Origin()
		s, done := imported[obj]
		if !done {
			var f StartsFact
			s = b.pass.ImportObjectFact(obj, &f)
			imported[obj] = s
		}
		return s
	}
	for _, fn := range funcs {
		for _, blk := range fn.Blocks {
			for _, instr := range blk.Instrs {
				if _, ok := instr.(*ssa.Go); ok {
					starts[fn], own[fn] = true, true
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, fn := range funcs {
			if starts[fn] {
				continue
			}
			for _, blk := range fn.Blocks {
				for _, instr := range blk.Instrs {
					site, ok := instr.(ssa.CallInstruction)
					if !ok || starts[fn] {
						continue
					}
					if _, isGo := instr.(*ssa.Go); isGo {
						continue
					}
					callee := site.Common().StaticCallee()
					if callee == nil {
						continue
					}
					if o := callee.Origin(); o != nil {
						callee = o
					}
					if obj, _ := callee.Object().(*types.Func); starts[callee] || importedStarts(obj) {
						starts[fn] = true
						changed = true
					}
				}
			}
		}
	}
	if b.pass.Pkg.Path() == "context" {
		contextStarts(starts)
	}
	for _, fn := range funcs {
		if !starts[fn] || fn.Parent() != nil {
			continue
		}
		if obj, ok := fn.Object().(*types.Func); ok && obj.Pkg() == b.pass.Pkg {
			b.pass.ExportObjectFact(obj.Origin(), &StartsFact{Own: own[fn]})
		}
	}
	b.res.starts = make(map[token.Pos]bool)
	for _, f := range b.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			// An interface method has no static callee (nil).
			if importedStarts(typeutil.StaticCallee(b.pass.TypesInfo, c)) {
				b.res.starts[c.Lparen] = true
			}
			return true
		})
	}
}

// contextStarts is the model of package context's starts: only AfterFunc
// starts a goroutine that runs its caller's code (f, during the call when
// the context is done already, where a mark orders f after what the caller
// did before it). The goroutine that propagateCancel starts, through which
// WithCancel, WithCancelCause, WithDeadline, WithTimeout and the rest
// would have the fact, waits for a parent of the caller's own Context
// type (one that is neither the package's cancelCtx nor has an AfterFunc
// method) and calls nothing but that parent's Done, Err and Value and the
// package's cancel: a mark on those calls, in most code that uses
// contexts, only made every test binary run under
// GODEBUG=tracebackancestors, which costs each go statement (pond's
// NewPool: 1.21x of its CPU; bench/RESULTS.md, reccost23).
func contextStarts(starts map[*ssa.Function]bool) {
	for fn := range starts {
		if fn.Name() != "AfterFunc" || fn.Parent() != nil || fn.Signature.Recv() != nil {
			delete(starts, fn)
		}
	}
}

// StartCalls returns the positions (Lparen) of the package's calls of
// functions and methods of other packages that may start goroutines (see
// StartsFact).
func (r *Result) StartCalls() map[token.Pos]bool { return r.starts }

var _ analysis.Fact = (*StartsFact)(nil)

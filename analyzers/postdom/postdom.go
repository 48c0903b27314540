package postdom

import (
	_ "embed"
	"fmt"
	"reflect"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/budget"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// MaxBlocks is the largest function, in basic blocks, that gets a tree.
// The iteration converges in a few passes over the blocks on the graphs
// Go code produces; the bound keeps a generated giant from dominating a
// package's analysis time.
const MaxBlocks = 20_000

// Analyzer builds the post-dominator trees of the package's functions.
var Analyzer = &analysis.Analyzer{
	Name:       "postdom",
	Doc:        analyzerutil.MustExtractDoc(doc, "postdom"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/postdom",
	Requires:   []*analysis.Analyzer{ssabuild.Analyzer, budget.Analyzer},
	ResultType: reflect.TypeFor[*Result](),
	Run:        analyzerutil.Guard(run, func() any { return &Result{trees: map[*ssa.Function]*Tree{}, noReturn: map[*ssa.Function]bool{}} }),
}

// Result holds the trees of a package's source functions and their
// closures.
type Result struct {
	trees    map[*ssa.Function]*Tree
	noReturn map[*ssa.Function]bool
	// Skipped lists the functions without a tree: over MaxBlocks, or met
	// after the package's budget ran out.
	Skipped []*ssa.Function
}

// Of returns fn's tree, built without the loop heuristic, or nil if fn
// is not a function of the package or has more than MaxBlocks blocks.
func (r *Result) Of(fn *ssa.Function) *Tree { return r.trees[fn] }

// NoReturn reports whether fn, a function of the package, never returns
// to its caller: every path through it panics, exits or loops forever.
func (r *Result) NoReturn(fn *ssa.Function) bool { return r.noReturn[fn] }

// Build builds fn's tree with opts. noReturn reports the functions whose
// calls end a path, besides the known library ones (Result.NoReturn for
// the package's own; nil for none). It returns nil when fn has no body
// or more than MaxBlocks blocks.
func (r *Result) Build(fn *ssa.Function, opts Options) *Tree {
	return Build(fn, opts, func(f *ssa.Function) bool { return r.noReturn[f] })
}

func run(pass *analysis.Pass) (any, error) {
	// SrcFuncs holds the closures too, each after its parent.
	funcs := pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA).SrcFuncs
	r := &Result{trees: make(map[*ssa.Function]*Tree), noReturn: make(map[*ssa.Function]bool)}
	isNoReturn := func(f *ssa.Function) bool { return r.noReturn[f] }
	// A fixed point: a function that calls only functions that never
	// return never returns either. Each round adds at least one function
	// or stops, so there are at most len(funcs)+1 rounds.
	for changed := true; changed; {
		changed = false
		for _, fn := range funcs {
			if r.noReturn[fn] || len(fn.Blocks) == 0 || len(fn.Blocks) > MaxBlocks {
				continue
			}
			if !returns(fn, isNoReturn) {
				r.noReturn[fn] = true
				changed = true
			}
		}
	}
	b := pass.ResultOf[budget.Analyzer].(*budget.Budget)
	for _, fn := range funcs {
		if len(fn.Blocks) > MaxBlocks || !b.Spend(len(fn.Blocks)) {
			r.Skipped = append(r.Skipped, fn)
			continue
		}
		if t := Build(fn, Options{}, isNoReturn); t != nil {
			r.trees[fn] = t
		}
	}
	if n := len(r.Skipped); n > 0 {
		b.Skip(fmt.Sprintf("post-dominator trees of %d functions (CFP logs those functions' callees)", n))
	}
	return r, nil
}

// returns reports whether some path from fn's entry reaches a return.
func returns(fn *ssa.Function, noReturn func(*ssa.Function) bool) bool {
	if fn.Recover != nil {
		return true
	}
	seen := make([]bool, len(fn.Blocks))
	stack := []*ssa.BasicBlock{fn.Blocks[0]}
	seen[0] = true
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if cut(b, noReturn) >= 0 {
			continue
		}
		if _, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok {
			return true
		}
		for _, s := range b.Succs {
			if !seen[s.Index] {
				seen[s.Index] = true
				stack = append(stack, s)
			}
		}
	}
	return false
}

// cut returns the index in b.Instrs of the first call in b that never
// returns, or -1.
func cut(b *ssa.BasicBlock, noReturn func(*ssa.Function) bool) int {
	for i, instr := range b.Instrs {
		call, ok := instr.(*ssa.Call)
		if !ok {
			continue
		}
		if callee := call.Call.StaticCallee(); callee != nil && noReturn != nil && noReturn(callee) {
			return i
		}
		if model.NoReturn(model.CalleeName(&call.Call)) {
			return i
		}
	}
	return -1
}

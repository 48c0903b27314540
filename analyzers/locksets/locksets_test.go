package locksets_test

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/budget"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/fixturetest"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/locksets"
)

// held reports the lock set just before each call of a function named
// mark, so that testdata states it with // want comments:
//
//	held: T.mu(w), pkg.rw(r)
//
// Each mutex is named by its location, with (w) for write mode and (r)
// for read mode, sorted by name; "held: none" is the empty set.
var held = &analysis.Analyzer{
	Name:     "held",
	Doc:      "report the locks held at each call of mark",
	Requires: []*analysis.Analyzer{ssabuild.Analyzer, locksets.Analyzer},
	Run:      runHeld,
}

func runHeld(pass *analysis.Pass) (any, error) {
	lr := pass.ResultOf[locksets.Analyzer].(*locksets.Result)
	for _, call := range markCalls(pass) {
		pass.Reportf(call.Pos(), "held: %s", render(lr.At(call)))
	}
	return nil, nil
}

// markCalls yields each call of a function named mark in the package's
// source functions, with the function it is in.
func markCalls(pass *analysis.Pass) iter.Seq2[*ssa.Function, *ssa.Call] {
	return func(yield func(*ssa.Function, *ssa.Call) bool) {
		for _, fn := range pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA).SrcFuncs {
			for _, b := range fn.Blocks {
				for _, instr := range b.Instrs {
					call, ok := instr.(*ssa.Call)
					if !ok {
						continue
					}
					if callee := call.Call.StaticCallee(); callee == nil || callee.Name() != "mark" {
						continue
					}
					if !yield(fn, call) {
						return
					}
				}
			}
		}
	}
}

func render(s locksets.Set) string {
	if len(s) == 0 {
		return "none"
	}
	var parts []string
	for _, h := range s {
		mode := "w"
		if h.Mode == locksets.Read {
			mode = "r"
		}
		parts = append(parts, fmt.Sprintf("%s(%s)", h.Mutex, mode))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// order reports, at each call of mark, the mutexes of the lock set just
// before it in the set's own order (the solver's numbering, which the
// checks' related lines follow), after solving the package again
// orderRuns times and finding that order the same each time.
var order = &analysis.Analyzer{
	Name:     "order",
	Doc:      "report the order of the locks held at each call of mark",
	Requires: append(slices.Clone(locksets.Analyzer.Requires), locksets.Analyzer),
	Run:      runOrder,
}

// orderRuns is how many times runOrder solves the package again: the
// flags' numbering followed map order before, and changed in about one
// run of ten.
const orderRuns = 60

func runOrder(pass *analysis.Pass) (any, error) {
	seen := func(lr *locksets.Result) []string {
		var out []string
		for _, call := range markCalls(pass) {
			var names []string
			for _, h := range lr.At(call) {
				names = append(names, h.Mutex.String())
			}
			out = append(out, strings.Join(names, ", "))
		}
		return out
	}
	first := seen(pass.ResultOf[locksets.Analyzer].(*locksets.Result))
	again := *pass
	again.Analyzer = locksets.Analyzer
	for i := range orderRuns {
		res, err := locksets.Analyzer.Run(&again)
		if err != nil {
			return nil, err
		}
		if got := seen(res.(*locksets.Result)); !slices.Equal(got, first) {
			return nil, fmt.Errorf("run %d: lock sets in order %q, the first run %q", i+1, got, first)
		}
	}
	i := 0
	for _, call := range markCalls(pass) {
		pass.Reportf(call.Pos(), "order: %s", first[i])
		i++
	}
	return nil, nil
}

// heldIn reports, at each call of mark, the lock set just before it on the
// goroutines of each context its function runs in (Result.InContext), so
// that testdata states them with // want comments:
//
//	held: caller -; (*T).loop T.mu(w)
//
// Each context is named by its entry function ("caller" for the Caller
// context), sorted by name.
var heldIn = &analysis.Analyzer{
	Name:     "heldin",
	Doc:      "report the locks held at each call of mark per goroutine context",
	Requires: []*analysis.Analyzer{ssabuild.Analyzer, goroutines.Analyzer, locksets.Analyzer},
	Run:      runHeldIn,
}

func runHeldIn(pass *analysis.Pass) (any, error) {
	gr := pass.ResultOf[goroutines.Analyzer].(*goroutines.Result)
	lr := pass.ResultOf[locksets.Analyzer].(*locksets.Result)
	for fn, call := range markCalls(pass) {
		var parts []string
		for _, c := range gr.Of(fn) {
			name := "caller"
			if c.Entry != nil {
				name = c.Entry.RelString(pass.Pkg)
			}
			parts = append(parts, name+" "+render(lr.InContext(c, nil).At(call)))
		}
		slices.Sort(parts)
		pass.Reportf(call.Pos(), "held: %s", strings.Join(parts, "; "))
	}
	return nil, nil
}

// ctxBudget counts, in *n, the goroutine contexts that get a lock set
// solution of their own under the budget b.
func ctxBudget(b *budget.Budget, n *int) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:     "ctxbudget",
		Doc:      "count the goroutine contexts that get a solution of their own",
		Requires: []*analysis.Analyzer{goroutines.Analyzer, locksets.Analyzer},
		Run: func(pass *analysis.Pass) (any, error) {
			gr := pass.ResultOf[goroutines.Analyzer].(*goroutines.Result)
			lr := pass.ResultOf[locksets.Analyzer].(*locksets.Result)
			for _, c := range gr.Contexts {
				if lr.InContext(c, b) != nil {
					*n++
				}
			}
			return nil, nil
		},
	}
}

func TestLockSets(t *testing.T) {
	// The extra solutions are charged to the package's budget: with the
	// budget spent, InContext gives none and InTest the solution over
	// every context, while without a limit a context of the same package
	// gets one that holds more.
	var unlimited, none int
	spent := budget.New(0, 0, 1)
	spent.Spend(2)
	fixturetest.Run(t, analysistest.TestData(),
		fixturetest.Case{Name: "Held", Analyzer: held, Patterns: []string{
			"lockunlock", "rwmodes", "deferunlock", "branches", "trylock",
			"embedded", "helpers", "entry", "hiddenrecv", "striped", "condlock", "condfield", "ptrwrapper", "txlock", "walkcb", "chanlock", "flaglock", "flagkeys", "heapcb", "promotedhelper", "constarg", "taskloop", "lockall", "constcallback"}},
		// Two flag locks held at once are listed in one order on every run.
		fixturetest.Case{Name: "Order", Analyzer: order, Patterns: []string{"flagorder"}},
		fixturetest.Case{Name: "InContext", Analyzer: heldIn, Patterns: []string{"callerctx"}},
		fixturetest.Case{Name: "InContextUnlimited", Analyzer: ctxBudget(nil, &unlimited), Patterns: []string{"ctxbudget"},
			Check: func(t *testing.T, _ []*analysistest.Result) {
				if unlimited == 0 {
					t.Fatalf("no limit: %d contexts solved; want some", unlimited)
				}
			}},
		fixturetest.Case{Name: "InContextBudgetSpent", Analyzer: ctxBudget(spent, &none), Patterns: []string{"ctxbudget"},
			Apart: true, // InContext keeps the solutions it gave
			Check: func(t *testing.T, _ []*analysistest.Result) {
				if none != 0 {
					t.Errorf("budget spent: %d contexts solved; want none", none)
				}
			}},
	)
}

package ordering_test

import (
	"fmt"
	"go/constant"
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
	"github.com/precog-dev/precog/analyzers/ordering"
)

// order reports, at each call b("tag"), how it is ordered with the call
// a("tag") of the same tag when the two run on different goroutines, so
// that testdata states it with // want comments:
//
//	tag: a before b by wait
//	tag: b before a by goroutine start
//	tag: ordered by hand-off
//	tag: unordered
//
// Every pair of contexts of the two calls (other than one context that is
// not Multi) must give the same answer, or the report lists them all;
// "tag: same goroutine" says there was no such pair.
var order = &analysis.Analyzer{
	Name:     "order",
	Doc:      "report whether calls a(tag) happen before calls b(tag)",
	Requires: []*analysis.Analyzer{ssabuild.Analyzer, goroutines.Analyzer, ordering.Analyzer},
	Run:      runOrder,
}

type marker struct {
	call *ssa.Call
	tag  string
}

func runOrder(pass *analysis.Pass) (any, error) {
	ssainput := pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
	gr := pass.ResultOf[goroutines.Analyzer].(*goroutines.Result)
	ord := pass.ResultOf[ordering.Analyzer].(*ordering.Result)
	var as, bs []marker
	for _, fn := range ssainput.SrcFuncs {
		for _, blk := range fn.Blocks {
			for _, instr := range blk.Instrs {
				call, ok := instr.(*ssa.Call)
				if !ok || len(call.Call.Args) != 1 {
					continue
				}
				callee := call.Call.StaticCallee()
				tag, ok := call.Call.Args[0].(*ssa.Const)
				if callee == nil || !ok || tag.Value == nil || tag.Value.Kind() != constant.String {
					continue
				}
				m := marker{call, constant.StringVal(tag.Value)}
				switch callee.Name() {
				case "a":
					as = append(as, m)
				case "b":
					bs = append(bs, m)
				}
			}
		}
	}
	for _, mb := range bs {
		var answers []string
		for _, ma := range as {
			if ma.tag != mb.tag {
				continue
			}
			for _, ca := range gr.Of(ma.call.Parent()) {
				for _, cb := range gr.Of(mb.call.Parent()) {
					if !goroutines.MayOverlap(ca, cb) {
						continue
					}
					answer := "unordered"
					if e, ok := ord.Before(ma.call, ca, mb.call, cb); ok {
						answer = "a before b by " + e.Rule.String()
					} else if e, ok := ord.Before(mb.call, cb, ma.call, ca); ok {
						answer = "b before a by " + e.Rule.String()
					} else if e, ok := ord.Ordered(ma.call, ca, mb.call, cb); ok {
						answer = "ordered by " + e.Rule.String()
					}
					if len(answers) > 0 && answers[len(answers)-1] == answer {
						continue
					}
					answers = append(answers, answer)
				}
			}
		}
		switch len(answers) {
		case 0:
			pass.Reportf(mb.call.Pos(), "%s: same goroutine", mb.tag)
		case 1:
			pass.Reportf(mb.call.Pos(), "%s: %s", mb.tag, answers[0])
		default:
			pass.Reportf(mb.call.Pos(), "%s: %v", mb.tag, answers)
		}
	}
	return nil, nil
}

// joinedWithin reports, at the spawning call of each Task context and the
// `go` statement of each Go context, whether its tasks or goroutines live
// only within one call of the function that starts them
// (ordering.Result.JoinedWithin), so that testdata states it with
// // want comments: "joined within F" or "not joined".
var joinedWithin = &analysis.Analyzer{
	Name:     "joinedwithin",
	Doc:      "report whether tasks and goroutines are joined within the call that starts them",
	Requires: []*analysis.Analyzer{goroutines.Analyzer, ordering.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		gr := pass.ResultOf[goroutines.Analyzer].(*goroutines.Result)
		ord := pass.ResultOf[ordering.Analyzer].(*ordering.Result)
		for _, c := range gr.Contexts {
			if c.Kind != goroutines.Task && c.Kind != goroutines.Go || c.Site == nil {
				continue
			}
			if _, ok := ord.JoinedWithin(c); ok {
				pass.Reportf(c.Site.Pos(), "joined within %s", c.Site.Parent().Name())
			} else {
				pass.Reportf(c.Site.Pos(), "not joined")
			}
		}
		return nil, nil
	},
}

// budgeted checks that ordering's queries are charged to the package's
// budget by their steps, and that once the budget has run out a query
// answers "not ordered" without following anything: a check asks many
// queries for one unit of its own, and fasthttp's root package ran for
// more than 14 minutes under a budget that counted only those. It counts
// the packages it checked in *checked and appends what it found wrong to
// *wrong.
func budgeted(checked *int, wrong *[]string) *analysis.Analyzer {
	errorf := func(format string, args ...any) { *wrong = append(*wrong, fmt.Sprintf(format, args...)) }
	run := func(pass *analysis.Pass) (any, error) {
		ssainput := pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
		gr := pass.ResultOf[goroutines.Analyzer].(*goroutines.Result)
		ord := pass.ResultOf[ordering.Analyzer].(*ordering.Result)
		bud := pass.ResultOf[budget.Analyzer].(*budget.Budget)
		calls := map[string]*ssa.Call{}
		for _, fn := range ssainput.SrcFuncs {
			for _, blk := range fn.Blocks {
				for _, instr := range blk.Instrs {
					if call, ok := instr.(*ssa.Call); ok && len(call.Call.Args) == 1 {
						if tag, ok := call.Call.Args[0].(*ssa.Const); ok && call.Call.StaticCallee() != nil {
							calls[call.Call.StaticCallee().Name()+" "+constant.StringVal(tag.Value)] = call
						}
					}
				}
			}
		}
		ask := func(tag string) (bool, error) {
			a, b := calls["a "+tag], calls["b "+tag]
			ca, cb := gr.Of(a.Parent()), gr.Of(b.Parent())
			if len(ca) != 1 || len(cb) != 1 {
				return false, fmt.Errorf("%s: contexts %v and %v, want one each", tag, ca, cb)
			}
			_, ok := ord.Before(a, ca[0], b, cb[0])
			return ok, nil
		}
		*checked++
		w0 := bud.Work()
		ordered, err := ask("intact")
		if err != nil {
			return nil, err
		}
		if !ordered {
			errorf("intact: not ordered, want ordered by the channel")
		}
		if w := bud.Work() - w0; w < 2 {
			errorf("intact: the query spent %d units of the budget, want one per step (at least 2: the start and the receive)", w)
		}
		bud.Spend(int(budget.DefaultWork)) // run out
		if bud.Reason() == "" {
			return nil, fmt.Errorf("the budget did not run out")
		}
		if ordered, err = ask("spent"); err != nil {
			return nil, err
		}
		if ordered {
			errorf("spent: ordered after the budget ran out, want not ordered")
		}
		return nil, nil
	}
	return &analysis.Analyzer{
		Name:     "budgeted",
		Doc:      "ask ordering queries under a budget",
		Requires: []*analysis.Analyzer{ssabuild.Analyzer, goroutines.Analyzer, ordering.Analyzer, budget.Analyzer},
		Run:      run,
	}
}

// sendClose asks whether a send happens before a close of its channel
// that follows the receive of a value from it (con-closed's question, the
// send itself on one side), for the sends and closes in the methods of the
// types named in want, and appends the answers to got.
func sendClose(want map[string]bool, got map[string][]bool) *analysis.Analyzer {
	run := func(pass *analysis.Pass) (any, error) {
		ssainput := pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
		gr := pass.ResultOf[goroutines.Analyzer].(*goroutines.Result)
		ord := pass.ResultOf[ordering.Analyzer].(*ordering.Result)
		sends, closes := map[string][]ssa.Instruction{}, map[string][]ssa.Instruction{}
		for _, fn := range ssainput.SrcFuncs {
			top := fn
			for top.Parent() != nil {
				top = top.Parent()
			}
			if top.Signature.Recv() == nil {
				continue
			}
			typ := top.Signature.Recv().Type().String()
			typ = typ[strings.LastIndex(typ, ".")+1:]
			for _, blk := range fn.Blocks {
				for _, instr := range blk.Instrs {
					switch instr := instr.(type) {
					case *ssa.Send:
						sends[typ] = append(sends[typ], instr)
					case *ssa.Call:
						if bi, ok := instr.Call.Value.(*ssa.Builtin); ok && bi.Name() == "close" {
							closes[typ] = append(closes[typ], instr)
						}
					}
				}
			}
		}
		for typ := range want {
			for _, x := range sends[typ] {
				for _, cl := range closes[typ] {
					for _, ca := range gr.Of(x.Parent()) {
						for _, cb := range gr.Of(cl.Parent()) {
							if !goroutines.MayOverlap(ca, cb) {
								continue
							}
							_, ok := ord.Before(x, ca, cl, cb)
							got[typ] = append(got[typ], ok)
						}
					}
				}
			}
		}
		return nil, nil
	}
	return &analysis.Analyzer{
		Name:     "sendclose",
		Doc:      "ask whether sends happen before closes",
		Requires: []*analysis.Analyzer{ssabuild.Analyzer, goroutines.Analyzer, ordering.Analyzer},
		Run:      run,
	}
}

func TestOrdering(t *testing.T) {
	checked, wrong := 0, []string(nil)
	// A send happens before the close: yes when the sending goroutine
	// sends once, no when it sends in a loop.
	want := map[string]bool{"Relay": true, "Looping": false}
	got := map[string][]bool{}
	fixturetest.Run(t, analysistest.TestData(),
		fixturetest.Case{Name: "Order", Analyzer: order, Patterns: []string{
			"spawn", "waitgroup", "wgwrap", "tasks", "channels", "selects", "once", "unordered", "bubbles", "nilresult", "eventually", "onevalue", "closeloop", "handoff", "unbuffered"}},
		fixturetest.Case{Name: "JoinedWithin", Analyzer: joinedWithin, Patterns: []string{"joinedwithin"}},
		fixturetest.Case{Name: "Budget", Analyzer: budgeted(&checked, &wrong), Patterns: []string{"budget"},
			Check: func(t *testing.T, _ []*analysistest.Result) {
				for _, w := range wrong {
					t.Error(w)
				}
				if checked != 1 {
					t.Errorf("the budget package was checked %d times, want once", checked)
				}
			}},
		fixturetest.Case{Name: "SendBeforeClose", Analyzer: sendClose(want, got), Patterns: []string{"sendclose"},
			Check: func(t *testing.T, _ []*analysistest.Result) {
				for typ, w := range want {
					if len(got[typ]) == 0 {
						t.Errorf("%s: no send and close asked about", typ)
					}
					for _, ok := range got[typ] {
						if ok != w {
							t.Errorf("%s: send before close %v, want %v", typ, ok, w)
						}
					}
				}
			}},
	)
}

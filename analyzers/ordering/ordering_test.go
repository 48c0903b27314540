package ordering_test

import (
	"go/constant"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/ordering"
)

// order reports, at each call b("tag"), how it is ordered with the call
// a("tag") of the same tag when the two run on different goroutines, so
// that testdata states it with // want comments:
//
//	tag: a before b by wait
//	tag: b before a by goroutine start
//	tag: unordered
//
// Every pair of contexts of the two calls (other than one context that is
// not Multi) must give the same answer, or the report lists them all;
// "tag: same goroutine" says there was no such pair.
var order = &analysis.Analyzer{
	Name:     "order",
	Doc:      "report whether calls a(tag) happen before calls b(tag)",
	Requires: []*analysis.Analyzer{buildssa.Analyzer, goroutines.Analyzer, ordering.Analyzer},
	Run:      runOrder,
}

type marker struct {
	call *ssa.Call
	tag  string
}

func runOrder(pass *analysis.Pass) (any, error) {
	ssainput := pass.ResultOf[buildssa.Analyzer].(*buildssa.SSA)
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

func TestOrdering(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), order,
		"spawn", "waitgroup", "tasks", "channels", "selects", "once", "unordered")
}

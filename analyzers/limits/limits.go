package limits

import (
	_ "embed"

	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/analyzers/callgraph"
	"github.com/precog-dev/precog/analyzers/pointsto"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// ID is the Category of the analyzer's reports.
const ID = "limit"

// Analyzer reports reached budgets.
var Analyzer = &analysis.Analyzer{
	Name:     "limits",
	Doc:      analyzerutil.MustExtractDoc(doc, "limits"),
	URL:      "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/limits",
	Requires: []*analysis.Analyzer{callgraph.Analyzer, pointsto.Analyzer},
	Run:      analyzerutil.Guard(run, nil),
}

func run(pass *analysis.Pass) (any, error) {
	if len(pass.Files) == 0 {
		return nil, nil
	}
	pos := pass.Files[0].Package
	report := func(what, limit string) {
		if limit != "" {
			pass.Report(analysis.Diagnostic{Pos: pos, Category: ID, Message: what + ": " + limit})
		}
	}
	report("call graph", pass.ResultOf[callgraph.Analyzer].(*callgraph.Result).Limit)
	report("points-to analysis", pass.ResultOf[pointsto.Analyzer].(*pointsto.Result).Limit)
	return nil, nil
}

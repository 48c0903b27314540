package limits

import (
	_ "embed"
	"flag"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/analyzers/budget"
	"github.com/precog-dev/precog/analyzers/conclosed"
	"github.com/precog-dev/precog/analyzers/conindex"
	"github.com/precog-dev/precog/analyzers/conmap"
	"github.com/precog-dev/precog/analyzers/connull"
	"github.com/precog-dev/precog/analyzers/conuninit"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// ID is the Category of the analyzer's reports.
const ID = finding.Limit

// Analyzer reports reached budgets.
var Analyzer = &analysis.Analyzer{
	Name: "limits",
	Doc:  analyzerutil.MustExtractDoc(doc, "limits"),
	URL:  "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/limits",
	Requires: []*analysis.Analyzer{
		budget.Analyzer,
		connull.Analyzer, conuninit.Analyzer, conclosed.Analyzer, conindex.Analyzer, conmap.Analyzer,
	},
	Run: analyzerutil.Guard(run, nil),
}

func init() {
	// Drivers expose the flags of the checks they run, not of the
	// building blocks; the budget's flags are set through this check.
	budget.Analyzer.Flags.VisitAll(func(f *flag.Flag) {
		Analyzer.Flags.Var(f.Value, f.Name, f.Usage)
	})
}

func run(pass *analysis.Pass) (any, error) {
	if len(pass.Files) == 0 {
		return nil, nil
	}
	b := pass.ResultOf[budget.Analyzer].(*budget.Budget)
	skipped := b.Skipped()
	if len(skipped) == 0 {
		return nil, nil
	}
	// The note sits at the first file's package clause, as vet's
	// package-level notes do; it names the package so that it does not
	// read as a finding in that file.
	msg := "package " + pass.Pkg.Path() + ": analysis incomplete"
	if r := b.Reason(); r != "" {
		msg = "package " + pass.Pkg.Path() + ": analysis budget exhausted " + r
	}
	msg += "; skipped: " + strings.Join(skipped, "; ")
	pass.Report(analysis.Diagnostic{Pos: pass.Files[0].Package, Category: ID, Message: msg})
	return nil, nil
}

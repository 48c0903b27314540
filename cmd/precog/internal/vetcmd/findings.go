package vetcmd

import (
	"context"

	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/static"
)

// results is what the checks produced: findings sorted and without
// duplicates, and one line per check that failed.
type results struct {
	findings []finding.Finding
	errs     []string
}

// analyze runs checks on prog's packages.
func analyze(ctx context.Context, checks []*analysis.Analyzer, prog *static.Program) (*results, error) {
	res := new(results)
	if len(checks) == 0 {
		return res, nil
	}
	c := static.NewChecks(checks, nil)
	if err := prog.Analyze(ctx, checks, c.Visit); err != nil {
		return nil, err
	}
	res.findings, res.errs = c.Findings()
	return res, nil
}

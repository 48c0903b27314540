package vetcmd

import (
	"cmp"
	"context"
	"fmt"
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/analyzerutil"
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
	err := prog.Analyze(ctx, checks, func(act *checker.Action) {
		if act.Err != nil {
			// Report the failure, not every action that needed its result.
			if !slices.ContainsFunc(act.Deps, func(d *checker.Action) bool { return d.Err != nil }) {
				res.errs = append(res.errs, fmt.Sprintf("check %s failed on package %s: %s",
					act.Analyzer.Name, act.Package.PkgPath, oneLine(act.Err.Error())))
			}
			return
		}
		if !act.IsRoot {
			return
		}
		sites, _ := act.Result.(*analyzerutil.Sites)
		for _, d := range act.Diagnostics {
			res.findings = append(res.findings, newFinding(act.Analyzer, act.Package, d, sites.Of(d)))
		}
	})
	if err != nil {
		return nil, err
	}
	// A finding in a file shared by a package and its test variant comes
	// twice, possibly with different evidence; the full order keeps the
	// one that survives the same from run to run.
	slices.SortFunc(res.findings, func(a, b finding.Finding) int {
		return cmp.Or(compareFindings(a, b), compareEvidence(a, b))
	})
	res.findings = slices.CompactFunc(res.findings, sameFinding)
	slices.Sort(res.errs)
	res.errs = slices.Compact(res.errs)
	return res, nil
}

// newFinding returns the static finding of diagnostic d of check a in
// package p, whose check named its sites in roles.
func newFinding(a *analysis.Analyzer, p *packages.Package, d analysis.Diagnostic, roles []finding.Site) finding.Finding {
	f := finding.Finding{
		Kind:     cmp.Or(d.Category, a.Name),
		Status:   finding.Static,
		Message:  d.Message,
		Sites:    append([]finding.Site{site(p.Fset, d.Pos, d.End)}, roles...),
		Analyzer: a.Name,
		Package:  p.PkgPath,
		Reports:  1,
	}
	if !strings.HasPrefix(d.URL, "#") { // only a category, no analyzer URL to resolve it against
		f.URL = d.URL
	}
	for _, r := range d.Related {
		s := site(p.Fset, r.Pos, r.End)
		f.Related = append(f.Related, finding.Related{
			File: s.File, Line: s.Line, Col: s.Col, EndLine: s.EndLine, EndCol: s.EndCol,
			Message: r.Message,
		})
	}
	f.SetID()
	return f
}

// site returns the span pos-end as a site without a role; the end only
// when it is in the same file.
func site(fset *token.FileSet, pos, end token.Pos) finding.Site {
	p := fset.Position(pos)
	if !p.IsValid() {
		return finding.Site{}
	}
	s := finding.Site{File: p.Filename, Line: p.Line, Col: p.Column}
	if e := fset.Position(end); e.IsValid() && e.Filename == p.Filename {
		s.EndLine, s.EndCol = e.Line, e.Column
	}
	return s
}

// sameFinding reports whether two findings, adjacent once sorted, are one:
// a file of package p is also in its test variant "p [p.test]", and checks
// report the same thing on both. Internal errors then differ only in the
// stacks after their first line.
func sameFinding(a, b finding.Finding) bool {
	if a.Kind == finding.InternalError && b.Kind == finding.InternalError {
		a.Message, _, _ = strings.Cut(a.Message, "\n")
		b.Message, _, _ = strings.Cut(b.Message, "\n")
	}
	return compareFindings(a, b) == 0 && a.Analyzer == b.Analyzer &&
		a.Sites[0].EndLine == b.Sites[0].EndLine && a.Sites[0].EndCol == b.Sites[0].EndCol
}

// compareFindings orders findings by file, line, column, category and
// message.
func compareFindings(a, b finding.Finding) int {
	pa, pb := a.Sites[0], b.Sites[0]
	return cmp.Or(
		strings.Compare(pa.File, pb.File),
		cmp.Compare(pa.Line, pb.Line),
		cmp.Compare(pa.Col, pb.Col),
		strings.Compare(a.Kind, b.Kind),
		strings.Compare(a.Message, b.Message),
	)
}

// compareEvidence orders findings that compareFindings finds equal by
// their related positions and messages.
func compareEvidence(a, b finding.Finding) int {
	for i := range min(len(a.Related), len(b.Related)) {
		ra, rb := a.Related[i], b.Related[i]
		if c := cmp.Or(
			strings.Compare(ra.File, rb.File),
			cmp.Compare(ra.Line, rb.Line),
			cmp.Compare(ra.Col, rb.Col),
			strings.Compare(ra.Message, rb.Message)); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a.Related), len(b.Related))
}

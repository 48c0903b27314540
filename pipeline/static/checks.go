package static

import (
	"cmp"
	"fmt"
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

// Checks collects the diagnostics of precog's check analyzers as static
// findings (detect/finding), from the actions of an analysis (Analyze's
// visit). precog vet prints them; precog test -vet takes them as the
// candidates it confirms at runtime, collected in the instrumenter's own
// analysis pass so that the packages are loaded and analysed once.
type Checks struct {
	list   []*analysis.Analyzer
	checks map[*analysis.Analyzer]bool
	// keep, if not nil, says which root packages' diagnostics count.
	keep     func(*packages.Package) bool
	findings []finding.Finding
	errs     []string
}

// NewChecks returns a collector of the diagnostics of checks on the root
// packages that keep accepts (every root package if keep is nil).
func NewChecks(checks []*analysis.Analyzer, keep func(*packages.Package) bool) *Checks {
	c := &Checks{list: slices.Clone(checks), checks: make(map[*analysis.Analyzer]bool), keep: keep}
	for _, a := range checks {
		c.checks[a] = true
	}
	return c
}

// Analyzers returns the check analyzers.
func (c *Checks) Analyzers() []*analysis.Analyzer { return slices.Clone(c.list) }

// Visit collects what act reports, if act is a check's: its diagnostics
// on a root package, or one line if it failed (not for every action that
// needed the failed one's result).
func (c *Checks) Visit(act *checker.Action) {
	if !c.checks[act.Analyzer] {
		return
	}
	if act.Err != nil {
		if !slices.ContainsFunc(act.Deps, func(d *checker.Action) bool { return d.Err != nil }) {
			c.errs = append(c.errs, fmt.Sprintf("check %s failed on package %s: %s",
				act.Analyzer.Name, act.Package.PkgPath, oneLine(act.Err.Error())))
		}
		return
	}
	if !act.IsRoot || c.keep != nil && !c.keep(act.Package) {
		return
	}
	sites, _ := act.Result.(*analyzerutil.Sites)
	for _, d := range act.Diagnostics {
		c.findings = append(c.findings, newFinding(act.Analyzer, act.Package, d, sites.Of(d)))
	}
}

// Findings returns the findings collected, sorted by file, line, column,
// kind and message, without the duplicates of a file analysed in both a
// package and its test variant; and one line per check that failed.
func (c *Checks) Findings() ([]finding.Finding, []string) {
	fs := slices.Clone(c.findings)
	// A finding in a file shared by a package and its test variant comes
	// twice, possibly with different evidence; the full order keeps the
	// one that survives the same from run to run.
	slices.SortFunc(fs, func(a, b finding.Finding) int {
		return cmp.Or(compareFindings(a, b), compareEvidence(a, b))
	})
	fs = slices.CompactFunc(fs, sameFinding)
	errs := slices.Clone(c.errs)
	slices.Sort(errs)
	return fs, slices.Compact(errs)
}

// newFinding returns the static finding of diagnostic d of check a in
// package p, whose check named its sites in roles.
func newFinding(a *analysis.Analyzer, p *packages.Package, d analysis.Diagnostic, roles []finding.Site) finding.Finding {
	f := finding.Finding{
		Kind:     cmp.Or(d.Category, a.Name),
		Status:   finding.Static,
		Message:  d.Message,
		Sites:    append([]finding.Site{inDecl(p, site(p.Fset, d.Pos, d.End), d.Pos)}, roles...),
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

// inDecl returns s, at pos in package pkg, with the function declaration
// it is in (finding.ID counts its line from there).
func inDecl(pkg *packages.Package, s finding.Site, pos token.Pos) finding.Site {
	if f := analyzerutil.FileAt(pkg.Syntax, pos); f != nil && s.File != "" {
		finding.InDecl(&s, pkg.Fset, f, pos)
	}
	return s
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

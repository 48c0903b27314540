package vetcmd

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"go/token"
	"io"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// A finding is one diagnostic of one check, with positions resolved.
type finding struct {
	analyzer string // the check's analyzer name, as in its enable flag
	category string // the check's ID, such as "con-null"
	pkg      string // path of the package it was found in
	pos, end token.Position
	message  string
	url      string
	related  []related
}

// related is one piece of evidence for a finding.
type related struct {
	pos, end token.Position
	message  string
}

// results is what the checks produced: findings sorted and without
// duplicates, and one line per check that failed.
type results struct {
	findings []finding
	errs     []string
}

// analyze runs checks on pkgs.
func analyze(checks []*analysis.Analyzer, pkgs []*packages.Package) (*results, error) {
	res := new(results)
	if len(checks) == 0 || len(pkgs) == 0 {
		return res, nil
	}
	graph, err := checker.Analyze(checks, pkgs, nil)
	if err != nil {
		return nil, err
	}
	for act := range graph.All() {
		if act.Err != nil {
			// Report the failure, not every action that needed its result.
			if !slices.ContainsFunc(act.Deps, func(d *checker.Action) bool { return d.Err != nil }) {
				res.errs = append(res.errs, fmt.Sprintf("check %s failed on package %s: %s",
					act.Analyzer.Name, act.Package.PkgPath, oneLine(act.Err.Error())))
			}
			continue
		}
		if !act.IsRoot {
			continue
		}
		for _, d := range act.Diagnostics {
			res.findings = append(res.findings, newFinding(act.Analyzer, act.Package, d))
		}
	}
	// A finding in a file shared by a package and its test variant comes
	// twice, possibly with different evidence; the full order keeps the
	// one that survives the same from run to run.
	slices.SortFunc(res.findings, func(a, b finding) int {
		return cmp.Or(compareFindings(a, b), compareEvidence(a, b))
	})
	res.findings = slices.CompactFunc(res.findings, sameFinding)
	slices.Sort(res.errs)
	res.errs = slices.Compact(res.errs)
	return res, nil
}

func newFinding(a *analysis.Analyzer, p *packages.Package, d analysis.Diagnostic) finding {
	f := finding{
		analyzer: a.Name,
		category: cmp.Or(d.Category, a.Name),
		pkg:      p.PkgPath,
		pos:      p.Fset.Position(d.Pos),
		end:      p.Fset.Position(d.End),
		message:  d.Message,
	}
	if !strings.HasPrefix(d.URL, "#") { // only a category, no analyzer URL to resolve it against
		f.url = d.URL
	}
	for _, r := range d.Related {
		f.related = append(f.related, related{
			pos:     p.Fset.Position(r.Pos),
			end:     p.Fset.Position(r.End),
			message: r.Message,
		})
	}
	return f
}

// sameFinding reports whether two findings, adjacent once sorted, are one:
// a file of package p is also in its test variant "p [p.test]", and checks
// report the same thing on both. Internal errors then differ only in the
// stacks after their first line.
func sameFinding(a, b finding) bool {
	if a.category == internalErrorCategory && b.category == internalErrorCategory {
		a.message, _, _ = strings.Cut(a.message, "\n")
		b.message, _, _ = strings.Cut(b.message, "\n")
	}
	return compareFindings(a, b) == 0 && a.analyzer == b.analyzer && a.end == b.end
}

// compareFindings orders findings by file, line, column, category and
// message.
func compareFindings(a, b finding) int {
	return cmp.Or(
		strings.Compare(a.pos.Filename, b.pos.Filename),
		cmp.Compare(a.pos.Line, b.pos.Line),
		cmp.Compare(a.pos.Column, b.pos.Column),
		strings.Compare(a.category, b.category),
		strings.Compare(a.message, b.message),
	)
}

// compareEvidence orders findings that compareFindings finds equal by
// their related positions and messages.
func compareEvidence(a, b finding) int {
	for i := range min(len(a.related), len(b.related)) {
		ra, rb := a.related[i], b.related[i]
		if c := cmp.Or(
			strings.Compare(ra.pos.Filename, rb.pos.Filename),
			cmp.Compare(ra.pos.Line, rb.pos.Line),
			cmp.Compare(ra.pos.Column, rb.pos.Column),
			strings.Compare(ra.message, rb.message)); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a.related), len(b.related))
}

// printFindings writes findings as text or, with asJSON, as JSON lines,
// with file names relative to dir when under it.
func printFindings(w io.Writer, dir string, findings []finding, asJSON bool) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, f := range findings {
		if asJSON {
			if err := enc.Encode(newJSONFinding(dir, f)); err != nil {
				return err
			}
			continue
		}
		// The category ends the first line; a multi-line message, such as an
		// internal error's stack, continues below it.
		first, rest, multi := strings.Cut(f.message, "\n")
		fmt.Fprintf(bw, "%s: %s [%s]\n", textPos(dir, f.pos, f.pkg), first, f.category)
		if multi {
			fmt.Fprintf(bw, "%s\n", strings.TrimRight(rest, "\n"))
		}
		for _, r := range f.related {
			fmt.Fprintf(bw, "\t%s: %s\n", textPos(dir, r.pos, f.pkg), r.message)
		}
	}
	return bw.Flush()
}

// textPos formats pos as "file:line:col", or names the package when a
// check reported no position.
func textPos(dir string, pos token.Position, pkg string) string {
	if !pos.IsValid() {
		return pkg
	}
	return fmt.Sprintf("%s:%d:%d", relPath(dir, pos.Filename), pos.Line, pos.Column)
}

// jsonFinding is the documented shape of a finding in -json output.
type jsonFinding struct {
	Check     string        `json:"check"`
	Analyzer  string        `json:"analyzer"`
	Package   string        `json:"package"`
	File      string        `json:"file,omitempty"`
	Line      int           `json:"line,omitempty"`
	Column    int           `json:"column,omitempty"`
	EndLine   int           `json:"endLine,omitempty"`
	EndColumn int           `json:"endColumn,omitempty"`
	Message   string        `json:"message"`
	URL       string        `json:"url,omitempty"`
	Related   []jsonRelated `json:"related,omitempty"`
}

type jsonRelated struct {
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Column    int    `json:"column,omitempty"`
	EndLine   int    `json:"endLine,omitempty"`
	EndColumn int    `json:"endColumn,omitempty"`
	Message   string `json:"message"`
}

func newJSONFinding(dir string, f finding) jsonFinding {
	j := jsonFinding{
		Check:    f.category,
		Analyzer: f.analyzer,
		Package:  f.pkg,
		Message:  f.message,
		URL:      f.url,
	}
	j.File, j.Line, j.Column, j.EndLine, j.EndColumn = jsonSpan(dir, f.pos, f.end)
	for _, r := range f.related {
		jr := jsonRelated{Message: r.message}
		jr.File, jr.Line, jr.Column, jr.EndLine, jr.EndColumn = jsonSpan(dir, r.pos, r.end)
		j.Related = append(j.Related, jr)
	}
	return j
}

func jsonSpan(dir string, pos, end token.Position) (file string, line, col, endLine, endCol int) {
	if !pos.IsValid() {
		return "", 0, 0, 0, 0
	}
	if end.IsValid() && end.Filename == pos.Filename {
		endLine, endCol = end.Line, end.Column
	}
	return relPath(dir, pos.Filename), pos.Line, pos.Column, endLine, endCol
}

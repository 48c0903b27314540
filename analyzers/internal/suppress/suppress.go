// Package suppress implements precog's suppression comments for the
// checks: a diagnostic is dropped when its line, or the line above it,
// carries
//
//	//precog:ignore <ID>[,<ID>...] <reason>
//
// naming the check's ID, or a golangci-lint style //nolint or
// //nolint:precog comment. The reason is required, so that the code says
// why a report was wrong. A precog:ignore directive that names a check
// but suppresses none of its diagnostics is reported itself, by that
// check, so that stale suppressions do not pile up; one without a reason
// is reported and suppresses nothing.
package suppress

import (
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/analyzers/budget"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

// Prefix starts a precog suppression directive.
const Prefix = "//precog:ignore"

type directive struct {
	pos  token.Pos
	file string
	line int
	// trailing marks a directive that follows code on its line: it
	// covers that line only, not the next.
	trailing bool
	ids      []string // nil for nolint
	reason   string
	used     bool
}

// A Reporter reports one check's diagnostics, dropping the suppressed
// ones. Call Finish after the last Report; its result is the check's.
type Reporter struct {
	pass       *analysis.Pass
	id         string
	directives []*directive
	budget     *budget.Budget // nil if the check does not require it
	sites      analyzerutil.Sites
	all        bool            // report diagnostics of low confidence too
	reported   map[string]bool // the evidence of the diagnostics reported (see evidenceKey)
}

// AllFlag names each check's flag that makes it report its diagnostics of
// low confidence too (see ReportAssuming).
const AllFlag = "all"

// DefineAll defines a check's AllFlag.
func DefineAll(a *analysis.Analyzer) {
	a.Flags.Bool(AllFlag, false, "also report diagnostics of low confidence: those that rest on an assumption the analysis cannot check")
}

// New returns a Reporter for the check with the given ID, reading the
// directives of the package's files.
func New(pass *analysis.Pass, id string) *Reporter {
	r := &Reporter{pass: pass, id: id}
	r.budget, _ = pass.ResultOf[budget.Analyzer].(*budget.Budget)
	if f := pass.Analyzer.Flags.Lookup(AllFlag); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			r.all, _ = g.Get().(bool)
		}
	}
	for _, f := range pass.Files {
		var src []byte
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				d := parse(pass.Fset, c)
				if d == nil {
					continue
				}
				if src == nil {
					src, _ = pass.ReadFile(d.file)
				}
				d.trailing = codeBefore(src, pass.Fset.Position(c.Slash).Offset)
				r.directives = append(r.directives, d)
			}
		}
	}
	return r
}

// codeBefore reports whether the line of src holding offset has anything
// but blanks before it.
func codeBefore(src []byte, offset int) bool {
	if offset > len(src) {
		return false
	}
	for i := offset - 1; i >= 0 && src[i] != '\n'; i-- {
		if src[i] != ' ' && src[i] != '\t' {
			return true
		}
	}
	return false
}

func parse(fset *token.FileSet, c *ast.Comment) *directive {
	pos := fset.Position(c.Slash)
	d := &directive{pos: c.Slash, file: pos.Filename, line: pos.Line}
	if rest, ok := strings.CutPrefix(c.Text, Prefix); ok {
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			return nil // e.g. //precog:ignored
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			d.ids = []string{}
			return d
		}
		d.ids = strings.Split(fields[0], ",")
		d.reason = strings.Join(fields[1:], " ")
		return d
	}
	if rest, ok := strings.CutPrefix(c.Text, "//nolint"); ok {
		if rest == "" || rest[0] == ' ' {
			return d // all linters
		}
		if list, ok := strings.CutPrefix(rest, ":"); ok {
			list, _, _ = strings.Cut(list, " ")
			for _, name := range strings.Split(list, ",") {
				if name == "precog" || name == "all" {
					return d
				}
			}
		}
	}
	return nil
}

// seesTests reports whether the pass includes the package's _test.go
// files, or the package has none.
func (r *Reporter) seesTests() bool {
	if len(r.pass.Files) == 0 {
		return true
	}
	for _, f := range r.pass.Files {
		if strings.HasSuffix(r.pass.Fset.File(f.Pos()).Name(), "_test.go") {
			return true
		}
	}
	dir := filepath.Dir(r.pass.Fset.File(r.pass.Files[0].Pos()).Name())
	entries, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "_test.go") {
			return false
		}
	}
	return true
}

func (d *directive) names(id string) bool {
	for _, x := range d.ids {
		if x == id {
			return true
		}
	}
	return false
}

// Report reports diag unless a directive on its line or the line above
// suppresses it.
//
// Once the package's budget is exhausted, nothing more is reported: what
// the check found after that rests on analyses that gave up (a points-to
// analysis that stopped knows no objects, so no wait group joins a
// goroutine), and the limits check says the report is incomplete.
//
// roles name the sites of the bug in the finding catalog's roles (see
// analyzerutil.Sites).
func (r *Reporter) Report(diag analysis.Diagnostic, roles ...analyzerutil.RoleAt) {
	r.ReportAssuming("", diag, roles...)
}

// ReportAssuming reports diag as Report does when assumption is empty.
// Otherwise the diagnostic is of low confidence: it holds only if
// assumption, which the analysis cannot check, holds. It is then reported
// only under the check's AllFlag, with the assumption appended to its
// message; hidden, it still counts as suppressed by a directive on its
// line, so that the directive is not reported as stale.
func (r *Reporter) ReportAssuming(assumption string, diag analysis.Diagnostic, roles ...analyzerutil.RoleAt) {
	if r.budget.Exhausted() {
		// Dropped: a check may come here without asking the budget
		// again (its last ordering query answered "not ordered" when the
		// budget ran out), and the limits check must still say that its
		// rest was not checked.
		r.budget.Skip("the rest of the " + r.pass.Analyzer.Name + " check")
		return
	}
	pos := r.pass.Fset.Position(diag.Pos)
	for _, d := range r.directives {
		if d.file != pos.Filename || (d.line != pos.Line && (d.trailing || d.line != pos.Line-1)) {
			continue
		}
		if d.ids == nil || (d.names(r.id) && d.reason != "") {
			d.used = true
			return
		}
	}
	if assumption != "" {
		if !r.all {
			return
		}
		diag.Message += " (low confidence: it assumes " + assumption + ")"
	}
	if diag.Category == "" {
		diag.Category = r.id
	}
	// One access of a location that has two names (a slice variable
	// that is a field's slice on one path and append's on another) is
	// found once under each: the same positions, reported once, under
	// the name found first.
	key := evidenceKey(diag)
	if r.reported[key] {
		return
	}
	if r.reported == nil {
		r.reported = make(map[string]bool)
	}
	r.reported[key] = true
	r.pass.Report(diag)
	r.sites.Add(r.pass.Fset, r.pass.Files, diag, roles)
}

// evidenceKey identifies a diagnostic by its positions: its own and its
// related entries', in order.
func evidenceKey(d analysis.Diagnostic) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", d.Pos)
	for _, r := range d.Related {
		fmt.Fprintf(&b, " %d", r.Pos)
	}
	return b.String()
}

// Finish reports the check's directives that are malformed or suppressed
// nothing. A package with tests is analyzed twice under go vet, without and
// with its _test.go files, and a finding may exist only when the tests'
// goroutines are seen: stale directives are reported only by the analysis
// that includes them. It returns the sites of the diagnostics reported, the
// check's result.
func (r *Reporter) Finish() *analyzerutil.Sites {
	stale := r.seesTests()
	for _, d := range r.directives {
		switch {
		case d.ids == nil:
			// nolint comments belong to golangci-lint's conventions,
			// which do not require them to match.
		case len(d.ids) == 0:
			// No check named: reported by nobody, since no check owns
			// it; "precog help vet" documents the form.
		case !d.names(r.id):
		case d.reason == "":
			r.pass.Report(analysis.Diagnostic{
				Pos:      d.pos,
				Category: r.id,
				Message:  fmt.Sprintf("%s %s needs a reason after the check name, such as \"%s %s the nil store happens only after Close\"", Prefix, r.id, Prefix, r.id),
			})
		case !d.used && stale && !r.budget.Exhausted():
			r.pass.Report(analysis.Diagnostic{
				Pos:      d.pos,
				Category: r.id,
				Message:  fmt.Sprintf("%s %s suppresses nothing: no %s diagnostic on this line or the next; remove it", Prefix, r.id, r.id),
			})
		}
	}
	return &r.sites
}

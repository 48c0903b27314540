package vetcmd

import (
	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/cmd/precog/internal/report"
	"github.com/precog-dev/precog/detect/finding"
)

// rules returns the SARIF rules of a vet run: one per check, whose ID is
// the check's stable ID, described by the check's documentation. A check
// that reports findings under another category gets a rule for it as
// well, so that every result has its rule.
func rules(checks []*analysis.Analyzer, ids map[string]string, findings []finding.Finding) []report.Rule {
	var rules []report.Rule
	seen := make(map[string]bool)
	add := func(id string, a *analysis.Analyzer) {
		if seen[id] {
			return
		}
		seen[id] = true
		rules = append(rules, report.Rule{ID: id, Name: a.Name, Summary: summary(a), Doc: a.Doc, HelpURI: a.URL})
	}
	byName := make(map[string]*analysis.Analyzer)
	for _, a := range checks {
		byName[a.Name] = a
		add(checkID(a, ids), a)
	}
	for _, f := range findings {
		if a, ok := byName[f.Analyzer]; ok && f.Kind != finding.InternalError {
			add(f.Kind, a)
		}
	}
	return rules
}

package vetcmd

import (
	"go/token"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/internal/sarif"
	"golang.org/x/tools/go/analysis"
)

const (
	informationURI = "https://github.com/precog-dev/precog"
	// level is the SARIF level of every finding: each check names a bug
	// that crashes the program, so none is a mere warning.
	level = "error"
)

// buildSARIF returns the SARIF log of one vet run. Files under root are
// named relative to it; internal errors and load errors become tool
// execution notifications, since they are about precog rather than the code.
func buildSARIF(root string, checks []*analysis.Analyzer, ids map[string]string, findings []finding, errs []string) *sarif.Log {
	b := sarif.NewLocator(root)
	rules, index := rules(checks, ids, findings)
	run := sarif.Run{
		Tool: sarif.Tool{Driver: sarif.ToolComponent{
			Name:           "precog",
			Version:        cli.Version(),
			InformationURI: informationURI,
			Rules:          rules,
		}},
		OriginalURIBaseIDs: b.BaseIDs(),
		Results:            []sarif.Result{},
		ColumnKind:         "utf16CodeUnits",
	}
	inv := sarif.Invocation{ExecutionSuccessful: len(errs) == 0}
	for _, e := range errs {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarif.Notification{
			Level:   "error",
			Message: sarif.Message{Text: e},
		})
	}
	for _, f := range findings {
		var locs []sarif.Location
		if loc := location(b, f.pos, f.end); loc != nil {
			locs = append(locs, *loc)
		}
		if f.category == internalErrorCategory {
			inv.ExecutionSuccessful = false
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarif.Notification{
				Level:     "error",
				Message:   sarif.Message{Text: f.message},
				Locations: locs,
			})
			continue
		}
		res := sarif.Result{
			RuleID:    f.category,
			RuleIndex: index[f.category],
			Level:     level,
			Message:   sarif.Message{Text: f.message},
			Locations: locs,
		}
		for i, r := range f.related {
			loc := location(b, r.pos, r.end)
			if loc == nil {
				loc = new(sarif.Location)
			}
			loc.ID = i + 1
			loc.Message = &sarif.Message{Text: r.message}
			res.RelatedLocations = append(res.RelatedLocations, *loc)
		}
		run.Results = append(run.Results, res)
	}
	run.Invocations = []sarif.Invocation{inv}
	return &sarif.Log{Schema: sarif.Schema, Version: sarif.Version, Runs: []sarif.Run{run}}
}

// rules returns one rule per check, whose ID is the check's stable ID, and
// the index of each rule ID. A check that reports findings under another
// category gets a rule for it as well, so that every result has its rule.
func rules(checks []*analysis.Analyzer, ids map[string]string, findings []finding) ([]sarif.ReportingDescriptor, map[string]int) {
	var rules []sarif.ReportingDescriptor
	index := make(map[string]int)
	add := func(id string, a *analysis.Analyzer) {
		if _, dup := index[id]; dup {
			return
		}
		index[id] = len(rules)
		rules = append(rules, sarif.ReportingDescriptor{
			ID:                   id,
			Name:                 a.Name,
			ShortDescription:     &sarif.MultiformatMessageString{Text: summary(a)},
			FullDescription:      &sarif.MultiformatMessageString{Text: a.Doc},
			HelpURI:              a.URL,
			DefaultConfiguration: &sarif.ReportingConfiguration{Level: level},
		})
	}
	byName := make(map[string]*analysis.Analyzer)
	for _, a := range checks {
		byName[a.Name] = a
		add(checkID(a, ids), a)
	}
	for _, f := range findings {
		if f.category != internalErrorCategory {
			add(f.category, byName[f.analyzer])
		}
	}
	return rules, index
}

// location returns the SARIF location of the span pos-end, or nil if pos is
// unknown.
func location(b *sarif.Locator, pos, end token.Position) *sarif.Location {
	if !pos.IsValid() {
		return nil
	}
	region := &sarif.Region{StartLine: pos.Line, StartColumn: b.Column(pos.Filename, pos.Line, pos.Column)}
	if end.IsValid() && end.Filename == pos.Filename && end.Line >= pos.Line {
		region.EndLine, region.EndColumn = end.Line, b.Column(end.Filename, end.Line, end.Column)
	}
	if region.StartColumn == 0 {
		region.EndColumn = 0 // a whole-line region
	}
	return &sarif.Location{PhysicalLocation: &sarif.PhysicalLocation{ArtifactLocation: b.Artifact(pos.Filename), Region: region}}
}

package testcmd

import (
	"fmt"
	"strconv"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/sarif"
)

const (
	informationURI = "https://github.com/precog-dev/precog"
	// level is the SARIF level of every finding: each kind names a bug
	// that crashes the program or corrupts its result.
	level = "error"
)

// kinds describes each kind of finding, the rules of the SARIF log.
var kinds = []struct{ id, summary string }{
	{"con-null", "a shared pointer, map, func or channel that another goroutine may set to nil before it is dereferenced"},
	{"con-uninit", "a read that may run before another goroutine's first write"},
	{"con-closed", "a use of a channel or object that another goroutine may release first"},
	{"con-index", "an index or slice expression whose index or slice another goroutine may change"},
	{"con-map", "a map that goroutines may access concurrently, one of them writing"},
	{"oscs", "a pair of critical sections meant to be atomic that another goroutine's critical section may split"},
}

// unicornSummary describes the unicorn-pN kinds.
func unicornSummary(id string) string {
	return "Unicorn access pattern " + id[len("unicorn-"):] + ", ranked by how much more often failing runs show it than passing ones"
}

// buildSARIF returns the SARIF log of findings: one rule per kind, the
// first site as the location, the other sites and the go statements as
// related locations. Internal errors are tool execution notifications.
func buildSARIF(root string, fs []finding.Finding, internal []string) *sarif.Log {
	b := sarif.NewLocator(root)
	var rules []sarif.ReportingDescriptor
	index := make(map[string]int)
	addRule := func(id, summary string) {
		if _, ok := index[id]; ok {
			return
		}
		index[id] = len(rules)
		rules = append(rules, sarif.ReportingDescriptor{
			ID:                   id,
			Name:                 id,
			ShortDescription:     &sarif.MultiformatMessageString{Text: summary},
			DefaultConfiguration: &sarif.ReportingConfiguration{Level: level},
		})
	}
	for _, k := range kinds {
		addRule(k.id, k.summary)
	}
	for i := 1; i <= 17; i++ {
		id := "unicorn-p" + strconv.Itoa(i)
		addRule(id, unicornSummary(id))
	}
	run := sarif.Run{
		Tool: sarif.Tool{Driver: sarif.ToolComponent{
			Name:           "precog",
			Version:        cli.Version(),
			InformationURI: informationURI,
		}},
		OriginalURIBaseIDs: b.BaseIDs(),
		Results:            []sarif.Result{},
		ColumnKind:         "utf16CodeUnits",
	}
	inv := sarif.Invocation{ExecutionSuccessful: len(internal) == 0}
	for _, e := range internal {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarif.Notification{
			Level:   "error",
			Message: sarif.Message{Text: e},
		})
	}
	run.Invocations = []sarif.Invocation{inv}
	for _, f := range fs {
		addRule(f.Kind, f.Kind+" (no description)")
		res := sarif.Result{
			RuleID:    f.Kind,
			RuleIndex: index[f.Kind],
			Level:     level,
			Message:   sarif.Message{Text: fmt.Sprintf("%s (%s, id %s)", f.Message, f.Status, f.ID)},
			// The stable ID: the same bug in every run and test.
			PartialFingerprints: map[string]string{"precogId/v1": f.ID},
		}
		if len(f.Sites) > 0 {
			if loc := location(b, f.Sites[0]); loc != nil {
				res.Locations = []sarif.Location{*loc}
			}
		}
		related := func(s finding.Site, msg string) {
			loc := location(b, s)
			if loc == nil {
				return
			}
			loc.ID = len(res.RelatedLocations) + 1
			loc.Message = &sarif.Message{Text: msg}
			res.RelatedLocations = append(res.RelatedLocations, *loc)
		}
		for i, s := range f.Sites {
			if i < len(f.Spawns) && f.Spawns[i].File != "" {
				related(f.Spawns[i], "go statement starts the goroutine of the "+s.Role)
			}
			if i > 0 {
				msg := s.Role
				if s.Expr != "" {
					msg += " " + s.Expr
				}
				related(s, msg)
			}
		}
		run.Results = append(run.Results, res)
	}
	run.Tool.Driver.Rules = rules
	return &sarif.Log{Schema: sarif.Schema, Version: sarif.Version, Runs: []sarif.Run{run}}
}

// location returns the SARIF location of s, or nil if it has no file.
func location(b *sarif.Locator, s finding.Site) *sarif.Location {
	if s.File == "" || s.Line <= 0 {
		return nil
	}
	region := &sarif.Region{StartLine: s.Line, StartColumn: b.Column(s.File, s.Line, s.Col)}
	return &sarif.Location{PhysicalLocation: &sarif.PhysicalLocation{ArtifactLocation: b.Artifact(s.File), Region: region}}
}

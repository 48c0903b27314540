package report

import (
	"cmp"
	"fmt"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/sarif"
)

const (
	informationURI = "https://github.com/precog-dev/precog"
	// level is the SARIF level of every finding but those set apart:
	// each kind names a bug that crashes the program or corrupts its
	// result, so none is a mere warning.
	level = "error"
	// apartLevel is the level of a finding set apart (finding.Apart):
	// validation found its prediction false (the forced runs touched
	// different memory). It stays in the log, as in -json, under its ID,
	// so that a code-scanning alert raised while it was predicted is
	// matched and not reopened as new; a note does not fail a check run
	// that fails on errors.
	apartLevel = "note"
)

// A Rule describes one kind of finding in a SARIF log.
type Rule struct {
	ID      string // the kind
	Name    string
	Summary string
	Doc     string
	HelpURI string
}

// KindRules returns the rules of the catalog's kinds ks.
func KindRules(ks []finding.Kind) []Rule {
	rules := make([]Rule, len(ks))
	for i, k := range ks {
		rules[i] = Rule{ID: k.Name, Name: k.Name, Summary: k.Summary}
	}
	return rules
}

// SARIF returns the SARIF log of one run of precog: one rule per entry of
// rules and one more for each kind of fs they lack; each finding a result
// (level error; note for a finding set apart, finding.Apart)
// located at its first site, with its evidence as related locations (a
// static finding's check's evidence; for a finding from a run, the go
// statements and its other sites) and its ID as the partial fingerprint.
// Files under root are named relative to it. Internal errors (errs, and
// findings of kind finding.InternalError) become tool execution
// notifications, since they are about precog rather than the code.
func SARIF(root string, rules []Rule, fs []finding.Finding, errs []string) *sarif.Log {
	return sarifLog(root, rules, fs, errs, false)
}

// SARIFBaselined is SARIF for a run given a baseline: each result's
// baselineState is "unchanged" for a finding of the baseline
// (Finding.Baselined), "new" for the others, so that a code-scanning
// service can tell the accepted findings from the new ones.
func SARIFBaselined(root string, rules []Rule, fs []finding.Finding, errs []string) *sarif.Log {
	return sarifLog(root, rules, fs, errs, true)
}

func sarifLog(root string, rules []Rule, fs []finding.Finding, errs []string, baselined bool) *sarif.Log {
	b := sarif.NewLocator(root)
	var descs []sarif.ReportingDescriptor
	index := make(map[string]int)
	add := func(r Rule) {
		if _, dup := index[r.ID]; dup {
			return
		}
		index[r.ID] = len(descs)
		d := sarif.ReportingDescriptor{
			ID:                   r.ID,
			Name:                 r.Name,
			ShortDescription:     &sarif.MultiformatMessageString{Text: r.Summary},
			HelpURI:              r.HelpURI,
			DefaultConfiguration: &sarif.ReportingConfiguration{Level: level},
		}
		if r.Doc != "" {
			d.FullDescription = &sarif.MultiformatMessageString{Text: r.Doc}
		}
		descs = append(descs, d)
	}
	for _, r := range rules {
		add(r)
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
	inv := sarif.Invocation{ExecutionSuccessful: len(errs) == 0}
	for _, e := range errs {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarif.Notification{
			Level:   "error",
			Message: sarif.Message{Text: e},
		})
	}
	for _, f := range fs {
		var locs []sarif.Location
		if len(f.Sites) > 0 {
			s := f.Sites[0]
			if loc := location(b, s.File, s.Line, s.Col, s.EndLine, s.EndCol); loc != nil {
				locs = []sarif.Location{*loc}
			}
		}
		if f.Kind == finding.InternalError {
			inv.ExecutionSuccessful = false
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarif.Notification{
				Level:     "error",
				Message:   sarif.Message{Text: f.Message},
				Locations: locs,
			})
			continue
		}
		if _, ok := index[f.Kind]; !ok {
			add(fallbackRule(f))
		}
		lvl := level
		if f.Status == finding.Apart {
			lvl = apartLevel
		}
		res := sarif.Result{
			RuleID:    f.Kind,
			RuleIndex: index[f.Kind],
			Level:     lvl,
			Message:   sarif.Message{Text: fmt.Sprintf("%s (%s, id %s)", f.Message, f.Status, f.ID)},
			Locations: locs,
			// The stable ID: the same bug in every run and test, and
			// from static analysis and from a run alike.
			PartialFingerprints: map[string]string{"precogId/v1": f.ID},
		}
		if baselined {
			// A baseline was given: the results it lists are known.
			res.BaselineState = "new"
			if f.Baselined {
				res.BaselineState = "unchanged"
			}
		}
		res.RelatedLocations = related(b, f)
		run.Results = append(run.Results, res)
	}
	run.Tool.Driver.Rules = descs
	run.Invocations = []sarif.Invocation{inv}
	return &sarif.Log{Schema: sarif.Schema, Version: sarif.Version, Runs: []sarif.Run{run}}
}

// fallbackRule is the rule of a kind the caller gave no rule for.
func fallbackRule(f finding.Finding) Rule {
	if k, ok := finding.Lookup(f.Kind); ok {
		return Rule{ID: k.Name, Name: k.Name, Summary: k.Summary}
	}
	return Rule{ID: f.Kind, Name: cmp.Or(f.Analyzer, f.Kind), Summary: f.Kind + " (no description)"}
}

// related returns a finding's evidence as SARIF related locations.
func related(b *sarif.Locator, f finding.Finding) []sarif.Location {
	var out []sarif.Location
	if f.Status == finding.Static {
		for _, r := range f.Related {
			loc := location(b, r.File, r.Line, r.Col, r.EndLine, r.EndCol)
			if loc == nil {
				loc = new(sarif.Location)
			}
			loc.ID = len(out) + 1
			loc.Message = &sarif.Message{Text: r.Message}
			out = append(out, *loc)
		}
		return out
	}
	add := func(s finding.Site, msg string) {
		loc := location(b, s.File, s.Line, s.Col, s.EndLine, s.EndCol)
		if loc == nil {
			return
		}
		loc.ID = len(out) + 1
		loc.Message = &sarif.Message{Text: msg}
		out = append(out, *loc)
	}
	for i, s := range f.Sites {
		if i < len(f.Spawns) && f.Spawns[i].File != "" {
			add(f.Spawns[i], "go statement starts the goroutine of the "+s.Role)
		}
		if i > 0 {
			msg := s.Role
			if s.Expr != "" {
				msg += " " + s.Expr
			}
			add(s, msg)
		}
	}
	return out
}

// location returns the SARIF location of a span, or nil if it has no
// file or line. An end before the start is left out.
func location(b *sarif.Locator, file string, line, col, endLine, endCol int) *sarif.Location {
	if file == "" || line <= 0 {
		return nil
	}
	region := &sarif.Region{StartLine: line, StartColumn: b.Column(file, line, col)}
	if endLine >= line {
		region.EndLine, region.EndColumn = endLine, b.Column(file, endLine, endCol)
	}
	if region.StartColumn == 0 {
		region.EndColumn = 0 // a whole-line region
	}
	return &sarif.Location{PhysicalLocation: &sarif.PhysicalLocation{ArtifactLocation: b.Artifact(file), Region: region}}
}

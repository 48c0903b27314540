package vetcmd

import (
	"bytes"
	"fmt"
	"go/token"
	"net/url"
	"os"
	"path/filepath"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/precog-dev/precog/internal/cli"
	"github.com/precog-dev/precog/internal/sarif"
	"golang.org/x/tools/go/analysis"
)

const (
	informationURI = "https://github.com/precog-dev/precog"
	srcRoot        = "%SRCROOT%" // the uriBaseId of files under the source root, as GitHub code scanning names it
	// level is the SARIF level of every finding: each check names a bug
	// that crashes the program, so none is a mere warning.
	level = "error"
)

// buildSARIF returns the SARIF log of one vet run. Files under root are
// named relative to it; internal errors and load errors become tool
// execution notifications, since they are about precog rather than the code.
func buildSARIF(root string, checks []*analysis.Analyzer, ids map[string]string, findings []finding, errs []string) *sarif.Log {
	b := &sarifBuilder{root: root, files: make(map[string][]byte)}
	rules, index := rules(checks, ids, findings)
	run := sarif.Run{
		Tool: sarif.Tool{Driver: sarif.ToolComponent{
			Name:           "precog",
			Version:        cli.Version(),
			InformationURI: informationURI,
			Rules:          rules,
		}},
		OriginalURIBaseIDs: map[string]sarif.ArtifactLocation{
			srcRoot: {URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(root) + "/"}).String()},
		},
		Results:    []sarif.Result{},
		ColumnKind: "utf16CodeUnits",
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
		if loc := b.location(f.pos, f.end); loc != nil {
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
			loc := b.location(r.pos, r.end)
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

// sarifBuilder turns positions into SARIF locations.
type sarifBuilder struct {
	root  string
	files map[string][]byte // file contents, read once, to count UTF-16 columns
}

// location returns the SARIF location of the span pos-end, or nil if pos is
// unknown. Files under the source root are relative to %SRCROOT%, others
// (the standard library, the module cache) are absolute file URIs.
func (b *sarifBuilder) location(pos, end token.Position) *sarif.Location {
	if !pos.IsValid() {
		return nil
	}
	art := sarif.ArtifactLocation{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(pos.Filename)}).String()}
	if within(pos.Filename, b.root) {
		rel, _ := filepath.Rel(b.root, pos.Filename)
		art = sarif.ArtifactLocation{URI: (&url.URL{Path: filepath.ToSlash(rel)}).String(), URIBaseID: srcRoot}
	}
	region := &sarif.Region{StartLine: pos.Line, StartColumn: b.column(pos)}
	if end.IsValid() && end.Filename == pos.Filename && end.Line >= pos.Line {
		region.EndLine, region.EndColumn = end.Line, b.column(end)
	}
	if region.StartColumn == 0 {
		region.EndColumn = 0 // a whole-line region
	}
	return &sarif.Location{PhysicalLocation: &sarif.PhysicalLocation{ArtifactLocation: art, Region: region}}
}

// column converts the 1-based byte column of pos to 1-based UTF-16 code
// units, the column kind that code-scanning services expect. It keeps the
// byte column when the file cannot be read.
func (b *sarifBuilder) column(pos token.Position) int {
	if pos.Column == 0 {
		return 0
	}
	data, ok := b.files[pos.Filename]
	if !ok {
		data, _ = os.ReadFile(pos.Filename)
		b.files[pos.Filename] = data
	}
	line, ok := nthLine(data, pos.Line)
	if !ok || pos.Column-1 > len(line) {
		return pos.Column
	}
	col := 1
	for prefix := line[:pos.Column-1]; len(prefix) > 0; {
		r, size := utf8.DecodeRune(prefix)
		col += utf16.RuneLen(r)
		prefix = prefix[size:]
	}
	return col
}

// nthLine returns the 1-based line n of data, without its newline.
func nthLine(data []byte, n int) ([]byte, bool) {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return nil, false
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return data, n >= 1
}

// writeSARIF writes log to file, taken relative to dir, or to stdout if
// file is "-".
func writeSARIF(env *cli.Env, dir, file string, log *sarif.Log) error {
	if file == "-" {
		return log.Write(env.Stdout)
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	var buf bytes.Buffer
	if err := log.Write(&buf); err != nil {
		return err
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o666); err != nil {
		return fmt.Errorf("writing SARIF log: %w", err)
	}
	return nil
}

package testcmd

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/cli"
	"github.com/precog-dev/precog/internal/sarif"
)

const (
	informationURI = "https://github.com/precog-dev/precog"
	srcRoot        = "%SRCROOT%" // the uriBaseId of files under the source root, as GitHub code scanning names it
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
	b := &sarifBuilder{root: root, files: make(map[string][]byte)}
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
		OriginalURIBaseIDs: map[string]sarif.ArtifactLocation{
			srcRoot: {URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(root) + "/"}).String()},
		},
		Results:    []sarif.Result{},
		ColumnKind: "utf16CodeUnits",
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
		}
		if len(f.Sites) > 0 {
			if loc := b.location(f.Sites[0]); loc != nil {
				res.Locations = []sarif.Location{*loc}
			}
		}
		related := func(s finding.Site, msg string) {
			loc := b.location(s)
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

// sarifBuilder turns sites into SARIF locations.
type sarifBuilder struct {
	root  string
	files map[string][]byte // file contents, read once, to count UTF-16 columns
}

// location returns the SARIF location of s, or nil if it has no file.
// Files under the source root are relative to %SRCROOT%, others absolute
// file URIs.
func (b *sarifBuilder) location(s finding.Site) *sarif.Location {
	if s.File == "" || s.Line <= 0 {
		return nil
	}
	art := sarif.ArtifactLocation{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(s.File)}).String()}
	if within(s.File, b.root) {
		rel, _ := filepath.Rel(b.root, s.File)
		art = sarif.ArtifactLocation{URI: (&url.URL{Path: filepath.ToSlash(rel)}).String(), URIBaseID: srcRoot}
	}
	region := &sarif.Region{StartLine: s.Line, StartColumn: b.column(s)}
	return &sarif.Location{PhysicalLocation: &sarif.PhysicalLocation{ArtifactLocation: art, Region: region}}
}

// column converts the 1-based byte column of s to 1-based UTF-16 code
// units, the column kind that code-scanning services expect. It keeps the
// byte column when the file cannot be read.
func (b *sarifBuilder) column(s finding.Site) int {
	if s.Col <= 0 {
		return 0
	}
	data, ok := b.files[s.File]
	if !ok {
		data, _ = os.ReadFile(s.File)
		b.files[s.File] = data
	}
	line, ok := nthLine(data, s.Line)
	if !ok || s.Col-1 > len(line) {
		return s.Col
	}
	col := 1
	for prefix := line[:s.Col-1]; len(prefix) > 0; {
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

package sarif_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/precog-dev/precog/internal/sarif"
	"github.com/precog-dev/precog/internal/sarif/sariftest"
)

// sample returns a small log that uses every type of the package.
func sample() *sarif.Log {
	return &sarif.Log{
		Schema:  sarif.Schema,
		Version: sarif.Version,
		Runs: []sarif.Run{{
			Tool: sarif.Tool{Driver: sarif.ToolComponent{
				Name:           "precog",
				Version:        "v1.0.0",
				InformationURI: "https://example.com/precog",
				Rules: []sarif.ReportingDescriptor{{
					ID:                   "con-null",
					Name:                 "connull",
					ShortDescription:     &sarif.MultiformatMessageString{Text: "report nil stores"},
					FullDescription:      &sarif.MultiformatMessageString{Text: "report nil stores\n\nMore."},
					HelpURI:              "https://example.com/connull",
					DefaultConfiguration: &sarif.ReportingConfiguration{Level: "error"},
				}},
			}},
			Invocations: []sarif.Invocation{{
				ExecutionSuccessful: false,
				ToolExecutionNotifications: []sarif.Notification{{
					Level:   "error",
					Message: sarif.Message{Text: "package example.com/bad: bad.go:3:9: undefined: foo"},
				}},
			}},
			OriginalURIBaseIDs: map[string]sarif.ArtifactLocation{"%SRCROOT%": {URI: "file:///src/m/"}},
			Results: []sarif.Result{{
				RuleID:    "con-null",
				RuleIndex: 0,
				Level:     "error",
				Message:   sarif.Message{Text: "nil stored to c.conn may be dereferenced concurrently"},
				Locations: []sarif.Location{{PhysicalLocation: &sarif.PhysicalLocation{
					ArtifactLocation: sarif.ArtifactLocation{URI: "p/p.go", URIBaseID: "%SRCROOT%"},
					Region:           &sarif.Region{StartLine: 3, StartColumn: 2, EndLine: 3, EndColumn: 9},
				}}},
				RelatedLocations: []sarif.Location{{
					ID: 1,
					PhysicalLocation: &sarif.PhysicalLocation{
						ArtifactLocation: sarif.ArtifactLocation{URI: "file:///usr/lib/go/src/sync/mutex.go"},
						Region:           &sarif.Region{StartLine: 10},
					},
					Message: &sarif.Message{Text: "the dereference"},
				}},
			}},
			ColumnKind: "utf16CodeUnits",
		}},
	}
}

func TestWriteValid(t *testing.T) {
	var buf bytes.Buffer
	if err := sample().Write(&buf); err != nil {
		t.Fatal(err)
	}
	if err := sariftest.Validate(buf.Bytes()); err != nil {
		t.Fatalf("sample log is invalid: %v\n%s", err, buf.Bytes())
	}
}

func TestEmptyResultsIsAnArray(t *testing.T) {
	log := sample()
	log.Runs[0].Results = []sarif.Result{}
	var buf bytes.Buffer
	if err := log.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"results": []`) {
		t.Errorf("empty results not written as []:\n%s", buf.Bytes())
	}
}

// TestValidateRejects checks that the validator catches what it promises
// to, so that a passing validation in other tests means something.
func TestValidateRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*sarif.Log)
		want   string
	}{
		{"no driver name", func(l *sarif.Log) { l.Runs[0].Tool.Driver.Name = "" }, "driver.name"},
		{"wrong version", func(l *sarif.Log) { l.Version = "2.0.0" }, "version"},
		{"null results", func(l *sarif.Log) { l.Runs[0].Results = nil }, "results"},
		{"unknown rule", func(l *sarif.Log) { l.Runs[0].Results[0].RuleID = "con-nope" }, "not a rule"},
		{"bad rule index", func(l *sarif.Log) { l.Runs[0].Results[0].RuleIndex = 3 }, "ruleIndex"},
		{"empty message", func(l *sarif.Log) { l.Runs[0].Results[0].Message.Text = "" }, "message"},
		{"line 0", func(l *sarif.Log) { l.Runs[0].Results[0].Locations[0].PhysicalLocation.Region.StartLine = 0 }, "startLine"},
		{"end before start", func(l *sarif.Log) { l.Runs[0].Results[0].Locations[0].PhysicalLocation.Region.EndColumn = 1 }, "endColumn"},
		{"absolute uri with base", func(l *sarif.Log) {
			l.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI = "file:///src/m/p/p.go"
		}, "absolute"},
		{"relative uri without base", func(l *sarif.Log) {
			l.Runs[0].Results[0].RelatedLocations[0].PhysicalLocation.ArtifactLocation.URI = "p/p.go"
		}, "relative"},
		{"unknown base", func(l *sarif.Log) {
			l.Runs[0].OriginalURIBaseIDs = map[string]sarif.ArtifactLocation{"OTHER": {URI: "file:///x/"}}
		}, "originalUriBaseIds"},
		{"bad level", func(l *sarif.Log) { l.Runs[0].Results[0].Level = "fatal" }, "level"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := sample()
			tc.mutate(log)
			var buf bytes.Buffer
			if err := log.Write(&buf); err != nil {
				t.Fatal(err)
			}
			err := sariftest.Validate(buf.Bytes())
			if err == nil {
				t.Fatalf("Validate accepted a log with %s", tc.name)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate error does not mention %q: %v", tc.want, err)
			}
		})
	}
}

// Package sariftest checks SARIF logs in tests, against the JSON schema of
// SARIF 2.1.0 and against rules of the standard that the schema cannot
// express, such as a result's ruleIndex pointing at the rule with its ruleId.
//
// sarif-schema-2.1.0.json is the schema published with the OASIS standard
// (errata 01), as copied into github.com/owenrumney/go-sarif (public domain).
package sariftest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/precog-dev/precog/internal/sarif"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed sarif-schema-2.1.0.json
var schemaJSON []byte

// Validate reports every way data fails to be a valid SARIF 2.1.0 log.
func Validate(data []byte) error {
	if err := ValidateSchema(data); err != nil {
		return err
	}
	var raw struct {
		Runs []struct {
			Results json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	var log sarif.Log
	if err := json.Unmarshal(data, &log); err != nil {
		return err
	}
	var errs []error
	report := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if log.Version != sarif.Version {
		report("version is %q, want %q", log.Version, sarif.Version)
	}
	if log.Schema == "" {
		report("no $schema")
	}
	for i, run := range log.Runs {
		if r := string(raw.Runs[i].Results); r == "" || r == "null" {
			report("run %d: results must be an array, even when empty", i)
		}
		if run.Tool.Driver.Name == "" {
			report("run %d: no tool.driver.name", i)
		}
		ids := make(map[string]bool)
		for _, r := range run.Tool.Driver.Rules {
			if ids[r.ID] {
				report("run %d: two rules with id %q", i, r.ID)
			}
			ids[r.ID] = true
		}
		for j, res := range run.Results {
			where := fmt.Sprintf("run %d: result %d", i, j)
			rules := run.Tool.Driver.Rules
			if !ids[res.RuleID] {
				report("%s: ruleId %q is not a rule of the driver", where, res.RuleID)
			} else if res.RuleIndex < 0 || res.RuleIndex >= len(rules) || rules[res.RuleIndex].ID != res.RuleID {
				report("%s: ruleIndex %d does not point at rule %q", where, res.RuleIndex, res.RuleID)
			}
			if res.Message.Text == "" {
				report("%s: empty message.text", where)
			}
			for _, loc := range res.Locations {
				checkLocation(report, where, run.OriginalURIBaseIDs, loc)
			}
			relIDs := make(map[int]bool)
			for _, loc := range res.RelatedLocations {
				if relIDs[loc.ID] {
					report("%s: two related locations with id %d", where, loc.ID)
				}
				relIDs[loc.ID] = true
				checkLocation(report, where+": related location", run.OriginalURIBaseIDs, loc)
			}
		}
		for _, inv := range run.Invocations {
			for _, n := range inv.ToolExecutionNotifications {
				for _, loc := range n.Locations {
					checkLocation(report, fmt.Sprintf("run %d: notification", i), run.OriginalURIBaseIDs, loc)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// ValidateSchema reports the ways data fails the JSON schema of SARIF
// 2.1.0, for logs of other tools, to which the rest of Validate's rules
// need not apply.
func ValidateSchema(data []byte) error {
	schemaDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	const name = "sarif-schema-2.1.0.json"
	if err := c.AddResource(name, schemaDoc); err != nil {
		return err
	}
	schema, err := c.Compile(name)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return schema.Validate(doc)
}

// checkLocation checks that a location's region is well-formed and that its
// file is a relative reference against a known base, or an absolute URI.
func checkLocation(report func(string, ...any), where string, bases map[string]sarif.ArtifactLocation, loc sarif.Location) {
	p := loc.PhysicalLocation
	if p == nil {
		return
	}
	art := p.ArtifactLocation
	u, err := url.Parse(art.URI)
	switch {
	case err != nil:
		report("%s: bad uri %q: %v", where, art.URI, err)
	case art.URIBaseID != "":
		if u.IsAbs() || strings.HasPrefix(art.URI, "/") {
			report("%s: uri %q is absolute but has uriBaseId %q", where, art.URI, art.URIBaseID)
		}
		base, ok := bases[art.URIBaseID]
		if !ok {
			report("%s: uriBaseId %q is not in originalUriBaseIds", where, art.URIBaseID)
		} else if b, err := url.Parse(base.URI); err != nil || !b.IsAbs() || !strings.HasSuffix(b.Path, "/") {
			report("%s: originalUriBaseIds[%q] = %q is not an absolute URI ending in /", where, art.URIBaseID, base.URI)
		}
	case !u.IsAbs():
		report("%s: uri %q is relative but has no uriBaseId", where, art.URI)
	}
	r := p.Region
	if r == nil {
		return
	}
	if r.StartLine < 1 {
		report("%s: startLine %d < 1", where, r.StartLine)
	}
	if r.EndLine != 0 && r.EndLine < r.StartLine {
		report("%s: endLine %d before startLine %d", where, r.EndLine, r.StartLine)
	}
	if r.EndLine == r.StartLine && r.EndColumn != 0 && r.EndColumn < r.StartColumn {
		report("%s: endColumn %d before startColumn %d", where, r.EndColumn, r.StartColumn)
	}
}

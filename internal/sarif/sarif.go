// Package sarif is the part of the SARIF 2.1.0 object model that precog
// writes, as plain structs. Like staticcheck and golangci-lint we write it by
// hand: the format is frozen and the part we use is small, which a
// dependency would not repay. Field comments cite the sections of the
// OASIS standard (sarif-v2.1.0-errata01-os) that constrain them; the tests
// validate logs against the standard's JSON schema.
package sarif

import (
	"encoding/json"
	"io"
)

// Version and Schema identify the format in a Log.
const (
	Version = "2.1.0"
	Schema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

// A Log is a SARIF log file (§3.13).
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// A Run is one invocation of one tool (§3.14).
type Run struct {
	Tool        Tool         `json:"tool"`
	Invocations []Invocation `json:"invocations,omitempty"`
	// OriginalURIBaseIDs maps the uriBaseIds used in artifact locations to
	// absolute URIs, which must end in "/" (§3.14.14).
	OriginalURIBaseIDs map[string]ArtifactLocation `json:"originalUriBaseIds,omitempty"`
	// Results is empty, not absent, when the tool found nothing (§3.14.23).
	Results    []Result `json:"results"`
	ColumnKind string   `json:"columnKind,omitempty"` // "utf16CodeUnits" or "unicodeCodePoints" (§3.14.25)
}

// Tool describes the analysis tool (§3.18).
type Tool struct {
	Driver ToolComponent `json:"driver"`
}

// A ToolComponent is the tool's driver (§3.19).
type ToolComponent struct {
	Name           string                `json:"name"`
	Version        string                `json:"version,omitempty"`
	InformationURI string                `json:"informationUri,omitempty"`
	Rules          []ReportingDescriptor `json:"rules,omitempty"`
}

// A ReportingDescriptor is a rule: one check (§3.49).
type ReportingDescriptor struct {
	ID                   string                    `json:"id"`
	Name                 string                    `json:"name,omitempty"`
	ShortDescription     *MultiformatMessageString `json:"shortDescription,omitempty"`
	FullDescription      *MultiformatMessageString `json:"fullDescription,omitempty"`
	HelpURI              string                    `json:"helpUri,omitempty"`
	DefaultConfiguration *ReportingConfiguration   `json:"defaultConfiguration,omitempty"`
}

// A MultiformatMessageString is a plain-text message (§3.12).
type MultiformatMessageString struct {
	Text string `json:"text"`
}

// A ReportingConfiguration sets a rule's default level (§3.50).
type ReportingConfiguration struct {
	Level string `json:"level,omitempty"`
}

// A Result is one finding (§3.27).
type Result struct {
	RuleID string `json:"ruleId"`
	// RuleIndex is the index of the rule in Tool.Driver.Rules, whose ID
	// must equal RuleID (§3.27.6).
	RuleIndex        int        `json:"ruleIndex"`
	Level            string     `json:"level,omitempty"` // "error", "warning", "note" or "none"
	Message          Message    `json:"message"`
	Locations        []Location `json:"locations,omitempty"`
	RelatedLocations []Location `json:"relatedLocations,omitempty"`
	// PartialFingerprints identify the result across runs, so that a
	// code-scanning service tracks one finding as it moves (§3.27.17);
	// keys name the fingerprint and its version, as "precogId/v1".
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	// BaselineState says how the result relates to a baseline run:
	// "new", "unchanged", "updated" or "absent" (§3.27.24); empty when
	// there was no baseline.
	BaselineState string `json:"baselineState,omitempty"`
}

// A Message is plain text (§3.11).
type Message struct {
	Text string `json:"text"`
}

// A Location is a place in an artifact (§3.28).
type Location struct {
	// ID identifies a related location within its result; ids are
	// non-negative, and 0 is left out so that the first is 1 (§3.28.2).
	ID               int               `json:"id,omitempty"`
	PhysicalLocation *PhysicalLocation `json:"physicalLocation,omitempty"`
	Message          *Message          `json:"message,omitempty"`
}

// A PhysicalLocation is a region of a file (§3.29).
type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
	Region           *Region          `json:"region,omitempty"`
}

// An ArtifactLocation is a file: an absolute URI, or a relative reference
// resolved against the URI named by URIBaseID (§3.4).
type ArtifactLocation struct {
	URI       string `json:"uri,omitempty"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

// A Region is a span of text; lines and columns start at 1 and end
// positions are inclusive of their line, exclusive of their column (§3.30).
type Region struct {
	StartLine   int `json:"startLine,omitempty"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

// An Invocation records how the run went (§3.20).
type Invocation struct {
	ExecutionSuccessful        bool           `json:"executionSuccessful"`
	ToolExecutionNotifications []Notification `json:"toolExecutionNotifications,omitempty"`
}

// A Notification reports a problem of the tool itself rather than of the
// code it analyzed (§3.58).
type Notification struct {
	Level     string     `json:"level,omitempty"`
	Message   Message    `json:"message"`
	Locations []Location `json:"locations,omitempty"`
}

// Write writes l as indented JSON.
func (l *Log) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(l)
}

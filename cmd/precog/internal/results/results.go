// Package results is the results directory of a nightly job: what
// "precog test -ci DIR" writes, and what "precog merge" reads from the
// directories of a job's shards and writes again as one. A CI system keeps
// the directory as an artifact, uploads its SARIF log to code scanning, and
// hands it to the next night's shards for their test times.
//
// Layout:
//
//	findings.jsonl   one finding per line, as precog test -json prints them
//	findings.sarif   the same findings as a SARIF 2.1.0 log
//	summary.json     the totals, the statuses, the baseline's verdict, the exit status (Summary)
//	summary.txt      the same, as precog test prints it on stderr
//	tests.json       each test that ran, with its time, outcome and events (Test): the
//	                 times "precog test -shard" balances shards by
//	repro/ID.json    the schedule of each confirmed finding, which "precog repro -o DIR ID" replays
//	repro/commands.txt  one line per confirmed finding: its ID, kind, place and that command
//	report.html      the HTML report of the findings (report.HTML)
//
// A directory is written whole or refused: Prepare accepts a new or empty
// directory or one an earlier run wrote (it holds summary.json), and
// removes exactly the files of the layout from the latter, so that a
// typo cannot delete a user's files.
package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/report"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/sarif"
	"github.com/precog-dev/precog/pipeline/predict"
)

// The files of a results directory.
const (
	FindingsFile = "findings.jsonl"
	SARIFFile    = "findings.sarif"
	SummaryFile  = "summary.json"
	SummaryText  = "summary.txt"
	TestsFile    = "tests.json"
	ReproDir     = "repro"
	CommandsFile = "commands.txt" // in ReproDir
)

// Version is the version of summary.json's and tests.json's layout.
const Version = 1

// A Summary is summary.json: what a run (or the merge of a job's shards)
// found and how long it took.
type Summary struct {
	Version int `json:"version"`
	// Dir is the directory the tests ran in (go's working directory), and
	// Patterns the packages; SARIF names files relative to Dir.
	Dir      string   `json:"dir"`
	Patterns []string `json:"patterns"`
	// Shard is "i/n" for one shard of a job; Merged lists the shards a
	// merged directory was made from.
	Shard  string   `json:"shard,omitempty"`
	Merged []string `json:"merged,omitempty"`

	// Findings counts findings.jsonl's findings, RunFindings those of
	// the recorded runs: without precog vet's candidates (precog test
	// -vet) that no run found. Vet counts the candidates, whose IDs are
	// VetIDs, by status.
	Findings    int                    `json:"findings"`
	RunFindings int                    `json:"runFindings"`
	Statuses    map[finding.Status]int `json:"statuses"`
	Vet         map[finding.Status]int `json:"vet,omitempty"`
	VetIDs      []string               `json:"vetIds,omitempty"`
	// RunSites counts the groups of RunFindings that the text output
	// shows as one block each (finding.Heads: one kind reported at one
	// site); 0 in a summary written before it was counted.
	RunSites int `json:"runSites"`
	// Validated says that validation ran: Statuses then count its
	// verdicts, "apart" (finding.Apart) among them: the findings that
	// precog test's text output leaves out by default are counted, and
	// in findings.jsonl, as the others.
	Validated bool `json:"validated"`
	// FailOn is precog test's -fail-on; Failing lists the IDs of the
	// findings that fail the job (confirmed, or any but those set apart
	// with "predicted", or confirmed by a forced order with "forced", and
	// not in the baseline), Baselined those the baseline accepted,
	// and Baseline the file. Exit is the exit status the job gets.
	FailOn    string   `json:"failOn"`
	Baseline  string   `json:"baseline,omitempty"`
	Failing   []string `json:"failing"`
	Baselined []string `json:"baselined,omitempty"`
	Exit      int      `json:"exit"`

	Packages   int `json:"packages"`
	Tests      int `json:"tests"`
	RunsEach   int `json:"runsEach"`
	Runs       int `json:"runs"`
	FailedRuns int `json:"failedRuns"`
	Skipped    int `json:"skipped,omitempty"`
	// Alone counts the runs whose trace held one goroutine's events
	// alone: no checker has two goroutines to compare on them.
	Alone int `json:"alone,omitempty"`
	// NotRecorded counts the tests not run because the recording's
	// bound was spent; RecordStopped those still running a grace after
	// it, which were stopped as -timeout stops a test and analysed up to
	// there. RecordLimit names the bound: "-record-budget" or
	// "recording's share of -deadline (5s)" (empty in summaries written
	// before it was kept, which only -record-budget could stop).
	NotRecorded   int    `json:"notRecorded,omitempty"`
	RecordStopped int    `json:"recordStopped,omitempty"`
	RecordLimit   string `json:"recordLimit,omitempty"`
	// Streamed counts the runs whose trace was over -max-trace and that
	// got the streamed checkers: the data race checker, the test lifetime
	// check and ConMem's con-null, con-uninit, con-closed, con-index and
	// con-map over the whole trace, then OSCS, and Unicorn's collection of
	// patterns for a test of several runs, over the first events that fit
	// in -max-trace (each has a note).
	Streamed int `json:"streamed,omitempty"`
	// Stopped counts the runs whose analysis -max-trace-time stopped
	// before its end (each has a note saying what was left out).
	Stopped int `json:"stopped,omitempty"`
	// Broken are the packages not tested because they do not build, a
	// line each with the first error; they make the exit status 1.
	Broken []string `json:"broken,omitempty"`
	// Unlisted are the packages not tested because their test binary
	// failed to list its tests (a TestMain that exits), a line each with
	// its first line of output; they make the exit status 1 too, as go
	// test fails such a package.
	Unlisted []string `json:"unlisted,omitempty"`
	// NotBuilt are the packages not tested because the build's share of
	// -deadline ended before their test binary was linked, a line each;
	// they make the exit status 1 too: a nightly job that tested only
	// part of the module does not pass as if it had tested it all.
	NotBuilt []string `json:"notBuilt,omitempty"`
	// Targeted counts the runs forced by targeted perturbation, Reversed
	// those that reversed their pair.
	Targeted    int     `json:"targeted,omitempty"`
	Reversed    int     `json:"reversed,omitempty"`
	Events      int     `json:"events"`
	Reports     int     `json:"reports"`
	Duplication float64 `json:"duplication"`
	// The phases' times; summed over the shards of a merged directory.
	RecordNs   time.Duration `json:"recordNs"`
	DetectNs   time.Duration `json:"detectNs"`
	ValidateNs time.Duration `json:"validateNs"`
	CFP        *CFP          `json:"cfp,omitempty"`

	Notes          []string `json:"notes,omitempty"`
	InternalErrors []string `json:"internalErrors,omitempty"`
	// Error is the error that ended the job before it had results (no
	// package builds, a bad pattern, a go command that fails): a nightly
	// job's directory says why it is empty, and Exit is 1.
	Error string `json:"error,omitempty"`
	// Interrupted is the interruption (SIGTERM from a CI job's timeout,
	// SIGINT) that ended a job after its detection began: the findings
	// are those made so far, the notes say what was left out, and Exit
	// is at least 1, as for Error.
	Interrupted string `json:"interrupted,omitempty"`
}

// CFP is what CFP guidance selected (predict.CFPStats).
type CFP struct {
	Packages      int           `json:"packages"`
	Tests         int           `json:"tests"`
	Selected      int           `json:"selected"`
	Funcs         int           `json:"funcs"`
	SelectedFuncs int           `json:"selectedFuncs"`
	Pairs         int           `json:"pairs"`
	MeasureNs     time.Duration `json:"measureNs"`
}

// add adds another shard's selection to c.
func (c *CFP) add(o *CFP) {
	c.Packages += o.Packages
	c.Tests += o.Tests
	c.Selected += o.Selected
	c.Funcs += o.Funcs
	c.SelectedFuncs += o.SelectedFuncs
	c.Pairs += o.Pairs
	c.MeasureNs += o.MeasureNs
}

// A Test is one entry of tests.json: a top-level test that ran, with the
// time it cost (recording all its runs, and validating the findings it
// was the witness of) and how its recorded run ended.
type Test struct {
	Package string        `json:"package"`
	Name    string        `json:"name"`
	Outcome string        `json:"outcome"`
	WallNs  time.Duration `json:"wallNs"`
	// ValidateNs is the time spent validating findings in this test.
	ValidateNs time.Duration `json:"validateNs,omitempty"`
	Events     int           `json:"events"`
}

// Key is the test's name as findings name it: "importpath.TestName".
func (t Test) Key() string { return t.Package + "." + t.Name }

// Cost is what the test costs a shard: recording and validation.
func (t Test) Cost() time.Duration { return t.WallNs + t.ValidateNs }

// FromResult returns the summary and the tests of precog test's result,
// run with runs runs per test in dir on patterns.
func FromResult(res *predict.Result, dir string, patterns []string, runs int) (*Summary, []Test) {
	s := res.Stats
	sum := &Summary{
		Version: Version, Dir: dir, Patterns: patterns,
		Findings: len(res.Findings), RunFindings: len(res.Runtime()), RunSites: groups(res.Runtime()), Statuses: map[finding.Status]int{}, Validated: s.Statuses != nil,
		Vet: s.Vet, VetIDs: s.VetIDs,
		Packages: s.Packages, Tests: s.Tests, RunsEach: runs, Runs: s.Runs, FailedRuns: s.FailedRuns, Skipped: s.Skipped, Alone: s.Alone, NotRecorded: s.NotRecorded, RecordStopped: s.RecordStopped, RecordLimit: s.RecordLimit, Streamed: s.Streamed, Stopped: s.Stopped, Broken: res.Broken, Unlisted: res.Unlisted, NotBuilt: res.NotBuilt,
		Targeted: s.Targeted, Reversed: s.Reversed,
		Events: s.Events, Reports: s.Reports, Duplication: res.Duplication(),
		RecordNs: s.Record, DetectNs: s.Detect, ValidateNs: s.Validate,
		Notes: res.Notes, InternalErrors: res.InternalErrors,
	}
	for _, f := range res.Findings {
		sum.Statuses[f.Status]++
	}
	if c := s.CFP; c != nil {
		sum.CFP = &CFP{c.Packages, c.Tests, c.Selected, c.Funcs, c.SelectedFuncs, c.Pairs, c.Measure}
	}
	validating := make(map[string]time.Duration)
	for _, f := range res.Findings {
		if v := f.Validation; v != nil && v.Test != "" {
			validating[v.Test] += time.Duration(v.WallNs)
		}
	}
	var tests []Test
	if res.Index != nil {
		for _, p := range res.Index.Packages {
			for _, t := range p.Tests {
				tt := Test{Package: p.ImportPath, Name: t.Name, Outcome: string(t.Outcome), WallNs: t.Wall, Events: t.Events}
				for _, r := range t.Runs {
					tt.WallNs += r.Wall
					tt.Events += r.Events
				}
				tt.ValidateNs = validating[tt.Key()]
				tests = append(tests, tt)
			}
		}
	}
	sortTests(tests)
	return sum, tests
}

// groups counts the groups of fs (finding.Heads).
func groups(fs []finding.Finding) int {
	n := 0
	for i, h := range finding.Heads(fs) {
		if h == i {
			n++
		}
	}
	return n
}

func sortTests(ts []Test) {
	slices.SortFunc(ts, func(a, b Test) int { return strings.Compare(a.Key(), b.Key()) })
}

// FromError is the summary of a job that ended with err before it had
// results.
func FromError(err error, dir string, patterns []string, failOn string) *Summary {
	return &Summary{Version: Version, Dir: dir, Patterns: patterns, Statuses: map[finding.Status]int{},
		FailOn: failOn, Failing: []string{}, Exit: cli.ExitError, Error: err.Error()}
}

// Judge sets each finding's Baselined from the baseline (nil for none)
// and fills the summary's verdict: the failing and baselined IDs and the
// exit status, 3 if anything fails the job, else 1 if a package was not
// tested (Broken) or a shard ended in an error (Error). failOn is
// "confirmed", "predicted" or "forced".
func (s *Summary) Judge(fs []finding.Finding, baseline Baseline, baselineFile, failOn string) {
	s.FailOn, s.Baseline = failOn, baselineFile
	s.Failing, s.Baselined = []string{}, nil
	for i := range fs {
		f := &fs[i]
		f.Baselined = baseline[f.ID]
		if f.Baselined {
			s.Baselined = append(s.Baselined, f.ID)
			continue
		}
		if fails(f, failOn) {
			s.Failing = append(s.Failing, f.ID)
		}
	}
	s.Exit = cli.ExitOK
	switch {
	case len(s.Failing) > 0:
		s.Exit = cli.ExitFindings
	case len(s.Broken) > 0 || len(s.Unlisted) > 0 || len(s.NotBuilt) > 0 || s.Error != "" || s.Interrupted != "":
		s.Exit = cli.ExitError // go test's status for a package whose build failed
	}
}

// fails reports whether f fails a job under failOn: with "predicted" any
// finding, with "confirmed" a confirmed one, and with "forced" one that a
// forced order confirmed: not a test that failed by itself (a crash or a
// failed test, confirmed since it fails unrecorded too), which go test
// reports as well, and which a job that runs go test beside precog test
// would report twice (go-sql-driver/mysql's test that needs a server,
// resty's timing assertion at load). A finding set apart
// (report.SetApart) fails none: validation found the prediction false, or
// an OSCS pair's other order changed nothing the test checks.
func fails(f *finding.Finding, failOn string) bool {
	if report.SetApart(*f) {
		return false
	}
	switch failOn {
	case "predicted":
		return true
	case "forced":
		return f.Status == finding.Confirmed && f.Kind != finding.Crash && f.Kind != finding.TestFailed
	}
	return f.Status == finding.Confirmed
}

// Prepare makes dir ready for Write: it creates it, or empties one that
// an earlier run wrote of the files of the layout. It refuses a directory
// that holds other files and no summary.json.
func Prepare(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(dir, 0o777)
	}
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err != nil {
		return fmt.Errorf("results directory %s is not empty and holds no %s from an earlier run; choose a new or empty directory", dir, SummaryFile)
	}
	for _, f := range []string{FindingsFile, SARIFFile, SummaryText, TestsFile, HTMLFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, ReproDir)); err != nil {
		return err
	}
	// Last: a directory whose clean-up failed is still recognized.
	return os.Remove(filepath.Join(dir, SummaryFile))
}

// HTMLFile is the HTML report's name.
const HTMLFile = "report.html"

// Write writes the results directory dir, which Prepare made ready, from
// the summary, the findings and the tests. The schedules of the confirmed
// findings must be in dir's repro directory already (precog test's
// validation writes them there); Write adds the commands that replay
// them, command(id) each, and the HTML report of the run html describes.
func Write(dir string, s *Summary, fs []finding.Finding, tests []Test, command func(id string) string, html *report.HTMLRun) error {
	var b bytes.Buffer
	if err := report.JSON(&b, fs); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, FindingsFile), b.Bytes(), 0o666); err != nil {
		return err
	}
	sarifLog := report.SARIF
	if s.Baseline != "" {
		sarifLog = report.SARIFBaselined
	}
	errs := s.InternalErrors
	for _, e := range []string{s.Error, s.Interrupted} {
		if e != "" {
			errs = append(slices.Clip(errs), e) // the run did not succeed
		}
	}
	log := sarifLog(s.Dir, report.KindRules(finding.RuntimeKinds()), fs, errs)
	if err := sarif.WriteFile(nil, dir, SARIFFile, log); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, SummaryFile), s); err != nil {
		return err
	}
	b.Reset()
	WriteText(&b, s)
	if err := os.WriteFile(filepath.Join(dir, SummaryText), b.Bytes(), 0o666); err != nil {
		return err
	}
	if tests == nil {
		tests = []Test{}
	}
	if err := writeJSON(filepath.Join(dir, TestsFile), tests); err != nil {
		return err
	}
	if err := report.HTMLFile(filepath.Join(dir, HTMLFile), *html, fs); err != nil {
		return err
	}
	return writeCommands(dir, s.Dir, fs, command)
}

// writeCommands writes repro/commands.txt, if any finding is confirmed.
func writeCommands(dir, root string, fs []finding.Finding, command func(id string) string) error {
	var b bytes.Buffer
	for _, f := range fs {
		if f.Status != finding.Confirmed {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, ReproDir, f.ID+".json")); err != nil {
			continue // a failure of a recorded run: its repro is go test
		}
		at := ""
		if len(f.Sites) > 0 {
			at = relPath(root, f.Sites[0].File) + ":" + fmt.Sprint(f.Sites[0].Line)
		}
		fmt.Fprintf(&b, "%s %s %s: %s\n", f.ID, f.Kind, at, command(f.ID))
	}
	if b.Len() == 0 {
		return nil
	}
	return os.WriteFile(filepath.Join(dir, ReproDir, CommandsFile), b.Bytes(), 0o666)
}

func relPath(dir, file string) string {
	if rel, err := filepath.Rel(dir, file); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return file
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o666)
}

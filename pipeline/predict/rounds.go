package predict

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/record"
)

// roundLeft reports whether what is left of the deadline is worth another
// round for the packages whose test binaries the build's share did not
// link: a build, a recording, detection and validation, each with its
// share of it: at least a tenth of the deadline (a minute of a nightly
// job's ten), and 5s. With no deadline there is no round after the first.
func (d *jobDeadline) roundLeft() bool {
	return d != nil && d.left() >= max(d.limit/10, 5*time.Second)
}

// add adds the result of a later round, on other packages, to r: the two
// recordings, their findings merged by ID as the tests of one round are
// (finding.Merge), and what each says.
func (r *Result) add(next *Result) {
	ix := *r.Index
	ix.Packages = slices.Concat(r.Index.Packages, next.Index.Packages)
	ix.NotBuilt = next.Index.NotBuilt
	ix.NotRun += next.Index.NotRun
	ix.Unlisted = slices.Concat(r.Index.Unlisted, next.Index.Unlisted)
	ix.Interrupted = next.Index.Interrupted
	r.Index = &ix
	r.Findings = mergeRounds(r.Findings, next.Findings)
	r.Notes = append(r.Notes, next.Notes...)
	r.InternalErrors = append(r.InternalErrors, next.InternalErrors...)
	r.Unlisted = append(r.Unlisted, next.Unlisted...)

	s, t := &r.Stats, next.Stats
	s.add(t)
	s.Packages += t.Packages
	s.Tests += t.Tests
	s.Reports += t.Reports
	s.Record += t.Record
	s.Detect += t.Detect
	s.Validate += t.Validate
	s.NotRecorded += t.NotRecorded
	s.RecordStopped += t.RecordStopped
	switch {
	case s.RecordLimit == "":
		s.RecordLimit = t.RecordLimit
	case t.RecordLimit != "" && t.RecordLimit != s.RecordLimit:
		s.RecordLimit = "the rounds' recording bounds"
	}
	if c := t.CFP; c != nil {
		if s.CFP == nil {
			s.CFP = new(CFPStats)
		}
		s.CFP.add(c)
	}
	if s.Statuses != nil || t.Statuses != nil {
		s.Statuses = make(map[finding.Status]int)
		for _, f := range r.Findings {
			s.Statuses[f.Status]++
		}
	}
}

// mergeRounds merges the findings of two rounds. Each round's detection
// looked for every static candidate of precog vet (DetectOptions.Static)
// and made one a runtime finding where its runs showed it, with a note:
// a candidate one round found at runtime is that finding, not the other
// round's static copy; one that both rounds report as a candidate alone
// is one candidate, reported by the tests of both.
func mergeRounds(a, b []finding.Finding) []finding.Finding {
	runtime := make(map[string]bool)
	for _, f := range slices.Concat(a, b) {
		if f.Analyzer == "" {
			runtime[f.ID] = true
		}
	}
	var all []finding.Finding
	for _, f := range slices.Concat(a, b) {
		if f.Analyzer == "" || !runtime[f.ID] {
			all = append(all, f)
		}
	}
	out := finding.Merge(all)
	for i := range out {
		if out[i].Analyzer != "" {
			out[i].Reports = max(len(out[i].Tests), 1) // as vetState.findings counts them
		}
	}
	return out
}

// buildNotes says what the builds of the rounds did when a share of the
// deadline stopped one: cuts has one entry per round, nil for a round
// whose build ended by itself. notBuilt are the packages left.
func buildNotes(cuts []*record.BuildCutError, notBuilt []string) []string {
	if len(cuts) == 0 || cuts[0] == nil {
		return nil
	}
	first := cuts[0]
	note := fmt.Sprintf("%s ended with %d of %d test binaries linked", shareName("the build", first.Limit), first.Linked, first.Of)
	for i, c := range cuts[1:] {
		of := "the others"
		if i == 0 {
			of = fmt.Sprintf("the other %d", first.Of-first.Linked)
		}
		if c == nil {
			note += fmt.Sprintf("; round %d built %s with the time left and recorded their tests", i+2, of)
		} else {
			note += fmt.Sprintf("; in round %d, its share (%v) linked %d of %s", i+2, c.Limit.Round(time.Second), c.Linked, of)
		}
	}
	if n := len(notBuilt); n > 0 {
		note += fmt.Sprintf(": the tests of the other %d %s were not run (more -deadline, or fewer packages)", n, plural(n, "package", "packages"))
	}
	return []string{note}
}

// cutsName names the build's shares of the deadline that left a package
// not linked: the first round's, and those of the rounds after it.
func cutsName(cuts []*record.BuildCutError) string {
	if len(cuts) == 1 {
		return shareName("the build", cuts[0].Limit)
	}
	var limits []string
	for _, c := range cuts {
		if c != nil {
			limits = append(limits, c.Limit.Round(time.Second).String())
		}
	}
	return fmt.Sprintf("the build's shares of -deadline in %d rounds (%s)", len(cuts), strings.Join(limits, ", "))
}

package results

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/detect/finding"
)

// WriteText writes the summary as precog test prints it on stderr: the
// notes and internal errors, then the totals, CFP's selection, the
// validation's verdicts and, with a baseline, the baseline's.
func WriteText(w io.Writer, s *Summary) {
	if s.Error != "" {
		fmt.Fprintf(w, "no results: %s\n", s.Error)
		if len(s.Merged) == 0 {
			return // nothing ran: no totals
		}
	}
	if s.Interrupted != "" {
		fmt.Fprintf(w, "partial results: %s\n", s.Interrupted)
	}
	for _, n := range s.Notes {
		fmt.Fprintln(w, n)
	}
	for _, e := range s.InternalErrors {
		fmt.Fprintln(w, e)
	}
	for _, b := range slices.Concat(s.Broken, s.Unlisted, s.NotBuilt) {
		fmt.Fprintln(w, "not tested: "+b)
	}
	fmt.Fprintf(w, "%d %s", s.RunFindings, cli.Plural(s.RunFindings, "finding", "findings"))
	if s.RunSites > 0 && s.RunSites < s.RunFindings {
		// The text lists a kind reported at one line once.
		fmt.Fprintf(w, " at %d %s", s.RunSites, cli.Plural(s.RunSites, "site", "sites"))
	}
	fmt.Fprintf(w, " (%d %s, duplication rate %.2f) in %d %s of %d %s",
		s.Reports, cli.Plural(s.Reports, "report", "reports"), s.Duplication,
		s.Tests, cli.Plural(s.Tests, "test", "tests"), s.Packages, cli.Plural(s.Packages, "package", "packages"))
	if s.RunsEach > 1 {
		fmt.Fprintf(w, ", %d runs each, %d of %d failed", s.RunsEach, s.FailedRuns, s.Runs)
		if s.Targeted > 0 {
			fmt.Fprintf(w, " (%d targeted, %d of them reversed their pair)", s.Targeted, s.Reversed)
		}
	} else if s.FailedRuns > 0 {
		fmt.Fprintf(w, ", %d failed", s.FailedRuns)
	}
	// RecordNs runs from the build to the last recorded test: CFP's
	// cheap runs, when guidance ran, are part of it.
	fmt.Fprintf(w, "; %d events; built, instrumented and recorded in %s", s.Events, cli.Round(s.RecordNs))
	if c := s.CFP; c != nil && c.MeasureNs > 0 {
		fmt.Fprintf(w, " (CFP's cheap runs %s of it)", cli.Round(c.MeasureNs))
	}
	fmt.Fprintf(w, ", detected in %s", cli.Round(s.DetectNs))
	if s.Streamed > 0 {
		fmt.Fprintf(w, " (%d %s over -max-trace got the streamed checks and OSCS on %s first events, with Unicorn's patterns in a test of several runs)", s.Streamed, cli.Plural(s.Streamed, "run", "runs"), cli.Plural(s.Streamed, "its", "their"))
	}
	if s.Stopped > 0 {
		fmt.Fprintf(w, " (%d %s stopped at -max-trace-time, partly analysed)", s.Stopped, cli.Plural(s.Stopped, "run", "runs"))
	}
	if s.Skipped > 0 {
		fmt.Fprintf(w, " (%d %s not analysed, over a limit)", s.Skipped, cli.Plural(s.Skipped, "run", "runs"))
	}
	limit := cmp.Or(s.RecordLimit, "-record-budget")
	switch {
	case s.NotRecorded > 0 && s.RecordStopped > 0:
		fmt.Fprintf(w, " (%d %s not recorded and %d stopped, over %s)", s.NotRecorded, cli.Plural(s.NotRecorded, "test", "tests"), s.RecordStopped, limit)
	case s.NotRecorded > 0:
		fmt.Fprintf(w, " (%d %s not recorded, over %s)", s.NotRecorded, cli.Plural(s.NotRecorded, "test", "tests"), limit)
	case s.RecordStopped > 0:
		fmt.Fprintf(w, " (%d %s stopped, over %s)", s.RecordStopped, cli.Plural(s.RecordStopped, "test", "tests"), limit)
	}
	writeNotTested(w, len(s.Broken), len(s.Unlisted), len(s.NotBuilt))
	if len(s.Merged) > 0 {
		fmt.Fprintf(w, " (summed over %d shards)", len(s.Merged))
	}
	fmt.Fprintln(w)
	if c := s.CFP; c != nil && c.Packages > 0 {
		fmt.Fprintf(w, "cfp: detected in %d of %d tests and %d of %d functions of the %d %s with more than one test, which cover their %d concurrent function %s (cheap runs %s; -cfp=false detects in every test)\n",
			c.Selected, c.Tests, c.SelectedFuncs, c.Funcs, c.Packages, cli.Plural(c.Packages, "package", "packages"),
			c.Pairs, cli.Plural(c.Pairs, "pair", "pairs"), cli.Round(c.MeasureNs))
	}
	if s.Validated {
		st := s.Statuses
		fmt.Fprintf(w, "validated: %d confirmed, %d not confirmed, %d diverged, %d timed out, %d apart, %d not validated, in %s\n",
			st[finding.Confirmed], st[finding.NotConfirmed], st[finding.Diverged], st[finding.TimedOut], st[finding.Apart], st[finding.Predicted], cli.Round(s.ValidateNs))
	}
	if v := s.Vet; v != nil {
		n := 0
		for _, c := range v {
			n += c
		}
		fmt.Fprintf(w, "vet: %d %s of precog vet: %d confirmed, %d not confirmed, %d diverged, %d timed out, %d not validated, %d not reached by any test, %d without two sites to force\n",
			n, cli.Plural(n, "diagnostic", "diagnostics"), v[finding.Confirmed], v[finding.NotConfirmed], v[finding.Diverged], v[finding.TimedOut], v[finding.Predicted], v[finding.NotReached], v[finding.Static])
	}
	if s.Baseline != "" {
		fmt.Fprintf(w, "baseline %s: %d %s accepted; %d new %s the job", s.Baseline,
			len(s.Baselined), cli.Plural(len(s.Baselined), "finding", "findings"),
			len(s.Failing), cli.Plural(len(s.Failing), "finding fails", "findings fail"))
		if len(s.Failing) > 0 {
			fmt.Fprintf(w, ": %s", strings.Join(s.Failing, " "))
		}
		fmt.Fprintln(w)
	}
}

// ApartLine is the line that precog test and precog merge print on
// stderr, after the summary, when their text output left out the
// findings apart (report.SetApart): how many of each kind, why, and how
// to see them. Held-out rehearsal 55 (go-libp2p-kad-dht) printed 4 races
// set apart among its 45 false findings, each not confirmed, with the two
// addresses in its reason.
func ApartLine(apart []finding.Finding) string {
	races, passed := 0, 0 // the rest: OSCS pairs not forced
	for _, f := range apart {
		switch {
		case f.Status == finding.Apart:
			races++
		case f.Status == finding.NotConfirmed:
			passed++
		}
	}
	unforced := len(apart) - races - passed
	var why []string
	if races > 0 {
		why = append(why, fmt.Sprintf("%sdata %s whose forced runs, each time the order held, ran the two accesses on different memory (an address reused by a new object), so the recording paired two objects",
			count(races, len(apart)), cli.Plural(races, "race", "races")))
	}
	if passed > 0 {
		why = append(why, fmt.Sprintf("%sOSCS %s that validation ran in the other order without the test failing, so neither order changed what the test checks",
			count(passed, len(apart)), cli.Plural(passed, "pair", "pairs")))
	}
	if unforced > 0 {
		why = append(why, fmt.Sprintf("%sOSCS %s that validation could not run in another order (diverged or timed out)",
			count(unforced, len(apart)), cli.Plural(unforced, "pair", "pairs")))
	}
	n := len(apart)
	return fmt.Sprintf("%d %s set apart and not shown: %s; -show-apart shows %s, -json lists %s",
		n, cli.Plural(n, "finding", "findings"), strings.Join(why, "; "), cli.Plural(n, "it", "them"), cli.Plural(n, "it", "them"))
}

// count is "n " when other findings are set apart beside these n (of all
// of them), "" when these are all of them (the line's total counts them).
func count(n, all int) string {
	if n == all {
		return ""
	}
	return fmt.Sprintf("%d ", n)
}

// writeNotTested writes the summary line's count of the packages not
// tested: b that do not build, u whose tests failed to list, n whose test
// binary the build's share of -deadline did not link. One reason reads
// "(2 packages not tested: they do not build)", several "(3 packages not
// tested: 2 do not build, 1 failed to list its tests)".
func writeNotTested(w io.Writer, b, u, n int) {
	reasons := []struct {
		n         int
		one, many string // the verb for one package and for several
	}{
		{b, "does not build", "do not build"},
		{u, "failed to list its tests", "failed to list their tests"},
		{n, "was not built in time", "were not built in time"},
	}
	var why []string
	for _, r := range reasons {
		if r.n > 0 {
			why = append(why, fmt.Sprintf("%d %s", r.n, cli.Plural(r.n, r.one, r.many)))
		}
	}
	t := b + u + n
	switch len(why) {
	case 0:
		return
	case 1:
		_, verb, _ := strings.Cut(why[0], " ")
		why[0] = cli.Plural(t, "it ", "they ") + verb
	}
	fmt.Fprintf(w, " (%d %s not tested: %s)", t, cli.Plural(t, "package", "packages"), strings.Join(why, ", "))
}

// Package report writes findings (detect/finding) for precog's commands:
// as text, as JSON lines and as SARIF 2.1.0. precog vet and precog test
// share these writers, so a finding reads the same whichever found it.
//
// A static finding keeps go vet's text shape, "file:line:col: message
// [kind]", followed by its check's evidence, since that is what go vet's
// users and their editors parse. A finding from a run names its kind
// first, then its evidence hop by hop, its tests, and its ID and status.
package report

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/failure"
)

// JSON writes one JSON object per finding, one per line (JSON Lines),
// each with its evidence whole; a finding the text output shows under
// another's (finding.Heads) names that one's ID in sameAs.
func JSON(w io.Writer, fs []finding.Finding) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	heads := finding.Heads(fs)
	for i, f := range fs {
		if f.Tests == nil {
			f.Tests = []string{}
		}
		f.SameAs = ""
		if h := heads[i]; h != i {
			f.SameAs = fs[h].ID
		}
		// Omit what is unknown: the zero spawns of sites on a test's own
		// goroutine and the stacks of a run recorded without -funcs.
		f.Spawns = slices.DeleteFunc(slices.Clone(f.Spawns), func(s finding.Site) bool { return s == finding.Site{} })
		if !slices.ContainsFunc(f.Stacks, func(s []finding.Site) bool { return len(s) > 0 }) {
			f.Stacks = nil
		}
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Text writes findings as text, one line each followed by one indented
// line per piece of evidence, with file names relative to dir when under
// it. The findings of a kind reported at one line (finding.Heads) are one
// block: its head's, with a line for each of the others. Confirmed
// findings come first and those set apart (finding.Apart) last; precog
// test leaves the latter out unless asked (Apart splits them off).
func Text(w io.Writer, dir string, fs []finding.Finding) error {
	bw := bufio.NewWriter(w)
	// Confirmed findings first: they are facts, the rest hypotheses.
	fs = slices.Clone(fs)
	// Among them, the failures of the recorded runs first and data races
	// last: crashes are what precog is for.
	slices.SortStableFunc(fs, func(a, b finding.Finding) int {
		return cmp.Or(cmp.Compare(rank(b.Status), rank(a.Status)), cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)))
	})
	heads := finding.Heads(fs)
	same := make(map[int][]int) // head -> the others of its group
	for i, h := range heads {
		if h != i {
			same[h] = append(same[h], i)
		}
	}
	for i, f := range fs {
		if heads[i] != i {
			continue // under its head
		}
		if f.Status == finding.Static {
			staticText(bw, dir, f)
			continue
		}
		pos := "-"
		if len(f.Sites) > 0 && (f.Sites[0].File != "" || !carriesMessage(f)) {
			pos = sitePos(dir, f.Sites[0])
		}
		msg := f.Message
		if carriesMessage(f) {
			head, _ := messageLines(f.Sites[0].Expr)
			msg = clipLine(strings.TrimSuffix(f.Message, f.Sites[0].Expr) + head)
		}
		fmt.Fprintf(bw, "%s: %s: %s\n", pos, f.Kind, msg)
		for _, line := range evidence(dir, f) {
			fmt.Fprintf(bw, "\t%s\n", line)
		}
		for _, j := range same[i] {
			fmt.Fprintf(bw, "\t%s\n", sameLine(dir, f, fs[j]))
		}
	}
	return bw.Flush()
}

// sameLine is the one line under a group's head (finding.Heads) of another
// finding of the group: its other sites (its first too when it is at
// another column of the head's line), tests, ID and status. -json has its
// evidence whole.
func sameLine(dir string, head, f finding.Finding) string {
	var parts []string
	sites := f.Sites[1:]
	if f.Sites[0].Col != head.Sites[0].Col {
		// Another access of the head's line (one statement's stores).
		sites = f.Sites
	}
	for _, s := range sites {
		p := sitePos(dir, s) + ": " + s.Role
		if s.Expr != "" {
			p += " " + s.Expr
		}
		if s.Function != "" {
			p += " in " + s.Function
		}
		parts = append(parts, p)
	}
	line := "also at this site, with " + strings.Join(parts, ", ")
	if len(f.Tests) > 0 {
		line += "; tests: " + strings.Join(f.Tests, " ")
	}
	line += "; id " + f.ID + ", " + statusWords(f)
	if f.Baselined {
		line += " (baselined)"
	}
	if f.Repro != "" {
		line += "; reproduce: " + f.Repro
	}
	return line
}

// staticText writes a static finding: its position (its package when the
// check gave none), message and kind, then its check's evidence. A
// multi-line message, such as an internal error's stack, continues below
// the first line.
func staticText(w io.Writer, dir string, f finding.Finding) {
	var at finding.Site
	if len(f.Sites) > 0 {
		at = f.Sites[0]
	}
	first, rest, multi := strings.Cut(f.Message, "\n")
	fmt.Fprintf(w, "%s: %s [%s]\n", staticPos(dir, at.File, at.Line, at.Col, f.Package), first, f.Kind)
	if multi {
		fmt.Fprintf(w, "%s\n", strings.TrimRight(rest, "\n"))
	}
	for _, r := range f.Related {
		fmt.Fprintf(w, "\t%s: %s\n", staticPos(dir, r.File, r.Line, r.Col, f.Package), r.Message)
	}
}

// staticPos formats a position as file:line:col, or names the package
// when there is no position.
func staticPos(dir, file string, line, col int, pkg string) string {
	if file == "" || line <= 0 {
		return pkg
	}
	return relPath(dir, file) + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
}

// evidence returns the lines under a finding from a run: for each site,
// the go statement that started its goroutine, the calls open at it, then
// the site itself with the locks held and the clock; then notes, Unicorn's
// score, the tests, its ID and status with what validation saw, and its
// reproducer.
func evidence(dir string, f finding.Finding) []string {
	var lines []string
	for i, s := range f.Sites {
		if i < len(f.Spawns) && f.Spawns[i].File != "" {
			sp := f.Spawns[i]
			lines = append(lines, fmt.Sprintf("%s: go statement starts the goroutine of the %s", sitePos(dir, sp), s.Role))
		}
		if i < len(f.Stacks) {
			for _, c := range f.Stacks[i] {
				if c.File == "" {
					continue
				}
				lines = append(lines, fmt.Sprintf("%s: in %s", sitePos(dir, c), cmp.Or(c.Function, c.Expr)))
			}
		}
		if s.Role == "" && f.Analyzer != "" {
			continue // a static finding's reported position, the first line's
		}
		if i == 0 && carriesMessage(f) {
			// A failure's site: the headline has the message's
			// first line, its further lines follow, bounded.
			if s.File != "" {
				lines = append(lines, fmt.Sprintf("%s: %s", sitePos(dir, s), s.Role))
			}
			_, more := messageLines(s.Expr)
			for k := range more {
				more[k] = relPaths(dir, more[k])
			}
			lines = append(lines, indentLines(more)...)
			continue
		}
		line := fmt.Sprintf("%s: %s", sitePos(dir, s), s.Role)
		if s.Expr != "" {
			line += " " + s.Expr
		}
		if s.Function != "" {
			line += " in " + s.Function
		}
		var extra []string
		if i < len(f.Evidence.Locks) {
			if l := f.Evidence.Locks[i]; len(l) > 0 {
				extra = append(extra, "holding "+strings.Join(l, ", "))
			} else {
				extra = append(extra, "no lock held")
			}
		}
		if i < len(f.Evidence.Clocks) && f.Evidence.Clocks[i] != "" {
			extra = append(extra, "clock "+shortClock(f.Evidence.Clocks[i]))
		}
		if len(extra) > 0 {
			line += " (" + strings.Join(extra, "; ") + ")"
		}
		lines = append(lines, line)
	}
	for _, r := range f.Related {
		// A static finding taken to the runs (precog test -vet): its
		// check's evidence.
		lines = append(lines, fmt.Sprintf("%s: %s", staticPos(dir, r.File, r.Line, r.Col, f.Package), r.Message))
	}
	if f.Analyzer != "" {
		lines = append(lines, fmt.Sprintf("found by precog vet's %s check", f.Analyzer))
	}
	for _, n := range f.Evidence.Notes {
		lines = append(lines, "note: "+n)
	}
	if e := f.Evidence; e.Suspiciousness > 0 || e.FailingRuns > 0 {
		lines = append(lines, fmt.Sprintf("suspiciousness %.2f: in %d failing and %d passing runs", e.Suspiciousness, e.FailingRuns, e.PassingRuns))
	}
	if len(f.Tests) > 0 {
		lines = append(lines, "tests: "+strings.Join(f.Tests, " "))
	}
	lines = append(lines, statusLine(f))
	if f.Repro != "" {
		lines = append(lines, "reproduce: "+f.Repro)
	}
	return lines
}

// Bounds of a message in the text output: a failed test's message can be
// a list of ninety UUIDs or a golden file's diff. -json and the HTML
// report keep it whole.
const (
	maxWidth = 200 // bytes of one line of a message
	maxLines = 12  // lines of a message below its headline
)

// carriesMessage reports whether f is a failure read from a test's output
// (precog test's crash and test-failed findings of the recorded runs)
// whose first site holds the failure's message, which f's own message
// ends with: the text output shows that message once.
func carriesMessage(f finding.Finding) bool {
	if f.Kind != finding.Crash && f.Kind != finding.TestFailed || len(f.Sites) == 0 {
		return false
	}
	msg := f.Sites[0].Expr
	return msg != "" && strings.HasSuffix(f.Message, msg)
}

// messageLines splits a failure's message into the line the headline
// shows (failure.Headline's) and the lines below it, leading blank lines
// left out.
func messageLines(msg string) (head string, more []string) {
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	at, head := failure.Headline(lines)
	if at < 0 {
		return "", nil
	}
	first := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) != "" })
	more = append(lines[first:at:at], lines[at+1:]...)
	return head, more
}

// indentLines returns lines indented below a site's line, each cut to
// maxWidth bytes; past maxLines of them, one line says how many more there
// are.
func indentLines(lines []string) []string {
	var out []string
	for i, l := range lines {
		if i == maxLines && len(lines) > maxLines+1 {
			out = append(out, fmt.Sprintf("    … %d more lines (-json and -html show the whole message)", len(lines)-i))
			break
		}
		out = append(out, strings.TrimRight("    "+clipLine(l), " \t"))
	}
	return out
}

// clipLine cuts line to maxWidth bytes, at a rune's start, saying how many
// bytes it left out.
func clipLine(line string) string {
	if len(line) <= maxWidth {
		return line
	}
	cut := maxWidth
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes; -json and -html show the whole message)", line[:cut], len(line)-cut)
}

// dropMessage removes from a failure's status line the message it ends
// with, which the headline already shows, with the "panic: " or "fatal
// error: " go test printed before it.
func dropMessage(status, msg string) string {
	s, ok := strings.CutSuffix(status, ": "+msg)
	if !ok {
		return status
	}
	for _, p := range []string{": panic", ": fatal error"} {
		s = strings.TrimSuffix(s, p)
	}
	return s
}

// statusLine is the last line of a finding: its ID and status, with what
// validation saw.
func statusLine(f finding.Finding) string {
	line := validationLine(f)
	if carriesMessage(f) {
		line = dropMessage(line, f.Sites[0].Expr)
	}
	if f.Baselined {
		line += " (baselined: accepted, does not fail the job)"
	}
	return line
}

// validationLine is the status line without the baseline's mark.
func validationLine(f finding.Finding) string {
	v := f.Validation
	if v == nil {
		return fmt.Sprintf("id %s, %s", f.ID, f.Status.Words())
	}
	line := fmt.Sprintf("id %s, %s", f.ID, statusWords(f))
	if f.Status == finding.Confirmed {
		line += fmt.Sprintf(" (%s, in %s)", v.Effect, v.Test)
	}
	if v.Reason != "" {
		line += ": " + v.Reason
	}
	if len(v.Seeds) > 0 {
		line += fmt.Sprintf(" (orders that diverged, or a race's that ran on other memory, were retried perturbed, seeds %v)", v.Seeds)
	}
	return line
}

// statusWords is how the text names f's status, its block's line and a
// line under another's head (sameLine) alike: "confirmed", "predicted
// only", "predicted only, not confirmed".
func statusWords(f finding.Finding) string {
	switch {
	case f.Validation == nil || f.Status == finding.Confirmed:
		return f.Status.Words()
	case f.Status == finding.Predicted:
		return only(f) + " only"
	case f.Status == finding.Apart:
		return only(f) + " only, set apart"
	}
	return only(f) + " only, " + f.Status.Words()
}

// only says what an unconfirmed finding is: a prediction from a run, or a
// static finding that precog test -vet took to the runs.
func only(f finding.Finding) string {
	if f.Analyzer != "" {
		return "static"
	}
	return "predicted"
}

// rank orders statuses for the text output: confirmed first, set apart
// last.
func rank(s finding.Status) int {
	switch s {
	case finding.Confirmed:
		return 1
	case finding.Apart:
		return -1
	}
	return 0
}

// Apart splits fs into the findings a reader is shown by default and
// those set apart (SetApart), each in fs's order.
func Apart(fs []finding.Finding) (shown, apart []finding.Finding) {
	for _, f := range fs {
		if SetApart(f) {
			apart = append(apart, f)
		} else {
			shown = append(shown, f)
		}
	}
	return shown, apart
}

// SetApart reports whether the text output leaves f out by default: a
// data race that validation set apart (finding.Apart: its forced runs
// touched different memory, a false prediction), or an OSCS pair that
// validation tried and did not confirm: it ran the pair in the other
// order, and with the other goroutine's section between two of the
// goroutine's own (the atomicity orders), without the test failing (not
// confirmed), or could not force those orders (diverged, or timed out,
// its budget spent). An OSCS pair is a bug only through what the order
// changes: on the real modules of held-out rehearsals 55 to 57 each of
// the 11 OSCS predictions was false, 9 not confirmed, one diverged and
// one timed out. A pair validation did not try (predicted:
// -validate=false) stays shown. Machine outputs (-json, -sarif, -ci) keep
// them all.
func SetApart(f finding.Finding) bool {
	if f.Kind == finding.OSCS {
		return f.Status == finding.NotConfirmed || f.Status == finding.Diverged || f.Status == finding.TimedOut
	}
	return f.Status == finding.Apart
}

// kindRank orders kinds in the text output: the recorded runs' failures,
// then the crash kinds' predictions, then data races.
func kindRank(kind string) int {
	switch kind {
	case finding.Crash, finding.TestFailed:
		return 0
	case finding.Race:
		return 2
	}
	return 1
}

// sitePos formats a site's position as file:line:col, the file relative
// to dir when under it; a site without a file shows its expression.
func sitePos(dir string, s finding.Site) string {
	if s.File == "" {
		return s.Expr
	}
	pos := relPath(dir, s.File) + ":" + strconv.Itoa(s.Line)
	if s.Col > 0 {
		// A position read from a traceback has no column.
		pos += ":" + strconv.Itoa(s.Col)
	}
	return pos
}

// relPath returns file relative to dir if it lies under it.
func relPath(dir, file string) string {
	if dir == "" || !filepath.IsAbs(file) {
		return file
	}
	if rel, err := filepath.Rel(dir, file); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return file
}

// relPaths shortens the absolute paths under dir in a line of a test's
// output (testify's "Error Trace:\t/home/u/mod/x_test.go:12") to paths
// relative to dir, as the report's positions are. A path counts where it
// starts the line or follows a space, a tab, a quote or a parenthesis.
func relPaths(dir, line string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return line
	}
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	var b strings.Builder
	for {
		i := strings.Index(line, prefix)
		if i < 0 {
			break
		}
		b.WriteString(line[:i])
		if i > 0 && !strings.ContainsRune(" \t\"'(", rune(line[i-1])) {
			b.WriteString(prefix) // inside a longer path: keep it whole
		}
		line = line[i+len(prefix):]
	}
	b.WriteString(line)
	return b.String()
}

// maxClock is how many components of a vector clock a report prints.
const maxClock = 8

// shortClock abbreviates a vector clock ("g0:1 g1:1652 ...") of more than
// maxClock components to its first maxClock-2 and last two, saying how
// many it left out: a test with a thousand goroutines would otherwise
// print a thousand components per site. -json keeps the whole clock.
func shortClock(c string) string {
	parts := strings.Fields(c)
	if len(parts) <= maxClock {
		return c
	}
	head, tail := parts[:maxClock-2], parts[len(parts)-2:]
	return fmt.Sprintf("%s … %d more … %s", strings.Join(head, " "), len(parts)-len(head)-len(tail), strings.Join(tail, " "))
}

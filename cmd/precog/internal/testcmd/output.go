package testcmd

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
	"time"

	"github.com/precog-dev/precog/detect/finding"
)

// printJSON writes one JSON object per finding, one per line.
func printJSON(w io.Writer, fs []finding.Finding) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, f := range fs {
		if f.Tests == nil {
			f.Tests = []string{}
		}
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// printText writes each finding as its first site's position, kind and
// message, then its evidence hop by hop, one indented line each, with file
// names relative to dir when under it.
func printText(w io.Writer, dir string, fs []finding.Finding) error {
	bw := bufio.NewWriter(w)
	// Confirmed findings first: they are facts, the rest hypotheses.
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b finding.Finding) int {
		return cmp.Compare(rank(b.Status), rank(a.Status))
	})
	for _, f := range fs {
		pos := "-"
		if len(f.Sites) > 0 {
			pos = sitePos(dir, f.Sites[0])
		}
		fmt.Fprintf(bw, "%s: %s: %s\n", pos, f.Kind, f.Message)
		for _, line := range evidence(dir, f) {
			fmt.Fprintf(bw, "\t%s\n", line)
		}
	}
	return bw.Flush()
}

// evidence returns the lines under a finding: for each site, the go
// statement that started its goroutine, the calls open at it, then the
// site itself with the locks held and the clock; then notes, Unicorn's
// score, the tests and the ID.
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
				lines = append(lines, fmt.Sprintf("%s: in %s", sitePos(dir, c), cmpOr(c.Function, c.Expr)))
			}
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
			extra = append(extra, "clock "+f.Evidence.Clocks[i])
		}
		if len(extra) > 0 {
			line += " (" + strings.Join(extra, "; ") + ")"
		}
		lines = append(lines, line)
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

// statusLine is the last line of a finding: its ID and status, with what
// validation saw.
func statusLine(f finding.Finding) string {
	v := f.Validation
	if v == nil {
		return fmt.Sprintf("id %s, %s", f.ID, f.Status)
	}
	var line string
	switch f.Status {
	case finding.Confirmed:
		line = fmt.Sprintf("id %s, confirmed (%s, in %s)", f.ID, v.Effect, v.Test)
	case finding.Predicted:
		line = fmt.Sprintf("id %s, predicted only", f.ID)
	default:
		line = fmt.Sprintf("id %s, predicted only, %s", f.ID, f.Status)
	}
	if v.Reason != "" {
		line += ": " + v.Reason
	}
	return line
}

// rank orders statuses for the text output: confirmed first.
func rank(s finding.Status) int {
	if s == finding.Confirmed {
		return 1
	}
	return 0
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// sitePos formats a site's position as file:line:col, the file relative
// to dir when under it; a site without a file shows its expression.
func sitePos(dir string, s finding.Site) string {
	if s.File == "" {
		return s.Expr
	}
	return relPath(dir, s.File) + ":" + strconv.Itoa(s.Line) + ":" + strconv.Itoa(s.Col)
}

// relPath returns file relative to dir if it lies under it.
func relPath(dir, file string) string {
	if within(file, dir) {
		if rel, err := filepath.Rel(dir, file); err == nil {
			return rel
		}
	}
	return file
}

// within reports whether file lies under dir.
func within(file, dir string) bool {
	if dir == "" || !filepath.IsAbs(file) {
		return false
	}
	rel, err := filepath.Rel(dir, file)
	return err == nil && filepath.IsLocal(rel)
}

func round(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

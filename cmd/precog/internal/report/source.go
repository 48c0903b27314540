package report

import (
	"fmt"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/precog-dev/precog/detect/finding"
)

// contextLines is how many lines the report shows above and below a site.
const contextLines = 3

// A snippet is a site in its source context, as the file reads when the
// report is written.
type snippet struct {
	Lines []srcLine
	// Problem says why the lines are missing or may not be what ran: the
	// file is gone, the line is past its end, or the file changed.
	Problem string
}

type srcLine struct {
	N    int
	Text string
	Hit  bool
	// Caret marks the site's column under a hit line: spaces, then "^".
	Caret string
}

// sources reads source files once each for a report.
type sources struct {
	since time.Time // a file modified after it may not be what ran
	files map[string]*srcFile
}

type srcFile struct {
	lines []string
	mod   time.Time
	err   error
}

func newSources(since time.Time) *sources {
	return &sources{since: since, files: make(map[string]*srcFile)}
}

func (s *sources) file(name string) *srcFile {
	if f, ok := s.files[name]; ok {
		return f
	}
	f := &srcFile{}
	if st, err := os.Stat(name); err != nil {
		f.err = err
	} else if data, err := os.ReadFile(name); err != nil {
		f.err = err
	} else {
		f.mod = st.ModTime()
		f.lines = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	s.files[name] = f
	return f
}

// snippet returns site in its context, nil for a site without a file or
// line. It says when the file is gone, shorter than the line, changed
// since the run started, or no longer holds the site's expression there.
func (s *sources) snippet(site finding.Site) *snippet {
	if site.File == "" || site.Line <= 0 {
		return nil
	}
	f := s.file(site.File)
	if f.err != nil {
		if os.IsNotExist(f.err) {
			return &snippet{Problem: "the file is gone: " + site.File}
		}
		return &snippet{Problem: "the file cannot be read: " + f.err.Error()}
	}
	if site.Line > len(f.lines) {
		return &snippet{Problem: fmt.Sprintf("the file has changed: it has %d lines, the site is on line %d", len(f.lines), site.Line)}
	}
	sn := &snippet{}
	for n := max(1, site.Line-contextLines); n <= min(len(f.lines), site.Line+contextLines); n++ {
		l := srcLine{N: n, Text: expandTabs(f.lines[n-1])}
		if n == site.Line {
			l.Hit = true
			if site.Col > 0 && site.Col <= len(f.lines[n-1])+1 {
				l.Caret = strings.Repeat(" ", len([]rune(expandTabs(f.lines[n-1][:site.Col-1])))) + "^"
			}
		}
		sn.Lines = append(sn.Lines, l)
	}
	line := f.lines[site.Line-1]
	switch {
	case !s.since.IsZero() && f.mod.After(s.since):
		sn.Problem = "the file has changed since the run (modified " + f.mod.UTC().Format(time.DateTime) + " UTC): the lines may not be the code that ran"
	case !holds(line, site):
		sn.Problem = fmt.Sprintf("the file has changed: line %d no longer holds %s", site.Line, site.Expr)
	}
	return sn
}

// holds reports whether line still holds site's expression: the last
// identifier of it, for a site whose Expr is source code (a crash site's
// Expr is the panic message, a go statement's a description).
func holds(line string, site finding.Site) bool {
	switch site.Role {
	case finding.RolePanic, finding.RoleFatal, finding.RoleHang, finding.RoleFail, finding.RoleExit, finding.RoleGo, finding.RoleCall:
		return true
	}
	id := lastIdent(site.Expr)
	return id == "" || strings.Contains(line, id)
}

// lastIdent returns the last Go identifier in expr, "" if expr is not
// made of identifiers and operators only.
func lastIdent(expr string) string {
	var last, cur []rune
	for _, r := range expr {
		switch {
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) && len(cur) > 0:
			cur = append(cur, r)
			continue
		case strings.ContainsRune(" .*&()[]<-=:,+!", r), unicode.IsDigit(r):
		default:
			return ""
		}
		if len(cur) > 0 {
			last, cur = cur, nil
		}
	}
	if len(cur) > 0 {
		last = cur
	}
	return string(last)
}

func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

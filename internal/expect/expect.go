// Package expect reads the expect files of precog's kernel corpus
// (testdata/kernels/<kernel>/expect): the findings precog test must report
// for a kernel package, and nothing else. The kernel end-to-end test and
// bench/kernels both judge precog's output by them.
//
// The format, one item per line, # starting a comment anywhere:
//
//	runs 10                          (optional; runs per test for precog test -runs; default 1)
//	timeout 5s                       (optional; precog test -timeout, for a kernel that hangs; default 1m)
//	con-null mysql.go:70 mysql.go:61 confirmed (a finding: its kind, its sites as file:line,
//	                                            and optionally its status after validation)
//
// A finding's sites are matched as a set of file:line, the file relative to
// the package's directory, so the order of the sites and their columns and
// roles do not matter. The status is "confirmed" (validation made the test
// fail as predicted) or "predicted" (anything else: not confirmed, diverged,
// timed out, apart, not validated); the comment after it should say why.
// "apart" asks for the status apart itself: a data race whose forced runs
// touched different memory, a false prediction that the text output leaves
// out (a negative control of validation). "maybe"
// checks no status: for a finding whose validation depends on luck (con-map:
// Go detects concurrent map writes only when they really overlap), with
// its rate measured by bench/kernels. "sometimes" checks neither the status
// nor that the finding is reported: for a prediction that only some
// schedules of the recorded run allow, which the comment names, with its
// verdict (a false report that the trace of a rarer schedule cannot tell
// from a true one).
//
// # Explain files
//
// A kernel may also carry an explain file (testdata/kernels/<kernel>/explain):
// the root cause precog explain must give for one failing test of the
// package. ReadExplain reads it; the explain end-to-end test and
// bench/explain judge precog explain by it. Three lines, in any order, #
// starting a comment anywhere:
//
//	test TestName               the test to explain (one per file)
//	failing natural             natural: the test fails as written; predicted: it
//	                            passes as written and fails only under an
//	                            interleaving precog predicts, so explain must
//	                            find the failing run itself
//	root race a.go:20 a.go:33   the root cause: its kind and its sites as
//	                            file:line, the file relative to the package
//
// The kinds are the paper's (execution-suppression.txt §2): race (a harmful
// data race), atomicity and order (a violation, with or without a race),
// each with two sites, the site whose order matters most first (the
// access whose reordering avoids the failure: the later write of a
// write-after-write race, the remote access of a violation), then the
// other; the two may be one line run by two goroutines. A third site
// names an alternative other: a race two of whose pairs are harmful, the
// local pair of an atomicity violation (W1 W2 R1 and the paper's other
// three patterns), the two accesses an order violation can be paired with
// (a hang's wait and the read that fails after it). A report naming the
// root and either or both of the others is right.
// definition has one
// site, the first corrupted definition the chain of suppressions ends at.
// none has no site: no root cause can be found, and explain must say so
// instead of guessing.
package expect

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/precog-dev/precog/detect/finding"
)

// A File is a parsed expect file.
type File struct {
	Runs int // runs per test, at least 1
	// Timeout is the -timeout its tests run with; 0 for the default.
	Timeout  time.Duration
	Findings []Finding
}

// A Finding is one expected finding.
type Finding struct {
	Kind  string
	Sites []string // file:line, the file relative to the package, sorted, without duplicates
	Line  int      // its line in the expect file
	// Status is "confirmed", "predicted", "apart", "maybe", "sometimes",
	// or "" if the line gives none.
	Status string
}

// The statuses an expect line can give.
const (
	Confirmed = "confirmed"
	Predicted = "predicted"
	Apart     = "apart"
	Maybe     = "maybe"
	Sometimes = "sometimes"
)

// Key is the finding as a string that Key(dir, f) of a matching reported
// finding equals.
func (e Finding) Key() string { return e.Kind + " " + strings.Join(e.Sites, " ") }

// Parse parses an expect file.
func Parse(data []byte) (*File, error) {
	e := &File{Runs: 1}
	seenRuns := false
	seen := make(map[string]int)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == "runs" {
			if seenRuns {
				return nil, fmt.Errorf("line %d: a second runs line", n)
			}
			seenRuns = true
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: want runs N", n)
			}
			r, err := strconv.Atoi(f[1])
			if err != nil || r < 1 {
				return nil, fmt.Errorf("line %d: runs %q is not a positive number", n, f[1])
			}
			e.Runs = r
			continue
		}
		if f[0] == "timeout" {
			if e.Timeout != 0 {
				return nil, fmt.Errorf("line %d: a second timeout line", n)
			}
			d, err := time.ParseDuration(strings.Join(f[1:], ""))
			if len(f) != 2 || err != nil || d <= 0 {
				return nil, fmt.Errorf("line %d: want timeout D, a positive duration", n)
			}
			e.Timeout = d
			continue
		}
		if !finding.Valid(f[0]) {
			return nil, fmt.Errorf("line %d: unknown kind %q", n, f[0])
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("line %d: %s has no sites", n, f[0])
		}
		x := Finding{Kind: f[0], Line: n}
		if last := f[len(f)-1]; last == Confirmed || last == Predicted || last == Apart || last == Maybe || last == Sometimes {
			x.Status = last
			f = f[:len(f)-1]
			if len(f) < 2 {
				return nil, fmt.Errorf("line %d: %s has no sites", n, x.Kind)
			}
		}
		for _, s := range f[1:] {
			file, l, ok := strings.Cut(s, ":")
			ln, err := strconv.Atoi(l)
			if !ok || file == "" || err != nil || ln < 1 {
				return nil, fmt.Errorf("line %d: site %q is not file:line", n, s)
			}
			x.Sites = append(x.Sites, filepath.ToSlash(filepath.Clean(file))+":"+strconv.Itoa(ln))
		}
		slices.Sort(x.Sites)
		x.Sites = slices.Compact(x.Sites)
		if prev, dup := seen[x.Key()]; dup {
			return nil, fmt.Errorf("line %d: the finding of line %d again", n, prev)
		}
		seen[x.Key()] = n
		e.Findings = append(e.Findings, x)
	}
	return e, sc.Err()
}

// Key is a reported finding's key as an expect file would write it, for the
// package in directory dir: sites under dir are relative to it, others keep
// their absolute path (and match no expected finding).
func Key(dir string, f finding.Finding) string {
	var sites []string
	for _, s := range f.Sites {
		file := s.File
		if rel, err := filepath.Rel(dir, file); err == nil && filepath.IsLocal(rel) {
			file = filepath.ToSlash(rel)
		}
		sites = append(sites, file+":"+strconv.Itoa(s.Line))
	}
	slices.Sort(sites)
	return f.Kind + " " + strings.Join(slices.Compact(sites), " ")
}

// A Result compares what was reported for a package with its expect file.
type Result struct {
	Missing []Finding // expected, not reported
	Extra   []string  // reported, not expected: their keys
	// WrongStatus are the expected findings reported with another status
	// than the line gives, each with the reported finding.
	WrongStatus []Mismatch
}

// A Mismatch is an expected finding reported with another status.
type Mismatch struct {
	Want Finding
	Got  finding.Finding
}

// Compare compares the findings reported for the package in dir, whose
// tests are named importPath.TestName, with e. A finding is the package's
// if one of its tests is.
func Compare(e *File, dir, importPath string, reported []finding.Finding) Result {
	var r Result
	prefix := importPath + "."
	got := make(map[string]finding.Finding)
	for _, f := range reported {
		if !slices.ContainsFunc(f.Tests, func(t string) bool { return strings.HasPrefix(t, prefix) }) {
			continue
		}
		got[Key(dir, f)] = f
	}
	want := make(map[string]bool)
	for _, x := range e.Findings {
		want[x.Key()] = true
		f, ok := got[x.Key()]
		if !ok && x.Status != Sometimes {
			r.Missing = append(r.Missing, x)
			continue
		}
		if (x.Status == Confirmed || x.Status == Predicted) && (x.Status == Confirmed) != (f.Status == finding.Confirmed) ||
			x.Status == Apart && f.Status != finding.Apart {
			r.WrongStatus = append(r.WrongStatus, Mismatch{Want: x, Got: f})
		}
	}
	for k := range got {
		if !want[k] {
			r.Extra = append(r.Extra, k)
		}
	}
	slices.Sort(r.Extra)
	return r
}

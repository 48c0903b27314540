package testcmd

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/cmd/precog/internal/results"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/predict"
)

// TestTextLeavesApartOut: precog test's text leaves out a data race that
// validation set apart (its forced runs touched different memory), and
// the hint about its dependency's goroutine with it, and an OSCS pair
// that validation ran in the other order without a failure, and says how
// many of each it left out, for the line on stderr; the summary still
// counts them. A con-null not confirmed stays, and so does a confirmed
// OSCS pair (the controls). With -show-apart they are printed, after the
// others, and nothing is left out.
func TestTextLeavesApartOut(t *testing.T) {
	dir := filepath.FromSlash("/src/mod")
	null := finding.Finding{Kind: finding.ConNull, Status: finding.NotConfirmed, Message: "nil stored to c.conn may be dereferenced by (*Client).send",
		Sites: []finding.Site{
			{File: filepath.Join(dir, "p", "p.go"), Line: 9, Col: 3, Role: finding.RoleDeref, Expr: "c.conn"},
			{File: filepath.Join(dir, "p", "p.go"), Line: 4, Col: 2, Role: finding.RoleNilStore, Expr: "c.conn"},
		},
		Tests: []string{"example.com/p.TestClient"}, Validation: &finding.Validation{Reason: "with the nil store between the check and the dereference, the test passed"}}
	race := finding.Finding{Kind: finding.Race, Status: finding.Apart, Message: "x.n written by (*pool).put and read by (*pool).get, unordered",
		Sites: []finding.Site{
			{File: filepath.Join(dir, "p", "pool.go"), Line: 21, Col: 2, Role: finding.RoleWrite, Expr: "x.n"},
			{File: filepath.Join(dir, "p", "pool.go"), Line: 30, Col: 9, Role: finding.RoleRead, Expr: "x.n"},
		},
		Spawns: []finding.Site{finding.UnseenSpawn([]string{"example.org/dep.Go.func1"}), {}},
		Tests:  []string{"example.com/p.TestPool"},
		Validation: &finding.Validation{Runs: 3,
			Reason: "with the write at pool.go:21 right before the read at pool.go:30, the accesses touched different memory: the write at pool.go:21 at 0xc000010000, the read at pool.go:30 at 0xc000038000"}}
	oscs := func(line int, status finding.Status) finding.Finding {
		f := finding.Finding{Kind: finding.OSCS, Status: status, Message: "read of c.n and write hold c.mu in critical sections that can run in either order",
			Sites: []finding.Site{
				{File: filepath.Join(dir, "p", "c.go"), Line: line, Col: 2, Role: finding.RoleRead, Expr: "c.n"},
				{File: filepath.Join(dir, "p", "c.go"), Line: line + 10, Col: 2, Role: finding.RoleWrite, Expr: "c.n"},
			},
			Tests: []string{"example.com/p.TestC"}, Validation: &finding.Validation{Reason: "with the critical section of the write before that of the read, the test passed"}}
		f.SetID()
		return f
	}
	passed, confirmed := oscs(5, finding.NotConfirmed), oscs(6, finding.Confirmed)
	// An OSCS pair whose validation ran out of time is set apart too; one
	// validation did not try (-validate=false) stays shown.
	unforced, untried := oscs(7, finding.TimedOut), oscs(8, finding.Predicted)
	null.SetID()
	race.SetID()
	res := &predict.Result{Findings: []finding.Finding{confirmed, null, passed, race, unforced, untried}, Instrumented: []string{"example.com/p"},
		Stats: predict.Stats{Statuses: map[finding.Status]int{finding.Confirmed: 1, finding.NotConfirmed: 2, finding.Apart: 1, finding.TimedOut: 1, finding.Predicted: 1}}}

	var out bytes.Buffer
	left, err := writeText(&out, options{}, dir, res)
	if err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if len(left) != 3 || strings.Contains(text, race.ID) || strings.Contains(text, passed.ID) || strings.Contains(text, unforced.ID) || strings.Contains(text, "race:") || strings.Contains(text, "example.org/dep") ||
		!strings.Contains(text, "con-null: "+null.Message) || !strings.Contains(text, confirmed.ID) || !strings.Contains(text, untried.ID) {
		t.Errorf("default text left out %d findings, want the race and the OSCS pairs not confirmed and timed out, and shows:\n%s", len(left), text)
	}
	if got, want := results.ApartLine(left), "3 findings set apart and not shown: 1 data race whose forced runs, each time the order held, ran the two accesses on different memory (an address reused by a new object), so the recording paired two objects; 1 OSCS pair that validation ran in the other order without the test failing, so neither order changed what the test checks; 1 OSCS pair that validation could not run in another order (diverged or timed out); -show-apart shows them, -json lists them"; got != want {
		t.Errorf("stderr line:\n%s\nwant:\n%s", got, want)
	}
	if got, want := results.ApartLine([]finding.Finding{race}), "1 finding set apart and not shown: data race whose forced runs, each time the order held, ran the two accesses on different memory (an address reused by a new object), so the recording paired two objects; -show-apart shows it, -json lists it"; got != want {
		t.Errorf("stderr line for the race alone:\n%s\nwant:\n%s", got, want)
	}
	if got := results.ApartLine([]finding.Finding{passed, passed, passed}); !strings.HasPrefix(got, "3 findings set apart and not shown: OSCS pairs that") || !strings.HasSuffix(got, "-show-apart shows them, -json lists them") {
		t.Errorf("stderr line for 3 OSCS pairs: %s", got)
	}

	out.Reset()
	left, err = writeText(&out, options{showApart: true}, dir, res)
	if err != nil {
		t.Fatal(err)
	}
	text = out.String()
	i, j := strings.Index(text, "con-null: "), strings.Index(text, "race: ")
	if len(left) != 0 || i < 0 || j < i || !strings.Contains(text, passed.ID) || !strings.Contains(text, "id "+race.ID+", predicted only, set apart: with the write at pool.go:21 right before the read at pool.go:30, the accesses touched different memory") ||
		!strings.Contains(text, "hint: 1 finding (id "+race.ID+") has goroutines that example.org/dep started") {
		t.Errorf("-show-apart left out %d findings, want none, the race last with its reason, and its hint; shows:\n%s", len(left), text)
	}

	sum, _ := results.FromResult(res, dir, []string{"./..."}, 1)
	var s bytes.Buffer
	results.WriteText(&s, sum)
	if want := "validated: 1 confirmed, 2 not confirmed, 0 diverged, 1 timed out, 1 apart, 1 not validated, in 0s\n"; !strings.Contains(s.String(), want) || sum.Statuses[finding.Apart] != 1 {
		t.Errorf("summary:\n%s\nwant the line %q", s.String(), want)
	}
	sum.Judge(res.Findings, nil, "", "predicted")
	if want := []string{confirmed.ID, null.ID, untried.ID}; !slices.Equal(sorted(sum.Failing), sorted(want)) {
		t.Errorf("-fail-on=predicted fails on %v, want %v: the confirmed OSCS pair's, the con-null's and the untried OSCS pair's, not those set apart", sum.Failing, want)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

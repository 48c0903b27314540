package results_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/results"
	"github.com/precog-dev/precog/detect/finding"
)

// TestJudgeBroken: a package not tested because it does not build fails
// the job with 1, as go test's build failure does; a confirmed finding
// still makes it 3, and without either the job passes (the control).
func TestJudgeBroken(t *testing.T) {
	confirmed := []finding.Finding{{ID: "a", Status: finding.Confirmed}}
	predicted := []finding.Finding{{ID: "b", Status: finding.Predicted}}
	for _, tc := range []struct {
		broken []string
		fs     []finding.Finding
		want   int
	}{
		{[]string{"package p: p.go:1:1: x"}, predicted, cli.ExitError},
		{[]string{"package p: p.go:1:1: x"}, confirmed, cli.ExitFindings},
		{nil, predicted, cli.ExitOK},
	} {
		s := &results.Summary{Broken: tc.broken}
		s.Judge(tc.fs, nil, "", "confirmed")
		if s.Exit != tc.want {
			t.Errorf("broken %q, %s finding: exit %d, want %d", tc.broken, tc.fs[0].Status, s.Exit, tc.want)
		}
	}
}

// TestNotBuilt: a package whose test binary the build's share of
// -deadline did not link was not tested, as one that does not build: the
// job fails with 1 unless a confirmed finding makes it 3, the summary has
// a "not tested:" line for it and counts it with the other reasons, and
// merged shards, each cut by its own bound, name it once.
func TestNotBuilt(t *testing.T) {
	const line = "package p: its test binary was not linked within the build's share of -deadline (5m0s)"
	for _, tc := range []struct {
		status finding.Status
		want   int
	}{
		{finding.Predicted, cli.ExitError},
		{finding.Confirmed, cli.ExitFindings},
	} {
		s := &results.Summary{NotBuilt: []string{line}}
		s.Judge([]finding.Finding{{ID: "a", Status: tc.status}}, nil, "", "confirmed")
		if s.Exit != tc.want {
			t.Errorf("not built, %s finding: exit %d, want %d", tc.status, s.Exit, tc.want)
		}
	}
	for _, tc := range []struct {
		s    results.Summary
		want []string
	}{
		{results.Summary{Tests: 1, NotBuilt: []string{line}}, []string{"not tested: " + line + "\n", "(1 package not tested: it was not built in time)"}},
		{results.Summary{Tests: 1, Broken: []string{"package b: b.go:1:1: x"}, NotBuilt: []string{line, "package q: ..."}},
			[]string{"not tested: " + line + "\n", "not tested: package b: b.go:1:1: x\n", "(3 packages not tested: 1 does not build, 2 were not built in time)"}},
		{results.Summary{Tests: 1, Broken: []string{"package b: x", "package c: x"}}, []string{"(2 packages not tested: they do not build)"}},
	} {
		var b strings.Builder
		results.WriteText(&b, &tc.s)
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("summary %+v:\n%s\nlacks %q", tc.s, b.String(), w)
			}
		}
	}

	shard := func(i int, notBuilt ...string) *results.Dir {
		return &results.Dir{Path: fmt.Sprintf("s%d", i), Summary: &results.Summary{Version: results.Version, Dir: "/m", Patterns: []string{"./..."}, Shard: fmt.Sprintf("%d/3", i), Tests: 1, NotBuilt: notBuilt}}
	}
	m, fs, _, err := results.Merge([]*results.Dir{shard(1, line), shard(2), shard(3, strings.Replace(line, "5m0s", "4m0s", 1), "package q: ...")})
	if err != nil {
		t.Fatal(err)
	}
	m.Judge(fs, nil, "", "confirmed")
	if want := []string{line, "package q: ..."}; !slices.Equal(m.NotBuilt, want) || m.Exit != cli.ExitError {
		t.Errorf("merged: not built %q, exit %d; want %q, 1", m.NotBuilt, m.Exit, want)
	}
	m, fs, _, err = results.Merge([]*results.Dir{shard(1), shard(2)})
	if err != nil {
		t.Fatal(err)
	}
	if m.Judge(fs, nil, "", "confirmed"); len(m.NotBuilt) != 0 || m.Exit != cli.ExitOK {
		t.Errorf("shards that built everything: not built %q, exit %d; want none, 0", m.NotBuilt, m.Exit)
	}
}

// TestMergeError: a shard that ended in an error before it had results
// (results.FromError) makes the merged job's exit status 1 and its error
// names the shard, with the other shard's findings kept; a confirmed
// finding still makes it 3.
func TestMergeError(t *testing.T) {
	failed := &results.Dir{Path: "s1", Summary: results.FromError(errors.New("package p: p.go:1:1: x"), "/m", []string{"./..."}, "confirmed")}
	failed.Summary.Shard = "1/2"
	for _, tc := range []struct {
		status finding.Status
		want   int
	}{
		{finding.Predicted, cli.ExitError},
		{finding.Confirmed, cli.ExitFindings},
	} {
		ok := &results.Dir{Path: "s2", Summary: &results.Summary{Version: results.Version, Dir: "/m", Patterns: []string{"./..."}, Shard: "2/2", Tests: 1},
			Findings: []finding.Finding{{ID: "a", Status: tc.status}}}
		m, fs, _, err := results.Merge([]*results.Dir{failed, ok})
		if err != nil {
			t.Fatal(err)
		}
		m.Judge(fs, nil, "", "confirmed")
		if m.Exit != tc.want || m.Error != "1/2: package p: p.go:1:1: x" || len(fs) != 1 {
			t.Errorf("%s finding: merged exit %d, error %q, %d findings; want %d, shard 1/2's error, 1", tc.status, m.Exit, m.Error, len(fs), tc.want)
		}
	}
}

// TestMergeInterrupted checks that a shard interrupted after its detection
// began keeps its findings in the merge, which names the shard's
// interruption and fails as an error would when no finding fails the job.
func TestMergeInterrupted(t *testing.T) {
	cut := &results.Dir{Path: "s1", Summary: &results.Summary{Version: results.Version, Dir: "/m", Patterns: []string{"./..."}, Shard: "1/2", Tests: 1,
		Interrupted: "interrupted by SIGTERM"}, Findings: []finding.Finding{{ID: "a", Status: finding.TimedOut}}}
	ok := &results.Dir{Path: "s2", Summary: &results.Summary{Version: results.Version, Dir: "/m", Patterns: []string{"./..."}, Shard: "2/2", Tests: 1},
		Findings: []finding.Finding{{ID: "b", Status: finding.Predicted}}}
	m, fs, _, err := results.Merge([]*results.Dir{cut, ok})
	if err != nil {
		t.Fatal(err)
	}
	m.Judge(fs, nil, "", "confirmed")
	if m.Exit != cli.ExitError || m.Interrupted != "1/2: interrupted by SIGTERM" || m.Error != "" || len(fs) != 2 {
		t.Errorf("merged exit %d, interrupted %q, error %q, %d findings; want 1, shard 1/2's interruption, none, 2", m.Exit, m.Interrupted, m.Error, len(fs))
	}
}

// TestJudgeFailOn: -fail-on=forced fails the job on a finding that a
// forced order confirmed, not on a test that failed by itself (a crash or
// a failed test, confirmed since it fails unrecorded too); the default
// fails on both, and predicted on a prediction too. A data race set apart
// (its forced runs touched different memory) fails none.
func TestJudgeFailOn(t *testing.T) {
	forced := finding.Finding{ID: "race", Kind: finding.Race, Status: finding.Confirmed}
	crash := finding.Finding{ID: "crash", Kind: finding.Crash, Status: finding.Confirmed}
	failed := finding.Finding{ID: "failed", Kind: finding.TestFailed, Status: finding.Confirmed}
	predicted := finding.Finding{ID: "oscs", Kind: finding.OSCS, Status: finding.Predicted}
	apart := finding.Finding{ID: "apart", Kind: finding.Race, Status: finding.Apart}
	for _, tc := range []struct {
		failOn string
		fs     []finding.Finding
		want   int
	}{
		{"forced", []finding.Finding{crash, failed, predicted}, cli.ExitOK},
		{"forced", []finding.Finding{crash, forced}, cli.ExitFindings},
		{"confirmed", []finding.Finding{crash}, cli.ExitFindings},
		{"confirmed", []finding.Finding{predicted}, cli.ExitOK},
		{"predicted", []finding.Finding{predicted}, cli.ExitFindings},
		{"predicted", []finding.Finding{apart}, cli.ExitOK},
		{"confirmed", []finding.Finding{apart}, cli.ExitOK},
		{"forced", []finding.Finding{apart}, cli.ExitOK},
	} {
		s := &results.Summary{}
		s.Judge(tc.fs, nil, "", tc.failOn)
		if s.Exit != tc.want {
			t.Errorf("-fail-on=%s, findings %v: exit %d (failing %q), want %d", tc.failOn, tc.fs, s.Exit, s.Failing, tc.want)
		}
	}
}

// TestRecordLimitNamed checks that the summary line names the bound that
// left tests unrecorded: -deadline's share when it was that, and
// -record-budget for a summary that names none (written before the bound
// was kept). Merged shards cut by different bounds name neither alone.
func TestRecordLimitNamed(t *testing.T) {
	const share = "recording's share of -deadline (5s)"
	line := func(s *results.Summary) string {
		var b strings.Builder
		results.WriteText(&b, s)
		return b.String()
	}
	for _, tc := range []struct {
		s    results.Summary
		want string
	}{
		{results.Summary{NotRecorded: 3, RecordLimit: share}, "(3 tests not recorded, over " + share + ")"},
		{results.Summary{NotRecorded: 2, RecordStopped: 1, RecordLimit: share}, "(2 tests not recorded and 1 stopped, over " + share + ")"},
		{results.Summary{RecordStopped: 1, RecordLimit: share}, "(1 test stopped, over " + share + ")"},
		{results.Summary{NotRecorded: 1}, "(1 test not recorded, over -record-budget)"},
	} {
		if got := line(&tc.s); !strings.Contains(got, tc.want) {
			t.Errorf("summary %+v: %q lacks %q", tc.s, got, tc.want)
		}
	}
	if got := line(&results.Summary{Tests: 4, RecordLimit: share}); strings.Contains(got, "not recorded") || strings.Contains(got, "share") {
		t.Errorf("nothing left unrecorded, yet: %q", got)
	}

	shard := func(i int, notRun int, limit string) *results.Dir {
		return &results.Dir{Path: fmt.Sprintf("s%d", i), Summary: &results.Summary{Version: results.Version, Dir: "/m", Patterns: []string{"./..."}, Shard: fmt.Sprintf("%d/3", i), NotRecorded: notRun, RecordLimit: limit}}
	}
	for _, tc := range []struct {
		dirs []*results.Dir
		want string
	}{
		{[]*results.Dir{shard(1, 0, ""), shard(2, 2, share), shard(3, 1, share)}, share},
		{[]*results.Dir{shard(1, 1, ""), shard(2, 2, share), shard(3, 0, "")}, "the shards' recording bounds"},
		{[]*results.Dir{shard(1, 0, share), shard(2, 0, ""), shard(3, 0, "")}, ""},
	} {
		m, _, _, err := results.Merge(tc.dirs)
		if err != nil {
			t.Fatal(err)
		}
		if m.RecordLimit != tc.want {
			t.Errorf("merged %d shards: record limit %q, want %q", len(tc.dirs), m.RecordLimit, tc.want)
		}
	}
}

package testcmd

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/pipeline/predict"
)

// TestProgressLine checks that the plain progress line names the budget
// whose time it counts down: -validate-budget's, or validation's share of
// -deadline when that is the lesser; while recording, the recording's
// budget; and none while detecting.
func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		budget, want string
	}{
		{"", " left of the validation budget; validating"},
		{"the validation budget", " left of the validation budget; validating"},
		{"validation's share of -deadline (7m3s)", " left of validation's share of -deadline (7m3s); validating"},
	} {
		s := &progressState{start: time.Now()}
		s.set(predict.Progress{Validating: 3, Validated: 1, Deadline: time.Now().Add(time.Minute), Budget: tc.budget, Line: "validating"})
		if got := s.line(); !strings.HasSuffix(got, tc.want) || !strings.Contains(got, ", 1/3 validated, 0 confirmed, 1m0s left of") {
			t.Errorf("budget %q: line %q, want it to end %q", tc.budget, got, tc.want)
		}
	}
	for _, tc := range []struct {
		p    predict.Progress
		want string
	}{
		{predict.Progress{Done: 2, Total: 5, Deadline: time.Now().Add(time.Minute), Budget: "recording's share of -deadline (1m0s)", Line: "[1/3] p TestA"},
			"progress at 0s: 2/5 tests, 0 events, 0 findings, T left of recording's share of -deadline (1m0s); [1/3] p TestA"},
		{predict.Progress{Done: 2, Total: 5, Line: "[1/3] p TestA"}, "progress at 0s: 2/5 tests, 0 events, 0 findings; [1/3] p TestA"},
		{predict.Progress{Done: 5, Total: 5, Findings: 1, Line: "detecting"}, "progress at 0s: 5/5 tests, 0 events, 1 finding; detecting"},
	} {
		s := &progressState{start: time.Now()}
		s.set(tc.p)
		// The times are as the line is made: a loaded machine may take
		// a second.
		got := leftTime.ReplaceAllString(s.line(), "T left")
		if got = sinceStart.ReplaceAllString(got, "progress at 0s:"); got != tc.want {
			t.Errorf("line %q, want %q", got, tc.want)
		}
	}
}

var (
	leftTime   = regexp.MustCompile(`(5[89]s|1m0s) left`)
	sinceStart = regexp.MustCompile(`^progress at [0-2]s:`)
)

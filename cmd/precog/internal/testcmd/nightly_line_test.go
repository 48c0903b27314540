package testcmd

import (
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/pipeline/predict"
)

// TestProgressLine checks that the plain progress line names the budget
// whose time it counts down: -validate-budget's, or validation's share of
// -deadline when that is the lesser.
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
}

package results_test

import (
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

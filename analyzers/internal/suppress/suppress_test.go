package suppress_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/conmap"
)

// TestSuppress runs a real check, con-map, over maps written by several
// goroutines at once, with suppression comments around the writes.
func TestSuppress(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer,
		"ignore", "nolint", "malformed", "stale", "othercheck", "testonly")
}

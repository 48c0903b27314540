package shim

import (
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

// RecordedAll runs f as recorded does and returns every event recorded
// since f began, of every goroutine (for shim_test's tests, which import
// packages that import the shim).
func RecordedAll(t *testing.T, site uint32, f func()) []trace.Event {
	t.Helper()
	from := seqs.n.Load()
	recorded(t, site, f)
	return since(readTrace(t, tracePath), from)
}

package instrument

import (
	"strings"
	"testing"
)

// TestParseDepsPattern checks that -instrument-deps takes import paths of
// dependencies (and all), and refuses relative or absolute paths, a "..."
// inside a path, and the standard library, which is never instrumented,
// with a message that says so.
func TestParseDepsPattern(t *testing.T) {
	for _, ok := range []string{"", "all", "github.com/tidwall/lotsa", "gopkg.in/tomb.v1,golang.org/x/sync/..."} {
		if _, err := parseDepsPattern(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for in, want := range map[string]string{
		"./dep":                     "want import paths",
		"github.com/a/.../b":        "want import paths",
		"net/http":                  "standard library",
		"golang.org/x/sync,net/...": "standard library",
		"std":                       "standard library",
	} {
		if _, err := parseDepsPattern(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one that says %q", in, err, want)
		}
	}
}

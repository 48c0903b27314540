package predict

import (
	"slices"
	"testing"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/record"
)

// TestStoppedTarget checks the bound of a forced run of a witness from a
// run that -record-budget stopped: its recorded time and the plan's waits
// with some slack, not three times that, since the test would run on to
// any bound; a witness from a run that ended keeps three times its time
// (the control), and both stay within -timeout.
func TestStoppedTarget(t *testing.T) {
	ix := &record.Index{Packages: []*record.Package{{ImportPath: "example.com/p", Dir: "/m/p", Tests: []*record.Test{
		{Name: "TestStress", Outcome: record.Stopped, Wall: 90 * time.Second},
		{Name: "TestEnded", Outcome: record.Pass, Wall: 90 * time.Second},
	}}}}
	for _, c := range []struct {
		test    string
		timeout time.Duration
		want    string
	}{
		{"TestStress", 10 * time.Minute, "-test.timeout=1m40s"},
		{"TestEnded", 10 * time.Minute, "-test.timeout=4m40s"},
		{"TestStress", time.Minute, "-test.timeout=1m0s"},
	} {
		o := Options{Flags: &record.GoTestFlags{Timeout: c.timeout}}
		tg, ok := target(o, "/bin", ix, finding.Witness{Test: "example.com/p." + c.test})
		if !ok || !slices.Contains(tg.Args, c.want) {
			t.Errorf("%s, -timeout %v: arguments %v, want %s", c.test, c.timeout, tg.Args, c.want)
		}
	}
}

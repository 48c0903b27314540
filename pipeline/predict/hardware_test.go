package predict

import (
	"fmt"
	"strings"
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

// oscsTrace is two goroutines writing x in critical sections of mu, in
// alternation, rounds times each; started by the test's goroutine if
// forked, else by code the trace does not show.
func oscsTrace(t *testing.T, rounds int, forked bool) []trace.Event {
	t.Helper()
	var b strings.Builder
	b.WriteString("precog trace v1 test=\"TestX\" package=\"example.com/k\" start=2025-01-02T15:04:05Z pid=1\n")
	if forked {
		b.WriteString("1 g=1 Begin parent=none\n2 g=1 Fork site=1 child=2\n3 g=1 Fork site=2 child=3\n4 g=2 Begin parent=1\n5 g=3 Begin parent=1\n")
	} else {
		b.WriteString("1 g=1 Begin parent=none\n2 g=1 TestStart name=\"TestX\"\n3 g=1 TestEnd outcome=pass\n4 g=2 Begin parent=none\n5 g=3 Begin parent=none\n")
	}
	seq := 5
	for r := range rounds {
		for g := 2; g <= 3; g++ {
			base := 10 * (g - 1)
			v := r + 1
			if g == 3 {
				v = 0
			}
			fmt.Fprintf(&b, "%d g=%d Lock site=%d addr=0x1000\n", seq+1, g, base)
			fmt.Fprintf(&b, "%d.1 g=%d Write site=%d addr=0x1008 value=%d\n", seq+1, g, base+1, v)
			fmt.Fprintf(&b, "%d g=%d Unlock site=%d addr=0x1000\n", seq+2, g, base+2)
			seq += 2
		}
	}
	tr, err := trace.ParseText(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return tr.Events
}

func oscsSites() *trace.SiteTable {
	return &trace.SiteTable{Sites: []trace.Site{
		{ID: 1, File: "/k/k_test.go", Line: 1, Col: 1, Kind: "go"},
		{ID: 2, File: "/k/k_test.go", Line: 2, Col: 1, Kind: "go"},
		{ID: 10, File: "/k/k.go", Line: 10, Col: 2, Kind: "lock", Expr: "c.mu"},
		{ID: 11, File: "/k/k.go", Line: 11, Col: 2, Kind: "write", Expr: "c.x"},
		{ID: 12, File: "/k/k.go", Line: 12, Col: 2, Kind: "unlock", Expr: "c.mu"},
		{ID: 20, File: "/k/k.go", Line: 20, Col: 2, Kind: "lock", Expr: "c.mu"},
		{ID: 21, File: "/k/k.go", Line: 21, Col: 2, Kind: "write", Expr: "c.x"},
		{ID: 22, File: "/k/k.go", Line: 22, Col: 2, Kind: "unlock", Expr: "c.mu"},
	}}
}

// TestHardwareNote: an OSCS finding says whether OSCS-HW would have
// caught it in the run, unless DetectOptions.NoHardware.
func TestHardwareNote(t *testing.T) {
	for _, tc := range []struct {
		rounds int
		forked bool
		off    bool
		want   string
	}{
		{2, true, false, "would have caught it in this run"},
		// Started by the test's goroutine, which made the object: the
		// line is shared from its first use (hwmodel's InitByParent).
		{1, true, false, "would have caught it in this run"},
		// Nobody recorded made the object: the first critical section
		// runs on a line no other core has touched.
		{1, false, false, "would have missed it in this run (not-shared): the earlier access (k.go:11, on core 1) was not recorded"},
		{2, true, true, ""},
	} {
		checks := testChecks{opts: DetectOptions{NoHardware: tc.off}}
		fs := checks.run("TestX", oscsTrace(t, tc.rounds, tc.forked), oscsSites(), false, rankedRun{}, nil, &traceClock{})
		if len(checks.internal) > 0 || len(fs) != 1 || fs[0].Kind != "oscs" {
			t.Fatalf("rounds %d: %d findings, internal errors %q; want the oscs finding", tc.rounds, len(fs), checks.internal)
		}
		var note string
		for _, n := range fs[0].Evidence.Notes {
			if strings.HasPrefix(n, "OSCS-HW") {
				note = n
			}
		}
		if !strings.Contains(note, tc.want) || (tc.want == "") != (note == "") {
			t.Errorf("rounds %d, forked %v, NoHardware %v: note %q, want one with %q", tc.rounds, tc.forked, tc.off, note, tc.want)
		}
	}
}
